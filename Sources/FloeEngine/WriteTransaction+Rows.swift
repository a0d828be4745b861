@_spi(Engine) import FloeStorage

// A write transaction's object rows: inserts, single-value writes (with their search-index
// upkeep), deletes.

@_spi(Engine) extension WriteTransaction {
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

    package func insert(key: Int64, values: [Value], into node: TableNode) throws(FloeError) {
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
    package func insertRow(key: Int64, row: [Value], into node: TableNode) throws(FloeError) {
        // `mutableTable` has just counted this insert: a cursor left by the previous insert is
        // one behind, and anything else that moved rows in between leaves it further behind.
        if let cursor = fastPaths.appendCursor, cursor.table === node, cursor.rowLayout == rowLayoutCount &- 1,
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
            fastPaths.appendCursor!.rowLayout = rowLayoutCount
            return
        }
        let appending = key >= node.nextKey
        fastPaths.appendCursor = nil
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
        fastPaths.appendCursor = AppendCursor(table: node, root: root, leaf: leaf, path: path, rowLayout: rowLayoutCount)
    }


    /// Sets one column of one object.
    public func setValue(_ value: Value, in table: TableHandle, key: Int64, column: Int) throws(FloeError) {
        try setValue(value, in: table, key: key, column: column, at: nil)
    }

    /// Sets one value of an object, starting from where the object was last found (no descent
    /// from the root when `hint` is a row of a leaf this transaction already owns); returns
    /// the object's position afterwards, for the next write or read of the same object.
    @discardableResult
    package func setValue(_ value: Value, in table: TableHandle, key: Int64, column: Int, at hint: RowPosition?) throws(FloeError) -> RowPosition {
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

    package func setValue(_ value: Value, spec: ColumnSpec, node: TableNode, key: Int64, column: Int, leaf: ClusterNode, row: Int) throws(FloeError) {
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
}
