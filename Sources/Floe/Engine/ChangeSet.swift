/// What one write transaction (or several, merged) did to objects, table by table: which
/// objects it inserted and deleted, and which columns of which existing objects it wrote.
///
/// The write transaction records it as it sets cells, so that change streams learn what a
/// commit touched without comparing versions. A write counts even when it stores an equal value.
///
/// ```swift
/// var changes = ChangeSet()
/// changes.recordWrite(table: "Dog", key: 1, column: 2)
/// changes.tables["Dog"]?.modified[1]   // [2]
/// ```
@_spi(Engine) public struct ChangeSet: Sendable, Equatable {
    /// One table's changes.
    public struct TableChanges: Sendable, Equatable {
        /// Objects created (and not deleted again).
        public var inserted: Set<Int64> = []
        /// Objects that existed before and are gone (a key both here and in `inserted` was
        /// deleted, then a new object took its key).
        public var deleted: Set<Int64> = []
        /// Columns written, for objects that existed before and still exist.
        public var modified: [Int64: Set<Int>] = [:]
        /// The table was created or removed, or its columns changed: positions may not compare.
        public var structureChanged = false

        /// Whether the table has no changes.
        public var isEmpty: Bool { inserted.isEmpty && deleted.isEmpty && modified.isEmpty && !structureChanged }
    }

    /// Changes by table name (names survive migrations' reordering of tables).
    public var tables: [String: TableChanges] = [:]

    /// No changes.
    public init() {}

    /// Whether no table has changes.
    public var isEmpty: Bool { tables.values.allSatisfy(\.isEmpty) }

    mutating func recordInsert(table: String, key: Int64) {
        tables[table, default: TableChanges()].inserted.insert(key)
        tables[table]!.modified[key] = nil
    }

    /// A written cell; inside an object created by the same changes it adds nothing.
    mutating func recordWrite(table: String, key: Int64, column: Int) {
        if tables[table]?.inserted.contains(key) == true { return }
        tables[table, default: TableChanges()].modified[key, default: []].insert(column)
    }

    mutating func recordDelete(table: String, key: Int64) {
        var changes = tables[table] ?? TableChanges()
        changes.modified[key] = nil
        // Created and deleted within these changes: as if it never was (unless it replaced an
        // object deleted before, which stays deleted).
        if changes.inserted.remove(key) == nil { changes.deleted.insert(key) }
        tables[table] = changes
    }

    mutating func recordStructureChange(table: String) {
        tables[table, default: TableChanges()].structureChanged = true
    }

    /// These changes followed by `later`'s, as one.
    public mutating func merge(_ later: ChangeSet) {
        for (table, next) in later.tables {
            // Within one change set deletions come first: a key both deleted and inserted was replaced.
            for key in next.deleted { recordDelete(table: table, key: key) }
            for key in next.inserted { recordInsert(table: table, key: key) }
            for (key, columns) in next.modified {
                for column in columns { recordWrite(table: table, key: key, column: column) }
            }
            if next.structureChanged { recordStructureChange(table: table) }
        }
    }

    /// Only the changes to `names` (all of them when nil).
    public func restricted(to names: Set<String>?) -> ChangeSet {
        guard let names else { return self }
        var result = ChangeSet()
        for (table, changes) in tables where names.contains(table) && !changes.isEmpty { result.tables[table] = changes }
        return result
    }
}

/// A write transaction's changes in the order it made them: cheap to append (no hashing
/// per cell), turned into a ``ChangeSet`` at commit when observers want one.
struct ChangeLog {
    enum Entry {
        case insert(String, Int64)
        case write(String, Int64, Int)
        case delete(String, Int64)
        /// Every object of the table, then under `root`, deleted at once.
        case deleteAll(String, NodeRef<ClusterNode>?)
        case structure(String)
    }

    private(set) var entries: [Entry] = []

    mutating func append(_ entry: Entry) {
        entries.append(entry)
    }

    func changeSet() throws(FloeError) -> ChangeSet {
        var changes = ChangeSet()
        for entry in entries {
            switch entry {
            case .insert(let table, let key): changes.recordInsert(table: table, key: key)
            case .write(let table, let key, let column): changes.recordWrite(table: table, key: key, column: column)
            case .delete(let table, let key): changes.recordDelete(table: table, key: key)
            case .structure(let table): changes.recordStructureChange(table: table)
            case .deleteAll(let table, let root):
                try ClusterTree.forEachLeaf(in: root) { leaf in
                    for key in leaf.keys { changes.recordDelete(table: table, key: key) }
                    return true
                }
            }
        }
        return changes
    }
}

/// A commit as change observers see it: its version, the new version's (unpinned) snapshot,
/// and what it changed.
@_spi(Engine) public struct CommittedChanges: Sendable {
    /// The version the commit made.
    public let version: UInt64
    /// The committed version. It does not pin the version: an observer keeps it only until the
    /// next commit it hears of.
    public let snapshot: Snapshot
    /// What the commit changed; nil when unknown (commits another process appended to the file).
    public let changes: ChangeSet?
}
