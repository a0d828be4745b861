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
