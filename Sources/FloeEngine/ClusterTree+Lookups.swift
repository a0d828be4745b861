@_spi(Engine) import FloeStorage

extension ClusterTree {
    /// The leaf holding `key` and the key's row in it.
    package static func find(_ key: Int64, in root: NodeRef<ClusterNode>?) throws(FloeError) -> (leaf: ClusterNode, row: Int)? {
        guard var node = try root?.load() else { return nil }
        while !node.isLeaf {
            node = try node.children[childIndex(for: key, in: node.keys)].load()
        }
        guard let row = binarySearch(node.keys, key) else { return nil }
        return (node, row)
    }

    /// The leaf and row of the object at `position` in key order.
    package static func key(at position: Int, in root: NodeRef<ClusterNode>?) throws(FloeError) -> (leaf: ClusterNode, row: Int)? {
        guard let (leaf, row) = try CountedTree.locate(position, in: root) else { return nil }
        return (leaf, row)
    }

    /// Visits every leaf in key order; `body` returns false to stop.
    package static func forEachLeaf(in root: NodeRef<ClusterNode>?, _ body: (ClusterNode) throws(FloeError) -> Bool) throws(FloeError) {
        guard let root else { return }
        _ = try visitLeaves(root, body)
    }

    private static func visitLeaves(_ ref: NodeRef<ClusterNode>, _ body: (ClusterNode) throws(FloeError) -> Bool) throws(FloeError) -> Bool {
        let node = try ref.load()
        if node.isLeaf { return try body(node) }
        for child in node.children where !(try visitLeaves(child, body)) { return false }
        return true
    }

    /// The child of an inner node whose key range holds `key`.
    @inline(__always)
    package static func childIndex(for key: Int64, in firstKeys: [Int64]) -> Int {
        // The last child whose first key is <= key (or the first child).
        var low = 0, high = firstKeys.count
        while low < high {
            let middle = (low + high) >> 1
            if firstKeys[middle] <= key { low = middle + 1 } else { high = middle }
        }
        return max(low - 1, 0)
    }

    @inline(__always)
    package static func binarySearch(_ keys: [Int64], _ key: Int64) -> Int? {
        let index = lowerBound(keys, key)
        return index < keys.count && keys[index] == key ? index : nil
    }

    @inline(__always)
    package static func lowerBound(_ keys: [Int64], _ key: Int64) -> Int {
        var low = 0, high = keys.count
        while low < high {
            let middle = (low + high) >> 1
            if keys[middle] < key { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

extension ClusterNode {
    /// Column `index` of this leaf, checked against the leaf's rows. A leaf or column whose
    /// checksum is right but whose shape is not (fewer columns than its table, another number
    /// of rows than keys) is damage too: a typed error, never an out-of-range trap.
    package func column(_ index: Int, expected: ColumnSpec? = nil) throws(FloeError) -> ColumnNode {
        guard index >= 0, index < columns.count else {
            throw .corruptFile(path: columns.first?.filePath ?? "memory", offset: columns.first?.offset ?? 0,
                               detail: "a leaf holds \(columns.count) columns, not column \(index) of its table")
        }
        let node = try columns[index].load()
        if let expected {
            // The table says what the column holds; a column that holds something else is damage.
            let layout: ColumnStorage.Layout = expected.collection == .single ? ColumnStorage.Layout(elementType: expected.type) : .collections
            guard node.storage.layout == layout else {
                throw .corruptFile(path: columns[index].filePath, offset: columns[index].offset,
                                   detail: "column '\(expected.name)' is stored as \(node.storage.layout), not \(layout)")
            }
        }
        guard node.storage.count == keys.count else {
            throw .corruptFile(path: columns[index].filePath, offset: columns[index].offset,
                               detail: "a column holds \(node.storage.count) values for a leaf of \(keys.count) objects")
        }
        return node
    }
}
