@_spi(Engine) import FloeStorage

// A write transaction's fast lanes: typed appends at a table's end and one-word writes in
// place, each valid while the state in ``WriteTransaction/FastPaths`` says nothing has moved.

@_spi(Engine) extension WriteTransaction {
    /// Checks `kinds` (one per column) against `table`'s columns, for
    /// ``appendTypedRow(_:key:_:)``: nil when a column does not take its kind as it is (a
    /// narrower integer, a search index to keep, a link, a collection, null where the column
    /// refuses it).
    package func typedAppendLayout(for table: TableHandle, kinds: [TypedColumnKind]) throws(FloeError) -> TypedAppendLayout? {
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
    package func appendTypedRow(_ layout: TypedAppendLayout, key: Int64?, _ fill: (inout TypedRowWriter) -> Void) -> Int64? {
        guard isOpen, layout.generation == schemaGeneration, fastPaths.appendCursor != nil, fastPaths.appendCursor!.rowLayout == rowLayoutCount,
              layout.table.index < group.tables.count else { return nil }
        let node = fastPaths.appendCursor!.table
        guard let resident = group.tables[layout.table.index].unretainedResidentNode, resident.toOpaque() == Unmanaged.passUnretained(node).toOpaque(),
              node.isMutable, let root = node.root, root === fastPaths.appendCursor!.root,
              fastPaths.appendCursor!.leaf.keys.count < ClusterTree.leafCapacity else { return nil }
        let objectKey: Int64
        if layout.keyColumn != nil {
            guard let key, key >= node.nextKey, key < .max else { return nil }
            objectKey = key
        } else {
            guard key == nil, node.nextKey < .max else { return nil }
            objectKey = node.nextKey
        }
        if fastPaths.appendCursor!.columns == nil {
            guard let columns = ownedColumns(of: fastPaths.appendCursor!.leaf, count: layout.kinds.count) else { return nil }
            fastPaths.appendCursor!.columns = columns
        }
        mutationCount &+= 1
        rowLayoutCount &+= 1
        store.readEpoch.advance()
        fastPaths.appendCursor!.leaf.keys.append(objectKey)
        fastPaths.appendCursor!.columns!.withUnsafeBufferPointer { columns in
            var writer = TypedRowWriter(columns: columns)
            fill(&writer)
            precondition(writer.isComplete, "a typed append wrote fewer columns than '\(node.spec.name)' has")
        }
        for inner in fastPaths.appendCursor!.path { inner.counts[inner.counts.count - 1] += 1 }
        fastPaths.appendCursor!.rowLayout = rowLayoutCount
        node.count += 1
        node.nextKey = objectKey + 1
        if layout.changeSlot < 0 { layout.changeSlot = changeLog.slot(named: node.spec.name) }
        changeLog.appendInsert(slot: layout.changeSlot, key: objectKey)
        return objectKey
    }

    /// The leaf's column nodes when every one is in memory and owned by this transaction (an
    /// insert into the leaf made them so), each with room for a full leaf; nil otherwise.
    package func ownedColumns(of leaf: ClusterNode, count: Int) -> [Unmanaged<ColumnNode>]? {
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


    /// ``writeWordInPlace(_:isNull:type:inTable:column:at:)`` into the column node the last
    /// in-place write went to, when `position` is a row of the same leaf and nothing else has
    /// changed since (``mutationCount`` still shows the value that write left): a few compares,
    /// the change log's run extended, the word stored. No descent, no spec check, no reference
    /// counting. False, having changed nothing, otherwise: the caller takes the checked path.
    @inline(__always)
    package func writeWordToLastTarget(_ word: UInt64, isNull: Bool, type: ColumnType, column: Int, at position: inout RowPosition) -> Bool {
        guard isOpen, let target = fastPaths.cellTarget, target.mutationCount == mutationCount, target.column == column, target.type == type,
              !isNull || target.isNullable,
              let row = position.row(inLeaf: target.leaf, group: target.group, rowLayoutCount: target.rowLayoutCount)
        else { return false }
        mutationCount &+= 1
        fastPaths.cellTarget!.mutationCount = mutationCount
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
    package func writeWordInPlace(_ word: UInt64, isNull: Bool, type: ColumnType, inTable table: Int, column: Int, at position: inout RowPosition) -> Bool {
        // `inout`: the caller's cached position is read where it is, not copied (a copy retains its leaf).
        guard isOpen, let (leaf, row) = position.ownedLeaf(in: self), column >= 0, column < leaf.columns.count else { return false }
        // The column's spec is checked once per column and layout: while no structure change
        // (which moves `rowLayoutCount`) happens, the answer stays.
        let isNullable: Bool
        if fastPaths.plainColumn.table == table, fastPaths.plainColumn.column == column, fastPaths.plainColumn.type == type, fastPaths.plainColumn.layoutCount == rowLayoutCount {
            isNullable = fastPaths.plainColumn.isNullable
        } else {
            guard let nullable = plainWordColumn(table: table, column: column, type: type) else { return false }
            fastPaths.plainColumn = PlainColumn(table: table, column: column, type: type, isNullable: nullable, layoutCount: rowLayoutCount)
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
        fastPaths.cellTarget = CellTarget(leaf: ObjectIdentifier(leaf), node: .passUnretained(columnNode), column: column, type: type,
                                isNullable: isNullable, slot: slot, group: group.serial, rowLayoutCount: rowLayoutCount,
                                mutationCount: mutationCount)
        return true
    }

    /// Whether `column` of table `table` takes a one-word value of `type` as it is (a plain,
    /// full-width column of that type: not a key, not indexed, not a collection), and if so
    /// whether it is nullable; nil when it does not.
    package func plainWordColumn(table: Int, column: Int, type: ColumnType) -> Bool? {
        guard table >= 0, table < group.tables.count, let node = group.tables[table].residentNode, node.isMutable,
              column >= 0, column < node.spec.columns.count else { return nil }
        // Field by field: a copy of the whole spec would retain its strings.
        guard node.spec.columns[column].type == type, node.spec.columns[column].collection == .single,
              !node.spec.columns[column].isIndexed, !node.spec.columns[column].isPrimaryKey,
              type != .int || node.spec.columns[column].integerBits == 64 else { return nil }
        return node.spec.columns[column].isNullable
    }
}


/// The column node of one leaf that the last in-place write went to, and what it was checked
/// to take (see ``WriteTransaction/writeWordToLastTarget(_:isNull:type:column:at:)``).
package struct CellTarget {
    /// The leaf, by identity only (the position written through holds it).
    package let leaf: ObjectIdentifier
    /// The leaf's node of `column`, unretained: the leaf holds it, and replacing it is a change
    /// that moves the mutation count, which invalidates the target.
    package let node: Unmanaged<ColumnNode>
    package let column: Int
    package let type: ColumnType
    package let isNullable: Bool
    /// The change log's slot of the leaf's table.
    package let slot: Int
    /// The version root's serial and the row layout the leaf's rows were found under.
    package let group: UInt64
    package let rowLayoutCount: Int
    /// ``WriteTransaction/mutationCount`` after the last write through the target.
    package var mutationCount: Int
}

/// A column checked to take one-word values in place (see ``WriteTransaction/writeWordInPlace(_:isNull:type:inTable:column:at:)``).
package struct PlainColumn {
    package let table: Int
    package let column: Int
    package let type: ColumnType
    package let isNullable: Bool
    package let layoutCount: Int
}
