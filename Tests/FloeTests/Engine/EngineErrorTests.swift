import Foundation
import Testing
@_spi(Engine) @testable import Floe
@_spi(Engine) @testable import FloeEngine
@_spi(Engine) @testable import FloeStorage

/// Every bad input gets a typed error naming the table, the column and the value, and the
/// transaction stays usable (or rolls back) with nothing committed lost.
@Suite struct EngineErrorTests {
    static let spec = TableSpec(name: "Item", columns: [
        ColumnSpec(name: "title", type: .string),
        ColumnSpec(name: "small", type: .int, integerBits: 8),
        ColumnSpec(name: "note", type: .binary, isNullable: true),
        ColumnSpec(name: "owner", type: .link, linkTarget: "Item"),
        ColumnSpec(name: "labels", type: .string, collection: .map),
        ColumnSpec(name: "any", type: .mixed),
    ])

    func makeStore() throws -> (Store, TableHandle) {
        let store = Store.inMemory(identifier: "errors-\(UUID())")
        let transaction = try store.beginWrite()
        let table = try transaction.createTable(Self.spec)
        try transaction.insertObject(into: table, values: [.string("first"), .int(1), .null, .null, .null, .null])
        try transaction.commit()
        return (store, table)
    }

    @Test func wrongTypesNullsAndWidths() throws {
        let (store, table) = try makeStore()
        let transaction = try store.beginWrite()
        let wrongType = #expect(throws: FloeError.self) { try transaction.setValue(.int(5), in: table, key: 0, column: 0) }
        #expect(wrongType == .typeMismatch(table: "Item", column: "title", expected: "string", value: "5"))
        #expect(wrongType?.description == "Invalid value 5 for 'Item.title': expected string.")
        #expect(throws: FloeError.nullForRequired(table: "Item", column: "title")) {
            try transaction.setValue(.null, in: table, key: 0, column: 0)
        }
        #expect(throws: FloeError.typeMismatch(table: "Item", column: "small", expected: "a 8-bit integer", value: "300")) {
            try transaction.setValue(.int(300), in: table, key: 0, column: 1)
        }
        #expect(throws: FloeError.invalidLink(table: "Item", column: "owner", target: "Item", key: 77)) {
            try transaction.setValue(.link(77), in: table, key: 0, column: 3)
        }
        #expect(throws: FloeError.typeMismatch(table: "Item", column: "(row)", expected: "6 values", value: "1 values")) {
            try transaction.insertObject(into: table, values: [.string("x")])
        }
        #expect(throws: FloeError.noSuchObject(table: "Item", key: 9)) {
            try transaction.setValue(.string("x"), in: table, key: 9, column: 0)
        }
        // The failed calls changed nothing; valid ones still work.
        try transaction.setValue(.link(0), in: table, key: 0, column: 3)
        try transaction.setValue(.int(-128), in: table, key: 0, column: 1)
        try transaction.commit()
        #expect(try store.snapshot().row(in: table, key: 0) == [.string("first"), .int(-128), .null, .link(0), .null, .null])
    }

    @Test func oversizedValuesAndBadMapKeys() throws {
        let (store, table) = try makeStore()
        let transaction = try store.beginWrite()
        let big = [UInt8](repeating: 1, count: WriteTransaction.maximumValueSize + 1)
        #expect(throws: FloeError.valueTooLarge(table: "Item", column: "note", size: big.count, limit: WriteTransaction.maximumValueSize)) {
            try transaction.setValue(.binary(big), in: table, key: 0, column: 2)
        }
        #expect(throws: FloeError.valueTooLarge(table: "Item", column: "any", size: big.count, limit: WriteTransaction.maximumValueSize)) {
            try transaction.setValue(.string(String(repeating: "a", count: big.count)), in: table, key: 0, column: 5)
        }
        for key in ["a.b", "$x"] {
            let error = #expect(throws: FloeError.self) { try transaction.mapSet(.string("v"), forKey: key, in: table, key: 0, column: 4) }
            #expect(error == .invalidMapKey(table: "Item", column: "labels", key: key))
        }
        try transaction.mapSet(.string("v"), forKey: "fine", in: table, key: 0, column: 4)
        #expect(throws: FloeError.indexOutOfRange(table: "Item", column: "labels", index: 3, count: 1)) {
            try transaction.collectionRemove(at: 3, in: table, key: 0, column: 4)
        }
        try transaction.commit()
        #expect(try store.snapshot().mapEntries(in: table, key: 0, column: 4).map(\.key) == ["fine"])
    }

    @Test func namesAndSchemaErrors() throws {
        let (store, table) = try makeStore()
        let transaction = try store.beginWrite()
        let longTable = String(repeating: "T", count: 58)
        #expect(throws: FloeError.invalidName(kind: "table", name: longTable, reason: "58 UTF-8 bytes is more than the limit of 57")) {
            try transaction.createTable(TableSpec(name: longTable, columns: []))
        }
        try transaction.createTable(TableSpec(name: String(repeating: "T", count: 57), columns: []))
        let longColumn = String(repeating: "c", count: 64)
        #expect(throws: FloeError.self) { try transaction.createTable(TableSpec(name: "Other", columns: [ColumnSpec(name: longColumn, type: .int)])) }
        #expect(throws: FloeError.duplicateTable(name: "Item")) { try transaction.createTable(Self.spec) }
        #expect(throws: FloeError.duplicateColumn(table: "Item", column: "title")) {
            try transaction.addColumn(ColumnSpec(name: "title", type: .int), to: table)
        }
        #expect(throws: FloeError.noSuchColumn(table: "Item", column: "missing")) {
            try transaction.removeColumn(named: "missing", from: table)
        }
        #expect(throws: FloeError.noSuchTable(name: "Nope")) { _ = try transaction.table(named: "Nope") }
        #expect(throws: FloeError.duplicateObjectKey(table: "Item", key: 0)) {
            try transaction.insertObject(into: table, key: 0, values: [.string("x"), .int(0), .null, .null, .null, .null])
        }
        transaction.rollback()
        _ = store
    }

    @Test func schemaChangesPersist() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        do {
            let store = try Store.open(path: path)
            let dogs = try Fixtures.makeDogs(in: store, count: 300)
            let transaction = try store.beginWrite()
            try transaction.addColumn(ColumnSpec(name: "nickname", type: .string, isNullable: true), to: dogs)
            try transaction.addColumn(ColumnSpec(name: "legs", type: .int), to: dogs)
            try transaction.addColumn(ColumnSpec(name: "toys", type: .string, collection: .list), to: dogs)
            try transaction.renameColumn("name", to: "fullName", in: dogs)
            try transaction.removeColumn(named: "weight", from: dogs)
            try transaction.listAppend(.string("ball"), in: dogs, key: 5, column: 5)
            try transaction.commit()
            store.close()
        }
        let store = try Store.open(path: path)
        let snapshot = try store.snapshot()
        let dogs = try snapshot.table(named: "Dog")
        #expect(try snapshot.spec(of: dogs).columns.map(\.name) == ["fullName", "age", "color", "nickname", "legs", "toys"])
        #expect(try snapshot.row(in: dogs, key: 299) == [.string("dog299"), .int(99), .string("grey"), .null, .int(0), .null])
        #expect(try snapshot.collectionElements(in: dogs, key: 5, column: 5) == [.string("ball")])
        #expect(try store.verify().isValid)
        store.close()
    }

    @Test func misuseOfEndedTransactionsClosedAndReadOnlyStores() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        let store = try Store.open(path: path)
        let dogs = try Fixtures.makeDogs(in: store, count: 3)
        let transaction = try store.beginWrite()
        try transaction.commit()
        #expect(throws: FloeError.notInWriteTransaction(path: store.path)) {
            try transaction.deleteObject(from: dogs, key: 0)
        }
        #expect(throws: FloeError.notInWriteTransaction(path: store.path)) { try transaction.commit() }
        let snapshot = try store.snapshot()
        store.close()
        #expect(throws: FloeError.closed(path: store.path)) { _ = try store.beginWrite() }
        #expect(throws: FloeError.closed(path: store.path)) { _ = try store.snapshot() }
        // A snapshot taken before close reads what is already in memory, and reports the
        // close instead of reading the file for anything else.
        #expect(try snapshot.objectCount(in: dogs) == 3)

        let readOnly = try Store.open(path: path, options: StoreOptions(readOnly: true))
        #expect(try readOnly.snapshot().objectCount(in: dogs) == 3)
        #expect(throws: FloeError.readOnly(path: readOnly.path)) { _ = try readOnly.beginWrite() }
        #expect(throws: FloeError.readOnly(path: readOnly.path)) { try readOnly.compact() }
        readOnly.close()
        #expect(throws: FloeError.self) { _ = try Store.open(path: directory.file("missing.floe"), options: StoreOptions(readOnly: true)) }
    }
}
