import Foundation
import Testing
@_spi(Engine) @testable import Floe
@_spi(Engine) @testable import FloeEngine
@_spi(Engine) @testable import FloeStorage

@Suite struct SnapshotTests {
    @Test func snapshotNeverChanges() throws {
        let directory = TemporaryDirectory()
        let store = try Store.open(path: directory.file(), options: StoreOptions(durability: .none))
        let dogs = try Fixtures.makeDogs(in: store, count: 600)
        let before = try store.snapshot()
        let transaction = try store.beginWrite()
        try transaction.setValue(.string("changed"), in: dogs, key: 10, column: 0)
        try transaction.deleteObject(from: dogs, key: 11)
        try transaction.insertObject(into: dogs, values: Fixtures.dogRow(9999))
        // Uncommitted changes are visible inside the transaction only.
        #expect(try transaction.value(in: dogs, key: 10, column: 0) == .string("changed"))
        #expect(try store.snapshot().value(in: dogs, key: 10, column: 0) == .string("dog10"))
        try transaction.commit()
        let after = try store.snapshot()
        #expect(before.version == 1 && after.version == 2)
        #expect(try before.value(in: dogs, key: 10, column: 0) == .string("dog10"))
        #expect(try before.contains(11, in: dogs))
        #expect(try before.objectCount(in: dogs) == 600)
        #expect(try after.value(in: dogs, key: 10, column: 0) == .string("changed"))
        #expect(try !after.contains(11, in: dogs))
        #expect(try after.objectCount(in: dogs) == 600)
        store.close()
    }

    @Test func rollbackDiscardsEverything() throws {
        let store = Store.inMemory(identifier: "rollback-\(UUID())")
        let dogs = try Fixtures.makeDogs(in: store, count: 10)
        let transaction = try store.beginWrite()
        try transaction.deleteObject(from: dogs, key: 3)
        try transaction.createTable(TableSpec(name: "Cat", columns: []))
        transaction.rollback()
        let snapshot = try store.snapshot()
        #expect(snapshot.version == 1)
        #expect(try snapshot.contains(3, in: dogs))
        #expect(try snapshot.tableNames() == ["Dog"])
        // A dropped, never-ended transaction rolls back too, and frees the writer's turn.
        do {
            let abandoned = try store.beginWrite()
            try abandoned.deleteObject(from: dogs, key: 4)
        }
        #expect(try store.snapshot().contains(4, in: dogs))
        let next = try store.beginWrite()
        #expect(next.baseVersion == 1)
        next.rollback()
    }

    @Test func activeVersionsAreCountedAndLimited() throws {
        let store = Store.inMemory(identifier: "versions-\(UUID())", options: StoreOptions(maximumNumberOfActiveVersions: 3))
        let dogs = try Fixtures.makeDogs(in: store, count: 1)
        #expect(store.activeVersionCount == 1)
        var held: [Snapshot] = []
        for round in 0..<2 {
            held.append(try store.snapshot())
            let transaction = try store.beginWrite()
            try transaction.setValue(.int(Int64(round)), in: dogs, key: 0, column: 1)
            try transaction.commit()
        }
        #expect(store.activeVersionCount == 3)
        held.append(try store.snapshot())
        // Three versions pinned: a new version would make four.
        #expect(throws: FloeError.tooManyActiveVersions(path: store.path, active: 4, maximum: 3)) {
            _ = try store.beginWrite()
        }
        held.removeFirst()
        #expect(store.activeVersionCount == 2)
        let transaction = try store.beginWrite()
        try transaction.commit()
        held.removeAll()
        #expect(store.activeVersionCount == 1)
    }

    @Test func inMemoryStoresAreSharedByIdentifierAndGoAway() throws {
        let identifier = "shared-\(UUID())"
        do {
            let first = Store.inMemory(identifier: identifier)
            try Fixtures.makeDogs(in: first, count: 5)
            let second = Store.inMemory(identifier: identifier)
            #expect(first === second)
            #expect(try second.snapshot().objectCount(in: second.snapshot().table(named: "Dog")) == 5)
        }
        let fresh = Store.inMemory(identifier: identifier)
        #expect(try fresh.snapshot().tableNames().isEmpty)
    }

    @Test func oneFileOneStore() throws {
        let directory = TemporaryDirectory()
        let first = try Store.open(path: directory.file())
        let second = try Store.open(path: directory.path + "/./test.floe")
        #expect(first === second)
        first.close()
    }

    @Test func readersInManyTasksWhileTheWriterCommits() async throws {
        let directory = TemporaryDirectory()
        let store = try Store.open(path: directory.file(), options: StoreOptions(durability: .none))
        let dogs = try Fixtures.makeDogs(in: store, count: 2000)
        // Invariant every version keeps: the sum of ages is 100 × version offset + base.
        let baseSum = try store.snapshot().sumOfIntegers(in: dogs, column: 1)
        try await withThrowingTaskGroup(of: Int.self) { group in
            group.addTask {
                for round in 1...200 {
                    let transaction = try store.beginWrite()
                    // Move one unit of age between two dogs: the sum never changes.
                    let from = Int64(round % 2000), to = Int64((round * 7) % 2000)
                    let a = try transaction.value(in: dogs, key: from, column: 1)
                    let b = try transaction.value(in: dogs, key: to, column: 1)
                    guard case .int(let x) = a, case .int(let y) = b else { throw FloeError.noSuchObject(table: "Dog", key: from) }
                    try transaction.setValue(.int(x - 1), in: dogs, key: from, column: 1)
                    try transaction.setValue(.int(from == to ? x - 1 : y + 1), in: dogs, key: to, column: 1)
                    if from == to { try transaction.setValue(.int(x), in: dogs, key: from, column: 1) }
                    try transaction.commit()
                }
                return 0
            }
            for _ in 0..<8 {
                group.addTask {
                    var checks = 0
                    for _ in 0..<100 {
                        let snapshot = try store.snapshot()
                        let sum = try snapshot.sumOfIntegers(in: dogs, column: 1)
                        #expect(sum == baseSum, "version \(snapshot.version)")
                        #expect(try snapshot.objectCount(in: dogs) == 2000)
                        checks += 1
                        await Task.yield()
                    }
                    return checks
                }
            }
            var total = 0
            for try await checks in group { total += checks }
            #expect(total == 800)
        }
        #expect(try store.snapshot().version == 201)
        store.close()
    }

    @Test func commitsAreStreamed() async throws {
        let store = Store.inMemory(identifier: "stream-\(UUID())")
        let versions = store.versions()
        try Fixtures.makeDogs(in: store, count: 1)
        var iterator = versions.makeAsyncIterator()
        #expect(await iterator.next() == 1)
        store.close()
        #expect(await iterator.next() == nil)
    }
}
