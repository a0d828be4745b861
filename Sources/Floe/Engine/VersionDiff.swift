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
    static func same(_ a: AnyNodeRef?, _ b: AnyNodeRef?) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        return a === b || (a.offset != 0 && a.offset == b.offset)
    }

    private static func diff(_ old: TableNode, _ new: TableNode) throws(FloeError) -> ChangeSet.TableChanges {
        var changes = ChangeSet.TableChanges()
        if same(old.root, new.root) && old.spec == new.spec { return changes }
        let oldLeaves = try leaves(of: old.root, notIn: new.root)
        let newLeaves = try leaves(of: new.root, notIn: old.root)
        var oldRows: [Int64: (leaf: ClusterNode, row: Int)] = [:]
        for leaf in oldLeaves { for (row, key) in leaf.keys.enumerated() { oldRows[key] = (leaf, row) } }
        // Columns by name: a migration may have added, removed or moved some.
        let oldColumnOf = Dictionary(old.spec.columns.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        for leaf in newLeaves {
            for (row, key) in leaf.keys.enumerated() {
                guard let before = oldRows.removeValue(forKey: key) else {
                    changes.inserted.insert(key)
                    continue
                }
                var written: Set<Int> = []
                for (column, spec) in new.spec.columns.enumerated() {
                    guard let oldColumn = oldColumnOf[spec.name] else { written.insert(column); continue }
                    if try differs(before.leaf, before.row, oldColumn, leaf, row, column) { written.insert(column) }
                }
                if !written.isEmpty { changes.modified[key] = written }
            }
        }
        changes.deleted = Set(oldRows.keys)
        return changes
    }

    private static func differs(_ oldLeaf: ClusterNode, _ oldRow: Int, _ oldColumn: Int,
                                _ newLeaf: ClusterNode, _ newRow: Int, _ newColumn: Int) throws(FloeError) -> Bool {
        let oldRef = oldLeaf.columns[oldColumn], newRef = newLeaf.columns[newColumn]
        if same(oldRef, newRef) && oldRow == newRow { return false }
        let oldStorage = try oldLeaf.column(oldColumn).storage, newStorage = try newLeaf.column(newColumn).storage
        guard oldStorage.layout == .collections || newStorage.layout == .collections else {
            return oldStorage.value(at: oldRow) != newStorage.value(at: newRow)
        }
        guard oldStorage.layout == newStorage.layout else { return true }
        let before = oldStorage.collections[oldRow], after = newStorage.collections[newRow]
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
