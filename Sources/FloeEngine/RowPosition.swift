@_spi(Engine) import FloeStorage

/// Where one object sits in one version of its table: its leaf and row. The object layer
/// keeps one per managed object, so that a property read on an unchanged version costs a
/// check and a load instead of a walk down the tree.
///
/// A position is valid for the reader it was found in while that reader's root and mutation
/// count stay the same (always, for a snapshot); ``isValid(for:)`` says so.
@usableFromInline package struct RowPosition {
    /// The object's key.
    @usableFromInline package internal(set) var key: Int64
    @usableFromInline let leaf: ClusterNode
    @usableFromInline var row: Int
    /// The ``GroupNode/serial`` of the version's root (a number, not a reference: copies of a
    /// position retain only its leaf).
    @usableFromInline let group: UInt64
    @usableFromInline var mutationCount: Int
    @usableFromInline let rowLayoutCount: Int
    /// The store's read epoch under which this row was found current (see ``ReadEpoch``).
    @usableFromInline package internal(set) var epoch: UInt64

    @usableFromInline
    init(leaf: ClusterNode, row: Int, group: UInt64, mutationCount: Int, rowLayoutCount: Int, epoch: UInt64) {
        key = leaf.keys[row]
        self.leaf = leaf
        self.row = row
        self.group = group
        self.mutationCount = mutationCount
        self.rowLayoutCount = rowLayoutCount
        self.epoch = epoch
    }

    /// A row of a leaf `transaction` owns (one it has just made mutable).
    package init(ownedLeaf leaf: ClusterNode, row: Int, in transaction: WriteTransaction) {
        self.init(leaf: leaf, row: row, group: transaction.group.serial, mutationCount: transaction.mutationCount,
                  rowLayoutCount: transaction.rowLayoutCount, epoch: transaction.positionEpoch)
    }

    /// Whether reads through `reader` may use this position: nothing changed since it was
    /// found, or only values were written in place and its leaf is one the reader owns (so
    /// the leaf itself holds those values).
    @inline(__always)
    package func isValid(for reader: any VersionReading) -> Bool {
        group == reader.group.serial && (mutationCount == reader.mutationCount || (rowLayoutCount == reader.rowLayoutCount && leaf.isMutable))
    }

    /// ``isValid(for:)`` for a snapshot, without an existential.
    @_spi(Engine) @inlinable @inline(__always)
    public func isValid(in snapshot: Snapshot) -> Bool {
        group == snapshot.group.serial && mutationCount == 0
    }

    /// ``isValid(for:)`` for a write transaction, without an existential.
    @_spi(Engine) @inlinable @inline(__always)
    public func isValid(in transaction: WriteTransaction) -> Bool {
        group == transaction.group.serial
            && (mutationCount == transaction.mutationCount || (rowLayoutCount == transaction.rowLayoutCount && leaf.isMutable))
    }

    /// Becomes `other` when both sit in the same leaf of the same version, without touching
    /// the leaf's reference count (a walk re-points one object row after row); false otherwise.
    @inlinable @inline(__always)
    package mutating func moveInLeaf(to other: RowPosition) -> Bool {
        guard leaf === other.leaf, group == other.group, mutationCount == other.mutationCount,
              rowLayoutCount == other.rowLayoutCount else { return false }
        row = other.row
        key = other.key
        epoch = other.epoch
        return true
    }

    /// Becomes the row of object `key` when it sits in the same leaf; false otherwise. In a
    /// leaf whose keys run without gaps (objects added in key order, as with `Int` primary
    /// keys) the key is at its distance from the first key; otherwise a binary search finds it.
    @inlinable
    package mutating func moveInLeaf(toKey key: Int64) -> Bool {
        let found = leaf.keys.withUnsafeBufferPointer { keys -> Int? in
            guard let first = keys.first, let last = keys.last, first <= key, key <= last else { return nil }
            let distance = UInt64(bitPattern: key &- first)   // first <= key: no sign to lose
            if distance < UInt64(keys.count), keys[Int(distance)] == key { return Int(distance) }
            var low = 0, high = keys.count
            while low < high {
                let middle = (low + high) / 2
                if keys[middle] < key { low = middle + 1 } else { high = middle }
            }
            return low < keys.count && keys[low] == key ? low : nil
        }
        guard let found else { return false }
        row = found
        self.key = key
        return true
    }

    /// ``moveInLeaf(to:)`` given the other row's parts: no position is built.
    @inlinable @inline(__always)
    package mutating func moveInLeaf(_ leaf: ClusterNode, row: Int, key: Int64, group: UInt64, mutationCount: Int, rowLayoutCount: Int,
                             epoch: UInt64) -> Bool {
        guard self.leaf === leaf, self.group == group, self.mutationCount == mutationCount,
              self.rowLayoutCount == rowLayoutCount else { return false }
        self.row = row
        self.key = key
        self.epoch = epoch
        return true
    }

    /// Becomes the next row of its leaf when that row holds `key` and `transaction` owns the
    /// leaf (``successor(holding:in:)`` in place: the leaf's reference count is not touched).
    @inline(__always)
    package mutating func moveToSuccessor(holding key: Int64, in transaction: WriteTransaction) -> Bool {
        moveToSuccessor(holding: key, in: WriteRows(transaction))
    }

    /// ``moveToSuccessor(holding:in:)`` given what it compares of the transaction.
    @inlinable @inline(__always)
    package mutating func moveToSuccessor(holding key: Int64, in writing: WriteRows) -> Bool {
        let next = row + 1
        // The keys are read in a closure that only reads them: no retain of the array.
        guard group == writing.group, rowLayoutCount == writing.rowLayoutCount, leaf.isMutable,
              leaf.keys.withUnsafeBufferPointer({ next < $0.count && $0[next] == key }) else { return false }
        row = next
        self.key = key
        mutationCount = writing.mutationCount
        epoch = writing.epoch
        return true
    }

    /// The row when this position is a row of the leaf `leaf` (by identity) of the version
    /// with root serial `group`, found under row layout `rowLayoutCount`; nil otherwise. No
    /// reference counting: the leaf is compared, not handed out.
    @inlinable @inline(__always)
    package func row(inLeaf leaf: ObjectIdentifier, group: UInt64, rowLayoutCount: Int) -> Int? {
        ObjectIdentifier(self.leaf) == leaf && self.group == group && self.rowLayoutCount == rowLayoutCount ? row : nil
    }

    /// The leaf and row when `transaction` owns the leaf and no row has moved since.
    package func ownedLeaf(in transaction: WriteTransaction) -> (ClusterNode, Int)? {
        guard group == transaction.group.serial, rowLayoutCount == transaction.rowLayoutCount, leaf.isMutable else { return nil }
        return (leaf, row)
    }

    /// The value of one column of this row (collection columns: use the collection reads).
    @inline(__always)
    package func value(ofColumn column: Int) throws(FloeError) -> Value {
        try leaf.column(column).value(at: row)
    }

    // MARK: Typed reads

    // Each answers nil when the column is not a well-formed, in-memory column of the asked
    // type (not loaded yet, damaged, or another type): the caller then takes the checked
    // read, which loads, reports damage, or decodes through `Value`.

    /// ``word(ofColumn:type:)`` of a position read where it is stored (`inout`: not copied,
    /// so its leaf is not retained).
    @_spi(Engine) @inlinable @inline(__always)
    public static func word(at position: inout RowPosition, ofColumn column: Int, type: ColumnType) -> (word: UInt64, isNull: Bool)? {
        position.word(ofColumn: column, type: type)
    }

    /// ``string(ofColumn:)`` of a position read where it is stored.
    @inlinable @inline(__always)
    package static func string(at position: inout RowPosition, ofColumn column: Int) -> (string: String, isNull: Bool)? {
        position.string(ofColumn: column)
    }

    /// A one-word value of `type` (int, bool, double, float, timestamp, link), with whether it is null.
    @_spi(Engine) @inlinable @inline(__always)
    public func word(ofColumn column: Int, type: ColumnType) -> (word: UInt64, isNull: Bool)? {
        // Nothing retained on the way: the position holds its leaf, the leaf its column
        // references, and each reference its resident node.
        let rows = leaf.keys.count
        let row = row
        guard let resident = residentColumn(column) else { return nil }
        return resident._withUnsafeGuaranteedRef { node -> (word: UInt64, isNull: Bool)? in
            guard node.storage.type == type, node.storage.layout == .words, node.storage.count == rows else { return nil }
            let word = node.storage.words.withUnsafeBufferPointer { $0[row] }
            guard node.storage.nulls != nil else { return (word, false) }
            return (word, node.storage.nulls!.withUnsafeBufferPointer { $0[row] })
        }
    }

    /// A string value, with whether it is null.
    @inlinable @inline(__always)
    package func string(ofColumn column: Int) -> (string: String, isNull: Bool)? {
        // Unretained like ``word(ofColumn:type:)``; only the string itself is copied out.
        let rows = leaf.keys.count
        let row = row
        guard let resident = residentColumn(column) else { return nil }
        return resident._withUnsafeGuaranteedRef { node -> (string: String, isNull: Bool)? in
            guard node.storage.layout == .strings, node.storage.count == rows else { return nil }
            if node.storage.nulls != nil, node.storage.nulls!.withUnsafeBufferPointer({ $0[row] }) { return ("", true) }
            return (node.storage.strings.withUnsafeBufferPointer { $0[row] }, false)
        }
    }

    /// Column `column`'s node when it is in memory, unretained (nil: out of range or not
    /// loaded). The reference is taken from the leaf's array in a closure that only reads
    /// it, and its resident node is loaded after: an atomic load inside the array's closure
    /// would make the compiler retain the array around it, on every typed read.
    @inlinable @inline(__always)
    func residentColumn(_ column: Int) -> Unmanaged<ColumnNode>? {
        let reference = leaf.columns.withUnsafeBufferPointer { references -> Unmanaged<NodeRef<ColumnNode>>? in
            guard column >= 0, column < references.count else { return nil }
            return Unmanaged.passUnretained(references[column])
        }
        // The leaf, which this position holds, holds the reference.
        return reference?._withUnsafeGuaranteedRef { $0.unretainedResidentNode }
    }
}

/// What a step of a walk inside a write compares a row's position with, read from the open
/// transaction once per step (its root's serial, row layout, mutation count and read epoch):
/// a plain value, so nothing retains the transaction on the way.
@usableFromInline package struct WriteRows {
    @usableFromInline package let group: UInt64
    @usableFromInline package let rowLayoutCount: Int
    @usableFromInline package let mutationCount: Int
    @usableFromInline package let epoch: UInt64

    @_spi(Engine) @inlinable @inline(__always)
    public init(_ transaction: WriteTransaction) {
        group = transaction.group.serial
        rowLayoutCount = transaction.rowLayoutCount
        mutationCount = transaction.mutationCount
        epoch = transaction.positionEpoch
    }
}

/// The rows of one table in key order, walked leaf by leaf without a descent per row.
///
/// ``step()`` moves to the next row without building a ``RowPosition`` (which retains its
/// leaf): a walk that re-points one object moves that object's position within the leaf
/// (``move(_:)``) and builds a position only when the walk enters another leaf.
@usableFromInline package struct RowCursor {
    @usableFromInline let leaves: [ClusterNode]
    @usableFromInline let group: UInt64
    @usableFromInline let mutationCount: Int
    @usableFromInline let rowLayoutCount: Int
    @usableFromInline let epoch: UInt64
    /// The leaf the cursor is in (nil before the first step and after the last).
    @usableFromInline var leaf: ClusterNode?
    /// `leaf`'s keys, held by the cursor so that a step loads one key.
    @usableFromInline var keys: [Int64] = []
    @usableFromInline var leafIndex = -1
    /// The row `step()` answered last.
    @usableFromInline package internal(set) var row = -1

    fileprivate init(leaves: [ClusterNode], reader: any VersionReading) {
        self.leaves = leaves
        group = reader.group.serial
        mutationCount = reader.mutationCount
        rowLayoutCount = reader.rowLayoutCount
        epoch = reader.positionEpoch
    }

    /// No rows at all.
    @inlinable
    package init() {
        leaves = []
        group = 0
        mutationCount = 0
        rowLayoutCount = 0
        epoch = 0
    }

    /// No rows at all.
    package static func empty(_ reader: any VersionReading) -> RowCursor { RowCursor() }

    /// Moves to the next row and answers its key, or nil after the last.
    @inlinable @inline(__always)
    package mutating func step() -> Int64? {
        if row + 1 < keys.count {
            row += 1
            return keys[row]
        }
        return stepToNextLeaf()
    }

    @usableFromInline
    mutating func stepToNextLeaf() -> Int64? {
        while leafIndex + 1 < leaves.count {
            leafIndex += 1
            keys = leaves[leafIndex].keys
            if !keys.isEmpty {
                leaf = leaves[leafIndex]
                row = 0
                return keys[0]
            }
        }
        leaf = nil
        keys = []
        row = -1
        return nil
    }

    /// The key of the row ``step()`` answered last (nil before the first step and after the last).
    @inlinable
    package var key: Int64? { leaf == nil ? nil : keys[row] }

    /// The position of the row ``step()`` answered last.
    @inlinable
    package var position: RowPosition {
        RowPosition(leaf: leaf!, row: row, group: group, mutationCount: mutationCount, rowLayoutCount: rowLayoutCount, epoch: epoch)
    }

    /// Moves `position` to the row ``step()`` answered last when `position` is a row of the
    /// same leaf of the same version (no reference counting: the leaf stays); false otherwise.
    @inlinable @inline(__always)
    package func move(_ position: inout RowPosition) -> Bool {
        guard let leaf else { return false }
        return position.moveInLeaf(leaf, row: row, key: keys[row], group: group, mutationCount: mutationCount,
                                   rowLayoutCount: rowLayoutCount, epoch: epoch)
    }

    /// The next row's position, or nil after the last.
    @inlinable
    package mutating func next() -> RowPosition? {
        guard step() != nil else { return nil }
        return position
    }
}

/// Finds many rows of one table in one version by key: a binary search over the leaves' last
/// keys, then one inside the leaf, over arrays the locator holds (no descent through the
/// tree's inner nodes per row). For walking a query's keys in an order of their own.
package struct RowLocator {
    private let leaves: [ClusterNode]
    private let lastKeys: [Int64]
    private let group: UInt64
    private let mutationCount: Int
    private let rowLayoutCount: Int
    private let epoch: UInt64

    fileprivate init(leaves: [ClusterNode], reader: any VersionReading) {
        self.leaves = leaves
        lastKeys = leaves.map { $0.keys.last ?? .min }
        group = reader.group.serial
        mutationCount = reader.mutationCount
        rowLayoutCount = reader.rowLayoutCount
        epoch = reader.positionEpoch
    }

    /// Where object `key` sits (nil: no such object).
    package func position(of key: Int64) -> RowPosition? {
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
        return RowPosition(leaf: leaf, row: first, group: group, mutationCount: mutationCount, rowLayoutCount: rowLayoutCount,
                           epoch: epoch)
    }
}

extension VersionReading {
    /// A locator of `table`'s rows in this version.
    package func rowLocator(of table: TableHandle) throws(FloeError) -> RowLocator {
        RowLocator(leaves: try leaves(of: table), reader: self)
    }

    /// Where object `key` of `table` sits in this version (nil: no such object).
    package func position(of key: Int64, in table: TableHandle) throws(FloeError) -> RowPosition? {
        guard let (leaf, row) = try ClusterTree.find(key, in: tableNode(table).root) else { return nil }
        return RowPosition(leaf: leaf, row: row, group: group.serial, mutationCount: mutationCount, rowLayoutCount: rowLayoutCount,
                           epoch: positionEpoch)
    }

    /// A cursor over every row of `table` in key order.
    package func rows(of table: TableHandle) throws(FloeError) -> RowCursor {
        RowCursor(leaves: try leaves(of: table), reader: self)
    }

    /// Up to `limit` object keys of `table` greater than `key`, in key order; leaves holding
    /// only smaller keys are skipped whole.
    package func objectKeys(in table: TableHandle, after key: Int64, limit: Int) throws(FloeError) -> [Int64] {
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
