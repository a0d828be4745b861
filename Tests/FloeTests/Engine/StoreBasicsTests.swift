import Foundation
import Testing
@_spi(Engine) @testable import Floe
@_spi(Engine) @testable import FloeEngine
@_spi(Engine) @testable import FloeStorage

@Suite struct StoreBasicsTests {
    static let dogSpec = TableSpec(name: "Dog", columns: [
        ColumnSpec(name: "name", type: .string),
        ColumnSpec(name: "age", type: .int),
        ColumnSpec(name: "color", type: .string, isNullable: true),
        ColumnSpec(name: "weight", type: .double),
    ])

    @Test func insertReadAndReopen() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        do {
            let store = try Store.open(path: path)
            let transaction = try store.beginWrite()
            let dogs = try transaction.createTable(Self.dogSpec)
            for index in 0..<1000 {
                try transaction.insertObject(into: dogs, values: [.string("dog\(index)"), .int(Int64(index % 100)),
                                                                  index % 3 == 0 ? .null : .string("brown"), .double(Double(index) / 10)])
            }
            #expect(try transaction.commit() == 1)
            let snapshot = try store.snapshot()
            let table = try snapshot.table(named: "Dog")
            #expect(try snapshot.objectCount(in: table) == 1000)
            #expect(try snapshot.value(in: table, key: 500, column: 0) == .string("dog500"))
            #expect(try snapshot.value(in: table, key: 3, column: 2) == .null)
            #expect(try snapshot.sumOfIntegers(in: table, column: 1) == (0..<1000).reduce(0) { $0 + Int64($1 % 100) })
            store.close()
        }
        let reopened = try Store.open(path: path)
        let snapshot = try reopened.snapshot()
        let table = try snapshot.table(named: "Dog")
        #expect(snapshot.version == 1)
        #expect(try snapshot.objectCount(in: table) == 1000)
        #expect(try snapshot.value(in: table, key: 999, column: 0) == .string("dog999"))
        #expect(try snapshot.value(in: table, key: 999, column: 3) == .double(99.9))
        #expect(try snapshot.spec(of: table) == Self.dogSpec)
        try ClusterTree.checkInvariants(of: snapshot.tableNode(table).root, table: Self.dogSpec)
        reopened.close()
    }

    /// A table's stored spec is encoded once and reused by later commits with its key counter
    /// and row count patched in: each commit's counts, and each change of the spec, must still
    /// reach the file.
    @Test func tableImageFollowsCountsAndSpecChanges() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        var expected = Self.dogSpec
        do {
            let store = try Store.open(path: path, options: StoreOptions(durability: .none, compactsAutomatically: false))
            var transaction = try store.beginWrite()
            let dogs = try transaction.createTable(Self.dogSpec)
            try transaction.commit()
            for index in 0..<5 {
                transaction = try store.beginWrite()
                try transaction.insertObject(into: dogs, values: [.string("dog\(index)"), .int(Int64(index)), .null, .double(1)])
                try transaction.commit()
            }
            transaction = try store.beginWrite()
            try transaction.deleteObject(from: dogs, key: 0)
            try transaction.renameColumn("color", to: "colour", in: dogs)
            try transaction.commit()
            expected.columns[2].name = "colour"
            transaction = try store.beginWrite()
            try transaction.insertObject(into: dogs, values: [.string("dog5"), .int(5), .string("brown"), .double(2)])
            try transaction.commit()
            store.close()
        }
        let reopened = try Store.open(path: path)
        let snapshot = try reopened.snapshot()
        let table = try snapshot.table(named: "Dog")
        #expect(try snapshot.spec(of: table) == expected)
        #expect(try snapshot.objectCount(in: table) == 5)
        #expect(try snapshot.tableNode(table).nextKey == 6)
        #expect(try snapshot.value(in: table, key: 5, column: 2) == .string("brown"))
        reopened.close()
    }
}
