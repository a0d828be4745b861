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
    public static let maximumValueSize = FloeError.maximumValueSize

    let store: Store
    /// The version this transaction started from.
    public let baseVersion: UInt64
    // `@exclusivity(unchecked)` on the state every write touches: no access overlaps another.
    @exclusivity(unchecked) public private(set) var group: GroupNode
    let context = WriteContext()
    @exclusivity(unchecked) private(set) var isOpen = true
    /// Bumped by every change (see ``VersionReading/mutationCount``).
    @exclusivity(unchecked) public private(set) var mutationCount = 0
    /// Bumped by every change that may move rows between leaves or replace a leaf this
    /// transaction already owns (everything but a value written in place): a position in a
    /// leaf the transaction owns stays valid while this stays the same.
    @exclusivity(unchecked) public private(set) var rowLayoutCount = 0
    /// What this transaction inserted, deleted and wrote, for change observers (appended per
    /// change, turned into a ``ChangeSet`` at commit only when someone observes).
    @exclusivity(unchecked) private(set) var changeLog = ChangeLog()
    /// The column ``writeWordInPlace(_:isNull:type:inTable:column:at:)`` last found plain, and
    /// the `rowLayoutCount` it was found under (a structure change moves it).
    @exclusivity(unchecked) private var plainColumn = PlainColumn(table: -1, column: -1, type: .int, isNullable: false, layoutCount: -1)
    /// Where the last in-place write went (see ``writeWordToLastTarget(_:isNull:type:column:at:)``):
    /// valid while ``mutationCount`` still shows the value it was left with, that is while no
    /// change but in-place writes through it has happened since.
    @exclusivity(unchecked) private var cellTarget: CellTarget?

    /// Where the last insert into a table went, when it went at the table's end: the rightmost
    /// leaf and the inner nodes above it, all owned by this transaction. Valid while nothing
    /// but inserts at the end has changed the row layout since (``rowLayoutCount``): the next
    /// insert of a larger key appends to the leaf in place, without a descent from the root.
    private struct AppendCursor {
        let table: TableNode
        let root: NodeRef<ClusterNode>
        let leaf: ClusterNode
        /// The inner nodes from the root down to the leaf's parent; the leaf is each one's last child.
        let path: [ClusterNode]
        /// ``rowLayoutCount`` right after the insert that left the cursor.
        var rowLayout: Int
        /// The leaf's column nodes, all owned by this transaction, with room for a full leaf:
        /// set by the first typed append into the leaf (``appendTypedRow(_:key:_:)``).
        /// Unretained: `leaf`, held here, holds them (a column node is replaced only by a
        /// change that moves the row layout, which retires the cursor).
        var columns: [Unmanaged<ColumnNode>]? = nil
    }
    @exclusivity(unchecked) private var appendCursor: AppendCursor?
    /// Bumped by every change to a table's columns or to the set of tables (a typed append
    /// layout checked under another generation is checked again).
    @exclusivity(unchecked) private var schemaGeneration = 0

    /// Rows found now are current until the store's epoch moves (only this writer moves it).
    public var positionEpoch: UInt64 { store.readEpoch.current }

    init(store: Store, baseVersion: UInt64, base: GroupNode) {
        self.store = store
        self.baseVersion = baseVersion
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

    private func requireOpen() throws(FloeError) {
        guard isOpen else { throw .notInWriteTransaction(path: store.path) }
    }

    // MARK: Schema

    /// Creates a table; returns its handle.
    @discardableResult
    public func createTable(_ spec: TableSpec) throws(FloeError) -> TableHandle {
        try requireOpen()
        try spec.validate()
        mutationCount &+= 1
        rowLayoutCount &+= 1
        store.readEpoch.advance()
        if try tableIfPresent(named: spec.name) != nil { throw .duplicateTable(name: spec.name) }
        group.tables.append(NodeRef(TableNode(spec: spec)))
        schemaGeneration &+= 1
        changeLog.append(.structure(spec.name))
        return TableHandle(index: group.tables.count - 1, name: spec.name)
    }

    /// Records the object layer's schema version with this version.
    public func setSchemaVersion(_ version: UInt64) throws(FloeError) {
        try requireOpen()
        group.schemaVersion = version
    }

    /// Adds or drops the search index of a column.
    public func setIndexed(_ indexed: Bool, column: Int, in table: TableHandle) throws(FloeError) {
        try requireOpen()
        let node = try mutableTable(table)
        let spec = try columnSpec(node, column)
        let had = spec.hasSearchIndex
        node.spec.columns[column].isIndexed = indexed
        schemaGeneration &+= 1
        let has = node.spec.columns[column].hasSearchIndex
        guard had != has else { return }
        context.drop(node.indexRoots[column])
        node.indexRoots[column] = nil
        guard has else { return }
        var entries: [(Int64, Value)] = []
        try ClusterTree.forEachLeaf(in: node.root) { leaf throws(FloeError) in
            let storage = try leaf.columns[column].load().storage
            for row in 0..<leaf.keys.count { entries.append((leaf.keys[row], storage.value(at: row))) }
            return true
        }
        for (key, value) in entries {
            node.indexRoots[column] = try SearchIndex.insert(key, for: value, into: node.indexRoots[column], context: context)
        }
    }

    /// Removes a table and all its objects.
    public func removeTable(_ table: TableHandle) throws(FloeError) {
        try requireOpen()
        let node = try tableNode(table)
        mutationCount &+= 1
        rowLayoutCount &+= 1
        store.readEpoch.advance()
        context.drop(group.tables[table.index])
        context.drop(node.root)
        group.tables.remove(at: table.index)
        schemaGeneration &+= 1
        changeLog.append(.structure(node.spec.name))
    }

    /// Adds a column; existing objects get null, the type's default, or an empty collection.
    public func addColumn(_ column: ColumnSpec, to table: TableHandle) throws(FloeError) {
        try requireOpen()
        let node = try mutableTable(table)
        if node.spec.columnIndex(named: column.name) != nil { throw .duplicateColumn(table: node.spec.name, column: column.name) }
        try TableSpec.validateName(column.name, kind: "column '\(node.spec.name).\(column.name)'", limit: TableSpec.maximumColumnNameLength)
        try column.validate(in: node.spec.name)
        if column.isPrimaryKey && node.count > 1 {
            throw .duplicatePrimaryKey(table: node.spec.name, column: column.name, value: "the default value of \(node.count) existing objects")
        }
        if column.isObjectKey && node.count > 0 {
            throw .invalidSchema(className: node.spec.name, property: column.name,
                                 reason: "an integer primary key is the object key and cannot be added to a table that already holds objects")
        }
        node.spec.columns.append(column)
        schemaGeneration &+= 1
        node.indexRoots.append(nil)
        changeLog.append(.structure(node.spec.name))
        let fill = column.isNullable || column.type == .mixed || column.type == .link ? Value.null : Value.defaultValue(for: column.type)
        var keys: [Int64] = []
        node.root = try ClusterTree.updateEveryLeaf(root: node.root, context: context) { leaf in
            var storage = ColumnStorage(layout: column.layout, type: column.type, nullable: column.storesNulls)
            for _ in 0..<leaf.keys.count { storage.append(fill) }
            leaf.columns.append(NodeRef(ColumnNode(storage: storage)))
            keys.append(contentsOf: leaf.keys)
        }
        if column.hasSearchIndex {
            let index = node.spec.columns.count - 1
            for key in keys { node.indexRoots[index] = try SearchIndex.insert(key, for: fill, into: node.indexRoots[index], context: context) }
        }
    }

    /// Removes a column and its values.
    public func removeColumn(named name: String, from table: TableHandle) throws(FloeError) {
        try requireOpen()
        let node = try mutableTable(table)
        guard let index = node.spec.columnIndex(named: name) else { throw .noSuchColumn(table: node.spec.name, column: name) }
        node.spec.columns.remove(at: index)
        schemaGeneration &+= 1
        changeLog.append(.structure(node.spec.name))
        context.drop(node.indexRoots[index])
        node.indexRoots.remove(at: index)
        let context = self.context
        node.root = try ClusterTree.updateEveryLeaf(root: node.root, context: context) { leaf in
            context.drop(leaf.columns[index])
            leaf.columns.remove(at: index)
        }
    }

    /// Renames a column, keeping its values.
    public func renameColumn(_ name: String, to newName: String, in table: TableHandle) throws(FloeError) {
        try requireOpen()
        let node = try mutableTable(table)
        guard let index = node.spec.columnIndex(named: name) else { throw .noSuchColumn(table: node.spec.name, column: name) }
        if node.spec.columnIndex(named: newName) != nil { throw .duplicateColumn(table: node.spec.name, column: newName) }
        try TableSpec.validateName(newName, kind: "column '\(node.spec.name).\(newName)'", limit: TableSpec.maximumColumnNameLength)
        node.spec.columns[index].name = newName
        schemaGeneration &+= 1
        changeLog.append(.structure(node.spec.name))
    }

    // MARK: Objects

    /// Inserts an object with the next free key; `values` holds one value per column in
    /// column order (collection columns take `.null` and start empty). Returns the key.
    @discardableResult
    public func insertObject(into table: TableHandle, values: [Value]) throws(FloeError) -> Int64 {
        try requireOpen()
        let node = try mutableTable(table)
        var key = node.nextKey
        if let keyColumn = node.spec.objectKeyColumn, keyColumn < values.count, case .int(let primaryKey) = values[keyColumn] {
            key = primaryKey
        }
        try insert(key: key, values: values, into: node)
        return key
    }

    /// Inserts an object with a chosen key (at least 0).
    public func insertObject(into table: TableHandle, key: Int64, values: [Value]) throws(FloeError) {
        try requireOpen()
        let node = try mutableTable(table)
        guard key >= 0 else { throw .typeMismatch(table: node.spec.name, column: "(object key)", expected: "a key of at least 0", value: "\(key)") }
        try insert(key: key, values: values, into: node)
    }

    private func insert(key: Int64, values: [Value], into node: TableNode) throws(FloeError) {
        let columns = node.spec.columns
        guard values.count == columns.count else {
            throw .typeMismatch(table: node.spec.name, column: "(row)", expected: "\(columns.count) values", value: "\(values.count) values")
        }
        var row = values
        for index in columns.indices where columns[index].collection == .single {
            row[index] = try checked(values[index], for: columns[index], in: node.spec.name)
            if columns[index].isObjectKey {
                guard row[index] == .int(key) else {
                    throw .typeMismatch(table: node.spec.name, column: columns[index].name,
                                        expected: "the object key \(key) (the primary key is the object key)", value: row[index].debugText)
                }
                // Every key the table holds is below `nextKey`: a key at or above it (appending
                // in key order, as bulk inserts do) needs no search for a duplicate.
                if key < node.nextKey || key == .max, try ClusterTree.find(key, in: node.root) != nil {
                    throw .duplicatePrimaryKey(table: node.spec.name, column: columns[index].name, value: row[index].debugText)
                }
            } else if columns[index].isPrimaryKey, try firstObject(in: node, column: index, equalTo: row[index]) != nil {
                throw .duplicatePrimaryKey(table: node.spec.name, column: columns[index].name, value: row[index].debugText)
            }
        }
        try insertRow(key: key, row: row, into: node)
        node.count += 1
        changeLog.append(.insert(node.spec.name, key))
        if key >= node.nextKey { node.nextKey = key == .max ? .max : key + 1 }
        for index in columns.indices where columns[index].hasSearchIndex {
            node.indexRoots[index] = try SearchIndex.insert(key, for: row[index], into: node.indexRoots[index], context: context)
        }
        for index in columns.indices where columns[index].type == .link && columns[index].collection == .single {
            if case .link(let target) = row[index] {
                node.indexRoots[index] = try SearchIndex.insert(key, for: .int(target), into: node.indexRoots[index], context: context)
            }
        }
    }

    /// Puts the checked row into the table's tree: appended to the rightmost leaf when the
    /// append cursor is still valid and the key is above every key of the table (inserts in
    /// key order fill the last leaf in runs), otherwise by a descent from the root.
    private func insertRow(key: Int64, row: [Value], into node: TableNode) throws(FloeError) {
        // `mutableTable` has just counted this insert: a cursor left by the previous insert is
        // one behind, and anything else that moved rows in between leaves it further behind.
        if let cursor = appendCursor, cursor.table === node, cursor.rowLayout == rowLayoutCount &- 1,
           let root = node.root, root === cursor.root, key >= node.nextKey,
           let last = cursor.leaf.keys.last, key > last, cursor.leaf.keys.count < ClusterTree.leafCapacity,
           cursor.leaf.columns.count == row.count {
            let leaf = cursor.leaf
            leaf.keys.append(key)
            for column in leaf.columns.indices {
                let (ref, columnNode) = try context.mutable(leaf.columns[column])
                if ref !== leaf.columns[column] { leaf.columns[column] = ref }
                columnNode.storage.append(row[column])
            }
            for inner in cursor.path { inner.counts[inner.counts.count - 1] += 1 }
            appendCursor!.rowLayout = rowLayoutCount
            return
        }
        let appending = key >= node.nextKey
        appendCursor = nil
        node.root = try ClusterTree.insert(key: key, row: row, table: node.spec, into: node.root, context: context)
        guard appending, let root = node.root else { return }
        // The path just copied for a key above every other is the rightmost one: keep it.
        var path: [ClusterNode] = []
        var current = root.residentNode
        while let inner = current, inner.isMutable, !inner.isLeaf {
            path.append(inner)
            current = inner.children.last?.residentNode
        }
        guard let leaf = current, leaf.isMutable, leaf.isLeaf, leaf.keys.last == key else { return }
        appendCursor = AppendCursor(table: node, root: root, leaf: leaf, path: path, rowLayout: rowLayoutCount)
    }

    /// Checks `kinds` (one per column) against `table`'s columns, for
    /// ``appendTypedRow(_:key:_:)``: nil when a column does not take its kind as it is (a
    /// narrower integer, a search index to keep, a link, a collection, null where the column
    /// refuses it).
    func typedAppendLayout(for table: TableHandle, kinds: [TypedColumnKind]) throws(FloeError) -> TypedAppendLayout? {
        try requireOpen()
        let node = try tableNode(table)
        let columns = node.spec.columns
        guard columns.count == kinds.count, zip(kinds, columns).allSatisfy({ $0.fits($1) }) else { return nil }
        return TypedAppendLayout(table: table, kinds: kinds, keyColumn: node.spec.objectKeyColumn, generation: schemaGeneration)
    }

    /// Appends one object at the end of the layout's table, `fill` writing each column's value
    /// in column order straight into the rightmost leaf, when that needs no search and no
    /// split: the previous change of this transaction was an insert at this table's end (its
    /// append cursor is valid), the leaf has room, and `key` (the object key column's value;
    /// nil when the table has none, and then the next key is used) is above every key of the
    /// table, so it can be no duplicate. Returns the new object's key; nil, having changed
    /// nothing and without calling `fill`, when it cannot: the caller then inserts through
    /// ``insertObject(into:values:)``, which checks and places any row. The layout has checked
    /// each column's type and nullability; the caller checks what depends on the value (sizes).
    @inline(__always)
    func appendTypedRow(_ layout: TypedAppendLayout, key: Int64?, _ fill: (inout TypedRowWriter) -> Void) -> Int64? {
        guard isOpen, layout.generation == schemaGeneration, appendCursor != nil, appendCursor!.rowLayout == rowLayoutCount,
              layout.table.index < group.tables.count else { return nil }
        let node = appendCursor!.table
        guard let resident = group.tables[layout.table.index].unretainedResidentNode, resident.toOpaque() == Unmanaged.passUnretained(node).toOpaque(),
              node.isMutable, let root = node.root, root === appendCursor!.root,
              appendCursor!.leaf.keys.count < ClusterTree.leafCapacity else { return nil }
        let objectKey: Int64
        if layout.keyColumn != nil {
            guard let key, key >= node.nextKey, key < .max else { return nil }
            objectKey = key
        } else {
            guard key == nil, node.nextKey < .max else { return nil }
            objectKey = node.nextKey
        }
        if appendCursor!.columns == nil {
            guard let columns = ownedColumns(of: appendCursor!.leaf, count: layout.kinds.count) else { return nil }
            appendCursor!.columns = columns
        }
        mutationCount &+= 1
        rowLayoutCount &+= 1
        store.readEpoch.advance()
        appendCursor!.leaf.keys.append(objectKey)
        appendCursor!.columns!.withUnsafeBufferPointer { columns in
            var writer = TypedRowWriter(columns: columns)
            fill(&writer)
            precondition(writer.isComplete, "a typed append wrote fewer columns than '\(node.spec.name)' has")
        }
        for inner in appendCursor!.path { inner.counts[inner.counts.count - 1] += 1 }
        appendCursor!.rowLayout = rowLayoutCount
        node.count += 1
        node.nextKey = objectKey + 1
        if layout.changeSlot < 0 { layout.changeSlot = changeLog.slot(named: node.spec.name) }
        changeLog.appendInsert(slot: layout.changeSlot, key: objectKey)
        return objectKey
    }

    /// The leaf's column nodes when every one is in memory and owned by this transaction (an
    /// insert into the leaf made them so), each with room for a full leaf; nil otherwise.
    private func ownedColumns(of leaf: ClusterNode, count: Int) -> [Unmanaged<ColumnNode>]? {
        guard leaf.columns.count == count else { return nil }
        var columns: [Unmanaged<ColumnNode>] = []
        columns.reserveCapacity(count)
        for ref in leaf.columns {
            guard let column = ref.residentNode, column.isMutable else { return nil }
            column.storage.reserveRows(ClusterTree.leafCapacity)
            columns.append(Unmanaged.passUnretained(column))
        }
        return columns
    }

    /// Sets one column of one object.
    public func setValue(_ value: Value, in table: TableHandle, key: Int64, column: Int) throws(FloeError) {
        try setValue(value, in: table, key: key, column: column, at: nil)
    }

    /// Sets one value of an object, starting from where the object was last found (no descent
    /// from the root when `hint` is a row of a leaf this transaction already owns); returns
    /// the object's position afterwards, for the next write or read of the same object.
    @discardableResult
    func setValue(_ value: Value, in table: TableHandle, key: Int64, column: Int, at hint: RowPosition?) throws(FloeError) -> RowPosition {
        try requireOpen()
        let owned = hint.flatMap { $0.key == key ? $0.ownedLeaf(in: self) : nil }
        let node = try mutableTable(table, movingRows: false, keepingLeaves: owned != nil)
        let spec = try columnSpec(node, column)
        precondition(spec.collection == .single, "'\(node.spec.name).\(spec.name)' is a collection; change it with the collection operations")
        let value = try checked(value, for: spec, in: node.spec.name)
        let leaf: ClusterNode, row: Int
        if let owned {
            (leaf, row) = owned
        } else {
            guard let (root, found, foundRow) = try ClusterTree.mutableLeaf(for: key, root: node.root, context: context) else {
                throw .noSuchObject(table: node.spec.name, key: key)
            }
            node.root = root
            (leaf, row) = (found, foundRow)
        }
        try setValue(value, spec: spec, node: node, key: key, column: column, leaf: leaf, row: row)
        return RowPosition(ownedLeaf: leaf, row: row, in: self)
    }

    /// ``writeWordInPlace(_:isNull:type:inTable:column:at:)`` into the column node the last
    /// in-place write went to, when `position` is a row of the same leaf and nothing else has
    /// changed since (``mutationCount`` still shows the value that write left): a few compares,
    /// the change log's run extended, the word stored. No descent, no spec check, no reference
    /// counting. False, having changed nothing, otherwise: the caller takes the checked path.
    @inline(__always)
    func writeWordToLastTarget(_ word: UInt64, isNull: Bool, type: ColumnType, column: Int, at position: inout RowPosition) -> Bool {
        guard isOpen, let target = cellTarget, target.mutationCount == mutationCount, target.column == column, target.type == type,
              !isNull || target.isNullable,
              let row = position.row(inLeaf: target.leaf, group: target.group, rowLayoutCount: target.rowLayoutCount)
        else { return false }
        mutationCount &+= 1
        cellTarget!.mutationCount = mutationCount
        changeLog.appendCell(slot: target.slot, key: position.key, column: column)
        // The leaf holds the node, and nothing has replaced it since (that would have moved the
        // mutation count). Its storage is written through the node, so the words array keeps
        // its copy-on-write check.
        target.node._withUnsafeGuaranteedRef { node in
            node.storage.words[row] = isNull ? 0 : word
            if target.isNullable { node.storage.nulls![row] = isNull }
        }
        return true
    }

    /// Writes a one-word value (int, bool, double, float, timestamp) into a row of a leaf this
    /// transaction already owns, when the column takes the word as it is: a plain column of that
    /// type (full-width for integers), not a key, not indexed, not a link. Answers false, having
    /// changed nothing, when any of that does not hold: the caller then takes ``setValue(_:in:key:column:at:)``.
    /// No descent, no `Value`, no copy of the column's spec; the change log and the mutation
    /// count are kept as by every write, and the read epoch stays (rows cached in the leaf read the word in place).
    func writeWordInPlace(_ word: UInt64, isNull: Bool, type: ColumnType, inTable table: Int, column: Int, at position: inout RowPosition) -> Bool {
        // `inout`: the caller's cached position is read where it is, not copied (a copy retains its leaf).
        guard isOpen, let (leaf, row) = position.ownedLeaf(in: self), column >= 0, column < leaf.columns.count else { return false }
        // The column's spec is checked once per column and layout: while no structure change
        // (which moves `rowLayoutCount`) happens, the answer stays.
        let isNullable: Bool
        if plainColumn.table == table, plainColumn.column == column, plainColumn.type == type, plainColumn.layoutCount == rowLayoutCount {
            isNullable = plainColumn.isNullable
        } else {
            guard let nullable = plainWordColumn(table: table, column: column, type: type) else { return false }
            plainColumn = PlainColumn(table: table, column: column, type: type, isNullable: nullable, layoutCount: rowLayoutCount)
            isNullable = nullable
        }
        guard !isNull || isNullable, let current = leaf.columns[column].residentNode, current.storage.layout == .words,
              current.storage.type == type, current.storage.count == leaf.keys.count, (current.storage.nulls != nil) == isNullable
        else { return false }
        let columnNode: ColumnNode
        if current.isMutable {
            // Already this transaction's own: written in place, the leaf's reference stays.
            columnNode = current
        } else {
            guard let (columnRef, copy) = try? context.mutable(leaf.columns[column]) else { return false }
            leaf.columns[column] = columnRef
            columnNode = copy
        }
        mutationCount &+= 1
        let slot = changeLog.slot(ofTable: table, layoutCount: rowLayoutCount)
            ?? changeLog.addSlot(named: group.tables[table].residentNode?.spec.name ?? "", table: table, layoutCount: rowLayoutCount)
        changeLog.appendCell(slot: slot, key: position.key, column: column)
        columnNode.storage.words[row] = isNull ? 0 : word
        if isNullable { columnNode.storage.nulls![row] = isNull }
        cellTarget = CellTarget(leaf: ObjectIdentifier(leaf), node: .passUnretained(columnNode), column: column, type: type,
                                isNullable: isNullable, slot: slot, group: group.serial, rowLayoutCount: rowLayoutCount,
                                mutationCount: mutationCount)
        return true
    }

    /// Whether `column` of table `table` takes a one-word value of `type` as it is (a plain,
    /// full-width column of that type: not a key, not indexed, not a collection), and if so
    /// whether it is nullable; nil when it does not.
    private func plainWordColumn(table: Int, column: Int, type: ColumnType) -> Bool? {
        guard table >= 0, table < group.tables.count, let node = group.tables[table].residentNode, node.isMutable,
              column >= 0, column < node.spec.columns.count else { return nil }
        // Field by field: a copy of the whole spec would retain its strings.
        guard node.spec.columns[column].type == type, node.spec.columns[column].collection == .single,
              !node.spec.columns[column].isIndexed, !node.spec.columns[column].isPrimaryKey,
              type != .int || node.spec.columns[column].integerBits == 64 else { return nil }
        return node.spec.columns[column].isNullable
    }

    private func setValue(_ value: Value, spec: ColumnSpec, node: TableNode, key: Int64, column: Int, leaf: ClusterNode, row: Int) throws(FloeError) {
        changeLog.append(.write(node.spec.name, key, column))
        let (columnRef, columnNode) = try context.mutable(leaf.columns[column])
        leaf.columns[column] = columnRef
        if spec.type == .link {
            let old = columnNode.storage.value(at: row)
            columnNode.storage.set(value, at: row)
            if case .link(let target) = old {
                node.indexRoots[column] = try SearchIndex.remove(key, for: .int(target), from: node.indexRoots[column], context: context)
            }
            if case .link(let target) = value {
                node.indexRoots[column] = try SearchIndex.insert(key, for: .int(target), into: node.indexRoots[column], context: context)
            }
            return
        }
        if spec.isObjectKey, value != .int(key) {
            throw .primaryKeyChanged(className: node.spec.name, property: spec.name, from: "\(key)", to: value.debugText)
        }
        guard spec.hasSearchIndex else {
            columnNode.storage.set(value, at: row)
            return
        }
        let old = columnNode.storage.value(at: row)
        guard old != value else { return }
        if spec.isPrimaryKey, try firstObject(in: node, column: column, equalTo: value) != nil {
            throw .duplicatePrimaryKey(table: node.spec.name, column: spec.name, value: value.debugText)
        }
        columnNode.storage.set(value, at: row)
        node.indexRoots[column] = try SearchIndex.remove(key, for: old, from: node.indexRoots[column], context: context)
        node.indexRoots[column] = try SearchIndex.insert(key, for: value, into: node.indexRoots[column], context: context)
    }

    /// Deletes an object (its collections go with it). Returns false when there was none.
    @discardableResult
    public func deleteObject(from table: TableHandle, key: Int64) throws(FloeError) -> Bool {
        try requireOpen()
        let node = try mutableTable(table)
        let indexed = node.spec.columns.indices.filter { node.spec.columns[$0].hasSearchIndex }
        let linking = node.spec.columns.indices.filter { node.spec.columns[$0].type == .link }
        var indexedValues: [Value] = []
        var links: [(column: Int, targets: [Value])] = []
        if !indexed.isEmpty || !linking.isEmpty, let (leaf, row) = try ClusterTree.find(key, in: node.root) {
            for column in indexed { indexedValues.append(try leaf.columns[column].load().storage.value(at: row)) }
            for column in linking {
                let storage = try leaf.columns[column].load().storage
                links.append((column, storage.layout == .collections
                    ? try CollectionTree.allElements(storage.collections[row]) : [storage.value(at: row)]))
            }
        }
        let (removed, root) = try ClusterTree.remove(key: key, from: node.root, context: context)
        node.root = root
        guard removed else { return false }
        node.count -= 1
        changeLog.append(.delete(node.spec.name, key))
        for (column, value) in zip(indexed, indexedValues) {
            node.indexRoots[column] = try SearchIndex.remove(key, for: value, from: node.indexRoots[column], context: context)
        }
        // The object's own links leave the backlinks of their columns.
        for (column, targets) in links {
            for case .link(let target) in targets {
                node.indexRoots[column] = try SearchIndex.remove(key, for: .int(target), from: node.indexRoots[column], context: context)
            }
        }
        return true
    }

    /// Deletes every object of a table, in O(1).
    public func removeAllObjects(from table: TableHandle) throws(FloeError) {
        try requireOpen()
        let node = try mutableTable(table)
        changeLog.append(.deleteAll(node.spec.name, node.root))
        context.drop(node.root)
        node.root = nil
        node.count = 0
        for index in node.indexRoots.indices {
            context.drop(node.indexRoots[index])
            node.indexRoots[index] = nil
        }
    }

    // MARK: Collections

    /// Inserts into an object's list at `position` (`count` appends).
    public func listInsert(_ value: Value, at position: Int, in table: TableHandle, key: Int64, column: Int) throws(FloeError) {
        try updateCollection(table, key, column, expecting: .list) { spec, tableName, root, edits throws(FloeError) in
            let count = try CollectionTree.count(root)
            guard position >= 0 && position <= count else {
                throw .indexOutOfRange(table: tableName, column: spec.name, index: position, count: count)
            }
            let value = try checked(value, for: spec, in: tableName)
            edits?.append(.insert(at: position, count: 1))
            return try CollectionTree.insert(value, key: nil, at: position, into: root, elementType: spec.type,
                                             nullable: spec.isNullable, context: context)
        }
        try adjustBacklinks(table, origin: key, column: column, added: [value])
    }

    /// Appends to an object's list.
    public func listAppend(_ value: Value, in table: TableHandle, key: Int64, column: Int) throws(FloeError) {
        try updateCollection(table, key, column, expecting: .list) { spec, tableName, root, edits throws(FloeError) in
            let value = try checked(value, for: spec, in: tableName)
            let count = try CollectionTree.count(root)
            edits?.append(.insert(at: count, count: 1))
            return try CollectionTree.insert(value, key: nil, at: count, into: root,
                                             elementType: spec.type, nullable: spec.isNullable, context: context)
        }
        try adjustBacklinks(table, origin: key, column: column, added: [value])
    }

    /// Appends every value to an object's list, finding the list once.
    public func listAppend(contentsOf values: [Value], in table: TableHandle, key: Int64, column: Int) throws(FloeError) {
        guard !values.isEmpty else { return }
        try updateCollection(table, key, column, expecting: .list) { spec, tableName, root, edits throws(FloeError) in
            let count = try CollectionTree.count(root)
            var checkedValues: [Value] = []
            checkedValues.reserveCapacity(values.count)
            for value in values { checkedValues.append(try checked(value, for: spec, in: tableName)) }
            edits?.append(.insert(at: count, count: values.count))
            return try CollectionTree.append(contentsOf: checkedValues, into: root, elementType: spec.type,
                                             nullable: spec.isNullable, context: context)
        }
        try adjustBacklinks(table, origin: key, column: column, added: values)
    }

    /// Replaces the element at `position` of an object's list.
    public func listSet(_ value: Value, at position: Int, in table: TableHandle, key: Int64, column: Int) throws(FloeError) {
        var old: Value?
        try updateCollection(table, key, column, expecting: .list) { spec, tableName, root, edits throws(FloeError) in
            let count = try CollectionTree.count(root)
            guard let root, position >= 0 && position < count else {
                throw .indexOutOfRange(table: tableName, column: spec.name, index: position, count: count)
            }
            if spec.type == .link { old = try CollectionTree.element(at: position, in: root) }
            edits?.append(.set(at: position))
            return try CollectionTree.set(try checked(value, for: spec, in: tableName), at: position, in: root, context: context)
        }
        try adjustBacklinks(table, origin: key, column: column, removed: old.map { [$0] } ?? [], added: [value])
    }

    /// Removes the element at `position` of an object's list, set or map.
    public func collectionRemove(at position: Int, in table: TableHandle, key: Int64, column: Int) throws(FloeError) {
        var old: Value?
        try updateCollection(table, key, column, expecting: nil) { spec, tableName, root, edits throws(FloeError) in
            let count = try CollectionTree.count(root)
            guard let root, position >= 0 && position < count else {
                throw .indexOutOfRange(table: tableName, column: spec.name, index: position, count: count)
            }
            if spec.type == .link { old = try CollectionTree.element(at: position, in: root) }
            edits?.append(.remove(at: position))
            return try CollectionTree.remove(at: position, from: root, context: context)
        }
        try adjustBacklinks(table, origin: key, column: column, removed: old.map { [$0] } ?? [])
    }

    /// Moves an element of an object's list from one position to another.
    public func listMove(from source: Int, to destination: Int, in table: TableHandle, key: Int64, column: Int) throws(FloeError) {
        let value = try collectionElement(in: table, key: key, column: column, at: source)
        let count = try collectionCount(in: table, key: key, column: column)
        guard destination >= 0 && destination < count else {
            let spec = try tableNode(table).spec
            throw .indexOutOfRange(table: spec.name, column: spec.columns[column].name, index: destination, count: count)
        }
        try collectionRemove(at: source, in: table, key: key, column: column)
        try listInsert(value, at: destination, in: table, key: key, column: column)
    }

    /// Empties an object's list, set or map.
    public func collectionRemoveAll(in table: TableHandle, key: Int64, column: Int) throws(FloeError) {
        var old: [Value] = []
        try updateCollection(table, key, column, expecting: nil) { spec, _, root, edits throws(FloeError) in
            if spec.type == .link { old = try CollectionTree.allElements(root) }
            edits?.append(.removeAll)
            context.drop(root)
            return nil
        }
        try adjustBacklinks(table, origin: key, column: column, removed: old)
    }

    /// Adds `value` to an object's set; returns false when it was already there.
    @discardableResult
    public func setInsert(_ value: Value, in table: TableHandle, key: Int64, column: Int) throws(FloeError) -> Bool {
        var inserted = false
        try updateCollection(table, key, column, expecting: .set) { spec, tableName, root, edits throws(FloeError) in
            let value = try checked(value, for: spec, in: tableName)
            let (position, found) = try CollectionTree.lowerBound(of: value, in: root)
            guard !found else { return root }
            inserted = true
            edits?.append(.insert(at: position, count: 1))
            return try CollectionTree.insert(value, key: nil, at: position, into: root, elementType: spec.type,
                                             nullable: spec.isNullable, context: context)
        }
        if inserted { try adjustBacklinks(table, origin: key, column: column, added: [value]) }
        return inserted
    }

    /// Removes `value` from an object's set; returns false when it was not there.
    @discardableResult
    public func setRemove(_ value: Value, in table: TableHandle, key: Int64, column: Int) throws(FloeError) -> Bool {
        var removed = false
        try updateCollection(table, key, column, expecting: .set) { _, _, root, edits throws(FloeError) in
            let (position, found) = try CollectionTree.lowerBound(of: value, in: root)
            guard found, let root else { return root }
            removed = true
            edits?.append(.remove(at: position))
            return try CollectionTree.remove(at: position, from: root, context: context)
        }
        if removed { try adjustBacklinks(table, origin: key, column: column, removed: [value]) }
        return removed
    }

    /// Sets the value for `mapKey` in an object's map (inserting or replacing).
    public func mapSet(_ value: Value, forKey mapKey: String, in table: TableHandle, key: Int64, column: Int) throws(FloeError) {
        var old: Value?
        try updateCollection(table, key, column, expecting: .map) { spec, tableName, root, edits throws(FloeError) in
            try Self.checkMapKey(mapKey, table: tableName, column: spec.name)
            let value = try checked(value, for: spec, in: tableName)
            let (position, found) = try CollectionTree.lowerBound(ofKey: mapKey, in: root)
            if found, let root {
                if spec.type == .link { old = try CollectionTree.element(at: position, in: root) }
                return try CollectionTree.set(value, at: position, in: root, context: context)
            }
            return try CollectionTree.insert(value, key: mapKey, at: position, into: root, elementType: spec.type,
                                             nullable: spec.isNullable, context: context)
        }
        try adjustBacklinks(table, origin: key, column: column, removed: old.map { [$0] } ?? [], added: [value])
    }

    /// Removes `mapKey` from an object's map; returns false when it was not there.
    @discardableResult
    public func mapRemove(forKey mapKey: String, in table: TableHandle, key: Int64, column: Int) throws(FloeError) -> Bool {
        var removed = false
        var old: Value?
        try updateCollection(table, key, column, expecting: .map) { spec, _, root, edits throws(FloeError) in
            let (position, found) = try CollectionTree.lowerBound(ofKey: mapKey, in: root)
            guard found, let root else { return root }
            removed = true
            if spec.type == .link { old = try CollectionTree.element(at: position, in: root) }
            return try CollectionTree.remove(at: position, from: root, context: context)
        }
        try adjustBacklinks(table, origin: key, column: column, removed: old.map { [$0] } ?? [])
        return removed
    }

    // MARK: Internals

    /// Keeps a link column's backlinks (in its index slot: target key → origin keys, once per
    /// link) in step with the links just removed and added by `origin`.
    private func adjustBacklinks(_ table: TableHandle, origin: Int64, column: Int, removed: [Value] = [], added: [Value] = []) throws(FloeError) {
        guard try tableNode(table).spec.columns[column].type == .link else { return }
        let node = try mutableTable(table)
        for case .link(let target) in removed {
            node.indexRoots[column] = try SearchIndex.remove(origin, for: .int(target), from: node.indexRoots[column], context: context)
        }
        for case .link(let target) in added {
            node.indexRoots[column] = try SearchIndex.insert(origin, for: .int(target), into: node.indexRoots[column], context: context)
        }
    }

    private func updateCollection(_ table: TableHandle, _ key: Int64, _ column: Int, expecting kind: CollectionKind?,
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
    private func firstObject(in node: TableNode, column: Int, equalTo value: Value) throws(FloeError) -> Int64? {
        try SearchIndex.findObjects(in: node, column: column, equalTo: value, limit: 1).first
    }

    /// The table's node, made this transaction's own. `keepingLeaves`: the caller writes values
    /// into a leaf the transaction already owns, so every cached row stays valid (see ``ReadEpoch``).
    private func mutableTable(_ table: TableHandle, movingRows: Bool = true, keepingLeaves: Bool = false) throws(FloeError) -> TableNode {
        _ = try tableNode(table)
        mutationCount &+= 1
        if movingRows { rowLayoutCount &+= 1 }
        if !keepingLeaves { store.readEpoch.advance() }
        let (ref, node) = try context.mutable(group.tables[table.index])
        group.tables[table.index] = ref
        return node
    }

    private func columnSpec(_ node: TableNode, _ column: Int) throws(FloeError) -> ColumnSpec {
        guard column >= 0 && column < node.spec.columns.count else {
            throw .noSuchColumn(table: node.spec.name, column: "#\(column)")
        }
        return node.spec.columns[column]
    }

    /// What a mixed value's nested lists and dictionaries hold, checked as the column would
    /// check it on its own: each string's and binary's size, each key, each object named.
    /// Walked with a worklist: only the nesting limit, checked before, bounds how deep it goes.
    private func checkNestedContents(_ value: Value, table: String, column: String) throws(FloeError) {
        var pending = [value]
        while let next = pending.popLast() {
            switch next {
            case .typedLink(let target, let key):
                guard let handle = try tableIfPresent(named: target), try contains(key, in: handle) else {
                    throw .invalidLink(table: table, column: column, target: target, key: key)
                }
            case .string(let string) where string.utf8.count > Self.maximumValueSize:
                throw .valueTooLarge(table: table, column: column, size: string.utf8.count, limit: Self.maximumValueSize)
            case .binary(let bytes) where bytes.count > Self.maximumValueSize:
                throw .valueTooLarge(table: table, column: column, size: bytes.count, limit: Self.maximumValueSize)
            case .list(let values):
                pending.append(contentsOf: values)
            case .dictionary(let entries):
                for entry in entries {
                    try Self.checkMapKey(entry.key, table: table, column: column)
                    pending.append(entry.value)
                }
            default:
                break
            }
        }
    }

    /// Refuses a key that a map (or a dictionary nested in a mixed value) cannot hold: longer
    /// than a string value may be, starting with `$` or containing `.`. The empty key is
    /// allowed, as in Realm.
    static func checkMapKey(_ key: String, table: String, column: String) throws(FloeError) {
        let bytes = key.utf8
        guard bytes.count <= maximumValueSize, bytes.first != UInt8(ascii: "$"), !bytes.contains(UInt8(ascii: ".")) else {
            throw .invalidMapKey(table: table, column: column, key: key)
        }
    }

    /// The value as the column stores it, or the typed error that names what is wrong.
    private func checked(_ value: Value, for column: ColumnSpec, in table: String) throws(FloeError) -> Value {
        // Built only on failure: describing an enum goes through reflection, far too slow per value.
        var expected: String { "\(column.isNullable ? "optional " : "")\(column.type)" }
        switch value {
        case .null:
            if column.isNullable || column.type == .mixed || (column.type == .link && column.collection == .single) { return .null }
            throw .nullForRequired(table: table, column: column.name)
        case .string(let string) where string.utf8.count > Self.maximumValueSize:
            throw .valueTooLarge(table: table, column: column.name, size: string.utf8.count, limit: Self.maximumValueSize)
        case .binary(let bytes) where bytes.count > Self.maximumValueSize:
            throw .valueTooLarge(table: table, column: column.name, size: bytes.count, limit: Self.maximumValueSize)
        case .int(let int) where column.type == .int && column.integerBits < 64:
            let limit = Int64(1) << (column.integerBits - 1)
            guard int >= -limit && int < limit else {
                throw .typeMismatch(table: table, column: column.name, expected: "a \(column.integerBits)-bit integer", value: value.debugText)
            }
            return value
        case .link(let key) where column.type == .link:
            let target = column.linkTarget ?? ""
            guard let handle = try tableIfPresent(named: target), try contains(key, in: handle) else {
                throw .invalidLink(table: table, column: column.name, target: target, key: key)
            }
            return value
        case .typedLink(let target, let key) where column.type == .mixed:
            guard let handle = try tableIfPresent(named: target), try contains(key, in: handle) else {
                throw .invalidLink(table: table, column: column.name, target: target, key: key)
            }
            return value
        default:
            break
        }
        if column.type == .mixed {
            switch value {
            case .list, .dictionary:
                if value.nestsDeeper(than: Value.maximumNesting) { throw .mixedNestingTooDeep(table: table, column: column.name) }
                try checkNestedContents(value, table: table, column: column.name)
            default:
                break
            }
            if case .link = value {
                throw .typeMismatch(table: table, column: column.name, expected: "a mixed value (links in mixed columns name their table)", value: value.debugText)
            }
            return value
        }
        guard value.naturalType == column.type else {
            throw .typeMismatch(table: table, column: column.name, expected: expected, value: value.debugText)
        }
        return value
    }
}

/// The column node of one leaf that the last in-place write went to, and what it was checked
/// to take (see ``WriteTransaction/writeWordToLastTarget(_:isNull:type:column:at:)``).
struct CellTarget {
    /// The leaf, by identity only (the position written through holds it).
    let leaf: ObjectIdentifier
    /// The leaf's node of `column`, unretained: the leaf holds it, and replacing it is a change
    /// that moves the mutation count, which invalidates the target.
    let node: Unmanaged<ColumnNode>
    let column: Int
    let type: ColumnType
    let isNullable: Bool
    /// The change log's slot of the leaf's table.
    let slot: Int
    /// The version root's serial and the row layout the leaf's rows were found under.
    let group: UInt64
    let rowLayoutCount: Int
    /// ``WriteTransaction/mutationCount`` after the last write through the target.
    var mutationCount: Int
}

/// A column checked to take one-word values in place (see ``WriteTransaction/writeWordInPlace(_:isNull:type:inTable:column:at:)``).
struct PlainColumn {
    let table: Int
    let column: Int
    let type: ColumnType
    let isNullable: Bool
    let layoutCount: Int
}
