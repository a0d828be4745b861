@_spi(Engine) import FloeStorage

// A write transaction's list, set and map edits, with their backlinks.

@_spi(Engine) extension WriteTransaction {
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
}
