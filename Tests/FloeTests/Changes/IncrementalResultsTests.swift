import Foundation
import Testing
@_spi(Engine) @testable import Floe
@_spi(Engine) @testable import FloeEngine
@_spi(Engine) @testable import FloeStorage

/// Filtered and sorted results kept up to date from what each commit touched: the answer moved
/// on from the previous one equals the query evaluated afresh, its diff rebuilds the new state
/// from the old, ties keep key order, objects move in sort order or leave and enter the filter,
/// and which queries qualify.
@Suite struct IncrementalResultsTests {
    final class Entry: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var score = 0
        @Persisted var group = ""
        @Persisted var rank: Int?
        @Persisted var note = ""
        @Persisted var owner: Holder?
        @Persisted var tags: List<String>
    }

    final class Holder: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var entries: List<Entry>
    }

    static func makeRealm(entries: Int) async throws -> Realm {
        let realm = try await inMemoryRealm("incremental-results")
        try await realm.write { realm in
            let groups = ["a", "b", "c"]
            for id in 0..<entries {
                let rank: Any = id % 4 == 0 ? NSNull() : id % 5
                let value: [String: Any] = ["id": id, "score": (id * 37) % 10, "group": groups[id % 3], "rank": rank, "note": "n"]
                try realm.create(Entry.self, value: value)
            }
        }
        return realm
    }

    /// The queries under test, each over every `Entry`.
    static let queries: [@Sendable (borrowing Realm.ReadTransaction) throws -> Results<Entry>] = [
        { $0.objects(Entry.self) },
        { try $0.objects(Entry.self).sorted(byKeyPath: "score") },
        { try $0.objects(Entry.self).filter("score >= 3 AND score < 7") },
        { try $0.objects(Entry.self).filter("group != 'b'").sorted(by: ["group", Floe.SortDescriptor(keyPath: "score", ascending: false)]) },
        { try $0.objects(Entry.self).sorted(byKeyPath: "rank", ascending: false) },
        { try $0.objects(Entry.self).filter("score > 4 OR rank == nil").sorted(by: ["rank", "score"]) },
        // Predicate forms tested on the values read beside the sort's (not through the evaluator).
        { try $0.objects(Entry.self).filter("score IN {1, 3, 5} OR group BEGINSWITH[c] 'B'").sorted(byKeyPath: "note") },
        { try $0.objects(Entry.self).filter("NOT (score BETWEEN {2, 6}) AND note != 'm3'").sorted(byKeyPath: "score", ascending: false) },
        { try $0.objects(Entry.self).filter("rank < score AND group ==[c] 'A'") },
    ]

    static func apply(_ deletions: [Int], _ insertions: [Int], to previous: [Int64], new: [Int64]) -> [Int64] {
        var state = previous
        for index in deletions.reversed() { state.remove(at: index) }
        for index in insertions { state.insert(new[index], at: index) }
        return state
    }

    /// One random write: inserts, deletes, and writes to sort, filter and unwatched columns,
    /// often to values that tie, sometimes to integers too large to compare as machine numbers.
    static func randomWrite(_ realm: Realm, random: inout SeededGenerator, nextID: inout Int) async throws {
        let operations = (0..<Int.random(in: 1...6, using: &random)).map { _ in
            (Int.random(in: 0..<8, using: &random), Int.random(in: 0..<nextID, using: &random), Int.random(in: 0..<10, using: &random))
        }
        let base = nextID
        nextID += operations.count
        try await realm.write { realm in
            for (offset, (operation, id, value)) in operations.enumerated() {
                if operation == 0 {
                    try realm.create(Entry.self, value: ["id": base + offset, "score": value, "group": ["a", "b", "c"][value % 3]])
                } else if let entry = realm.object(ofType: Entry.self, forPrimaryKey: id) {
                    switch operation {
                    case 1: try realm.delete(entry)
                    case 2: entry.score = value
                    case 3: entry.group = ["a", "b", "c"][value % 3]
                    case 4: entry.rank = value < 3 ? nil : value
                    case 5: entry.note = "m\(value)"
                    case 6: entry.score = entry.score   // an equal value: a modification, never a move
                    default: entry.score = Int.max - value   // beyond what a Double holds exactly
                    }
                }
            }
        }
    }

    /// Few objects: each commit touches a large share, and the touched rows are read leaf by leaf.
    @Test func eachAnswerMovedOnEqualsTheQueryEvaluatedAfresh() async throws {
        try await Self.checkAnswersMovedOn(entries: 60, rounds: 200, seed: 15)
    }

    /// Many objects: each commit touches a small share, and the touched rows are found one by one.
    @Test func eachAnswerOfALargerClassMovedOnEqualsTheQueryEvaluatedAfresh() async throws {
        try await Self.checkAnswersMovedOn(entries: 4_000, rounds: 40, seed: 16)
    }

    static func checkAnswersMovedOn(entries: Int, rounds: Int, seed: UInt64) async throws {
        let realm = try await Self.makeRealm(entries: entries)
        let querySpecs = try await realm.read { realm in try Self.queries.map { try $0(realm).query ?? ResultsQuery() } }
        var before = try await realm.read { realm in try realm.freeze() }
        let answers = querySpecs.map { IncrementalResults(type: Entry.self, query: $0) }
        for answer in answers { #expect(try answer.reset(at: before.snapshot)) }
        var random = SeededGenerator(seed: seed)
        var nextID = entries
        for round in 0..<rounds {
            try await Self.randomWrite(realm, random: &random, nextID: &nextID)
            let after = try await realm.read { realm in try realm.freeze() }
            let changes = try VersionDiff.changes(from: before.snapshot.group, to: after.snapshot.group)
            let tableChanges = changes.tables["Entry"] ?? ChangeSet.TableChanges()
            let binding = try #require(try FrozenSource.binding(for: Entry.self, in: after.snapshot))
            for (index, answer) in answers.enumerated() {
                let old = answer.keys
                let diff = try answer.advance(from: before.snapshot, to: after.snapshot, changes: tableChanges) { tableChanges.modified[$0] != nil }
                let fresh = try querySpecs[index].keys(in: binding, reader: after.snapshot) { (type) throws(FloeError) in
                    try FrozenSource.binding(for: type, in: after.snapshot)
                }
                #expect(answer.keys == fresh, "query \(index), round \(round)")
                #expect(Self.apply(diff.deletions, diff.insertions, to: old, new: answer.keys) == fresh, "query \(index), round \(round)")
                #expect(diff.deletions == diff.deletions.sorted() && diff.insertions == diff.insertions.sorted())
                for position in diff.modifications {
                    #expect(tableChanges.modified[old[position]] != nil, "query \(index), round \(round): \(old[position]) was not written")
                }
                // Every written object still in the answer, and not moved, is reported modified.
                let moved = Set(diff.deletions.map { old[$0] })
                for (position, key) in old.enumerated() where tableChanges.modified[key] != nil && !moved.contains(key) {
                    #expect(diff.modifications.contains(position), "query \(index), round \(round): \(key) written but not reported")
                }
            }
            before = after
        }
    }

    @Test func aValueThatKeepsItsPlaceIsAModificationNotAMove() async throws {
        let realm = try await inMemoryRealm("incremental-place")
        try await realm.write { realm in
            for (id, score) in [(1, 10), (2, 20), (3, 30), (4, 30)] { try realm.create(Entry.self, value: ["id": id, "score": score]) }
        }
        var changes = try await realm.read { realm in try realm.objects(Entry.self).sorted(byKeyPath: "score").changes }.makeAsyncIterator()
        _ = await changes.next()
        // 20 → 25 stays between 10 and 30.
        try await realm.write { realm in realm.object(ofType: Entry.self, forPrimaryKey: 2)!.score = 25 }
        guard case .update(let first, let deletions, let insertions, let modifications) = await changes.next() else { Issue.record("expected .update"); return }
        #expect(first.map(\.id) == [1, 2, 3, 4])
        #expect(deletions.isEmpty && insertions.isEmpty && modifications == [1])
        // A tie is broken by key order: 4 taking 30 from 40 goes nowhere; 1 taking 30 goes before 3 and 4.
        try await realm.write { realm in realm.object(ofType: Entry.self, forPrimaryKey: 1)!.score = 30 }
        guard case .update(let second, let deletions, let insertions, let modifications) = await changes.next() else { Issue.record("expected .update"); return }
        #expect(second.map(\.id) == [2, 1, 3, 4])
        #expect(Self.apply(deletions, insertions, to: [1, 2, 3, 4], new: second.map { Int64($0.id) }) == [2, 1, 3, 4])
        #expect(deletions.count == 1 && insertions.count == 1 && modifications.isEmpty)
    }

    @Test func anObjectLeavesAndEntersTheFilterWhenWritten() async throws {
        let realm = try await Self.makeRealm(entries: 10)
        var changes = try await realm.read { realm in
            try realm.objects(Entry.self).filter("score >= 5").sorted(byKeyPath: "score").changes
        }.makeAsyncIterator()
        guard case .initial(let initial) = await changes.next() else { Issue.record("expected .initial"); return }
        let start = initial.map(\.id)
        let leaving = start[0]
        try await realm.write { realm in
            realm.object(ofType: Entry.self, forPrimaryKey: leaving)!.score = 1             // leaves
            realm.object(ofType: Entry.self, forPrimaryKey: 1)!.score = 100                // (score 7: stays, moves last)
            realm.object(ofType: Entry.self, forPrimaryKey: 0)!.score = 6                  // (score 0: enters)
        }
        guard case .update(let entries, let deletions, let insertions, _) = await changes.next() else { Issue.record("expected .update"); return }
        let ids = entries.map(\.id)
        #expect(!ids.contains(leaving) && ids.contains(0) && ids.last == 1)
        let expected = try await realm.read { realm in Array(try realm.objects(Entry.self).filter("score >= 5").sorted(byKeyPath: "score").map(\.id)) }
        #expect(ids == expected)
        #expect(Self.apply(deletions, insertions, to: start.map(Int64.init), new: ids.map(Int64.init)) == ids.map(Int64.init))
    }

    @Test func randomWritesThroughStreamsAndASlowConsumerRebuildEveryState() async throws {
        let realm = try await Self.makeRealm(entries: 40)
        let streams = try await realm.read { realm in try Self.queries.map { try $0(realm).changes } }
        var iterators = streams.map { $0.makeAsyncIterator() }
        var states: [[Int]] = []
        for index in iterators.indices {
            guard case .initial(let initial) = await iterators[index].next() else { Issue.record("expected .initial"); return }
            states.append(initial.map(\.id))
        }
        var random = SeededGenerator(seed: 41)
        var nextID = 40
        for round in 0..<60 {
            try await Self.randomWrite(realm, random: &random, nextID: &nextID)
            // Every third round the consumers look: the updates between are coalesced.
            guard round % 3 == 2 else { continue }
            let wanted = try await realm.read { realm in try Self.queries.map { Array(try $0(realm).map(\.id)) } }
            for index in iterators.indices where states[index] != wanted[index] {
                guard case .update(let entries, let deletions, let insertions, let modifications) = await iterators[index].next() else {
                    Issue.record("expected .update"); return
                }
                let new = entries.map(\.id)
                #expect(modifications.allSatisfy { $0 < states[index].count })
                states[index] = Self.apply(deletions, insertions, to: states[index].map(Int64.init), new: new.map(Int64.init)).map(Int.init)
                #expect(states[index] == new, "query \(index), round \(round)")
                #expect(new == wanted[index], "query \(index), round \(round)")
            }
        }
    }

    @Test func onlyQueriesOverTheirOwnRowsQualify() async throws {
        let realm = try await Self.makeRealm(entries: 3)
        try await realm.write { realm in _ = try realm.create(Holder.self, value: ["id": 1, "entries": [["id": 50]]]) }
        let plans = try await realm.read { realm in
            let results: [Results<Entry>] = [
                try realm.objects(Entry.self).filter("score > 2").sorted(byKeyPath: "group"),   // own columns
                try realm.objects(Entry.self).filter("owner.name == 'x'"),                      // through a link
                try realm.objects(Entry.self).filter("tags.@count > 0"),                         // a list
                try realm.objects(Entry.self).sorted(byKeyPath: "owner.name"),                  // sorted through a link
                try realm.objects(Entry.self).distinct(by: ["group"]),                          // distinct
                try realm.object(ofType: Holder.self, forPrimaryKey: 1)!.entries.filter("score > 2"),   // a list's objects
            ]
            return results.map { $0.query?.readsOwnRowsOnly(of: Entry.self) ?? true }
        }
        #expect(plans == [true, false, false, false, false, false])
    }

    /// Queries through links, lists and linking objects observe the classes they read, and
    /// only those: a write to the linked class reaches the stream.
    @Test func queriesThroughLinksObserveTheClassesTheyRead() async throws {
        let realm = try await Self.makeRealm(entries: 3)
        try await realm.write { realm in
            let holder = try realm.create(Holder.self, value: ["id": 1, "name": "x"])
            realm.object(ofType: Entry.self, forPrimaryKey: 0)!.owner = holder
            realm.object(ofType: Entry.self, forPrimaryKey: 1)!.owner = holder
        }
        let names = try await realm.read { realm in
            let results: [Results<Entry>] = [
                try realm.objects(Entry.self).filter("owner.name == 'x'"),
                try realm.objects(Entry.self).filter("tags.@count > 0"),
                try realm.objects(Entry.self).sorted(byKeyPath: "owner.name"),
                try realm.objects(Entry.self).distinct(by: ["group"]),
                try realm.object(ofType: Holder.self, forPrimaryKey: 1)!.entries.filter("score > 2"),
            ]
            return results.map { $0.query?.readClassNames(of: Entry.self) }
        }
        #expect(names == [["Entry", "Holder"], ["Entry"], ["Entry", "Holder"], ["Entry"], ["Entry", "Holder"]])
        var changes = try await realm.read { realm in try realm.objects(Entry.self).filter("owner.name == 'y'").changes }.makeAsyncIterator()
        guard case .initial(let none) = await changes.next() else { Issue.record("expected .initial"); return }
        #expect(none.isEmpty)
        try await realm.write { realm in realm.object(ofType: Holder.self, forPrimaryKey: 1)!.name = "y" }
        guard case .update(let entries, _, let insertions, _) = await changes.next() else { Issue.record("expected .update"); return }
        #expect(entries.map(\.id) == [0, 1] && insertions == [0, 1])
    }
}
