import Foundation
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// Finding stored objects by primary key.

extension ObjectContext {
    /// The public lookup: `object(ofType:forPrimaryKey:)` cannot throw (as in Realm), so a
    /// class without a primary key, a schema mismatch or a damaged file answers nil and makes
    /// the enclosing read or write throw.
    func object<T: ObjectBase, Key: _Persistable>(ofType type: T.Type, forPrimaryKey key: Key) -> T? {
        do {
            if Key.self == Int.self, let binding = try tableBinding(for: type), binding.primaryKeyIsObjectKey {
                // An `Int` key that is the object key: no `Value` is built and no key type checked.
                return try object(ofType: type, objectKey: Int64(unsafeBitCast(key, to: Int.self)), binding: binding)
            }
            return try object(ofType: type, primaryKey: key._floeEncoded.value)
        } catch {
            deferReadError(error)
            return nil
        }
    }

    /// The object whose primary key, an `Int`, is its object key `key`, or nil: one search
    /// whose row the object keeps. Inside a read or a write, the object the previous lookup
    /// answered is re-pointed when nothing else holds it (then a key in the same leaf as the
    /// previous one is found without a descent), instead of building an object per lookup.
    private func object<T: ObjectBase>(ofType type: T.Type, objectKey key: Int64, binding: TableBinding) throws(FloeError) -> T? {
        guard mayKeepLookups else {
            guard let found = try rowPosition(of: key, in: binding.table) else { return nil }
            let object = materialize(type, key: key, binding: binding)
            object._floeBinding!.cachePosition(found)
            return object
        }
        // Reused only when no one else holds the object or its binding, strongly or weakly
        // (see `mayBeRepointed`), and it is of exactly `type`.
        if lastLookup != nil, ObjectIdentifier(Swift.type(of: lastLookup!)) == ObjectIdentifier(type),
           ObjectBase.mayBeRepointed(&lastLookup!) {
            // Unowned: `lastLookup` holds its binding.
            unowned(unsafe) let objectBinding = lastLookup!._floeBinding!
            if objectBinding.tableBinding === binding, objectBinding.source === self {
                if !objectBinding.repointInLeaf(toKey: key) {
                    guard let found = try rowPosition(of: key, in: binding.table) else { return nil }
                    objectBinding.repoint(to: found)
                }
                return unsafeDowncast(lastLookup!, to: T.self)
            }
        }
        guard let found = try rowPosition(of: key, in: binding.table) else { return nil }
        let object = materialize(type, key: key, binding: binding)
        object._floeBinding!.cachePosition(found)
        lastLookup = object
        return object
    }

    /// Where object `key` of `table` sits in the version reads see now, found by the reader's
    /// own descent (no existential on the way).
    private func rowPosition(of key: Int64, in table: TableHandle) throws(FloeError) -> RowPosition? {
        if let transaction { return try transaction.position(of: key, in: table) }
        return try latestSnapshot().position(of: key, in: table)
    }

    /// The object with `primaryKey`, or nil.
    func object<T: ObjectBase>(ofType type: T.Type, primaryKey: Value) throws(FloeError) -> T? {
        guard let binding = try tableBinding(for: type) else {
            if try SchemaDiscovery.schema(for: type).primaryKeyIndex == nil {
                throw .invalidOperation(className: type.className(), detail: "has no primary key")
            }
            return nil
        }
        guard let pk = binding.schema.primaryKeyIndex else {
            throw .invalidOperation(className: binding.schema.className, detail: "has no primary key")
        }
        let keyType = binding.schema.properties[pk].type
        let fits = switch (primaryKey, keyType.columnType) {
        case (.null, _): keyType.isOptional
        case (.int, .int), (.string, .string), (.objectId, .objectId), (.uuid, .uuid): true
        default: false
        }
        guard fits else {
            throw .typeMismatch(table: binding.schema.className, column: binding.schema.properties[pk].name,
                                expected: keyType.swiftName, value: primaryKey.debugText)
        }
        let reader = try currentReader()
        let column = binding.columnOfProperty[pk]
        let keyIsObjectKey = try binding.primaryKeyIsObjectKey ? true : reader.spec(of: binding.table).columns[column].isObjectKey
        if case .int(let key) = primaryKey, keyIsObjectKey {
            // The primary key is the object key: one tree walk, whose position the object keeps.
            guard let position = try reader.position(of: key, in: binding.table) else { return nil }
            let object = materialize(type, key: key, binding: binding)
            object._floeBinding!.cachePosition(position)
            return object
        }
        guard let key = try reader.findObjects(in: binding.table, column: column, equalTo: primaryKey, limit: 1).first else {
            return nil
        }
        return materialize(type, key: key, binding: binding)
    }
}

extension TableBinding {
    /// The property persisted under `column` (an engine column name), if any.
    func propertyOfColumnNamed(_ column: String) -> Int? {
        schema.properties.firstIndex { $0.persistedName == column }
    }
}
