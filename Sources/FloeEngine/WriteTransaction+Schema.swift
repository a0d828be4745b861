@_spi(Engine) import FloeStorage

// A write transaction's schema changes: tables, columns, indexes, the schema version.

@_spi(Engine) extension WriteTransaction {
    /// Creates a table; returns its handle.
    @discardableResult
    public func createTable(_ spec: TableSpec) throws(FloeError) -> TableHandle {
        try requireOpen()
        try spec.validate()
        _mutationCount &+= 1
        _rowLayoutCount &+= 1
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
        _mutationCount &+= 1
        _rowLayoutCount &+= 1
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
}
