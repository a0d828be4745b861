import Foundation

extension RealmCore {
    /// Adds an unmanaged object (no-op for one already in this realm).
    func add(_ object: ObjectBase, update: Realm.UpdatePolicy) throws(FloeError) {
        if object._floeBinding != nil {
            if owns(object) { return }
            throw .objectNotInRealm(className: type(of: object).className(), detail: "is managed by another realm; use create(_:value:) to copy it")
        }
        let type = Swift.type(of: object)
        let schema = try SchemaDiscovery.schema(for: type)
        switch schema.kind {
        case .embedded:
            throw .invalidOperation(className: schema.className, detail: "embedded objects cannot be added directly; assign them to a parent's property")
        case .asymmetric:
            throw .invalidOperation(className: schema.className, detail: "asymmetric objects cannot be added; create them with create(_:value:)")
        case .topLevel:
            break
        }
        let binding = try ensureTable(for: type)
        let values = schema.accessors.map { $0.unmanagedValue(object) }
        let key = try upsert(values: values, binding: binding, update: update, given: nil)
        attach(object, key: key, binding: binding)
    }

    /// Creates (or, with a primary key and an update policy, updates) an object from a value:
    /// a dictionary, an array in property order, or another object.
    func create<T: ObjectBase>(_ type: T.Type, value: Any, update: Realm.UpdatePolicy) throws(FloeError) -> T {
        let schema = try SchemaDiscovery.schema(for: type)
        if schema.kind == .embedded {
            throw .invalidOperation(className: schema.className, detail: "embedded objects cannot be created on their own; create them as part of a parent")
        }
        let binding = try ensureTable(for: type)
        let given = try ValueCoercion.propertyValues(for: schema, from: value)
        let defaults = ValueCoercion.defaults(for: schema)
        let values = schema.properties.indices.map { given[$0] ?? defaults[$0] }
        let key = try upsert(values: values, binding: binding, update: update, given: given)
        return materialize(type, key: key, binding: binding)
    }

    /// Inserts a row, or updates the row with the same primary key per `update`.
    /// `given` marks which properties the caller supplied (nil: all).
    private func upsert(values: [Value], binding: TableBinding, update: Realm.UpdatePolicy, given: [Value?]?) throws(FloeError) -> Int64 {
        let transaction = try requireWrite()
        let schema = binding.schema
        if let pk = schema.primaryKeyIndex, update != .error,
           let existing = try transaction.findObjects(in: binding.table, column: binding.columnOfProperty[pk], equalTo: values[pk], limit: 1).first {
            for (index, value) in values.enumerated() where index != pk {
                if let given, given[index] == nil { continue }
                let column = binding.columnOfProperty[index]
                if update == .modified, try transaction.value(in: binding.table, key: existing, column: column) == value { continue }
                do {
                    try transaction.setValue(value, in: binding.table, key: existing, column: column)
                } catch {
                    throw error.naming(binding, column: column)
                }
            }
            return existing
        }
        var row = [Value](repeating: .null, count: binding.propertyOfColumn.count)
        for (index, value) in values.enumerated() { row[binding.columnOfProperty[index]] = value }
        do {
            return try transaction.insertObject(into: binding.table, values: row)
        } catch let error {
            if case .duplicatePrimaryKey(_, _, let value) = error, let pk = schema.primaryKeyIndex {
                throw .duplicatePrimaryKey(table: schema.className, column: schema.properties[pk].name, value: value)
            }
            if case .typeMismatch(_, let column, _, _) = error, let index = binding.propertyOfColumnNamed(column) {
                throw error.naming(binding, column: binding.columnOfProperty[index])
            }
            throw error
        }
    }

    /// Deletes a managed object of this realm.
    func delete(_ object: ObjectBase) throws(FloeError) {
        let transaction = try requireWrite()
        guard let binding = object._floeBinding, owns(object) else {
            throw .objectNotInRealm(className: type(of: object).className(), detail: object._floeBinding == nil
                ? "is not managed; only managed objects can be deleted" : "belongs to another realm")
        }
        try transaction.deleteObject(from: binding.tableBinding.table, key: binding.key)
    }

    /// Deletes every object of every model table.
    func deleteAll() throws(FloeError) {
        let transaction = try requireWrite()
        for name in try transaction.tableNames() {
            try transaction.removeAllObjects(from: transaction.table(named: name))
        }
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
        let reader = try currentReader()
        let column = binding.columnOfProperty[pk]
        if case .int(let key) = primaryKey, try reader.spec(of: binding.table).columns[column].isObjectKey {
            // The primary key is the object key: one tree walk, whose position the object keeps.
            guard let (leaf, row) = try reader.locate(key, in: binding.table) else { return nil }
            let object = materialize(type, key: key, binding: binding)
            object._floeBinding!.cachePosition(leaf: leaf, row: row, reader: reader)
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
