import Foundation
import Testing
@_spi(Engine) @testable import Floe

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
}
