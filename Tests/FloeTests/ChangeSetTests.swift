import Testing
@_spi(Engine) @testable import Floe

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
