import Testing
@_spi(Engine) @testable import Floe
@_spi(Engine) @testable import FloeEngine
@_spi(Engine) @testable import FloeStorage

/// The engine's record of what commits changed: merging in order, and the same changes found
/// again by comparing two versions' trees.
@Suite struct ChangeSetTests {
    @Test func mergingKeepsTheNetEffectInOrder() {
        var first = ChangeSet()
        first.recordInsert(table: "Dog", key: 1)
        first.recordWrite(table: "Dog", key: 1, column: 0)    // inside a new object: nothing more
        first.recordWrite(table: "Dog", key: 2, column: 1)
        var second = ChangeSet()
        second.recordDelete(table: "Dog", key: 1)             // created, then deleted: as if never
        second.recordDelete(table: "Dog", key: 3)
        second.recordInsert(table: "Dog", key: 3)             // deleted, then its key taken again
        second.recordWrite(table: "Dog", key: 2, column: 2)
        first.merge(second)
        let dogs = first.tables["Dog"]!
        #expect(dogs.inserted == [3])
        #expect(dogs.deleted == [3])
        #expect(dogs.modified == [2: [1, 2]])
        #expect(first.restricted(to: ["Cat"]).isEmpty)
    }

    @Test func comparingTwoVersionsFindsWhatTheirCommitsChanged() throws {
        let store = Store.inMemory(identifier: "change-set-\(UInt64.random(in: 0 ... .max))")
        let dogs = try Fixtures.makeDogs(in: store, count: 2_000)
        let before = try store.snapshot()
        let transaction = try store.beginWrite()
        try transaction.setValue(.int(7), in: dogs, key: 10, column: 1)
        try transaction.setValue(.string("dog11"), in: dogs, key: 11, column: 0)   // an equal value: no change in the values
        try transaction.deleteObject(from: dogs, key: 1_500)
        try transaction.insertObject(into: dogs, values: Fixtures.dogRow(5_000))
        try transaction.commit()
        let after = try store.snapshot()
        let changes = try VersionDiff.changes(from: before.group, to: after.group).tables["Dog"]!
        #expect(changes.modified == [10: [1]])
        #expect(changes.deleted == [1_500])
        #expect(changes.inserted == [2_000])
    }
}

/// Two versions compared side by side over many leaves (what the change feed reads): random
/// inserts, deletes and writes (equal values among them) across a table of thousands of
/// objects give exactly the changes that comparing every row of the two versions gives.
@Suite struct VersionDiffTests {
    static func rows(of table: TableHandle, in snapshot: Snapshot) throws -> [Int64: [Value]] {
        var rows: [Int64: [Value]] = [:]
        for key in try snapshot.objectKeys(in: table) { rows[key] = try snapshot.row(in: table, key: key) }
        return rows
    }

    @Test func theWalkOverUnsharedLeavesFindsWhatComparingEveryRowFinds() throws {
        let directory = TemporaryDirectory()
        let store = try Store.open(path: directory.file(), options: StoreOptions(durability: .none, compactsAutomatically: false))
        defer { store.close() }
        let dogs = try Fixtures.makeDogs(in: store, count: 3_000)
        var random = SeededGenerator(seed: 23)
        var next = 3_000
        for round in 0..<40 {
            let before = try store.snapshot()
            let transaction = try store.beginWrite()
            for _ in 0..<Int.random(in: 1...120, using: &random) {
                let key = Int64.random(in: 0..<Int64(next), using: &random)
                switch Int.random(in: 0..<4, using: &random) {
                case 0:
                    try transaction.insertObject(into: dogs, values: Fixtures.dogRow(next))
                    next += 1
                case 1:
                    if try transaction.contains(key, in: dogs) { _ = try transaction.deleteObject(from: dogs, key: key) }
                case 2:
                    if try transaction.contains(key, in: dogs) { try transaction.setValue(.int(Int64.random(in: 0..<3, using: &random)), in: dogs, key: key, column: 1) }
                default:
                    if try transaction.contains(key, in: dogs) { try transaction.setValue(.string("dog\(key)"), in: dogs, key: key, column: 0) }
                }
            }
            try transaction.commit()
            let after = try store.snapshot()
            let old = try Self.rows(of: dogs, in: before), new = try Self.rows(of: dogs, in: after)
            var expected = ChangeSet.TableChanges()
            expected.deleted = Set(old.keys.filter { new[$0] == nil })
            expected.inserted = Set(new.keys.filter { old[$0] == nil })
            for (key, row) in new {
                guard let earlier = old[key] else { continue }
                let columns = Set(row.indices.filter { row[$0] != earlier[$0] })
                if !columns.isEmpty { expected.modified[key] = columns }
            }
            let found = try VersionDiff.changes(from: before.group, to: after.group).tables["Dog"] ?? ChangeSet.TableChanges()
            #expect(found == expected, "round \(round)")
        }
    }
}

/// Reading many rows at once (what the change feed does per commit): one walk over the leaves
/// for many keys, a search each for a few; either way the same rows as one at a time.
@Suite struct RowsByKeyTests {
    @Test func manyAndFewKeysReadTheSameRowsAsOneAtATime() throws {
        let directory = TemporaryDirectory()
        let store = try Store.open(path: directory.file(), options: StoreOptions(durability: .none, compactsAutomatically: false))
        defer { store.close() }
        let dogs = try Fixtures.makeDogs(in: store, count: 2_000)
        let snapshot = try store.snapshot()
        var random = SeededGenerator(seed: 17)
        for count in [1, 10, 200, 1_500, 2_000] {
            let keys = Array((0..<2_000).map(Int64.init).shuffled(using: &random).prefix(count)).sorted()
            let rows = try snapshot.rows(in: dogs, keys: keys)
            #expect(rows.count == keys.count)
            for (key, row) in zip(keys, rows) { #expect(row == (try snapshot.row(in: dogs, key: key)), "key \(key) of \(count)") }
        }
        #expect(throws: FloeError.self) { _ = try snapshot.rows(in: dogs, keys: [5, 99_999]) }
        #expect(throws: FloeError.self) { _ = try snapshot.rows(in: dogs, keys: Array(0..<1_999).map(Int64.init) + [99_999]) }
    }
}
