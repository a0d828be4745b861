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
    private let rowLayoutCount: Int

    fileprivate init(leaf: ClusterNode, row: Int, group: GroupNode, mutationCount: Int, rowLayoutCount: Int) {
        key = leaf.keys[row]
        self.leaf = leaf
        self.row = row
        self.group = group
        self.mutationCount = mutationCount
        self.rowLayoutCount = rowLayoutCount
    }

    /// A row of a leaf `transaction` owns (one it has just made mutable).
    init(ownedLeaf leaf: ClusterNode, row: Int, in transaction: WriteTransaction) {
        self.init(leaf: leaf, row: row, group: transaction.group, mutationCount: transaction.mutationCount,
                  rowLayoutCount: transaction.rowLayoutCount)
    }

    /// Whether reads through `reader` may use this position: nothing changed since it was
    /// found, or only values were written in place and its leaf is one the reader owns (so
    /// the leaf itself holds those values).
    @inline(__always)
    func isValid(for reader: any VersionReading) -> Bool {
        group === reader.group && (mutationCount == reader.mutationCount || (rowLayoutCount == reader.rowLayoutCount && leaf.isMutable))
    }

    /// ``isValid(for:)`` for a snapshot, without an existential.
    @inline(__always)
    func isValid(in snapshot: Snapshot) -> Bool {
        group === snapshot.group && mutationCount == 0
    }

    /// ``isValid(for:)`` for a write transaction, without an existential.
    @inline(__always)
    func isValid(in transaction: WriteTransaction) -> Bool {
        group === transaction.group
            && (mutationCount == transaction.mutationCount || (rowLayoutCount == transaction.rowLayoutCount && leaf.isMutable))
    }

    /// The leaf and row when `transaction` owns the leaf and no row has moved since.
    func ownedLeaf(in transaction: WriteTransaction) -> (ClusterNode, Int)? {
        guard group === transaction.group, rowLayoutCount == transaction.rowLayoutCount, leaf.isMutable else { return nil }
        return (leaf, row)
    }

    /// The next row of the same leaf when it holds `key` and `transaction` owns the leaf: a
    /// walk in key order that writes as it goes stays in the leaves the writes copied.
    func successor(holding key: Int64, in transaction: WriteTransaction) -> RowPosition? {
        guard let (leaf, row) = ownedLeaf(in: transaction), row + 1 < leaf.keys.count, leaf.keys[row + 1] == key else { return nil }
        return RowPosition(ownedLeaf: leaf, row: row + 1, in: transaction)
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
    private let rowLayoutCount: Int
    private var leafIndex = 0
    private var row = 0

    fileprivate init(leaves: [ClusterNode], reader: any VersionReading) {
        self.leaves = leaves
        group = reader.group
        mutationCount = reader.mutationCount
        rowLayoutCount = reader.rowLayoutCount
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
        return RowPosition(leaf: leaves[leafIndex], row: row, group: group, mutationCount: mutationCount, rowLayoutCount: rowLayoutCount)
    }
}

/// Finds many rows of one table in one version by key: a binary search over the leaves' last
/// keys, then one inside the leaf, over arrays the locator holds (no descent through the
/// tree's inner nodes per row). For walking a query's keys in an order of their own.
struct RowLocator {
    private let leaves: [ClusterNode]
    private let lastKeys: [Int64]
    private let group: GroupNode
    private let mutationCount: Int
    private let rowLayoutCount: Int

    fileprivate init(leaves: [ClusterNode], reader: any VersionReading) {
        self.leaves = leaves
        lastKeys = leaves.map { $0.keys.last ?? .min }
        group = reader.group
        mutationCount = reader.mutationCount
        rowLayoutCount = reader.rowLayoutCount
    }

    /// Where object `key` sits (nil: no such object).
    func position(of key: Int64) -> RowPosition? {
        var low = 0, high = lastKeys.count
        while low < high {
            let middle = (low + high) / 2
            if lastKeys[middle] < key { low = middle + 1 } else { high = middle }
        }
        guard low < leaves.count else { return nil }
        let leaf = leaves[low]
        var first = 0, end = leaf.keys.count
        while first < end {
            let middle = (first + end) / 2
            if leaf.keys[middle] < key { first = middle + 1 } else { end = middle }
        }
        guard first < leaf.keys.count, leaf.keys[first] == key else { return nil }
        return RowPosition(leaf: leaf, row: first, group: group, mutationCount: mutationCount, rowLayoutCount: rowLayoutCount)
    }
}

extension VersionReading {
    /// A locator of `table`'s rows in this version.
    func rowLocator(of table: TableHandle) throws(FloeError) -> RowLocator {
        RowLocator(leaves: try leaves(of: table), reader: self)
    }

    /// Where object `key` of `table` sits in this version (nil: no such object).
    func position(of key: Int64, in table: TableHandle) throws(FloeError) -> RowPosition? {
        guard let (leaf, row) = try ClusterTree.find(key, in: tableNode(table).root) else { return nil }
        return RowPosition(leaf: leaf, row: row, group: group, mutationCount: mutationCount, rowLayoutCount: rowLayoutCount)
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
