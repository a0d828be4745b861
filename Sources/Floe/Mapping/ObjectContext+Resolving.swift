import Foundation

// Turning a Swift value into its stored form: links resolved, collections replaced.

extension ObjectContext {
    /// The stored form of a value bound for `column`: a link to a managed object, or to one
    /// added or created for it.
    func resolve(_ value: _FloeValue, for binding: TableBinding, column: Int, owner: Int64, update: ExistingObjectPolicy = .error) throws(FloeError) -> Value {
        if let className = value.unmanagedObjectInside {
            throw .objectNotInRealm(className: className, detail: "inside a nested AnyRealmValue collection of '\(binding.schema.className).\(binding.propertyName(ofColumn: column))' is not managed; add it to the realm first")
        }
        guard value.object != nil || value.valueToCreate != nil else { return value.value }
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
        if let nested = value.valueToCreate {
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
                         update: ExistingObjectPolicy = .error) throws(FloeError) {
        let editor = CollectionEditor(core: self, transaction: try requireWrite(), binding: row, column: column, update: update)
        var elements = elements
        if update == .modified, let resolved = try resolvedUnlessHeld(elements, keys: keys, of: row, column: column, kind: kind, editor: editor) {
            guard let resolved else { return }
            elements = resolved.map { _FloeValue($0) }
        }
        if editor.count > 0 { try editor.removeAll() }
        switch kind {
        case .list: for element in elements { try editor.append(element) }
        case .set: for element in elements { try editor.setInsert(element) }
        case .map: for (element, mapKey) in zip(elements, keys ?? []) { try editor.mapSet(element, forKey: mapKey) }
        case .single: break
        }
    }

    /// For `.modified`, which leaves a collection unwritten when it holds `elements` already
    /// (the same values in the same order for a list, the same values for a set, the same
    /// entries for a map): `.some(nil)` when it does, else the elements resolved to their
    /// stored form (objects added or updated once, as the write would). nil: not compared —
    /// elements that are embedded objects are always written (each would be a new object).
    private func resolvedUnlessHeld(_ elements: [_FloeValue], keys: [String]?, of row: ObjectBinding, column: Int, kind: CollectionKind,
                                    editor: CollectionEditor) throws(FloeError) -> [Value]?? {
        if let property = row.tableBinding.propertyOfColumn[column], let target = row.tableBinding.schema.properties[property].type.objectType,
           try SchemaDiscovery.schema(for: target).kind == .embedded { return nil }
        let transaction = try requireWrite()
        let table = row.tableBinding.table
        var wanted: [Value] = []
        wanted.reserveCapacity(elements.count)
        for element in elements { wanted.append(try editor.stored(element)) }
        let held: Bool
        switch kind {
        case .list:
            held = try transaction.collectionElements(in: table, key: row.key, column: column) == wanted
        case .set:
            let current = try transaction.collectionElements(in: table, key: row.key, column: column)
            held = current.count == Set(current).count && Set(current) == Set(wanted)
        case .map:
            guard let keys, keys.count == wanted.count else { return .some(wanted) }
            let current = try transaction.mapEntries(in: table, key: row.key, column: column)
            let currentEntries = Dictionary(current.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
            let wantedEntries = Dictionary(zip(keys, wanted).map { ($0, $1) }, uniquingKeysWith: { _, last in last })
            held = currentEntries == wantedEntries
        case .single:
            held = false
        }
        return held ? .some(nil) : .some(wanted)
    }

    /// Sets a link column; an embedded object it replaces is deleted (it had no other owner).
    @discardableResult
    func replaceLink(in binding: TableBinding, key: Int64, column: Int, with value: Value, at hint: RowPosition? = nil) throws(FloeError) -> RowPosition {
        let transaction = try requireWrite()
        if let propertyIndex = binding.propertyOfColumn[column], let target = binding.schema.properties[propertyIndex].type.objectType,
           try SchemaDiscovery.schema(for: target).kind == .embedded,
           case .link(let old) = try transaction.value(in: binding.table, key: key, column: column), value != .link(old),
           let targetBinding = try tableBinding(for: target) {
            try deleteRow(targetBinding, key: old)
        }
        return try transaction.setValue(value, in: binding.table, key: key, column: column, at: hint)
    }
}
