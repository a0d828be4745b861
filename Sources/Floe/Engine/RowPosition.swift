/// Where one object sits in one version of its table: its leaf and row. The object layer
/// keeps one per managed object, so that a property read on an unchanged version costs a
/// check and a load instead of a walk down the tree.
///
/// A position is valid for the reader it was found in while that reader's root and mutation
/// count stay the same (always, for a snapshot); ``isValid(for:)`` says so.
struct RowPosition {
    /// The object's key.
    let key: Int64
    private let leaf: ClusterNode
    private let row: Int
    private let group: GroupNode
    private let mutationCount: Int

    fileprivate init(leaf: ClusterNode, row: Int, group: GroupNode, mutationCount: Int) {
        key = leaf.keys[row]
        self.leaf = leaf
        self.row = row
        self.group = group
        self.mutationCount = mutationCount
    }

    /// Whether reads through `reader` may use this position.
    @inline(__always)
    func isValid(for reader: any VersionReading) -> Bool {
        group === reader.group && mutationCount == reader.mutationCount
    }

    /// The value of one column of this row (collection columns: use the collection reads).
    @inline(__always)
    func value(ofColumn column: Int) throws(FloeError) -> Value {
        try leaf.column(column).value(at: row)
    }
}

/// The rows of one table in key order, walked leaf by leaf without a descent per row.
struct RowCursor {
    private let leaves: [ClusterNode]
    private let group: GroupNode
    private let mutationCount: Int
    private var leafIndex = 0
    private var row = 0

    fileprivate init(leaves: [ClusterNode], reader: any VersionReading) {
        self.leaves = leaves
        group = reader.group
        mutationCount = reader.mutationCount
    }

    /// No rows at all.
    static func empty(_ reader: any VersionReading) -> RowCursor { RowCursor(leaves: [], reader: reader) }

    /// The next row's position, or nil after the last.
    mutating func next() -> RowPosition? {
        while leafIndex < leaves.count && row >= leaves[leafIndex].keys.count {
            leafIndex += 1
            row = 0
        }
        guard leafIndex < leaves.count else { return nil }
        defer { row += 1 }
        return RowPosition(leaf: leaves[leafIndex], row: row, group: group, mutationCount: mutationCount)
    }
}

extension VersionReading {
    /// Where object `key` of `table` sits in this version (nil: no such object).
    func position(of key: Int64, in table: TableHandle) throws(FloeError) -> RowPosition? {
        guard let (leaf, row) = try ClusterTree.find(key, in: tableNode(table).root) else { return nil }
        return RowPosition(leaf: leaf, row: row, group: group, mutationCount: mutationCount)
    }

    /// A cursor over every row of `table` in key order.
    func rows(of table: TableHandle) throws(FloeError) -> RowCursor {
        RowCursor(leaves: try leaves(of: table), reader: self)
    }

    /// Up to `limit` object keys of `table` greater than `key`, in key order; leaves holding
    /// only smaller keys are skipped whole.
    func objectKeys(in table: TableHandle, after key: Int64, limit: Int) throws(FloeError) -> [Int64] {
        var keys: [Int64] = []
        guard limit > 0 else { return keys }
        try ClusterTree.forEachLeaf(in: tableNode(table).root) { leaf in
            if (leaf.keys.last ?? .min) > key {
                keys.append(contentsOf: leaf.keys.lazy.filter { $0 > key }.prefix(limit - keys.count))
            }
            return keys.count < limit
        }
        return keys
    }
}
