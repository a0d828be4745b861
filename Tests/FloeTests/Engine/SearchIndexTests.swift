import Foundation
import Testing
@_spi(Engine) @testable import Floe
@_spi(Engine) @testable import FloeEngine
@_spi(Engine) @testable import FloeStorage

@Suite struct SearchIndexTests {
    static let spec = TableSpec(name: "Person", columns: [
        ColumnSpec(name: "id", type: .string, isPrimaryKey: true),
        ColumnSpec(name: "age", type: .int, isIndexed: true),
        ColumnSpec(name: "nickname", type: .string, isNullable: true, isIndexed: true),
    ])

    @Test func indexedLookupsMatchScansThroughInsertsUpdatesAndDeletes() throws {
        let directory = TemporaryDirectory()
        let store = try Store.open(path: directory.file(), options: StoreOptions(durability: .none))
        var random = SeededGenerator(seed: 7)
        var model: [Int64: (id: String, age: Int64, nickname: String?)] = [:]
        var nextId = 0
        for _ in 0..<10 {
            let transaction = try store.beginWrite()
            let table = try transaction.tableIfPresent(named: "Person") ?? transaction.createTable(Self.spec)
            for _ in 0..<400 {
                switch Int.random(in: 0..<4, using: &random) {
                case 0, 1:
                    let age = Int64.random(in: 0..<50, using: &random)
                    let nickname: String? = Bool.random(using: &random) ? nil : "n\(age % 7)"
                    let key = try transaction.insertObject(into: table, values: [.string("p\(nextId)"), .int(age), nickname.map(Value.string) ?? .null])
                    model[key] = ("p\(nextId)", age, nickname)
                    nextId += 1
                case 2:
                    guard let key = model.keys.randomElement(using: &random) else { continue }
                    try transaction.deleteObject(from: table, key: key)
                    model[key] = nil
                default:
                    guard let key = model.keys.randomElement(using: &random) else { continue }
                    let age = Int64.random(in: 0..<50, using: &random)
                    try transaction.setValue(.int(age), in: table, key: key, column: 1)
                    try transaction.setValue(.null, in: table, key: key, column: 2)
                    model[key]!.age = age
                    model[key]!.nickname = nil
                }
            }
            try transaction.commit()
            let snapshot = try store.snapshot()
            let people = try snapshot.table(named: "Person")
            for age in 0..<50 as Range<Int64> {
                let expected = model.filter { $0.value.age == age }.keys.sorted()
                #expect(try snapshot.findObjects(in: people, column: 1, equalTo: .int(age)) == expected)
            }
            #expect(try snapshot.findObjects(in: people, column: 2, equalTo: .null) == model.filter { $0.value.nickname == nil }.keys.sorted())
            for (key, person) in model.prefix(50) {
                #expect(try snapshot.findObjects(in: people, column: 0, equalTo: .string(person.id)) == [key])
            }
            #expect(try snapshot.findObjects(in: people, column: 0, equalTo: .string("nobody")).isEmpty)
            #expect(try store.verify().isValid)
        }
        store.close()
    }

    @Test func primaryKeysAreUnique() throws {
        let store = Store.inMemory(identifier: "pk-\(UUID())")
        let transaction = try store.beginWrite()
        let table = try transaction.createTable(Self.spec)
        try transaction.insertObject(into: table, values: [.string("a"), .int(1), .null])
        let key = try transaction.insertObject(into: table, values: [.string("b"), .int(1), .null])
        #expect(throws: FloeError.duplicatePrimaryKey(table: "Person", column: "id", value: "\"a\"")) {
            try transaction.insertObject(into: table, values: [.string("a"), .int(2), .null])
        }
        #expect(throws: FloeError.duplicatePrimaryKey(table: "Person", column: "id", value: "\"a\"")) {
            try transaction.setValue(.string("a"), in: table, key: key, column: 0)
        }
        try transaction.deleteObject(from: table, key: 0)
        try transaction.insertObject(into: table, values: [.string("a"), .int(3), .null])
        try transaction.commit()
        #expect(try store.verify().isValid)
        #expect(try store.snapshot().objectCount(in: table) == 2)
    }
}

extension SearchIndexTests {
    /// A non-optional integer primary key is the object key: no index, same guarantees.
    @Test func integerPrimaryKeysAreObjectKeys() throws {
        let store = Store.inMemory(identifier: "intpk-\(UUID())")
        let spec = TableSpec(name: "Numbered", columns: [ColumnSpec(name: "id", type: .int, isPrimaryKey: true), ColumnSpec(name: "name", type: .string)])
        let transaction = try store.beginWrite()
        let table = try transaction.createTable(spec)
        for id in [5, -3, 1_000_000_000_000, 0] as [Int64] {
            #expect(try transaction.insertObject(into: table, values: [.int(id), .string("n\(id)")]) == id)
        }
        #expect(throws: FloeError.duplicatePrimaryKey(table: "Numbered", column: "id", value: "5")) {
            try transaction.insertObject(into: table, values: [.int(5), .string("again")])
        }
        #expect(throws: FloeError.primaryKeyChanged(className: "Numbered", property: "id", from: "5", to: "6")) {
            try transaction.setValue(.int(6), in: table, key: 5, column: 0)
        }
        #expect(try transaction.findObjects(in: table, column: 0, equalTo: .int(-3)) == [-3])
        #expect(try transaction.findObjects(in: table, column: 0, equalTo: .int(4)).isEmpty)
        #expect(try transaction.objectKeys(in: table) == [-3, 0, 5, 1_000_000_000_000])
        try transaction.commit()
        #expect(try store.snapshot().tableNode(table).indexRoots[0] == nil)
        #expect(try store.verify().isValid)
        let adding = try store.beginWrite()
        #expect(throws: FloeError.self) {
            try adding.addColumn(ColumnSpec(name: "other", type: .int, isPrimaryKey: true), to: table)
        }
        adding.rollback()
    }
}
