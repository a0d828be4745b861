@_spi(Engine) import Floe
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// The content of `Fixtures/word-images.floe-fixture`: a file written by Floe before node
/// images packed their integers (every key and integer column as plain 64-bit words), kept
/// to show that such files still open and read the same. The file was made by running
/// `WordImagesFixture.write(to:)` on that build; the tests compare it against `expected`.
enum WordImagesFixture {
    static let items = TableSpec(name: "Item", columns: [
        ColumnSpec(name: "n", type: .int),
        ColumnSpec(name: "maybe", type: .int, isNullable: true),
        ColumnSpec(name: "flag", type: .bool),
        ColumnSpec(name: "next", type: .link, isNullable: true, linkTarget: "Item"),
        ColumnSpec(name: "weight", type: .double),
        ColumnSpec(name: "name", type: .string),
        ColumnSpec(name: "born", type: .timestamp),
        ColumnSpec(name: "scores", type: .int, collection: .list),
        ColumnSpec(name: "code", type: .int, isIndexed: true),
    ])
    static let wide = TableSpec(name: "Wide", columns: [
        ColumnSpec(name: "v", type: .int),
        ColumnSpec(name: "small", type: .int, isNullable: true),
    ])
    static let itemCount = 300
    /// Deleted in a second commit, so that some leaves' keys have gaps.
    static let deleted: Set<Int64> = Set(100..<150).union([260, 299])
    static let wideCount = 270

    static func itemValues(_ i: Int) -> [Value] {
        let key = Int64(i)
        let target = Int64((i + 1) % itemCount)
        return [
            .int(key),
            i % 3 == 0 ? .null : .int(key * 1_000_003 - 50_000),
            .bool(i % 2 == 0),
            i % 5 == 0 ? .null : .link(target),  // the engine's delete leaves links to its object as they are
            .double(Double(i) / 4),
            .string("item\(i)"),
            .timestamp(Double(i) * 86_400),
            .null,  // the list's elements are `scores(i)`
            .int(key % 17),
        ]
    }

    static func scores(_ i: Int) -> [Value] { i % 20 == 0 ? (0...(i % 7)).map { .int(Int64(i * $0 - 3)) } : [] }

    static func wideKey(_ i: Int) -> Int64 { Int64(i) * 1000 + 7 }

    static func wideValues(_ i: Int) -> [Value] {
        [i % 2 == 0 ? .int(.min + Int64(i)) : .int(.max - Int64(i)), i % 4 == 0 ? .null : .int(-Int64(i))]
    }

    /// Writes the fixture's two commits (the build that made the checked-in file ran this).
    static func write(to path: String) throws {
        let store = try Store.open(path: path)
        let write = try store.beginWrite()
        let items = try write.createTable(Self.items)
        for i in 0..<itemCount {
            var values = itemValues(i)
            values[3] = .null
            _ = try write.insertObject(into: items, values: values)
        }
        for i in 0..<itemCount where i % 5 != 0 {
            try write.setValue(.link(Int64((i + 1) % itemCount)), in: items, key: Int64(i), column: 3)
        }
        for i in 0..<itemCount where !scores(i).isEmpty {
            try write.listAppend(contentsOf: scores(i), in: items, key: Int64(i), column: 7)
        }
        let wide = try write.createTable(Self.wide)
        for i in 0..<wideCount { try write.insertObject(into: wide, key: wideKey(i), values: wideValues(i)) }
        _ = try write.commit()
        let deletes = try store.beginWrite()
        let table = try deletes.table(named: "Item")
        for key in deleted.sorted() { _ = try deletes.deleteObject(from: table, key: key) }
        _ = try deletes.commit()
        store.close()
    }
}
