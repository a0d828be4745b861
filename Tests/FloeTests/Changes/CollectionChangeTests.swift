import Foundation
import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

/// Collection change streams: `.initial` then updates whose deletions, insertions and
/// modifications, applied to the previous state, give the new one (randomized, on plain,
/// sorted and filtered results); lists, sets and linking objects; deleted objects' keys;
/// coalescing under a slow consumer; 100 observers on one table.
@Suite struct CollectionChangeTests {
    final class Item: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var value = 0
        @Persisted var tag = ""
    }

    final class Shelf: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var items: List<Item>
        @Persisted var labels: MutableSet<String>
        @Persisted var numbers: List<Int>
    }

    final class Keeper: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var tracked: Tracked?
    }

    final class Tracked: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted(originProperty: "tracked") var keepers: LinkingObjects<Keeper>
    }

    static func makeRealm(items: Int = 5) async throws -> Realm {
        let realm = try await inMemoryRealm("collection-changes")
        try await realm.write { realm in
            for id in 0..<items { try realm.create(Item.self, value: ["id": id, "value": id * 10, "tag": "t\(id)"]) }
        }
        return realm
    }

    /// `previous` with the update's deletions removed and insertions taken from `new`.
    static func apply<T>(_ deletions: [Int], _ insertions: [Int], to previous: [T], new: [T]) -> [T] {
        var state = previous
        for index in deletions.reversed() { state.remove(at: index) }
        for index in insertions { state.insert(new[index], at: index) }
        return state
    }

    @Test func resultsReportInsertionsDeletionsAndModifications() async throws {
        let realm = try await Self.makeRealm()
        var changes = try await realm.read { realm in try realm.objects(Item.self).changes }.makeAsyncIterator()
        guard case .initial(let initial) = await changes.next() else { Issue.record("expected .initial"); return }
        #expect(initial.map(\.id) == [0, 1, 2, 3, 4])
        try await realm.write { realm in
            try realm.delete(realm.object(ofType: Item.self, forPrimaryKey: 1)!)
            realm.object(ofType: Item.self, forPrimaryKey: 3)!.value = 30   // an equal value still counts
            try realm.create(Item.self, value: ["id": 7, "value": 70])
        }
        guard case .update(let items, let deletions, let insertions, let modifications) = await changes.next() else { Issue.record("expected .update"); return }
        #expect(items.map(\.id) == [0, 2, 3, 4, 7])
        #expect(deletions == [1])
        #expect(insertions == [4])
        #expect(modifications == [3])
    }

    @Test func deletedObjectsKeysComeWithTheUpdate() async throws {
        let realm = try await Self.makeRealm()
        var changes = try await realm.read { realm in try realm.objects(Item.self).changes.withDeletedKeys }.makeAsyncIterator()
        _ = await changes.next()
        try await realm.write { realm in
            try realm.delete(realm.object(ofType: Item.self, forPrimaryKey: 4)!)
            try realm.delete(realm.object(ofType: Item.self, forPrimaryKey: 2)!)
        }
        let detail = await changes.next()
        guard case .update(_, let deletions, _, _)? = detail?.change else { Issue.record("expected .update"); return }
        #expect(deletions == [2, 4])
        #expect(detail?.deletedKeys == [.int(2), .int(4)])
    }

    @Test func sortedResultsReportMovesAsDeletionAndInsertion() async throws {
        let realm = try await Self.makeRealm()
        var changes = try await realm.read { realm in try realm.objects(Item.self).sorted(byKeyPath: "value").changes }.makeAsyncIterator()
        _ = await changes.next()
        try await realm.write { realm in realm.object(ofType: Item.self, forPrimaryKey: 0)!.value = 25 }
        guard case .update(let items, let deletions, let insertions, let modifications) = await changes.next() else { Issue.record("expected .update"); return }
        #expect(items.map(\.id) == [1, 2, 0, 3, 4])
        #expect(Self.apply(deletions, insertions, to: [0, 1, 2, 3, 4], new: items.map(\.id)) == [1, 2, 0, 3, 4])
        #expect(deletions == [0] && insertions == [2] && modifications.isEmpty)
    }

    @Test func keyPathsNarrowWhatCountsAsAModification() async throws {
        let realm = try await Self.makeRealm()
        var changes = try await realm.read { realm in try realm.objects(Item.self).changes(keyPaths: ["tag"]) }.makeAsyncIterator()
        _ = await changes.next()
        try await realm.write { realm in realm.object(ofType: Item.self, forPrimaryKey: 0)!.value = 1 }
        try await realm.write { realm in realm.object(ofType: Item.self, forPrimaryKey: 2)!.tag = "x" }
        guard case .update(_, _, _, let modifications) = await changes.next() else { Issue.record("expected .update"); return }
        #expect(modifications == [2])
        await #expect(throws: FloeError.self) { try await realm.read { realm in try realm.objects(Item.self).changes(keyPaths: ["nope"]) } }
    }

    @Test func listsReportPositions() async throws {
        let realm = try await Self.makeRealm()
        try await realm.write { realm in
            let shelf = try realm.create(Shelf.self, value: ["id": 1])
            for id in 0..<4 { shelf.items.append(realm.object(ofType: Item.self, forPrimaryKey: id)!) }
            shelf.numbers.append(objectsIn: [1, 2, 3])
        }
        var items = try await realm.read { realm in try realm.object(ofType: Shelf.self, forPrimaryKey: 1)!.items.changes }.makeAsyncIterator()
        var numbers = try await realm.read { realm in try realm.object(ofType: Shelf.self, forPrimaryKey: 1)!.numbers.changes }.makeAsyncIterator()
        _ = await items.next()
        _ = await numbers.next()
        try await realm.write { realm in
            let shelf = realm.object(ofType: Shelf.self, forPrimaryKey: 1)!
            shelf.items.remove(at: 1)
            shelf.items.append(realm.object(ofType: Item.self, forPrimaryKey: 4)!)
            realm.object(ofType: Item.self, forPrimaryKey: 2)!.tag = "changed"
            shelf.numbers.insert(9, at: 0)
        }
        guard case .update(let list, let deletions, let insertions, let modifications) = await items.next() else { Issue.record("expected .update"); return }
        #expect(list.map(\.id) == [0, 2, 3, 4])
        #expect(deletions == [1] && insertions == [3] && modifications == [2])
        guard case .update(let values, let removed, let added, _) = await numbers.next() else { Issue.record("expected .update"); return }
        #expect(Array(values) == [9, 1, 2, 3] && removed.isEmpty && added == [0])
    }

    @Test func setsAndLinkingObjectsReportChanges() async throws {
        let realm = try await Self.makeRealm()
        try await realm.write { realm in
            let shelf = try realm.create(Shelf.self, value: ["id": 1])
            shelf.labels.insert("b")
            try realm.create(Tracked.self, value: ["id": 1])
        }
        var labels = try await realm.read { realm in try realm.object(ofType: Shelf.self, forPrimaryKey: 1)!.labels.changes }.makeAsyncIterator()
        var keepers = try await realm.read { realm in try realm.object(ofType: Tracked.self, forPrimaryKey: 1)!.keepers.changes }.makeAsyncIterator()
        _ = await labels.next()
        guard case .initial(let none) = await keepers.next() else { Issue.record("expected .initial"); return }
        #expect(none.isEmpty)
        try await realm.write { realm in
            realm.object(ofType: Shelf.self, forPrimaryKey: 1)!.labels.insert("a")
        }
        guard case .update(let set, _, let inserted, _) = await labels.next() else { Issue.record("expected .update"); return }
        #expect(Array(set) == ["a", "b"] && inserted == [0])
        try await realm.write { realm in
            let tracked = realm.object(ofType: Tracked.self, forPrimaryKey: 1)!
            try realm.create(Keeper.self, value: ["id": 1, "name": "Ann", "tracked": tracked])
            try realm.create(Keeper.self, value: ["id": 2, "name": "Bo", "tracked": tracked])
        }
        guard case .update(let linking, _, let came, _) = await keepers.next() else { Issue.record("expected .update"); return }
        #expect(linking.map(\.name) == ["Ann", "Bo"] && came == [0, 1])
        try await realm.write { realm in realm.object(ofType: Keeper.self, forPrimaryKey: 2)!.name = "Cy" }
        guard case .update(_, _, _, let renamed) = await keepers.next() else { Issue.record("expected .update"); return }
        #expect(renamed == [1])
        try await realm.write { realm in realm.object(ofType: Keeper.self, forPrimaryKey: 1)!.tracked = nil }
        guard case .update(let left, let gone, _, _) = await keepers.next() else { Issue.record("expected .update"); return }
        #expect(left.map(\.name) == ["Cy"] && gone == [0])
    }

    @Test func aListEndsWhenItsObjectIsDeleted() async throws {
        let realm = try await Self.makeRealm()
        try await realm.asyncWrite { realm in _ = try realm.create(Shelf.self, value: ["id": 1]) }
        var items = try await realm.read { realm in try realm.object(ofType: Shelf.self, forPrimaryKey: 1)!.items.changes }.makeAsyncIterator()
        _ = await items.next()
        try await realm.write { realm in try realm.delete(realm.object(ofType: Shelf.self, forPrimaryKey: 1)!) }
        #expect(await items.next() == nil)
    }

    @Test func aSlowConsumerGetsFewerCoalescedUpdatesThatReproduceTheFinalState() async throws {
        let realm = try await Self.makeRealm(items: 30)
        var changes = try await realm.read { realm in try realm.objects(Item.self).sorted(byKeyPath: "value").changes }.makeAsyncIterator()
        guard case .initial(let initial) = await changes.next() else { Issue.record("expected .initial"); return }
        var state = initial.map(\.id)
        var random = SeededGenerator(seed: 20)
        var nextID = 100
        for _ in 0..<20 {   // the consumer is held back over all of them
            let (operation, id, value, newID) = (Int.random(in: 0..<3, using: &random), Int.random(in: 0..<30, using: &random),
                                                 Int.random(in: 0..<500, using: &random), nextID)
            nextID += 1
            try await realm.write { realm in
                if operation == 0 { try realm.create(Item.self, value: ["id": newID, "value": value]) }
                else if let item = realm.object(ofType: Item.self, forPrimaryKey: id) {
                    if operation == 1 { try realm.delete(item) } else { item.value = value }
                }
            }
        }
        let final = try await realm.read { realm in Array(try realm.objects(Item.self).sorted(byKeyPath: "value").map(\.id)) }
        var updates = 0
        while state != final, case .update(let items, let deletions, let insertions, _)? = await changes.next() {
            updates += 1
            state = Self.apply(deletions, insertions, to: state, new: items.map(\.id))
            #expect(state == items.map(\.id))
        }
        #expect(state == final)
        #expect(updates < 20)
    }

    @Test func randomWritesGiveDiffsThatRebuildEveryState() async throws {
        let realm = try await Self.makeRealm(items: 20)
        let streams = try await realm.read { realm in
            [try realm.objects(Item.self).changes,
             try realm.objects(Item.self).sorted(byKeyPath: "value").changes,
             try realm.objects(Item.self).filter("value > 100").sorted(byKeyPath: "tag", ascending: false).changes]
        }
        let queries: [@Sendable (borrowing Realm.ReadTransaction) throws -> [Int]] = [
            { Array($0.objects(Item.self).map(\.id)) },
            { Array(try $0.objects(Item.self).sorted(byKeyPath: "value").map(\.id)) },
            { Array(try $0.objects(Item.self).filter("value > 100").sorted(byKeyPath: "tag", ascending: false).map(\.id)) },
        ]
        // Every stream's consumer checks each update against the state it had, then against the
        // state the realm held at that update's version.
        let expected = Locked<[UInt64: [[Int]]]>([:])
        let record: @Sendable () async throws -> UInt64 = {
            let (version, states) = try await realm.read { realm in
                (try realm.freeze().version, try queries.map { try $0(realm) })
            }
            expected.withLock { $0[version] = states }
            return version
        }
        let first = try await record()
        let consumers = streams.enumerated().map { (index, stream) in
            Task { () -> (checked: Int, failures: [String]) in
                var state: [Int] = []
                var checked = 0
                var failures: [String] = []
                for await change in stream {
                    switch change {
                    case .initial(let items):
                        state = items.map(\.id)
                        if items.version != first { failures.append("initial at \(items.version)") }
                    case .update(let items, let deletions, let insertions, let modifications):
                        let new = items.map(\.id)
                        if modifications.contains(where: { $0 >= state.count }) { failures.append("modification out of range") }
                        state = Self.apply(deletions, insertions, to: state, new: new)
                        if state != new { failures.append("diff does not rebuild version \(items.version)") }
                        if let wanted = expected.withLock({ $0[items.version] })?[index], wanted != new { failures.append("wrong state at \(items.version)") }
                        checked += 1
                        if new.contains(-1) { return (checked, failures) }
                    }
                }
                return (checked, failures)
            }
        }
        var random = SeededGenerator(seed: 99)
        var nextID = 100
        for _ in 0..<150 {
            let operations = (0..<Int.random(in: 1...4, using: &random)).map { _ in
                (Int.random(in: 0..<4, using: &random), Int.random(in: 0..<(nextID), using: &random), Int.random(in: 0..<200, using: &random))
            }
            let base = nextID
            nextID += operations.count
            try await realm.write { realm in
                for (offset, (operation, id, value)) in operations.enumerated() {
                    if operation == 0 { try realm.create(Item.self, value: ["id": base + offset, "value": value, "tag": "t\(value % 7)"]) }
                    else if let item = realm.object(ofType: Item.self, forPrimaryKey: id) {
                        switch operation {
                        case 1: try realm.delete(item)
                        case 2: item.value = value
                        default: item.tag = "t\(value % 9)"
                        }
                    }
                }
            }
            _ = try await record()
        }
        // A last object every stream shows, so that each consumer knows it has seen the end.
        try await realm.asyncWrite { realm in _ = try realm.create(Item.self, value: ["id": -1, "value": 1000, "tag": "zzz"]) }
        _ = try await record()
        for consumer in consumers {
            let (checked, failures) = await consumer.value
            #expect(failures.isEmpty, "\(failures.prefix(5))")
            #expect(checked > 0)
        }
    }

    @Test func aHundredObserversOfOneTableEachGetTheUpdate() async throws {
        let realm = try await Self.makeRealm(items: 200)
        let streams = try await realm.read { realm in try (0..<100).map { _ in try realm.objects(Item.self).changes } }
        var iterators = streams.map { $0.makeAsyncIterator() }
        for index in iterators.indices { _ = await iterators[index].next() }
        try await realm.write { realm in realm.object(ofType: Item.self, forPrimaryKey: 37)!.value = -5 }
        for index in iterators.indices {
            guard case .update(_, let deletions, let insertions, let modifications) = await iterators[index].next() else {
                Issue.record("observer \(index) got no update"); continue
            }
            #expect(deletions.isEmpty && insertions.isEmpty && modifications == [37])
        }
    }

    @Test func updatesArriveInCommitOrderToAConsumerOnAnotherActor() async throws {
        let realm = try await Self.makeRealm()
        let stream = try await realm.read { realm in try realm.objects(Item.self).changes }
        actor Watcher {
            var versions: [UInt64] = []
            func watch(_ stream: CollectionChanges<FrozenResults<Item>>, until count: Int) async {
                for await change in stream {
                    if case .update(let items, _, _, _) = change { versions.append(items.version) }
                    if case .update(let items, _, _, _) = change, items.count == count { return }
                }
            }
        }
        let watcher = Watcher()
        let watching = Task { await watcher.watch(stream, until: 55) }
        for id in 5..<55 { try await realm.asyncWrite { realm in _ = try realm.create(Item.self, value: ["id": id]) } }
        await watching.value
        let versions = await watcher.versions
        #expect(!versions.isEmpty && versions == versions.sorted() && Set(versions).count == versions.count)
    }

    @Test func aResultsStreamMadeInsideAWriteSeesThatWrite() async throws {
        let realm = try await Self.makeRealm()
        let stream = try await realm.write { realm in
            let stream = try realm.objects(Item.self).changes
            try realm.create(Item.self, value: ["id": 9])
            return stream
        }
        var changes = stream.makeAsyncIterator()
        guard case .initial(let before) = await changes.next() else { Issue.record("expected .initial"); return }
        #expect(before.count == 5)
        guard case .update(let after, _, let insertions, _) = await changes.next() else { Issue.record("expected .update"); return }
        #expect(after.count == 6 && insertions == [5])
    }

    @Test func cancellingTheConsumerEndsACollectionStream() async throws {
        let realm = try await Self.makeRealm()
        let stream = try await realm.read { realm in try realm.objects(Item.self).changes }
        let consumer = Task {
            var received = 0
            for await _ in stream { received += 1 }
            return received
        }
        try await Task.sleep(for: .milliseconds(20))
        consumer.cancel()
        #expect(await consumer.value <= 1)   // at most the initial state, then the end
    }
}
