@_spi(Engine) import FloeStorage

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
        /// The positional edits made to lists and sets of objects in `modified`, by object key
        /// and column, in order. A collection column in `modified` without a complete log here
        /// changed in ways not recorded (a map, another process's commit, too many edits).
        public var collectionEdits: [CollectionID: CollectionEditLog] = [:]

        package init() {}

        /// Whether the table has no changes.
        public var isEmpty: Bool { inserted.isEmpty && deleted.isEmpty && modified.isEmpty && !structureChanged }
    }

    /// One object's list, set or map: the object's key and the collection's column.
    public struct CollectionID: Hashable, Sendable {
        /// The owning object's key.
        public var key: Int64
        /// The collection's column.
        public var column: Int

        /// The collection of object `key` in `column`.
        public init(key: Int64, column: Int) {
            self.key = key
            self.column = column
        }
    }

    /// Changes by table name (names survive migrations' reordering of tables).
    public var tables: [String: TableChanges] = [:]

    /// No changes.
    public init() {}

    /// Whether no table has changes.
    public var isEmpty: Bool { tables.values.allSatisfy(\.isEmpty) }

    package mutating func recordInsert(table: String, key: Int64) {
        tables[table, default: TableChanges()].inserted.insert(key)
        tables[table]!.modified[key] = nil
        tables[table]!.dropCollectionEdits(of: key)
    }

    /// Positional edits of an object's list or set (nil: edits not described, as a map's);
    /// inside an object created by the same changes they add nothing.
    package mutating func recordCollectionEdits(table: String, key: Int64, column: Int, edits: [CollectionEdit]?) {
        if tables[table]?.inserted.contains(key) == true { return }
        let id = CollectionID(key: key, column: column)
        // Written before without a log: its earlier edits are unknown, so later ones cannot help.
        let unknown = tables[table]?.modified[key]?.contains(column) == true && tables[table]?.collectionEdits[id] == nil
        recordWrite(table: table, key: key, column: column)
        if !unknown { tables[table]!.collectionEdits[id, default: CollectionEditLog()].append(edits) }
    }

    package mutating func recordCollectionEdits(table: String, key: Int64, column: Int, log: CollectionEditLog) {
        if tables[table]?.inserted.contains(key) == true { return }
        let id = CollectionID(key: key, column: column)
        let unknown = tables[table]?.modified[key]?.contains(column) == true && tables[table]?.collectionEdits[id] == nil
        recordWrite(table: table, key: key, column: column)
        if !unknown { tables[table]!.collectionEdits[id, default: CollectionEditLog()].append(contentsOf: log) }
    }

    /// A written cell; inside an object created by the same changes it adds nothing.
    package mutating func recordWrite(table: String, key: Int64, column: Int) {
        if tables[table]?.inserted.contains(key) == true { return }
        tables[table, default: TableChanges()].modified[key, default: []].insert(column)
    }

    package mutating func recordDelete(table: String, key: Int64) {
        var changes = tables[table] ?? TableChanges()
        changes.modified[key] = nil
        changes.dropCollectionEdits(of: key)
        // Created and deleted within these changes: as if it never was (unless it replaced an
        // object deleted before, which stays deleted).
        if changes.inserted.remove(key) == nil { changes.deleted.insert(key) }
        tables[table] = changes
    }

    package mutating func recordStructureChange(table: String) {
        tables[table, default: TableChanges()].structureChanged = true
    }

    /// These changes followed by `later`'s, as one.
    public mutating func merge(_ later: ChangeSet) {
        for (table, next) in later.tables {
            // Within one change set deletions come first: a key both deleted and inserted was replaced.
            for key in next.deleted { recordDelete(table: table, key: key) }
            for key in next.inserted { recordInsert(table: table, key: key) }
            for (key, columns) in next.modified {
                for column in columns {
                    if let log = next.collectionEdits[CollectionID(key: key, column: column)] {
                        recordCollectionEdits(table: table, key: key, column: column, log: log)
                    } else {
                        recordWrite(table: table, key: key, column: column)
                        // A collection written without a log stays without one: its edits are unknown.
                        tables[table]!.collectionEdits[CollectionID(key: key, column: column)]?.markIncomplete()
                    }
                }
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

extension ChangeSet.TableChanges {
    package mutating func dropCollectionEdits(of key: Int64) {
        guard !collectionEdits.isEmpty else { return }
        for id in collectionEdits.keys where id.key == key { collectionEdits[id] = nil }
    }
}

/// One positional edit of a list or set, as the write made it.
///
/// ```swift
/// let edits: [CollectionEdit] = [.insert(at: 0, count: 2), .remove(at: 5), .set(at: 1)]
/// ```
@_spi(Engine) public enum CollectionEdit: Sendable, Equatable {
    /// `count` elements inserted from `position` on.
    case insert(at: Int, count: Int)
    /// The element at `position` removed.
    case remove(at: Int)
    /// The element at `position` replaced (by an equal value or not).
    case set(at: Int)
    /// Every element removed.
    case removeAll
}

/// The edits made to one list or set, in order; incomplete when some edit was not described
/// or there were more than ``limit`` (then the collection is compared in full).
///
/// ```swift
/// changes.tables["Box"]?.collectionEdits[ChangeSet.CollectionID(key: 1, column: 2)]?.edits
/// ```
@_spi(Engine) public struct CollectionEditLog: Sendable, Equatable {
    /// The most edits kept per collection: past it, the log is dropped and marked incomplete.
    public static let limit = 4096
    /// The edits, in order (empty when incomplete).
    public private(set) var edits: [CollectionEdit] = []
    /// Whether `edits` are every edit made.
    public private(set) var isComplete = true

    /// An empty log.
    public init() {}

    package mutating func append(_ more: [CollectionEdit]?) {
        guard isComplete else { return }
        guard let more, edits.count + more.count <= Self.limit else { return markIncomplete() }
        edits.append(contentsOf: more)
    }

    package mutating func append(contentsOf other: CollectionEditLog) {
        guard isComplete else { return }
        guard other.isComplete, edits.count + other.edits.count <= Self.limit else { return markIncomplete() }
        edits.append(contentsOf: other.edits)
    }

    package mutating func markIncomplete() {
        isComplete = false
        edits = []
    }
}

/// A write transaction's changes in the order it made them: cheap to append (no hashing
/// per cell), turned into a ``ChangeSet`` at commit when observers want one.
@usableFromInline package struct ChangeLog {
    package enum Entry {
        case insert(String, Int64)
        /// Objects `first`, `first + 1`, … (`count` keys) inserted one after the other into
        /// the table in slot `slot` of ``ChangeLog/tableNames``: one entry for a run of appends.
        case insertRun(slot: Int, first: Int64, count: Int64)
        case write(String, Int64, Int)
        /// Values written in place into one column of the objects with keys `first...last`
        /// (each written at least once): the table by its slot in ``ChangeLog/tableNames`` (no
        /// string retained per write), the column, the keys.
        case cells(slot: Int, column: Int, first: Int64, last: Int64)
        /// A list, set or map's edits (nil: not described).
        case collection(String, Int64, Int, [CollectionEdit]?)
        case delete(String, Int64)
        /// Every object of the table, then under `root`, deleted at once.
        case deleteAll(String, NodeRef<ClusterNode>?)
        case structure(String)
    }

    private var entries: [Entry] = []
    /// The table names ``Entry/cells(slot:column:first:last:)`` entries refer to by index.
    package private(set) var tableNames: [String] = []
    /// The slot last handed out: its table's index in the group, and the row layout count it
    /// was handed out under (a structure change may rename or move tables).
    @usableFromInline var lastSlot = (table: -1, layoutCount: -1, slot: -1)
    /// The newest in-place writes, not yet an entry: one column of a run of consecutive keys
    /// (a loop over a table writes `first`, `first + 1`, … and grows the run by a compare and
    /// a store). Always newer than every entry: ``append(_:)`` closes it first.
    @usableFromInline var run = CellRun(slot: -1, column: -1, first: 0, last: 0)

    /// The newest inserts, not yet an entry when open (`slot` ≥ 0): objects `first`,
    /// `first + 1`, … (`count` keys) inserted one after the other into the table in `slot`. An
    /// add in a loop grows it by a compare and a store; at most one of it and ``run`` is open,
    /// and whichever is, is newer than every entry.
    @usableFromInline var inserts = InsertRun(slot: -1, first: 0, count: 0)

    @usableFromInline struct InsertRun {
        @usableFromInline var slot: Int
        @usableFromInline var first: Int64
        @usableFromInline var count: Int64
    }

    @usableFromInline struct CellRun {
        @usableFromInline var slot: Int
        @usableFromInline var column: Int
        @usableFromInline var first: Int64
        @usableFromInline var last: Int64
    }

    package mutating func append(_ entry: Entry) {
        closeRun()
        entries.append(entry)
    }

    /// Records a value written in place into `column` of object `key` of the table in `slot`:
    /// the same cell again, or the next key of the same column, only extends the open run.
    @inline(__always)
    @inlinable
    package mutating func appendCell(slot: Int, key: Int64, column: Int) {
        if run.slot == slot, run.column == column {
            if key == run.last { return }
            if key > run.last, key &- 1 == run.last {
                run.last = key
                return
            }
        }
        startRun(slot: slot, key: key, column: column)
    }

    @usableFromInline
    mutating func startRun(slot: Int, key: Int64, column: Int) {
        closeRun()
        run = CellRun(slot: slot, column: column, first: key, last: key)
    }

    /// Makes the open run, of in-place writes or of inserts, an entry.
    private mutating func closeRun() {
        if run.slot >= 0 {
            entries.append(.cells(slot: run.slot, column: run.column, first: run.first, last: run.last))
            run.slot = -1
        }
        if inserts.slot >= 0 {
            entries.append(.insertRun(slot: inserts.slot, first: inserts.first, count: inserts.count))
            inserts.slot = -1
        }
    }

    /// Every entry, the open run of in-place writes or inserts included, in the order the
    /// changes were made.
    package var allEntries: [Entry] {
        if run.slot >= 0 { return entries + [.cells(slot: run.slot, column: run.column, first: run.first, last: run.last)] }
        if inserts.slot >= 0 { return entries + [.insertRun(slot: inserts.slot, first: inserts.first, count: inserts.count)] }
        return entries
    }

    /// Records the insert of object `key` into the table in slot `slot`: the last entry grows
    /// when it is a run of that table's inserts ending just below `key`.
    @inlinable @inline(__always)
    package mutating func appendInsert(slot: Int, key: Int64) {
        if inserts.slot == slot, inserts.first &+ inserts.count == key {
            inserts.count &+= 1
            return
        }
        startInserts(slot: slot, key: key)
    }

    /// ``appendInsert(slot:key:)`` when the open run of inserts does not end just below `key`:
    /// the run is opened again from the last entry when that is a run of the table's inserts
    /// ending there, or opened at `key`.
    @usableFromInline
    mutating func startInserts(slot: Int, key: Int64) {
        closeRun()
        if let last = entries.indices.last, case .insertRun(slot, let first, let count) = entries[last], first &+ count == key {
            entries.removeLast()
            inserts = InsertRun(slot: slot, first: first, count: count + 1)
            return
        }
        inserts = InsertRun(slot: slot, first: key, count: 1)
    }

    /// The slot naming table `name` in ``tableNames`` (added when new).
    package mutating func slot(named name: String) -> Int {
        if let existing = tableNames.lastIndex(of: name) { return existing }
        tableNames.append(name)
        return tableNames.count - 1
    }

    /// The slot of table `table` while the layout count is still `layoutCount`, if one was handed out.
    @inlinable @inline(__always)
    package func slot(ofTable table: Int, layoutCount: Int) -> Int? {
        lastSlot.table == table && lastSlot.layoutCount == layoutCount ? lastSlot.slot : nil
    }

    /// A slot naming `name`, remembered for table `table` under `layoutCount`.
    package mutating func addSlot(named name: String, table: Int, layoutCount: Int) -> Int {
        let slot = slot(named: name)
        lastSlot = (table, layoutCount, slot)
        return slot
    }

    package func changeSet() throws(FloeError) -> ChangeSet {
        var changes = ChangeSet()
        for entry in allEntries {
            switch entry {
            case .insert(let table, let key): changes.recordInsert(table: table, key: key)
            case .insertRun(let slot, let first, let count):
                for key in first..<first + count { changes.recordInsert(table: tableNames[slot], key: key) }
            case .write(let table, let key, let column): changes.recordWrite(table: table, key: key, column: column)
            case .cells(let slot, let column, let first, let last):
                for key in first...last { changes.recordWrite(table: tableNames[slot], key: key, column: column) }
            case .collection(let table, let key, let column, let edits):
                changes.recordCollectionEdits(table: table, key: key, column: column, edits: edits)
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
