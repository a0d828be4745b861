@_spi(Engine) import FloeStorage

/// A table of one version, found by name: its position in the version's table list.
///
/// ```swift
/// let dogs = try snapshot.table(named: "Dog")
/// let count = try snapshot.objectCount(in: dogs)
/// ```
@_spi(Engine) public struct TableHandle: Sendable, Hashable {
    public let index: Int
    public let name: String

    package init(index: Int, name: String) {
        self.index = index
        self.name = name
    }
}

/// Reads shared by frozen snapshots and write transactions (which read their own writes).
@_spi(Engine) public protocol VersionReading {
    /// The root this reader sees.
    var group: GroupNode { get }
    /// Changes whenever the reader's trees change (never, for a snapshot): a cached leaf
    /// found under one value is valid while the value and `group` stay the same.
    var mutationCount: Int { get }
    /// Changes whenever rows may have moved between leaves (never, for a snapshot): a cached
    /// row in a leaf the reader owns (`isMutable`) stays valid while this stays the same,
    /// whatever was written into it.
    var rowLayoutCount: Int { get }
    /// The store's read epoch under which a row found through this reader now is known to be
    /// the row reads see (`.max`: unknown); the object layer's fast reads compare it.
    var positionEpoch: UInt64 { get }
}

@_spi(Engine) extension VersionReading {
    /// The schema version the object layer stored with this version.
    public var schemaVersion: UInt64 { group.schemaVersion }

    /// Names of every table, in creation order.
    public func tableNames() throws(FloeError) -> [String] {
        var names: [String] = []
        for table in group.tables { names.append(try table.load().spec.name) }
        return names
    }

    /// The table named `name`, or nil.
    public func tableIfPresent(named name: String) throws(FloeError) -> TableHandle? {
        for (index, table) in group.tables.enumerated() where try table.load().spec.name == name {
            return TableHandle(index: index, name: name)
        }
        return nil
    }

    /// The table named `name`; throws ``FloeError/noSuchTable(name:)`` when absent.
    public func table(named name: String) throws(FloeError) -> TableHandle {
        guard let handle = try tableIfPresent(named: name) else { throw .noSuchTable(name: name) }
        return handle
    }

    public func spec(of table: TableHandle) throws(FloeError) -> TableSpec {
        try tableNode(table).spec
    }

    public func objectCount(in table: TableHandle) throws(FloeError) -> Int {
        try tableNode(table).count
    }

    public func contains(_ key: Int64, in table: TableHandle) throws(FloeError) -> Bool {
        try ClusterTree.find(key, in: tableNode(table).root) != nil
    }

    /// Every object key of a table, in key order.
    public func objectKeys(in table: TableHandle) throws(FloeError) -> [Int64] {
        var keys: [Int64] = []
        try ClusterTree.forEachLeaf(in: tableNode(table).root) { leaf in
            keys.append(contentsOf: leaf.keys)
            return true
        }
        return keys
    }

    /// The key of the object at `position` in key order.
    public func objectKey(at position: Int, in table: TableHandle) throws(FloeError) -> Int64? {
        guard let (leaf, row) = try ClusterTree.key(at: position, in: tableNode(table).root) else { return nil }
        return leaf.keys[row]
    }

    /// Keys of the objects of `table` whose link `column` (single, list, set or map) points at
    /// `target`, once per link, in key order: read from the column's backlinks.
    public func linkingObjects(in table: TableHandle, column: Int, to target: Int64) throws(FloeError) -> [Int64] {
        let node = try tableNode(table)
        precondition(node.spec.columns[column].type == .link, "'\(node.spec.name).\(node.spec.columns[column].name)' is not a link column")
        return try SearchIndex.candidates(for: .int(target), in: node.indexRoots[column]).sorted()
    }

    /// The leaf holding object `key` and its row there (for callers that cache positions).
    package func locate(_ key: Int64, in table: TableHandle) throws(FloeError) -> (leaf: ClusterNode, row: Int)? {
        try ClusterTree.find(key, in: tableNode(table).root)
    }

    /// The leaves of a table, in key order.
    package func leaves(of table: TableHandle) throws(FloeError) -> [ClusterNode] {
        var leaves: [ClusterNode] = []
        try ClusterTree.forEachLeaf(in: tableNode(table).root) { leaf in
            leaves.append(leaf)
            return true
        }
        return leaves
    }

    /// One column's value of one object (collection columns: use the collection reads).
    public func value(in table: TableHandle, key: Int64, column: Int) throws(FloeError) -> Value {
        let node = try tableNode(table)
        guard let (leaf, row) = try ClusterTree.find(key, in: node.root) else {
            throw .noSuchObject(table: node.spec.name, key: key)
        }
        let columnNode = try leaf.column(column, expected: node.spec.columns[column])
        precondition(columnNode.storage.layout != .collections, "'\(node.spec.name).\(node.spec.columns[column].name)' is a collection; read it with collectionElements")
        return columnNode.value(at: row)
    }

    /// Every non-collection value of one object, in column order (collections read as `.null`).
    public func row(in table: TableHandle, key: Int64) throws(FloeError) -> [Value] {
        let node = try tableNode(table)
        guard let (leaf, row) = try ClusterTree.find(key, in: node.root) else {
            throw .noSuchObject(table: node.spec.name, key: key)
        }
        var values: [Value] = []
        values.reserveCapacity(leaf.columns.count)
        for column in leaf.columns.indices {
            let storage = try leaf.column(column, expected: column < node.spec.columns.count ? node.spec.columns[column] : nil).storage
            values.append(storage.layout == .collections ? .null : storage.value(at: row))
        }
        return values
    }

    /// The rows of the objects `keys` (ascending, each present) as ``row(in:key:)`` gives them.
    /// Many keys are read in one walk over the leaves, a binary search within each; a few, one
    /// search from the root each.
    public func rows(in table: TableHandle, keys: [Int64]) throws(FloeError) -> [[Value]] {
        guard !keys.isEmpty else { return [] }
        let node = try tableNode(table)
        if keys.count * 16 < (try objectCount(in: table)) {
            var rows: [[Value]] = []
            rows.reserveCapacity(keys.count)
            for key in keys { rows.append(try row(in: table, key: key)) }
            return rows
        }
        var rows: [[Value]] = []
        rows.reserveCapacity(keys.count)
        var next = 0
        try ClusterTree.forEachLeaf(in: node.root) { leaf throws(FloeError) in
            guard let last = leaf.keys.last, last >= keys[next] else { return true }
            var storages: [ColumnStorage] = []
            storages.reserveCapacity(leaf.columns.count)
            for column in leaf.columns.indices {
                storages.append(try leaf.column(column, expected: column < node.spec.columns.count ? node.spec.columns[column] : nil).storage)
            }
            var low = 0
            while next < keys.count, keys[next] <= last {
                // Binary search from where the previous key was found: keys ascend.
                var high = leaf.keys.count
                while low < high {
                    let middle = (low + high) / 2
                    if leaf.keys[middle] < keys[next] { low = middle + 1 } else { high = middle }
                }
                guard low < leaf.keys.count, leaf.keys[low] == keys[next] else { throw .noSuchObject(table: node.spec.name, key: keys[next]) }
                rows.append(storages.map { $0.layout == .collections ? .null : $0.value(at: low) })
                next += 1
            }
            return next < keys.count
        }
        guard next == keys.count else { throw .noSuchObject(table: node.spec.name, key: keys[next]) }
        return rows
    }

    /// Calls `body` with each object's key and the value of `column`, in key order; return false to stop.
    public func forEachValue(in table: TableHandle, column: Int, _ body: (Int64, Value) throws(FloeError) -> Bool) throws(FloeError) {
        let node = try tableNode(table)
        try ClusterTree.forEachLeaf(in: node.root) { leaf throws(FloeError) in
            let storage = try leaf.column(column, expected: node.spec.columns[column]).storage
            for row in 0..<leaf.keys.count where !(try body(leaf.keys[row], storage.value(at: row))) { return false }
            return true
        }
    }

    /// The sum of an integer column over every object, running over each leaf's contiguous words.
    public func sumOfIntegers(in table: TableHandle, column: Int) throws(FloeError) -> Int64 {
        var total: Int64 = 0
        try ClusterTree.forEachLeaf(in: tableNode(table).root) { leaf throws(FloeError) in
            let storage = try leaf.column(column).storage
            storage.words.withUnsafeBufferPointer { words in
                if let nulls = storage.nulls {
                    for index in words.indices where !nulls[index] { total &+= Int64(bitPattern: words[index]) }
                } else {
                    for word in words { total &+= Int64(bitPattern: word) }
                }
            }
            return true
        }
        return total
    }

    /// Keys of the objects whose `column` equals `value` (at most `limit`), in key order when
    /// found by scanning. Uses the column's search index when it has one.
    public func findObjects(in table: TableHandle, column: Int, equalTo value: Value, limit: Int = .max) throws(FloeError) -> [Int64] {
        try SearchIndex.findObjects(in: tableNode(table), column: column, equalTo: value, limit: limit)
    }

    /// The sum of a float or double column over every object (nulls skipped).
    public func sumOfDoubles(in table: TableHandle, column: Int) throws(FloeError) -> Double {
        var total = 0.0
        let isFloat = try tableNode(table).spec.columns[column].type == .float
        try ClusterTree.forEachLeaf(in: tableNode(table).root) { leaf throws(FloeError) in
            let storage = try leaf.column(column).storage
            storage.words.withUnsafeBufferPointer { words in
                for index in words.indices where !(storage.nulls?[index] ?? false) {
                    total += isFloat ? Double(Float(bitPattern: UInt32(truncatingIfNeeded: words[index]))) : Double(bitPattern: words[index])
                }
            }
            return true
        }
        return total
    }

    // MARK: Collections

    /// The number of elements in an object's list, set or map.
    public func collectionCount(in table: TableHandle, key: Int64, column: Int) throws(FloeError) -> Int {
        try CollectionTree.count(collectionRoot(table, key, column))
    }

    /// Every element of an object's list or set (map: the values), in order.
    public func collectionElements(in table: TableHandle, key: Int64, column: Int) throws(FloeError) -> [Value] {
        try CollectionTree.allElements(collectionRoot(table, key, column))
    }

    /// Visits the element storage of every leaf of an object's list, set or map, in order;
    /// `body` returns false to stop. One descent to the object, none per element.
    package func forEachCollectionLeaf(in table: TableHandle, key: Int64, column: Int,
                               _ body: (ColumnStorage) -> Bool) throws(FloeError) {
        try CollectionTree.forEachLeaf(in: collectionRoot(table, key, column)) { leaf in body(leaf.elements) }
    }

    /// The element at `position` of an object's list, set or map.
    public func collectionElement(in table: TableHandle, key: Int64, column: Int, at position: Int) throws(FloeError) -> Value {
        let root = try collectionRoot(table, key, column)
        guard let value = try CollectionTree.element(at: position, in: root) else {
            let spec = try tableNode(table).spec
            throw .indexOutOfRange(table: spec.name, column: spec.columns[column].name, index: position, count: try CollectionTree.count(root))
        }
        return value
    }

    /// Whether an object's set holds `value`.
    public func setContains(_ value: Value, in table: TableHandle, key: Int64, column: Int) throws(FloeError) -> Bool {
        try CollectionTree.lowerBound(of: value, in: collectionRoot(table, key, column)).found
    }

    /// Every key and value of an object's map, in key order.
    public func mapEntries(in table: TableHandle, key: Int64, column: Int) throws(FloeError) -> [(key: String, value: Value)] {
        var entries: [(key: String, value: Value)] = []
        try CollectionTree.forEachLeaf(in: collectionRoot(table, key, column)) { leaf in
            for slot in 0..<leaf.elements.count { entries.append((leaf.mapKeys![slot], leaf.elements.value(at: slot))) }
            return true
        }
        return entries
    }

    /// The value for `mapKey` in an object's map, or nil when absent.
    public func mapValue(forKey mapKey: String, in table: TableHandle, key: Int64, column: Int) throws(FloeError) -> Value? {
        let root = try collectionRoot(table, key, column)
        let (position, found) = try CollectionTree.lowerBound(ofKey: mapKey, in: root)
        return found ? try CollectionTree.element(at: position, in: root) : nil
    }

    // MARK: Internals

    package func tableNode(_ table: TableHandle) throws(FloeError) -> TableNode {
        guard table.index < group.tables.count else { throw .noSuchTable(name: table.name) }
        let node = try group.tables[table.index].load()
        guard node.spec.name == table.name else { throw .noSuchTable(name: table.name) }
        return node
    }

    package func collectionRoot(_ table: TableHandle, _ key: Int64, _ column: Int) throws(FloeError) -> NodeRef<CollectionNode>? {
        let node = try tableNode(table)
        guard let (leaf, row) = try ClusterTree.find(key, in: node.root) else {
            throw .noSuchObject(table: node.spec.name, key: key)
        }
        let storage = try leaf.column(column, expected: node.spec.columns[column]).storage
        precondition(storage.layout == .collections, "'\(node.spec.name).\(node.spec.columns[column].name)' is not a collection")
        return storage.collections[row]
    }
}
