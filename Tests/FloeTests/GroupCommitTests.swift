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

    /// A turn of one write (a lone writer) frees the path it replaced right away, without
    /// waking the background queue; a longer turn hands its trees to the queue, which frees them.
    @Test func fewReplacedTreesAreFreedAtOnceAndManyInTheBackground() async throws {
        let reclaimer = TreeReclaimer()
        weak var single: GroupNode?
        do {
            let tree = GroupNode(isMutable: false)
            single = tree
            reclaimer.keep(tree)
        }
        #expect(single != nil)
        reclaimer.releaseInBackground()
        #expect(single == nil, "a lone replaced tree was not freed at the end of its turn")
        #expect(reclaimer.count == 0)

        var kept: [() -> GroupNode?] = []
        for _ in 0..<TreeReclaimer.backgroundMinimum {
            let tree = GroupNode(isMutable: false)
            kept.append { [weak tree] in tree }
            reclaimer.keep(tree)
        }
        reclaimer.releaseInBackground()
        #expect(reclaimer.count == 0)
        var waited = 0
        while kept.contains(where: { $0() != nil }), waited < 500 {
            try await Task.sleep(nanoseconds: 10_000_000)
            waited += 1
        }
        #expect(!kept.contains(where: { $0() != nil }), "trees handed to the background queue were never freed")
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

    /// A writer process runs 8 tasks of awaited writes and prints each id once its write
    /// returned; killed at a random moment, every acknowledged id must be in the reopened file.
    @Test func killedGroupCommitterLosesNoAcknowledgedWrite() async throws {
        let directory = TemporaryDirectory("group-crash")
        let path = directory.file()
        var random = SystemRandomNumberGenerator()
        var acknowledgedTotal = 0
        for kill in 0..<25 {
            let child = try CrashChildProcess(["group", path, "8"])
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
