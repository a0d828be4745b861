import Foundation
import Testing
@_spi(Engine) @_spi(Testing) @testable import Floe
@testable import FloeCrashChild

/// Awaited writes queued together share one `fdatasync`, and a write is acknowledged only
/// once its group's sync returned.
@Suite struct GroupCommitTests {
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
        let url = URL(fileURLWithPath: directory.file())
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
        let url = URL(fileURLWithPath: directory.file())
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

    /// Writes queued on the actor while a sync runs are run back to back, yet each is its own
    /// transaction: its own version, its own result, and a throw rolls back that write alone.
    @Test func queuedWritesEachCommitAndRollBackAlone() async throws {
        let directory = TemporaryDirectory("group-commit-queue")
        FaultInjection.slowDown(.sync, by: 20_000, pathContains: "groupqueue-")
        defer { FaultInjection.remove(pathContains: "groupqueue-") }
        struct Refused: Error { let id: Int }
        let url = URL(fileURLWithPath: directory.file("groupqueue-entries.floe"))
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

    @Test func writesInsideTheActorStillSyncThemselves() async throws {
        let directory = TemporaryDirectory("group-commit-sync")
        let realm = try await Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: directory.file()), objectTypes: [Entry.self]))
        let version = try await realm.insertEntry(id: 1)
        // Durable before it returned: nothing left to wait for, and no group round was needed.
        try await realm.store.waitUntilDurable(version)
        #expect(realm.store.groupCommit.rounds == 0)
    }

    /// A lone writer (each write awaited before the next, nobody else writing) syncs on the
    /// realm's actor: every write gets a round of its own, run inline, none by the syncer.
    @Test func loneWriterSyncsInline() async throws {
        let directory = TemporaryDirectory("group-commit-lone")
        let url = URL(fileURLWithPath: directory.file("loneinline-entries.floe"))
        let writes = 20
        FaultInjection.count(pathContains: "loneinline-")
        defer { FaultInjection.remove(pathContains: "loneinline-") }
        do {
            let realm = try await Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [Entry.self]))
            let syncsBefore = FaultInjection.operations(pathContains: "loneinline-").filter { $0 == .sync }.count
            for id in 0..<writes {
                let returned = try await realm.write { realm in
                    _ = try realm.create(Entry.self, value: ["id": id])
                    return id
                }
                #expect(returned == id)
                // Acknowledged: its commit is durable already, with no round left to wait for.
                #expect(realm.store.groupCommit.inlineRounds == id + 1)
            }
            #expect(realm.store.groupCommit.rounds == writes)
            #expect(realm.store.groupCommit.inlineRounds == writes)
            // One fdatasync per write, each made before its write returned.
            let syncs = FaultInjection.operations(pathContains: "loneinline-").filter { $0 == .sync }.count - syncsBefore
            #expect(syncs == writes)
        }
        let reopened = try await Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [Entry.self]))
        #expect(try await reopened.read { realm in realm.objects(Entry.self).count } == writes)
    }

    /// A lone writer's sync that fails fails its write, and every later write and wait: the
    /// commit's bytes may or may not be on the disk.
    @Test func failedInlineSyncFailsTheWriteAndEveryLaterOne() async throws {
        let directory = TemporaryDirectory("group-commit-lone-fail")
        let url = URL(fileURLWithPath: directory.file("lonefail-entries.floe"))
        let realm = try await Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [Entry.self]))
        try await realm.write { realm in _ = try realm.create(Entry.self, value: ["id": 1]) }
        // The third sync from here fails: the writes before it succeed, each with its own sync.
        FaultInjection.install(.init(pathContains: "lonefail-", failing: 2, with: .error(EIO), kinds: [.sync]))
        defer { FaultInjection.remove(pathContains: "lonefail-") }
        for id in 2...3 { try await realm.write { realm in _ = try realm.create(Entry.self, value: ["id": id]) } }
        let failed = await #expect(throws: FloeError.self) {
            try await realm.write { realm in _ = try realm.create(Entry.self, value: ["id": 4]) }
        }
        guard case .io(_, "fsync", EIO) = failed else {
            Issue.record("the write failed with \(String(describing: failed)), not its sync's EIO")
            return
        }
        // Four writes, each synced inline: the one before the fault, two that synced, one that failed.
        #expect(realm.store.groupCommit.inlineRounds == 4)
        let later = await #expect(throws: FloeError.self) {
            try await realm.write { realm in _ = try realm.create(Entry.self, value: ["id": 5]) }
        }
        #expect(later == failed)
        let wait = await #expect(throws: FloeError.self) { try await realm.store.waitUntilDurable(realm.store.currentVersion + 1) }
        #expect(wait == failed)
        #expect(realm.store.groupCommit.rounds == 4, "no round ran after the failed one")
    }

    /// A writer that began alone (syncing inline) and is joined by others mid-way: the writes
    /// queued together while a sync runs still share rounds, and all of them land.
    @Test func loneWriterJoinedByOthersStillGroups() async throws {
        let directory = TemporaryDirectory("group-commit-joined")
        let url = URL(fileURLWithPath: directory.file("lonejoined-entries.floe"))
        FaultInjection.slowDown(.sync, by: 20_000, pathContains: "lonejoined-")
        defer { FaultInjection.remove(pathContains: "lonejoined-") }
        let realm = try await Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [Entry.self]))
        let alone = 5, joining = 20, perJoiner = 5, loneTotal = 40
        try await withThrowingTaskGroup(of: Void.self) { group in
            for id in 0..<alone { try await realm.write { realm in _ = try realm.create(Entry.self, value: ["id": id]) } }
            #expect(realm.store.groupCommit.inlineRounds == alone)
            group.addTask {
                for id in alone..<loneTotal { try await realm.write { realm in _ = try realm.create(Entry.self, value: ["id": id]) } }
            }
            for joiner in 0..<joining {
                group.addTask {
                    for index in 0..<perJoiner {
                        let id = 1_000 + joiner * perJoiner + index
                        try await realm.write { realm in _ = try realm.create(Entry.self, value: ["id": id, "writer": joiner + 1]) }
                    }
                }
            }
            try await group.waitForAll()
        }
        let writes = loneTotal + joining * perJoiner
        let rounds = realm.store.groupCommit.rounds
        #expect(rounds < writes / 2, "\(rounds) syncs for \(writes) writes")
        #expect(try await realm.read { realm in realm.objects(Entry.self).count } == writes)
    }

    /// A write awaited from inside another realm's actor (here each of two realms on one file
    /// awaits writes to the other, many at once): a sync run inline on one actor never waits
    /// for the other, so all of them finish.
    @Test func writesAwaitedFromInsideAnotherRealmsActorFinish() async throws {
        let directory = TemporaryDirectory("group-commit-nested")
        let url = URL(fileURLWithPath: directory.file("lonenested-entries.floe"))
        let configuration = Realm.Configuration(fileURL: url, objectTypes: [Entry.self])
        let first = try await Realm(configuration: configuration)
        let second = try await Realm(configuration: configuration)
        let perSide = 50
        let finished = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await withThrowingTaskGroup(of: Void.self) { writers in
                    writers.addTask { try await first.writeEntries(into: second, ids: 0..<perSide) }
                    writers.addTask { try await second.writeEntries(into: first, ids: perSide..<(2 * perSide)) }
                    writers.addTask { try await first.writeEntries(into: first, ids: (2 * perSide)..<(3 * perSide)) }
                    try await writers.waitForAll()
                }
                return true
            }
            group.addTask {
                try await Task.sleep(for: .seconds(60))
                return false
            }
            let first = try await group.next()!
            group.cancelAll()
            return first
        }
        #expect(finished, "writes awaited from inside another realm's actor did not finish within a minute")
        #expect(try await first.read { realm in realm.objects(Entry.self).count } == 3 * perSide)
    }

    /// A cancelled lone write either rolls back (cancelled before it committed) or lands and is
    /// durable (cancelled after): never both, never half; and the writes after it go on inline.
    @Test func cancelledLoneWritesRollBackOrLand() async throws {
        let directory = TemporaryDirectory("group-commit-cancel")
        let url = URL(fileURLWithPath: directory.file("lonecancel-entries.floe"))
        let realm = try await Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [Entry.self]))
        var landed: Set<Int> = []
        for id in 0..<40 {
            let task = Task {
                try await realm.write { realm in _ = try realm.create(Entry.self, value: ["id": id]) }
            }
            // Cancelled at varying points: before the write queued, while it ran, after it synced.
            if id % 4 == 0 { task.cancel() } else if id % 4 == 1 { await Task.yield(); task.cancel() }
            do {
                try await task.value
                landed.insert(id)
            } catch is CancellationError {
            }
        }
        let cancelledBeforeStart = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await realm.write { realm in _ = try realm.create(Entry.self, value: ["id": 100]) }
        }
        await #expect(throws: CancellationError.self) { try await cancelledBeforeStart.value }
        try await realm.write { realm in _ = try realm.create(Entry.self, value: ["id": 101]) }
        landed.insert(101)
        #expect(landed.count >= 21, "the uncancelled writes landed")
        let stored = Set(try await realm.read { realm in realm.objects(Entry.self).map(\.id) })
        #expect(stored == landed)
        // Every landed write was acknowledged after its own inline round: none is left waiting.
        #expect(realm.store.groupCommit.rounds == realm.store.groupCommit.inlineRounds)
        let reopened = try await Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [Entry.self]))
        #expect(Set(try await reopened.read { realm in realm.objects(Entry.self).map(\.id) }) == stored)
    }

    /// A writer process runs 8 tasks of awaited writes and prints each id once its write
    /// returned; killed at a random moment, every acknowledged id must be in the reopened file.
    @Test func killedGroupCommitterLosesNoAcknowledgedWrite() async throws {
        try await killedWritersLoseNoAcknowledgedWrite(writers: 8, directoryName: "group-crash")
    }

    /// The same with one writer: each of its writes is synced inline on the realm's actor
    /// (``loneWriterSyncsInline()``) and acknowledged only after that sync returned.
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
    /// On this realm's actor, awaits one write per id to `other` (which may be this realm).
    fileprivate func writeEntries(into other: Realm, ids: Range<Int>) async throws {
        for id in ids {
            try await other.write { realm in _ = try realm.create(GroupCommitTests.Entry.self, value: ["id": id]) }
        }
    }

    fileprivate func insertEntry(id: Int) throws -> UInt64 {
        try write { try create(GroupCommitTests.Entry.self, value: ["id": id]) }
        return store.currentVersion
    }
}
