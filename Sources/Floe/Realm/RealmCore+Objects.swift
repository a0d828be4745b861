import Foundation

extension RealmCore {
    /// Adds an unmanaged object (no-op for one already in this realm), and the unmanaged
    /// objects it links to.
    func add(_ object: ObjectBase, update: Realm.UpdatePolicy) throws(FloeError) {
        if object._floeBinding != nil {
            if owns(object) { return }
            throw .objectNotInRealm(className: type(of: object).className(), detail: "is managed by another realm; use create(_:value:) to copy it")
        }
        let schema = try SchemaDiscovery.schema(for: type(of: object))
        switch schema.kind {
        case .embedded:
            throw .invalidOperation(className: schema.className, detail: "embedded objects cannot be added directly; assign them to a parent's property")
        case .asymmetric:
            throw .invalidOperation(className: schema.className, detail: "asymmetric objects cannot be added; create them with create(_:value:)")
        case .topLevel:
            break
        }
        _ = try insert(object, update: update)
    }

    /// Stores an unmanaged object (top-level or embedded) and returns its key. The object is
    /// attached before its links are followed, so a graph that links back to it finds it managed.
    func insert(_ object: ObjectBase, update: Realm.UpdatePolicy) throws(FloeError) -> Int64 {
        let type = Swift.type(of: object)
        let schema = try SchemaDiscovery.schema(for: type)
        if objectsBeingCopied.contains(ObjectIdentifier(object)) { throw .cyclicValue(className: schema.className) }
        let binding = try ensureTable(for: type)
        let values = schema.accessors.map { $0.unmanagedValue(object) }
        let key = try store(values, binding: binding, update: update)
        attach(object, key: key, binding: binding)
        try storeLinks(values, binding: binding, key: key, update: update)
        return key
    }

    /// Creates (or, with a primary key and an update policy, updates) an object from a value:
    /// a dictionary, an array in property order, or another object; nested values create
    /// the objects they describe.
    func create<T: ObjectBase>(_ type: T.Type, value: Any, update: Realm.UpdatePolicy) throws(FloeError) -> T {
        let schema = try SchemaDiscovery.schema(for: type)
        if schema.kind == .embedded {
            throw .invalidOperation(className: schema.className, detail: "embedded objects cannot be created on their own; create them as part of a parent")
        }
        let key = try createRow(type, value: value, update: update)
        return materialize(type, key: key, binding: try ensureTable(for: type))
    }

    /// The row behind `create`, for top-level and (nested) embedded objects alike.
    func createRow(_ type: ObjectBase.Type, value: Any, update: Realm.UpdatePolicy) throws(FloeError) -> Int64 {
        nestingDepth += 1
        defer { nestingDepth -= 1 }
        let schema = try SchemaDiscovery.schema(for: type)
        guard nestingDepth <= Self.maximumNesting else {
            throw .cyclicValue(className: schema.className)
        }
        // An object given as the value is copied, never managed itself: a link from the graph
        // back to it could only be met by copying it again, without end.
        let source = (value as? ObjectBase).map(ObjectIdentifier.init)
        if let source {
            guard !objectsBeingCopied.contains(source) else { throw .cyclicValue(className: schema.className) }
            objectsBeingCopied.append(source)
        }
        defer { if source != nil { objectsBeingCopied.removeLast() } }
        let binding = try ensureTable(for: type)
        let given = try ValueCoercion.propertyValues(for: schema, from: value, core: self)
        let defaults = ValueCoercion.defaults(for: schema)
        let values = schema.properties.indices.map { given[$0] ?? defaults[$0] }
        let key = try store(values, binding: binding, update: update, given: given)
        try storeLinks(values, binding: binding, key: key, update: update, given: given)
        return key
    }

    /// Objects nested deeper than this in one `create` are refused (that is how a cycle shows).
    static let maximumNesting = 100

    /// Phase one: the row, with links left for `storeLinks`.
    private func store(_ values: [_FloeValue], binding: TableBinding, update: Realm.UpdatePolicy, given: [_FloeValue?]? = nil) throws(FloeError) -> Int64 {
        let isLink = binding.schema.properties.map {
            ($0.type.columnType == .link || $0.type.columnType == .mixed) && $0.type.collection == .single || $0.type.collection != .single || $0.isComputed
        }
        let scalars = values.enumerated().map { index, value in isLink[index] ? .null : value.value }
        let mask: [Value?] = values.indices.map { index in
            if isLink[index] { return nil }
            if let given { return given[index] == nil ? nil : scalars[index] }
            return scalars[index]
        }
        return try upsert(values: scalars, binding: binding, update: update, given: mask)
    }

    /// Phase two: each link, adding or creating what it points at, and each collection.
    private func storeLinks(_ values: [_FloeValue], binding: TableBinding, key: Int64, update: Realm.UpdatePolicy, given: [_FloeValue?]? = nil) throws(FloeError) {
        for (index, property) in binding.schema.properties.enumerated() where property.type.collection != .single && !property.isComputed {
            guard let elements = values[index].elements, given == nil || given?[index] != nil else { continue }
            let row = ObjectBinding(source: self, tableBinding: binding, key: key)
            try replaceElements(of: row, column: binding.columnOfProperty[index], kind: property.type.collection,
                                with: elements, keys: values[index].keys, update: update)
        }
        for (index, property) in binding.schema.properties.enumerated()
        where (property.type.columnType == .link || property.type.columnType == .mixed) && property.type.collection == .single {
            if let given, given[index] == nil, values[index].object == nil, values[index].nested == nil { continue }
            let column = binding.columnOfProperty[index]
            let stored = try resolve(values[index], for: binding, column: column, owner: key, update: update)
            try replaceLink(in: binding, key: key, column: column, with: stored)
        }
    }

    /// The stored form of a value bound for `column`: a link to a managed object, or to one
    /// added or created for it.
    func resolve(_ value: _FloeValue, for binding: TableBinding, column: Int, owner: Int64, update: Realm.UpdatePolicy = .error) throws(FloeError) -> Value {
        if let className = value.value.unmanagedObjectInside() {
            throw .objectNotInRealm(className: className, detail: "inside a nested AnyRealmValue collection of '\(binding.schema.className).\(binding.propertyName(ofColumn: column))' is not managed; add it to the realm first")
        }
        guard value.object != nil || value.nested != nil else { return value.value }
        guard let propertyIndex = binding.propertyOfColumn[column] else { return value.value }
        if binding.schema.properties[propertyIndex].type.columnType == .mixed, let object = value.object {
            // A mixed value holding an object: link to it, adding it first if unmanaged.
            let schema = try SchemaDiscovery.schema(for: type(of: object))
            guard schema.kind == .topLevel else {
                throw .typeMismatch(table: binding.schema.className, column: binding.schema.properties[propertyIndex].name,
                                    expected: "AnyRealmValue (which holds top-level objects only)", value: schema.className)
            }
            if let objectBinding = object._floeBinding {
                guard owns(object) else {
                    throw .objectNotInRealm(className: schema.className, detail: "held by '\(binding.schema.className).\(binding.schema.properties[propertyIndex].name)' belongs to another realm")
                }
                return .typedLink(table: schema.className, key: objectBinding.key)
            }
            return .typedLink(table: schema.className, key: try insert(object, update: update))
        }
        guard let target = binding.schema.properties[propertyIndex].type.objectType else { return value.value }
        let property = binding.schema.properties[propertyIndex]
        let targetSchema = try SchemaDiscovery.schema(for: target)
        if let nested = value.nested {
            return .link(try createRow(target, value: nested, update: update))
        }
        let object = value.object!
        guard type(of: object) == target else {  // no polymorphism: exactly the declared class
            throw .typeMismatch(table: binding.schema.className, column: property.name, expected: "\(target.className())?", value: type(of: object).className())
        }
        if let objectBinding = object._floeBinding {
            guard owns(object) else {
                throw .objectNotInRealm(className: targetSchema.className, detail: "linked from '\(binding.schema.className).\(property.name)' belongs to another realm; create a copy with create(_:value:)")
            }
            if targetSchema.kind == .embedded {
                if property.type.collection == .single {
                    let current = try requireWrite().value(in: binding.table, key: owner, column: column)
                    if current == .link(objectBinding.key) { return current }
                }
                throw .invalidOperation(className: targetSchema.className, detail: "an embedded object already has an owner and cannot be assigned to '\(binding.schema.className).\(property.name)' too")
            }
            return .link(objectBinding.key)
        }
        return .link(try insert(object, update: update))
    }

    /// Replaces a collection's elements (on a new object: fills it).
    func replaceElements(of row: ObjectBinding, column: Int, kind: CollectionKind, with elements: [_FloeValue], keys: [String]?,
                         update: Realm.UpdatePolicy = .error) throws(FloeError) {
        let editor = CollectionEditor(core: self, transaction: try requireWrite(), binding: row, column: column, update: update)
        if editor.count > 0 { try editor.removeAll() }
        switch kind {
        case .list: for element in elements { try editor.append(element) }
        case .set: for element in elements { try editor.setInsert(element) }
        case .map: for (element, mapKey) in zip(elements, keys ?? []) { try editor.mapSet(element, forKey: mapKey) }
        case .single: break
        }
    }

    /// Sets a link column; an embedded object it replaces is deleted (it had no other owner).
    func replaceLink(in binding: TableBinding, key: Int64, column: Int, with value: Value) throws(FloeError) {
        let transaction = try requireWrite()
        if let propertyIndex = binding.propertyOfColumn[column], let target = binding.schema.properties[propertyIndex].type.objectType,
           try SchemaDiscovery.schema(for: target).kind == .embedded,
           case .link(let old) = try transaction.value(in: binding.table, key: key, column: column), value != .link(old),
           let targetBinding = try tableBinding(for: target) {
            try deleteRow(targetBinding, key: old)
        }
        try transaction.setValue(value, in: binding.table, key: key, column: column)
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
        var row = [Value](repeating: .null, count: binding.storedColumnCount)
        for (index, value) in values.enumerated() where binding.columnOfProperty[index] < binding.storedColumnCount {
            row[binding.columnOfProperty[index]] = value
        }
        do {
            return try transaction.insertObject(into: binding.table, values: row)
        } catch let error {
            if case .duplicatePrimaryKey(_, _, let value) = error, let pk = schema.primaryKeyIndex {
                if let given, given[pk] == nil {
                    throw .primaryKeyNotGiven(className: schema.className, property: schema.properties[pk].name, defaultValue: value)
                }
                throw .duplicatePrimaryKey(table: schema.className, column: schema.properties[pk].name, value: value)
            }
            if case .typeMismatch(_, let column, _, _) = error, let index = binding.propertyOfColumnNamed(column) {
                throw error.naming(binding, column: binding.columnOfProperty[index])
            }
            throw error
        }
    }

    /// Deletes a managed object of this realm (and the embedded objects it owns); links to
    /// it become nil.
    func delete(_ object: ObjectBase) throws(FloeError) {
        _ = try requireWrite()
        guard let binding = object._floeBinding, owns(object) else {
            throw .objectNotInRealm(className: type(of: object).className(), detail: object._floeBinding == nil
                ? "is not managed; only managed objects can be deleted" : "belongs to another realm")
        }
        if binding.tableBinding.schema.kind == .embedded {
            throw .invalidOperation(className: binding.className, detail: "embedded objects are deleted with their owner, or by removing them from it")
        }
        if binding.tableBinding.schema.kind == .asymmetric {
            throw .invalidOperation(className: binding.className, detail: "asymmetric objects cannot be deleted; they leave through realm.outbox(_:) once acknowledged")
        }
        try deleteRow(binding.tableBinding, key: binding.key)
    }

    /// Deletes one row: first the embedded objects it owns, then the row, then every link to it.
    func deleteRow(_ binding: TableBinding, key: Int64) throws(FloeError) {
        let transaction = try requireWrite()
        guard try transaction.contains(key, in: binding.table) else { return }
        for (index, property) in binding.schema.properties.enumerated() {
            guard let target = property.type.objectType, try SchemaDiscovery.schema(for: target).kind == .embedded,
                  let targetBinding = try tableBinding(for: target)
            else { continue }
            let column = binding.columnOfProperty[index]
            let owned: [Value] = property.type.collection == .single
                ? [try transaction.value(in: binding.table, key: key, column: column)]
                : try transaction.collectionElements(in: binding.table, key: key, column: column)
            for case .link(let ownedKey) in owned { try deleteRow(targetBinding, key: ownedKey) }
        }
        try transaction.deleteObject(from: binding.table, key: key)
        try unlinkIncoming(table: binding.table.name, key: key)
    }

    /// Nils every to-one link to the object `key` of `table`.
    private func unlinkIncoming(table target: String, key: Int64) throws(FloeError) {
        let transaction = try requireWrite()
        for name in try transaction.tableNames() {
            let table = try transaction.table(named: name)
            let spec = try transaction.spec(of: table)
            for (column, columnSpec) in spec.columns.enumerated() where columnSpec.type == .mixed && columnSpec.collection == .single {
                var holding: [(Int64, Value)] = []
                try transaction.forEachValue(in: table, column: column) { source, value in
                    let cleared = value.clearingLinks(to: target, key: key)
                    if cleared != value { holding.append((source, cleared)) }
                    return true
                }
                for (source, cleared) in holding { try transaction.setValue(cleared, in: table, key: source, column: column) }
            }
            for (column, columnSpec) in spec.columns.enumerated() where columnSpec.type == .link && columnSpec.linkTarget == target {
                // The column's backlinks name exactly the objects that link here.
                let origins = try transaction.linkingObjects(in: table, column: column, to: key)
                for source in Set(origins).sorted() {
                    switch columnSpec.collection {
                    case .single:
                        try transaction.setValue(.null, in: table, key: source, column: column)
                    case .map:
                        // Maps keep the key with a null value, as Realm's do.
                        for entry in try transaction.mapEntries(in: table, key: source, column: column) where entry.value == .link(key) {
                            try transaction.mapSet(.null, forKey: entry.key, in: table, key: source, column: column)
                        }
                    case .list, .set:
                        let elements = try transaction.collectionElements(in: table, key: source, column: column)
                        for position in elements.indices.reversed() where elements[position] == .link(key) {
                            try transaction.collectionRemove(at: position, in: table, key: source, column: column)
                        }
                    }
                }
            }
        }
    }

    /// Deletes every object of every model table.
    func deleteAll() throws(FloeError) {
        let transaction = try requireWrite()
        for name in try transaction.tableNames() {
            try transaction.removeAllObjects(from: transaction.table(named: name))
        }
    }

    /// The public lookup: `object(ofType:forPrimaryKey:)` cannot throw (as in Realm), so a
    /// class without a primary key, a schema mismatch or a damaged file answers nil and makes
    /// the enclosing read or write throw.
    func object<T: ObjectBase, Key: _Persistable>(ofType type: T.Type, forPrimaryKey key: Key) -> T? {
        do {
            return try object(ofType: type, primaryKey: key._floeEncoded.value)
        } catch {
            deferReadError(error)
            return nil
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

extension Value {
    /// The class of an unmanaged object marked inside nested collections, if any.
    func unmanagedObjectInside() -> String? {
        switch self {
        case .typedLink(let table, _) where table.hasPrefix(AnyRealmValue.unmanagedMarker):
            return String(table.dropFirst(AnyRealmValue.unmanagedMarker.count))
        case .list(let values): return values.lazy.compactMap { $0.unmanagedObjectInside() }.first
        case .dictionary(let entries): return entries.lazy.compactMap { $0.value.unmanagedObjectInside() }.first
        default: return nil
        }
    }

    /// This value with every link to the object `key` of `table` made null, nested
    /// collections included.
    func clearingLinks(to table: String, key: Int64) -> Value {
        switch self {
        case .typedLink(let target, let linked) where target == table && linked == key: return .null
        case .list(let values): return .list(values.map { $0.clearingLinks(to: table, key: key) })
        case .dictionary(let entries):
            return .dictionary(entries.map { MapEntry(key: $0.key, value: $0.value.clearingLinks(to: table, key: key)) })
        default: return self
        }
    }
}
