@_spi(Engine) import FloeStorage

/// The one open write of a store: changes a private copy-on-write root and publishes it on commit.
///
/// Reads inside the transaction see its own writes. Nothing is visible to snapshots or
/// other readers before ``commit()``; ``rollback()`` (or dropping the transaction) discards it all.
///
/// ```swift
/// let transaction = try store.beginWrite()
/// let dogs = try transaction.createTable(TableSpec(name: "Dog", columns: [
///     ColumnSpec(name: "name", type: .string),
///     ColumnSpec(name: "age", type: .int),
/// ]))
/// let rex = try transaction.insertObject(into: dogs, values: [.string("Rex"), .int(3)])
/// try transaction.setValue(.int(4), in: dogs, key: rex, column: 1)
/// try transaction.commit()
/// ```
@_spi(Engine) public final class WriteTransaction: VersionReading {
    /// Strings and binary values (and map keys) larger than this are refused.
    @inlinable public static var maximumValueSize: Int { FloeError.maximumValueSize }

    @_spi(Engine) public let store: Store
    /// The version this transaction started from.
    public let baseVersion: UInt64
    // `@exclusivity(unchecked)` on the state every write touches: no access overlaps another.
    @exclusivity(unchecked) public internal(set) var group: GroupNode
    package let context = WriteContext()
    @exclusivity(unchecked) @usableFromInline package internal(set) var isOpen = true
    /// Bumped by every change (see ``VersionReading/mutationCount``).
    @inlinable public var mutationCount: Int { _mutationCount }
    /// ``mutationCount``'s storage, written by the fast lane's inlined writes too.
    @exclusivity(unchecked) @_spi(Engine) public var _mutationCount = 0
    /// Bumped by every change that may move rows between leaves or replace a leaf this
    /// transaction already owns (everything but a value written in place): a position in a
    /// leaf the transaction owns stays valid while this stays the same.
    @inlinable public var rowLayoutCount: Int { _rowLayoutCount }
    /// ``rowLayoutCount``'s storage, written by the inlined typed append too.
    @exclusivity(unchecked) @_spi(Engine) public var _rowLayoutCount = 0
    /// What this transaction inserted, deleted and wrote, for change observers (appended per
    /// change, turned into a ``ChangeSet`` at commit only when someone observes).
    @exclusivity(unchecked) @usableFromInline package var changeLog = ChangeLog()
    /// Where the fast lanes (``WriteTransaction+InPlace.swift``) left off: valid while the
    /// counts they were left with still show.
    @usableFromInline package struct FastPaths {
        /// The column ``writeWordInPlace(_:isNull:type:inTable:column:at:)`` last found plain, and
        /// the `rowLayoutCount` it was found under (a structure change moves it).
        package var plainColumn = PlainColumn(table: -1, column: -1, type: .int, isNullable: false, layoutCount: -1)
        /// Where the last in-place write went (see ``writeWordToLastTarget(_:isNull:type:column:at:)``):
        /// valid while ``mutationCount`` still shows the value it was left with, that is while no
        /// change but in-place writes through it has happened since.
        @usableFromInline package var cellTarget: CellTarget?
        /// Where the last insert at a table's end went (see ``AppendCursor``).
        @usableFromInline package var appendCursor: AppendCursor?
    }

    /// Where the last insert into a table went, when it went at the table's end: the rightmost
    /// leaf and the inner nodes above it, all owned by this transaction. Valid while nothing
    /// but inserts at the end has changed the row layout since (``rowLayoutCount``): the next
    /// insert of a larger key appends to the leaf in place, without a descent from the root.
    @usableFromInline package struct AppendCursor {
        @usableFromInline package let table: TableNode
        @usableFromInline package let root: NodeRef<ClusterNode>
        @usableFromInline package let leaf: ClusterNode
        /// The inner nodes from the root down to the leaf's parent; the leaf is each one's last child.
        @usableFromInline package let path: [ClusterNode]
        /// ``rowLayoutCount`` right after the insert that left the cursor.
        @usableFromInline package var rowLayout: Int
        /// The leaf's column nodes, all owned by this transaction, with room for a full leaf:
        /// set by the first typed append into the leaf (``appendTypedRow(_:key:_:)``).
        /// Unretained: `leaf`, held here, holds them (a column node is replaced only by a
        /// change that moves the row layout, which retires the cursor).
        @usableFromInline package var columns: [Unmanaged<ColumnNode>]? = nil
    }
    @exclusivity(unchecked) @usableFromInline package var fastPaths = FastPaths()
    /// Bumped by every change to a table's columns or to the set of tables (a typed append
    /// layout checked under another generation is checked again).
    @exclusivity(unchecked) @usableFromInline package var schemaGeneration = 0

    /// Rows found now are current until the store's epoch moves (only this writer moves it).
    public var positionEpoch: UInt64 { store.readEpoch.current }

    /// The turn of writes this commit belongs to, which keeps the version it replaces (nil:
    /// the replaced version is freed when its last reader lets go).
    let turn: TurnOfWrites?

    package init(store: Store, baseVersion: UInt64, base: GroupNode, turn: TurnOfWrites? = nil) {
        self.store = store
        self.baseVersion = baseVersion
        self.turn = turn
        group = base.mutableCopy()
        context.freedBytes += base.storedSize
    }

    deinit {
        if isOpen { store.endWrite() }
    }

    // MARK: Ending

    /// Publishes every change as a new version (written and, with `.full` durability, synced).
    /// Returns the new version number. On error nothing is published and the transaction ends.
    @discardableResult
    public func commit() throws(FloeError) -> UInt64 {
        try commit(deferringSync: false)
    }

    /// Publishes every change as a new version; with `deferringSync`, a `.full` store appends it
    /// without syncing, and the caller awaits ``Store/waitUntilDurable(_:)`` before reporting
    /// the write as done, so that commits queued together share one sync (group commit).
    ///
    /// ```swift
    /// let version = try transaction.commit(deferringSync: true)
    /// try await store.waitUntilDurable(version)
    /// ```
    @discardableResult
    public func commit(deferringSync: Bool) throws(FloeError) -> UInt64 {
        try requireOpen()
        isOpen = false
        return try store.commit(self, deferringSync: deferringSync)
    }

    /// Discards every change.
    public func rollback() {
        guard isOpen else { return }
        isOpen = false
        store.endWrite()
    }

    package func requireOpen() throws(FloeError) {
        guard isOpen else { throw .notInWriteTransaction(path: store.path) }
    }

    // MARK: Internals

    /// Keeps a link column's backlinks (in its index slot: target key → origin keys, once per
    /// link) in step with the links just removed and added by `origin`.
    package func adjustBacklinks(_ table: TableHandle, origin: Int64, column: Int, removed: [Value] = [], added: [Value] = []) throws(FloeError) {
        guard try tableNode(table).spec.columns[column].type == .link else { return }
        let node = try mutableTable(table)
        for case .link(let target) in removed {
            node.indexRoots[column] = try SearchIndex.remove(origin, for: .int(target), from: node.indexRoots[column], context: context)
        }
        for case .link(let target) in added {
            node.indexRoots[column] = try SearchIndex.insert(origin, for: .int(target), into: node.indexRoots[column], context: context)
        }
    }

    package func updateCollection(_ table: TableHandle, _ key: Int64, _ column: Int, expecting kind: CollectionKind?,
                                  _ change: (ColumnSpec, String, NodeRef<CollectionNode>?, inout [CollectionEdit]?) throws(FloeError) -> NodeRef<CollectionNode>?) throws(FloeError) {
        try requireOpen()
        let node = try mutableTable(table, movingRows: false)
        let spec = try columnSpec(node, column)
        precondition(spec.collection != .single && (kind == nil || spec.collection == kind),
                     "'\(node.spec.name).\(spec.name)' is not a \(kind.map { "\($0)" } ?? "collection")")
        guard let (root, leaf, row) = try ClusterTree.mutableLeaf(for: key, root: node.root, context: context) else {
            throw .noSuchObject(table: node.spec.name, key: key)
        }
        node.root = root
        let (columnRef, columnNode) = try context.mutable(leaf.columns[column])
        leaf.columns[column] = columnRef
        // Lists and sets log their positional edits for change streams; maps' are not described.
        var edits: [CollectionEdit]? = spec.collection == .map ? nil : []
        let newRoot = try change(spec, node.spec.name, columnNode.storage.collections[row], &edits)
        columnNode.storage.setCollection(newRoot, at: row)
        changeLog.append(.collection(node.spec.name, key, column, edits))
    }

    /// The first object whose `column` equals `value`, through the index when there is one.
    package func firstObject(in node: TableNode, column: Int, equalTo value: Value) throws(FloeError) -> Int64? {
        try SearchIndex.findObjects(in: node, column: column, equalTo: value, limit: 1).first
    }

    /// The table's node, made this transaction's own. `keepingLeaves`: the caller writes values
    /// into a leaf the transaction already owns, so every cached row stays valid (see ``ReadEpoch``).
    package func mutableTable(_ table: TableHandle, movingRows: Bool = true, keepingLeaves: Bool = false) throws(FloeError) -> TableNode {
        _ = try tableNode(table)
        _mutationCount &+= 1
        if movingRows { _rowLayoutCount &+= 1 }
        if !keepingLeaves { store.readEpoch.advance() }
        let (ref, node) = try context.mutable(group.tables[table.index])
        group.tables[table.index] = ref
        return node
    }

    package func columnSpec(_ node: TableNode, _ column: Int) throws(FloeError) -> ColumnSpec {
        guard column >= 0 && column < node.spec.columns.count else {
            throw .noSuchColumn(table: node.spec.name, column: "#\(column)")
        }
        return node.spec.columns[column]
    }
}
