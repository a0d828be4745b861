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
        layout.appendRow(in: self, key: key, fill)
    }

    /// The leaf's column nodes when every one is in memory and owned by this transaction (an
    /// insert into the leaf made them so), each with room for a full leaf; nil otherwise.
    @usableFromInline
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


    /// Writes a one-word value (int, bool, double, float, timestamp) into a row of a leaf this
    /// transaction already owns, when the column takes the word as it is: a plain column of that
    /// type (full-width for integers), not a key, not indexed, not a link. Answers false, having
    /// changed nothing, when any of that does not hold: the caller then takes ``setValue(_:in:key:column:at:)``.
    /// No descent, no `Value`, no copy of the column's spec; the change log and the mutation
    /// count are kept as by every write, and the read epoch stays (rows cached in the leaf read the word in place).
    @usableFromInline
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
        _mutationCount &+= 1
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
@usableFromInline package struct CellTarget {
    /// The leaf, by identity only (the position written through holds it).
    @usableFromInline package let leaf: ObjectIdentifier
    /// The leaf's node of `column`, unretained: the leaf holds it, and replacing it is a change
    /// that moves the mutation count, which invalidates the target.
    @usableFromInline package let node: Unmanaged<ColumnNode>
    @usableFromInline package let column: Int
    @_spi(Engine) public let type: ColumnType
    @usableFromInline package let isNullable: Bool
    /// The change log's slot of the leaf's table.
    @usableFromInline package let slot: Int
    /// The version root's serial and the row layout the leaf's rows were found under.
    @usableFromInline package let group: UInt64
    @usableFromInline package let rowLayoutCount: Int
    /// ``WriteTransaction/mutationCount`` after the last write through the target.
    @usableFromInline package var mutationCount: Int
}

/// A column checked to take one-word values in place (see ``WriteTransaction/writeWordInPlace(_:isNull:type:inTable:column:at:)``).
package struct PlainColumn {
    package let table: Int
    package let column: Int
    package let type: ColumnType
    package let isNullable: Bool
    package let layoutCount: Int
}
