@_spi(Engine) import FloeStorage

/// What changed between two versions' trees, found by walking only what differs: subtrees
/// two versions share (the same node, or the same file offset) are skipped whole, so the cost
/// follows the leaves a commit copied, not the size of the tables.
///
/// Unlike the change set a write transaction records, this compares values: a cell written
/// with an equal value is no change here. Columns are matched by name, so the diff spans
/// migrations that add, remove or reorder columns.
///
/// ```swift
/// let changes = try VersionDiff.changes(from: older.group, to: newer.group)
/// changes.tables["Dog"]?.inserted
/// ```
@_spi(Engine) public enum VersionDiff {
    /// The changes that turn `old`'s objects into `new`'s.
    public static func changes(from old: GroupNode, to new: GroupNode) throws(FloeError) -> ChangeSet {
        var result = ChangeSet()
        var oldTables: [String: NodeRef<TableNode>] = [:]
        for ref in old.tables { oldTables[try ref.load().spec.name] = ref }
        for ref in new.tables {
            let table = try ref.load()
            let name = table.spec.name
            guard let oldRef = oldTables.removeValue(forKey: name) else {
                result.recordStructureChange(table: name)
                for key in try keys(of: table.root) { result.recordInsert(table: name, key: key) }
                continue
            }
            if same(oldRef, ref) { continue }
            let oldTable = try oldRef.load()
            var changes = try diff(oldTable, table)
            if oldTable.spec != table.spec { changes.structureChanged = true }
            if !changes.isEmpty { result.tables[name] = changes }
        }
        for (name, ref) in oldTables {
            result.recordStructureChange(table: name)
            for key in try keys(of: try ref.load().root) { result.recordDelete(table: name, key: key) }
        }
        return result
    }

    /// Two references to one node: the same reference, or the same written node.
    package static func same(_ a: AnyNodeRef?, _ b: AnyNodeRef?) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        return a === b || (a.offset != 0 && a.offset == b.offset)
    }

    private static func diff(_ old: TableNode, _ new: TableNode) throws(FloeError) -> ChangeSet.TableChanges {
        var changes = ChangeSet.TableChanges()
        try forEachRowChange(from: old, to: new) { change in
            switch change.kind {
            case .inserted: changes.inserted.insert(change.key)
            case .deleted: changes.deleted.insert(change.key)
            case .modified: changes.modified[change.key] = Set(change.columns)
            }
        }
        return changes
    }

    /// An object's row in a leaf a walk met, with the leaf's columns loaded once for all its rows.
    package struct LeafRow {
        package let storages: [ColumnStorage]
        package let row: Int

        /// The value of `column` (a list, set or map column reads as null: read its elements by key).
        package func value(_ column: Int) -> Value {
            storages[column].layout == .collections ? .null : storages[column].value(at: row)
        }
    }

    /// One object that differs between two versions of a table.
    package struct RowChange {
        package enum Kind { case inserted, deleted, modified }
        package let kind: Kind
        package let key: Int64
        /// Where it was (deleted and modified objects).
        package let old: LeafRow?
        /// Where it is (inserted and modified objects).
        package let new: LeafRow?
        /// For a modified object, the columns (of the new table, ascending) whose values differ.
        package let columns: [Int]
    }

    /// Calls `body` for each object inserted, deleted or modified between `old` and `new` (two
    /// versions of one table; nil: the table does not exist there), in key order. Only the
    /// leaves the two do not share are read, side by side in key order (a merge, no lookup per
    /// object), each leaf's columns loaded once.
    package static func forEachRowChange(from old: TableNode?, to new: TableNode?, _ body: (RowChange) throws(FloeError) -> Void) throws(FloeError) {
        if let old, let new, same(old.root, new.root) && old.spec == new.spec { return }
        let oldLeaves = try leaves(of: old?.root, notIn: new?.root)
        let newLeaves = try leaves(of: new?.root, notIn: old?.root)
        // Columns by name: a migration may have added, removed or moved some.
        var oldColumnOf: [String: Int] = [:]
        for (index, column) in (old?.spec.columns ?? []).enumerated() where oldColumnOf[column.name] == nil { oldColumnOf[column.name] = index }
        let columnMap: [Int?] = (new?.spec.columns ?? []).map { oldColumnOf[$0.name] }
        let oldSpec = old?.spec, newSpec = new?.spec
        var oldCursor = LeafCursor(leaves: oldLeaves, spec: oldSpec)
        var newCursor = LeafCursor(leaves: newLeaves, spec: newSpec)
        while true {
            let oldKey = oldCursor.key, newKey = newCursor.key
            if let oldKey, newKey == nil || oldKey < newKey! {
                try body(RowChange(kind: .deleted, key: oldKey, old: try oldCursor.row(), new: nil, columns: []))
                oldCursor.advance()
            } else if let newKey, oldKey == nil || newKey < oldKey! {
                try body(RowChange(kind: .inserted, key: newKey, old: nil, new: try newCursor.row(), columns: []))
                newCursor.advance()
            } else if let key = newKey {
                let before = try oldCursor.row(), after = try newCursor.row()
                var written: [Int] = []
                for (column, oldColumn) in columnMap.enumerated() {
                    guard let oldColumn else { written.append(column); continue }
                    if try differs(oldCursor.leaf, before, oldColumn, newCursor.leaf, after, column) { written.append(column) }
                }
                if !written.isEmpty { try body(RowChange(kind: .modified, key: key, old: before, new: after, columns: written)) }
                oldCursor.advance()
                newCursor.advance()
            } else {
                return
            }
        }
    }

    /// A position in a sequence of leaves (in key order), with the current leaf's columns.
    private struct LeafCursor {
        let leaves: [ClusterNode]
        let spec: TableSpec?
        var index = 0
        var position = 0
        var storages: [ColumnStorage]?
        /// The current leaf's keys, read once per leaf (not through the node at every step).
        var keys: [Int64]

        init(leaves: [ClusterNode], spec: TableSpec?) {
            self.leaves = leaves
            self.spec = spec
            keys = leaves.first?.keys ?? []
            skipEmpty()
        }

        var leaf: ClusterNode { leaves[index] }
        var key: Int64? { position < keys.count ? keys[position] : nil }

        mutating func row() throws(FloeError) -> LeafRow {
            if storages == nil {
                var loaded: [ColumnStorage] = []
                let leaf = self.leaf
                loaded.reserveCapacity(leaf.columns.count)
                for column in leaf.columns.indices {
                    let expected = spec.flatMap { column < $0.columns.count ? $0.columns[column] : nil }
                    loaded.append(try leaf.column(column, expected: expected).storage)
                }
                storages = loaded
            }
            return LeafRow(storages: storages!, row: position)
        }

        mutating func advance() {
            position += 1
            skipEmpty()
        }

        private mutating func skipEmpty() {
            while index < leaves.count && position >= keys.count {
                index += 1
                position = 0
                storages = nil
                keys = index < leaves.count ? leaves[index].keys : []
            }
        }
    }

    private static func differs(_ oldLeaf: ClusterNode, _ old: LeafRow, _ oldColumn: Int,
                                _ newLeaf: ClusterNode, _ new: LeafRow, _ newColumn: Int) throws(FloeError) -> Bool {
        if same(oldLeaf.columns[oldColumn], newLeaf.columns[newColumn]) && old.row == new.row { return false }
        let oldStorage = old.storages[oldColumn], newStorage = new.storages[newColumn]
        guard oldStorage.layout == .collections || newStorage.layout == .collections else {
            return !oldStorage.holdsSameValue(at: old.row, as: newStorage, at: new.row)
        }
        guard oldStorage.layout == newStorage.layout else { return true }
        let before = oldStorage.collections[old.row], after = newStorage.collections[new.row]
        if same(before, after) { return false }
        if try CollectionTree.allElements(before) != CollectionTree.allElements(after) { return true }
        return try mapKeys(before) != mapKeys(after)
    }

    private static func mapKeys(_ root: NodeRef<CollectionNode>?) throws(FloeError) -> [String] {
        var keys: [String] = []
        try CollectionTree.forEachLeaf(in: root) { leaf in
            keys.append(contentsOf: leaf.mapKeys ?? [])
            return true
        }
        return keys
    }

    /// The leaves under `root` that `other` does not share (all of them when `other` is nil).
    private static func leaves(of root: NodeRef<ClusterNode>?, notIn other: NodeRef<ClusterNode>?) throws(FloeError) -> [ClusterNode] {
        guard let root else { return [] }
        var shared = Set<ObjectIdentifier>()
        var sharedOffsets = Set<UInt64>()
        if let other { try collectRefs(other, into: &shared, offsets: &sharedOffsets) }
        var found: [ClusterNode] = []
        try collectLeaves(root, skipping: shared, offsets: sharedOffsets, into: &found)
        return found
    }

    /// Every reference of `ref`'s inner levels and their children (leaves are not loaded).
    private static func collectRefs(_ ref: NodeRef<ClusterNode>, into refs: inout Set<ObjectIdentifier>, offsets: inout Set<UInt64>) throws(FloeError) {
        refs.insert(ObjectIdentifier(ref))
        if ref.offset != 0 { offsets.insert(ref.offset) }
        let node = try ref.load()
        guard !node.isLeaf else { return }
        for child in node.children { try collectRefs(child, into: &refs, offsets: &offsets) }
    }

    private static func collectLeaves(_ ref: NodeRef<ClusterNode>, skipping shared: Set<ObjectIdentifier>, offsets: Set<UInt64>,
                                      into found: inout [ClusterNode]) throws(FloeError) {
        if shared.contains(ObjectIdentifier(ref)) || (ref.offset != 0 && offsets.contains(ref.offset)) { return }
        let node = try ref.load()
        if node.isLeaf { found.append(node); return }
        for child in node.children { try collectLeaves(child, skipping: shared, offsets: offsets, into: &found) }
    }

    private static func keys(of root: NodeRef<ClusterNode>?) throws(FloeError) -> [Int64] {
        var keys: [Int64] = []
        try ClusterTree.forEachLeaf(in: root) { leaf in
            keys.append(contentsOf: leaf.keys)
            return true
        }
        return keys
    }
}
