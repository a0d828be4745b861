import Foundation
import Testing
@_spi(Engine) @testable import Floe
@_spi(Engine) @testable import FloeEngine
@_spi(Engine) @testable import FloeStorage

/// Thousands of random operations applied both to a store and to a plain in-memory model,
/// compared after every commit, after rollbacks and after reopening the file.
@Suite struct RandomizedModelTests {
    /// The model: per table, object key → one value per column (collections as arrays / dictionaries).
    struct ModelObject: Equatable {
        var scalars: [Int: Value] = [:]
        var list: [Value] = []
        var set: [Value] = []
        var map: [String: Value] = [:]
    }

    typealias Model = [Int64: ModelObject]

    static let spec = TableSpec(name: "Thing", columns: [
        ColumnSpec(name: "int", type: .int),
        ColumnSpec(name: "optionalString", type: .string, isNullable: true),
        ColumnSpec(name: "double", type: .double),
        ColumnSpec(name: "bool", type: .bool, isNullable: true),
        ColumnSpec(name: "binary", type: .binary),
        ColumnSpec(name: "uuid", type: .uuid, isNullable: true),
        ColumnSpec(name: "mixed", type: .mixed),
        ColumnSpec(name: "timestamp", type: .timestamp),
        ColumnSpec(name: "numbers", type: .int, collection: .list),
        ColumnSpec(name: "tags", type: .string, collection: .set),
        ColumnSpec(name: "scores", type: .double, isNullable: true, collection: .map),
    ])
    static let scalarColumns = 0..<8

    static func randomValue(column: Int, using random: inout SeededGenerator) -> Value {
        let spec = Self.spec.columns[column]
        if spec.isNullable && Int.random(in: 0..<5, using: &random) == 0 { return .null }
        switch spec.type {
        case .int: return .int(Int64.random(in: -1_000_000...1_000_000, using: &random))
        case .string:
            let length = [0, 3, 10, 200, 5000][Int.random(in: 0..<5, using: &random)]
            return .string(String(repeating: "é", count: length / 2) + "\(Int.random(in: 0..<100, using: &random))")
        case .double: return .double(Double.random(in: -1e6...1e6, using: &random))
        case .bool: return .bool(Bool.random(using: &random))
        case .binary: return .binary((0..<Int.random(in: 0..<40, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
        case .uuid: return .uuid(Word128(high: random.next(), low: random.next()))
        case .timestamp: return .timestamp(Double(Int.random(in: 0..<1_000_000_000, using: &random)) + 0.25)
        case .mixed:
            switch Int.random(in: 0..<4, using: &random) {
            case 0: return .null
            case 1: return .int(Int64.random(in: 0..<100, using: &random))
            case 2: return .string("m\(Int.random(in: 0..<100, using: &random))")
            default: return .double(0.5)
            }
        default: fatalError("no generator for \(spec.type)")
        }
    }

    /// A new object of random scalars (collections empty), and the row that inserts it.
    static func randomObject(using random: inout SeededGenerator) -> (ModelObject, [Value]) {
        var object = ModelObject()
        var values: [Value] = []
        for column in spec.columns.indices {
            if scalarColumns.contains(column) {
                let value = randomValue(column: column, using: &random)
                object.scalars[column] = value
                values.append(value)
            } else {
                values.append(.null)
            }
        }
        return (object, values)
    }

    static func check(_ reader: some VersionReading, against model: Model) throws {
        let table = try reader.table(named: "Thing")
        #expect(try reader.objectCount(in: table) == model.count)
        let keys = try reader.objectKeys(in: table)
        #expect(keys == model.keys.sorted())
        for (position, key) in keys.enumerated() {
            let expected = try #require(model[key])
            #expect(try reader.objectKey(at: position, in: table) == key)
            let row = try reader.row(in: table, key: key)
            for column in scalarColumns {
                #expect(row[column] == expected.scalars[column], "column \(column) of object \(key)")
            }
            #expect(try reader.collectionElements(in: table, key: key, column: 8) == expected.list)
            #expect(try reader.collectionElements(in: table, key: key, column: 9) == expected.set)
            let entries = try reader.mapEntries(in: table, key: key, column: 10)
            #expect(entries.map(\.key) == expected.map.keys.sorted())
            #expect(entries.map(\.value) == expected.map.keys.sorted().map { expected.map[$0]! })
        }
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func randomOperationsMatchModel(seed: UInt64) throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        var random = SeededGenerator(seed: seed)
        var committed: Model = [:]
        var store = try Store.open(path: path, options: StoreOptions(durability: .none))
        do {
            let transaction = try store.beginWrite()
            try transaction.createTable(Self.spec)
            try transaction.commit()
        }
        var nextKey: Int64 = 0
        for round in 0..<120 {
            var model = committed
            let transaction = try store.beginWrite()
            let table = try transaction.table(named: "Thing")
            for _ in 0..<Int.random(in: 1...40, using: &random) {
                let existing = Array(model.keys)
                let operation = existing.isEmpty ? 0 : Int.random(in: 0..<10, using: &random)
                switch operation {
                case 0, 1:
                    let (object, values) = Self.randomObject(using: &random)
                    let key = try transaction.insertObject(into: table, values: values)
                    #expect(key == nextKey)
                    nextKey += 1
                    model[key] = object
                case 2:
                    let key = existing.randomElement(using: &random)!
                    #expect(try transaction.deleteObject(from: table, key: key))
                    model[key] = nil
                case 3, 4:
                    let key = existing.randomElement(using: &random)!
                    let column = Int.random(in: Self.scalarColumns, using: &random)
                    let value = Self.randomValue(column: column, using: &random)
                    try transaction.setValue(value, in: table, key: key, column: column)
                    model[key]!.scalars[column] = value
                case 5:
                    let key = existing.randomElement(using: &random)!
                    let count = model[key]!.list.count
                    let position = Int.random(in: 0...count, using: &random)
                    let value = Value.int(Int64.random(in: 0..<1000, using: &random))
                    for _ in 0..<Int.random(in: 1...60, using: &random) {
                        try transaction.listInsert(value, at: position, in: table, key: key, column: 8)
                        model[key]!.list.insert(value, at: position)
                    }
                case 6:
                    let key = existing.randomElement(using: &random)!
                    guard !model[key]!.list.isEmpty else { continue }
                    let position = Int.random(in: 0..<model[key]!.list.count, using: &random)
                    if Bool.random(using: &random) {
                        try transaction.collectionRemove(at: position, in: table, key: key, column: 8)
                        model[key]!.list.remove(at: position)
                    } else {
                        try transaction.listSet(.int(-1), at: position, in: table, key: key, column: 8)
                        model[key]!.list[position] = .int(-1)
                    }
                case 7:
                    let key = existing.randomElement(using: &random)!
                    let tag = Value.string("t\(Int.random(in: 0..<30, using: &random))")
                    if Bool.random(using: &random) {
                        let inserted = try transaction.setInsert(tag, in: table, key: key, column: 9)
                        #expect(inserted == !model[key]!.set.contains(tag))
                        if inserted { model[key]!.set.append(tag); model[key]!.set.sort { Value.compare($0, $1) < 0 } }
                    } else {
                        let removed = try transaction.setRemove(tag, in: table, key: key, column: 9)
                        #expect(removed == model[key]!.set.contains(tag))
                        model[key]!.set.removeAll { $0 == tag }
                    }
                case 8:
                    let key = existing.randomElement(using: &random)!
                    let mapKey = "k\(Int.random(in: 0..<20, using: &random))"
                    if Int.random(in: 0..<3, using: &random) > 0 {
                        let value: Value = Bool.random(using: &random) ? .null : .double(Double(round))
                        try transaction.mapSet(value, forKey: mapKey, in: table, key: key, column: 10)
                        model[key]!.map[mapKey] = value
                    } else {
                        let removed = try transaction.mapRemove(forKey: mapKey, in: table, key: key, column: 10)
                        #expect(removed == (model[key]!.map[mapKey] != nil))
                        model[key]!.map[mapKey] = nil
                    }
                default:
                    let key = existing.randomElement(using: &random)!
                    try transaction.collectionRemoveAll(in: table, key: key, column: 8)
                    model[key]!.list = []
                }
            }
            try Self.check(transaction, against: model)
            switch Int.random(in: 0..<10, using: &random) {
            case 0:
                transaction.rollback()
                nextKey = try tableNextKey(store)
            default:
                try transaction.commit()
                committed = model
            }
            try Self.check(try store.snapshot(), against: committed)
            if round % 30 == 29 {
                store.close()
                store = try Store.open(path: path, options: StoreOptions(durability: .none))
                try Self.check(try store.snapshot(), against: committed)
                let report = try store.verify()
                #expect(report.isValid, "\(report)")
            }
        }
        let report = try store.verify()
        #expect(report.isValid, "\(report)")
        store.close()
    }

    /// Enough objects and elements to split leaves and inner nodes many times, with
    /// deletes and removals that merge them again.
    @Test func largeTreesSplitAndMerge() throws {
        let directory = TemporaryDirectory()
        let store = try Store.open(path: directory.file(), options: StoreOptions(durability: .none))
        var random = SeededGenerator(seed: 42)
        var model: [Int64: Int64] = [:]
        var list: [Value] = []
        let spec = TableSpec(name: "Big", columns: [ColumnSpec(name: "value", type: .int), ColumnSpec(name: "list", type: .int, collection: .list)])
        let holder: Int64
        do {
            let transaction = try store.beginWrite()
            let table = try transaction.createTable(spec)
            holder = 1_000_000_000
            try transaction.insertObject(into: table, key: holder, values: [.int(0), .null])
            try transaction.commit()
        }
        for round in 0..<12 {
            let transaction = try store.beginWrite()
            let table = try transaction.table(named: "Big")
            for _ in 0..<4000 {
                let key = Int64.random(in: 0..<60_000, using: &random)
                if model[key] == nil {
                    try transaction.insertObject(into: table, key: key, values: [.int(key * 2), .null])
                    model[key] = key * 2
                } else if Bool.random(using: &random) {
                    try transaction.deleteObject(from: table, key: key)
                    model[key] = nil
                } else {
                    try transaction.setValue(.int(-key), in: table, key: key, column: 0)
                    model[key] = -key
                }
                let position = Int.random(in: 0...list.count, using: &random)
                if round < 8 || list.isEmpty || Bool.random(using: &random) {
                    try transaction.listInsert(.int(key), at: position, in: table, key: holder, column: 1)
                    list.insert(.int(key), at: position)
                } else {
                    try transaction.collectionRemove(at: min(position, list.count - 1), in: table, key: holder, column: 1)
                    list.remove(at: min(position, list.count - 1))
                }
            }
            try transaction.commit()
            let snapshot = try store.snapshot()
            let big = try snapshot.table(named: "Big")
            let keys = try snapshot.objectKeys(in: big).filter { $0 != holder }
            #expect(keys == model.keys.sorted())
            for key in keys.prefix(500) { #expect(try snapshot.value(in: big, key: key, column: 0) == .int(model[key]!)) }
            #expect(try snapshot.collectionElements(in: big, key: holder, column: 1) == list)
            #expect(try snapshot.collectionElement(in: big, key: holder, column: 1, at: list.count / 2) == list[list.count / 2])
            let report = try store.verify()
            #expect(report.isValid, "\(report)")
        }
        #expect(model.count > 5000)
        #expect(list.count > 20_000)

        // Thin both trees out so that small leaves and inner nodes merge.
        let transaction = try store.beginWrite()
        let table = try transaction.table(named: "Big")
        for key in model.keys.sorted() where key % 16 != 0 {
            try transaction.deleteObject(from: table, key: key)
            model[key] = nil
        }
        var position = 0
        while position < list.count {
            if position % 16 != 0 {
                try transaction.collectionRemove(at: position, in: table, key: holder, column: 1)
                list.remove(at: position)
            } else {
                position += 1
            }
        }
        try transaction.commit()
        let snapshot = try store.snapshot()
        let big = try snapshot.table(named: "Big")
        #expect(try snapshot.objectKeys(in: big).filter { $0 != holder } == model.keys.sorted())
        for key in model.keys { #expect(try snapshot.value(in: big, key: key, column: 0) == .int(model[key]!)) }
        #expect(try snapshot.collectionElements(in: big, key: holder, column: 1) == list)
        let report = try store.verify()
        #expect(report.isValid, "\(report)")
        store.close()
    }

    private func tableNextKey(_ store: Store) throws -> Int64 {
        let snapshot = try store.snapshot()
        return try snapshot.tableNode(try snapshot.table(named: "Thing")).nextKey
    }
}
