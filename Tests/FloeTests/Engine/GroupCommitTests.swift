import Foundation
import Testing
@_spi(Engine) @_spi(Testing) @testable import Floe
@_spi(Engine) @_spi(Testing) @testable import FloeEngine
@_spi(Engine) @_spi(Testing) @testable import FloeStorage
@testable import FloeCrashChild

/// Awaited writes queued together share one `fdatasync`, and a write is acknowledged only
/// once its group's sync returned.
@Suite(.ownThread) struct GroupCommitTests {
    final class Entry: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var writer = 0
    }

    @Test func concurrentAwaitedWritesShareSyncsAndAllLand() async throws {
        let directory = TemporaryDirectory("group-commit")
        // A disk whose fdatasync takes 60 ms: the writes that queue meanwhile must share the next
        // one. (At 20 ms, a machine busy with the rest of the suite committed slower than it
        // synced, and the rounds stopped grouping.)
        FaultInjection.slowDown(.sync, by: 60_000, pathContains: "groupcommit-")
        defer { FaultInjection.remove(pathContains: "groupcommit-") }
        let url = directory.url()
        let writers = 50, perWriter = 10
        do {
            let realm = try await Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [Entry.self]))
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<writers {
                    group.addTask {
                        for index in 0..<perWriter {
                            try await realm.asyncWrite { realm in
                                try realm.create(Entry.self, value: ["id": writer * perWriter + index, "writer": writer])
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            let rounds = realm.store.groupCommit.rounds
            // Each write waited for a sync, but writes queued together shared one. How many
            // share depends on how fast the machine commits while a sync runs (a machine busy
            // with the rest of the suite commits few): fewer syncs than writes is the promise.
            #expect(rounds > 0 && rounds < writers * perWriter, "\(rounds) syncs for \(writers * perWriter) writes")
            #expect(try await realm.read { realm in realm.objects(Entry.self).count } == writers * perWriter)
        }
        let reopened = try await Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [Entry.self]))
        #expect(try await reopened.read { realm in realm.objects(Entry.self).count } == writers * perWriter)
        #expect(try reopened.store.verify().isValid)
    }

    /// The versions a turn of queued writes replaces are freed off the actor once the turn
    /// ends: their pins go at once (the count of active versions is back to one), and their
    /// trees do not outlive the hand-over.
    @Test func versionsReplacedByQueuedWritesAreFreedAfterTheirTurn() async throws {
        let directory = TemporaryDirectory("group-commit-reclaim")
        let url = directory.url()
        let realm = try await Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [Entry.self]))
        try await realm.asyncWrite { realm in try realm.add(Entry()) }
        weak let replaced = try realm.store.snapshot().group
        #expect(replaced != nil)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 1...20 {
                group.addTask {
                    try await realm.asyncWrite { realm in try realm.create(Entry.self, value: ["id": writer, "writer": writer]) }
                }
            }
            try await group.waitForAll()
        }
        #expect(realm.store.activeVersionCount == 1)
        var waited = 0
        while replaced != nil, waited < 500 {
            try await Task.sleep(nanoseconds: 10_000_000)
            waited += 1
        }
        #expect(replaced == nil, "the root of a version replaced by queued writes is still alive")
        #expect(try await realm.read { realm in realm.objects(Entry.self).count } == 21)
    }

    /// The engine keeps the versions a turn's commits replace until the turn ends, and frees
    /// them then, on the writer's own thread: nothing is left for another thread to free later.
    /// A commit outside a turn lets its replaced version go at once (no reader holds it here).
    @Test func aTurnKeepsTheVersionsItsCommitsReplaceUntilItEnds() throws {
        let store = Store.inMemory(identifier: "turn-\(UInt64.random(in: 0 ... .max))")
        try store.beginWrite().commit()
        let turn = TurnOfWrites()
        var replaced: [() -> GroupNode?] = []
        for _ in 0..<8 {
            weak let root = try store.snapshot().group
            replaced.append { root }
            try store.beginWrite(in: turn).commit(deferringSync: true)
        }
        #expect(turn.keptTreeCount == 8)
        #expect(!replaced.contains(where: { $0() == nil }), "a replaced version was freed before its turn ended")
        turn.end()
        #expect(turn.keptTreeCount == 0)
        #expect(!replaced.contains(where: { $0() != nil }), "the replaced versions were not freed when the turn ended")

        weak let outsideTurn = try store.snapshot().group
        try store.beginWrite().commit()
        #expect(outsideTurn == nil, "a version replaced outside a turn was kept")
    }

    /// A long turn does not hold every version it replaced: every 64 commits they are freed.
    @Test func aLongTurnFreesWhatItKeptEverySoManyCommits() throws {
        let store = Store.inMemory(identifier: "long-turn-\(UInt64.random(in: 0 ... .max))")
        try store.beginWrite().commit()
        let turn = TurnOfWrites()
        weak let first = try store.snapshot().group
        for _ in 0..<(TurnOfWrites.replacedTreesPerRelease - 1) { try store.beginWrite(in: turn).commit(deferringSync: true) }
        #expect(first != nil)
        #expect(turn.keptTreeCount == TurnOfWrites.replacedTreesPerRelease - 1)
        try store.beginWrite(in: turn).commit(deferringSync: true)
        #expect(first == nil, "a turn of \(TurnOfWrites.replacedTreesPerRelease) commits still holds its first replaced version")
        #expect(turn.keptTreeCount == 0)
        turn.end()
    }

    /// Writes queued on the actor while a sync runs are run back to back, yet each is its own
    /// transaction: its own version, its own result, and a throw rolls back that write alone.
    @Test func queuedWritesEachCommitAndRollBackAlone() async throws {
        let directory = TemporaryDirectory("group-commit-queue")
        FaultInjection.slowDown(.sync, by: 20_000, pathContains: "groupqueue-")
        defer { FaultInjection.remove(pathContains: "groupqueue-") }
        struct Refused: Error { let id: Int }
        let url = directory.url("groupqueue-entries.floe")
        let realm = try await Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [Entry.self]))
        let firstVersion = realm.store.currentVersion
        let writers = 20, perWriter = 5
        let outcomes = try await withThrowingTaskGroup(of: [(id: Int, returned: Int?)].self) { group in
            for writer in 0..<writers {
                group.addTask {
                    var outcomes: [(id: Int, returned: Int?)] = []
                    for index in 0..<perWriter {
                        let id = writer * perWriter + index
                        do {
                            let returned = try await realm.write { realm in
                                try realm.create(Entry.self, value: ["id": id, "writer": writer])
                                // Every seventh write fails after it created its entry.
                                if id % 7 == 3 { throw Refused(id: id) }
                                return try realm.objects(Entry.self).filter("id == %@", id).first!.id
                            }
                            outcomes.append((id, returned))
                        } catch let error as Refused {
                            #expect(error.id == id)
                            outcomes.append((id, nil))
                        }
                    }
                    return outcomes
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(outcomes.count == writers * perWriter)
        for outcome in outcomes where outcome.returned != nil {
            #expect(outcome.returned == outcome.id, "write \(outcome.id) returned another write's result")
        }
        let landed = Set(outcomes.filter { $0.returned != nil }.map(\.id))
        #expect(landed == Set((0..<writers * perWriter).filter { $0 % 7 != 3 }))
        // One version per write that committed, none for those that threw.
        #expect(realm.store.currentVersion - firstVersion == UInt64(landed.count))
        let stored = try await realm.read { realm in Set(realm.objects(Entry.self).map(\.id)) }
        #expect(stored == landed)
        #expect(realm.store.groupCommit.rounds < landed.count, "\(realm.store.groupCommit.rounds) syncs for \(landed.count) writes")
    }

    /// A lone writer (each write awaited before the next) whose syncs are quick watches for its
    /// outcome for a moment instead of suspending at once; either way it returns only after the
    /// `fdatasync` that covers its commit, and every write lands.
    @Test func aLoneWriterReturnsOnlyAfterItsSync() async throws {
        let directory = TemporaryDirectory("group-commit-lone")
        let url = directory.url("lonewatch-entries.floe")
        FaultInjection.count(pathContains: "lonewatch-")
        defer { FaultInjection.remove(pathContains: "lonewatch-") }
        let writes = 40
        do {
            let realm = try await Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [Entry.self]))
            let syncsBefore = FaultInjection.operations(pathContains: "lonewatch-").filter { $0 == .sync }.count
            for id in 0..<writes {
                let returned = try await realm.write { realm in
                    _ = try realm.create(Entry.self, value: ["id": id])
                    return id
                }
                #expect(returned == id)
                // Its commit's sync returned before it did: one round per lone write.
                let syncs = FaultInjection.operations(pathContains: "lonewatch-").filter { $0 == .sync }.count - syncsBefore
                #expect(syncs >= id + 1, "write \(id) returned after \(syncs) syncs")
                #expect(realm.store.groupCommit.rounds >= id + 1)
            }
            #expect(realm.store.groupCommit.lastRoundNanoseconds != nil)
        }
        let reopened = try await Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [Entry.self]))
        #expect(try await reopened.read { realm in realm.objects(Entry.self).count } == writes)
    }

    /// A lone writer's sync that fails, or that is slower than the writer's watch, reaches the
    /// writer all the same: the failed one as its error (and every later write fails: what
    /// reached the disk is unknown), the slow one as its result once the sync returned.
    @Test func aLoneWriterGetsASlowOrFailedSyncsOutcome() async throws {
        let directory = TemporaryDirectory("group-commit-lone-fail")
        let url = directory.url("lonefail-entries.floe")
        let realm = try await Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [Entry.self]))
        for id in 0..<5 { try await realm.write { realm in _ = try realm.create(Entry.self, value: ["id": id]) } }
        // Slower than the watch: the writer suspends and is resumed after the sync.
        FaultInjection.slowDown(.sync, by: 2_000, pathContains: "lonefail-")
        let clock = ContinuousClock()
        let started = clock.now
        try await realm.write { realm in _ = try realm.create(Entry.self, value: ["id": 5]) }
        #expect(clock.now - started >= .microseconds(2_000), "the write returned before its slowed sync")
        FaultInjection.remove(pathContains: "lonefail-")
        // Quick again, then a sync that fails.
        for id in 6..<9 { try await realm.write { realm in _ = try realm.create(Entry.self, value: ["id": id]) } }
        FaultInjection.install(.init(pathContains: "lonefail-", failing: 0, with: .error(EIO), kinds: [.sync]))
        defer { FaultInjection.remove(pathContains: "lonefail-") }
        let failed = await #expect(throws: FloeError.self) {
            try await realm.write { realm in _ = try realm.create(Entry.self, value: ["id": 9]) }
        }
        guard case .io(_, "fsync", EIO) = failed else {
            Issue.record("the write failed with \(String(describing: failed)), not its sync's EIO")
            return
        }
        let later = await #expect(throws: FloeError.self) {
            try await realm.write { realm in _ = try realm.create(Entry.self, value: ["id": 10]) }
        }
        #expect(later == failed)
    }

    @Test func writesInsideTheActorStillSyncThemselves() async throws {
        let directory = TemporaryDirectory("group-commit-sync")
        let realm = try await Realm(configuration: Realm.Configuration(fileURL: directory.url(), objectTypes: [Entry.self]))
        let version = try await realm.insertEntry(id: 1)
        // Durable before it returned: nothing left to wait for, and no group round was needed.
        try await realm.store.waitUntilDurable(version)
        #expect(realm.store.groupCommit.rounds == 0)
    }

    /// A writer process runs 8 tasks of awaited writes and prints each id once its write
    /// returned; killed at a random moment, every acknowledged id must be in the reopened file.
    @Test func killedGroupCommitterLosesNoAcknowledgedWrite() async throws {
        try await killedWritersLoseNoAcknowledgedWrite(writers: 8, directoryName: "group-crash")
    }

    /// The same with one writer, whose writes watch for their outcomes instead of suspending
    /// when the syncs are quick: none returns before its sync did.
    @Test func killedLoneWriterLosesNoAcknowledgedWrite() async throws {
        try await killedWritersLoseNoAcknowledgedWrite(writers: 1, directoryName: "lone-crash")
    }

    private func killedWritersLoseNoAcknowledgedWrite(writers: Int, directoryName: String) async throws {
        let directory = TemporaryDirectory(directoryName)
        let path = directory.file()
        var random = SystemRandomNumberGenerator()
        var acknowledgedTotal = 0
        for kill in 0..<25 {
            let child = try CrashChildProcess(["group", path, String(writers)])
            guard let ready = child.readLine(killingAfter: 30), ready.hasPrefix("READY") else {
                let ending = child.kill()
                Issue.record("the child \(ending) before it was ready (kill \(kill)): \(child.errorText())")
                return
            }
            usleep(UInt32.random(in: 2_000...60_000, using: &random))
            let ending = child.kill()
            let lines = child.remainingLines()
            try #require(ending == .signalled(SIGKILL), "the child \(ending) before it was killed: \(child.errorText())")
            let acknowledged = lines.compactMap { $0.hasPrefix("ACK ") ? Int($0.dropFirst(4)) : nil }
            acknowledgedTotal += acknowledged.count
            let store = try Store.open(path: path, options: StoreOptions(compactsAutomatically: false))
            let report = try store.verify()
            store.close()
            #expect(report.isValid, "kill \(kill): \(report)")
            let realm = try await Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [GroupCommitEntry.self]))
            let stored = Set(try await realm.read { realm in realm.objects(GroupCommitEntry.self).map(\.id) })
            let lost = acknowledged.filter { !stored.contains($0) }
            #expect(lost.isEmpty, "kill \(kill): acknowledged writes \(lost.prefix(5)) are missing after the crash")
        }
        #expect(acknowledgedTotal > 25, "only \(acknowledgedTotal) writes were acknowledged: the kills tested nothing")
    }
}

extension Realm {
    fileprivate func insertEntry(id: Int) throws -> UInt64 {
        try write { try create(GroupCommitTests.Entry.self, value: ["id": id]) }
        return store.currentVersion
    }
}
