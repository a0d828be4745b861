import Foundation
@_spi(Engine) import FloeStorage

/// A column's search index: object keys by value, for fast `==` and `IN` lookups and
/// primary keys.
///
/// The index is a cluster tree (the same structure as a table) keyed by a stable 64-bit
/// hash of the value. Each entry holds one object key, plus an overflow list for further
/// objects whose values hash alike (equal values in a non-unique column, or the rare hash
/// collision). Lookups return candidates; callers confirm them against the column.
package enum SearchIndex {
    /// The entries' columns: the first object key, and the rest.
    package static let entrySpec = TableSpec(name: "(index)", columns: [
        ColumnSpec(name: "first", type: .int),
        ColumnSpec(name: "more", type: .int, collection: .list),
    ])

    /// The stable hash a value is filed under: values the same under `Value.compare` file
    /// alike (a mixed `5`, `5.0` and `5.00`; canonically equivalent strings, hashed in their
    /// composed form). Ints file under themselves, so an integer primary key never collides.
    package static func hash(_ value: Value) -> Int64 {
        switch value {
        case .null: return Int64.min
        case .bool(let flag): return flag ? 1 : 0
        case .int(let int): return int
        case .float, .double, .decimal128:
            if let int = NumberOrder.exactInt64(value) { return int }
            guard let parts = NumberOrder.decimalParts(value)?.normalized, parts.kind == .finite else {
                return value.isNaN ? 0x7FF8_0000_0000_0000 : (Value.compare(value, .int(0)) < 0 ? -0x7FF0_0000_0000_0000 : 0x7FF0_0000_0000_0000)
            }
            let magnitude = mix(UInt64(truncatingIfNeeded: parts.coefficient >> 64) ^ mix(UInt64(truncatingIfNeeded: parts.coefficient), 4), 4)
            return Int64(bitPattern: mix(magnitude ^ UInt64(bitPattern: Int64(parts.exponent)) ^ (parts.negative ? 1 : 0), 8))
        case .timestamp(let seconds):
            return Int64(bitPattern: mix(seconds.isNaN ? Double.nan.bitPattern : (seconds == 0 ? 0 : seconds).bitPattern, 7))
        case .string(let string):
            if string.utf8.allSatisfy({ $0 < 0x80 }) { return Int64(bitPattern: fnv1a(string.utf8, seed: 5)) }
            return Int64(bitPattern: fnv1a(string.precomposedStringWithCanonicalMapping.utf8, seed: 5))
        case .binary(let bytes): return Int64(bitPattern: fnv1a(bytes, seed: 6))
        case .objectId(let word), .uuid(let word): return Int64(bitPattern: mix(word.high ^ mix(word.low, 8), 9))
        case .link(let key): return Int64(bitPattern: mix(UInt64(bitPattern: key), 11))
        case .typedLink(let table, let key): return Int64(bitPattern: mix(fnv1a(table.utf8, seed: 12) ^ UInt64(bitPattern: key), 12))
        case .list(let values):
            return values.reduce(Int64(bitPattern: mix(UInt64(values.count), 13))) { Int64(bitPattern: mix(UInt64(bitPattern: $0) ^ UInt64(bitPattern: hash($1)), 13)) }
        case .dictionary(let entries):
            return entries.reduce(Int64(bitPattern: mix(UInt64(entries.count), 14))) {
                Int64(bitPattern: mix(UInt64(bitPattern: $0) ^ UInt64(bitPattern: hash(.string($1.key))) ^ mix(UInt64(bitPattern: hash($1.value)), 15), 14))
            }
        }
    }

    private static func fnv1a<Bytes: Sequence>(_ bytes: Bytes, seed: UInt64) -> UInt64 where Bytes.Element == UInt8 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325 ^ seed
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return mix(hash, seed)
    }

    private static func mix(_ value: UInt64, _ seed: UInt64) -> UInt64 {
        var z = value &+ seed &* 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    // MARK: Reading

    /// Object keys filed under `value`'s hash (callers confirm the value).
    package static func candidates(for value: Value, in root: NodeRef<ClusterNode>?) throws(FloeError) -> [Int64] {
        guard let (leaf, row) = try ClusterTree.find(hash(value), in: root) else { return [] }
        let first = try leaf.column(0).storage.int(at: row)
        let more = try leaf.column(1).storage.collections[row]
        guard let more else { return [first] }
        return [first] + (try CollectionTree.allElements(more)).map { value -> Int64 in
            if case .int(let key) = value { return key }
            return -1
        }
    }

    /// Keys of the objects of `table` whose `column` equals `value` (at most `limit`): through
    /// the column's index when it has one, else by scanning the column.
    package static func findObjects(in table: TableNode, column: Int, equalTo value: Value, limit: Int) throws(FloeError) -> [Int64] {
        var found: [Int64] = []
        if table.spec.columns[column].isObjectKey {
            guard case .int(let key) = value, limit > 0, try ClusterTree.find(key, in: table.root) != nil else { return [] }
            return [key]
        }
        if table.spec.columns[column].hasSearchIndex, limit == 1 {
            // The primary-key lookup: no candidate list, no sorting.
            guard let (entryLeaf, entryRow) = try ClusterTree.find(hash(value), in: table.indexRoots[column]) else { return [] }
            let first = try entryLeaf.columns[0].load().storage.int(at: entryRow)
            if let (leaf, row) = try ClusterTree.find(first, in: table.root),
               Value.compare(try leaf.column(column).value(at: row), value) == 0 {
                return [first]
            }
        }
        if table.spec.columns[column].hasSearchIndex {
            for key in try candidates(for: value, in: table.indexRoots[column]).sorted() where found.count < limit {
                guard let (leaf, row) = try ClusterTree.find(key, in: table.root) else { continue }
                if Value.compare(try leaf.column(column).storage.value(at: row), value) == 0 { found.append(key) }
            }
            return found
        }
        try ClusterTree.forEachLeaf(in: table.root) { leaf throws(FloeError) in
            let storage = try leaf.column(column).storage
            for row in 0..<leaf.keys.count where Value.compare(storage.value(at: row), value) == 0 {
                found.append(leaf.keys[row])
                if found.count >= limit { return false }
            }
            return true
        }
        return found
    }

    /// Every object key in the index, for verification.
    package static func allKeys(in root: NodeRef<ClusterNode>?) throws(FloeError) -> [Int64] {
        var keys: [Int64] = []
        try ClusterTree.forEachLeaf(in: root) { leaf throws(FloeError) in
            let first = try leaf.column(0).storage
            let more = try leaf.column(1).storage
            for row in 0..<leaf.keys.count {
                keys.append(first.int(at: row))
                for case .int(let key) in try CollectionTree.allElements(more.collections[row]) { keys.append(key) }
            }
            return true
        }
        return keys
    }

    // MARK: Writing

    /// Files `objectKey` under `value`; returns the new root.
    package static func insert(_ objectKey: Int64, for value: Value, into root: NodeRef<ClusterNode>?, context: WriteContext)
        throws(FloeError) -> NodeRef<ClusterNode>
    {
        let hashed = hash(value)
        guard let (newRoot, leaf, row) = try ClusterTree.mutableLeaf(for: hashed, root: root, context: context) else {
            return try ClusterTree.insert(key: hashed, row: [.int(objectKey), .null], table: entrySpec, into: root, context: context)
        }
        let (columnRef, column) = try context.mutable(leaf.columns[1])
        leaf.columns[1] = columnRef
        let list = column.storage.collections[row]
        let count = try CollectionTree.count(list)
        column.storage.setCollection(try CollectionTree.insert(.int(objectKey), key: nil, at: count, into: list, elementType: .int,
                                                               nullable: false, context: context), at: row)
        return newRoot
    }

    /// Removes `objectKey` from under `value`; returns the new root (nil: empty).
    package static func remove(_ objectKey: Int64, for value: Value, from root: NodeRef<ClusterNode>?, context: WriteContext)
        throws(FloeError) -> NodeRef<ClusterNode>?
    {
        let hashed = hash(value)
        guard let (newRoot, leaf, row) = try ClusterTree.mutableLeaf(for: hashed, root: root, context: context) else { return root }
        let (firstRef, first) = try context.mutable(leaf.columns[0])
        leaf.columns[0] = firstRef
        let (moreRef, more) = try context.mutable(leaf.columns[1])
        leaf.columns[1] = moreRef
        guard let list = more.storage.collections[row] else {
            guard first.storage.int(at: row) == objectKey else { return newRoot }
            return try ClusterTree.remove(key: hashed, from: newRoot, context: context).root
        }
        let elements = try CollectionTree.allElements(list)
        if first.storage.int(at: row) == objectKey {
            // Promote the first overflow key.
            first.storage.set(elements[0], at: row)
            more.storage.setCollection(try CollectionTree.remove(at: 0, from: list, context: context), at: row)
        } else if let position = elements.firstIndex(of: .int(objectKey)) {
            more.storage.setCollection(try CollectionTree.remove(at: position, from: list, context: context), at: row)
        }
        return newRoot
    }
}
