import Foundation
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// Turning a Swift value into its stored form: links resolved, collections replaced.

extension ObjectContext {
    /// The stored form of a value bound for `column`: a link to a managed object, or to one
    /// added or created for it.
    func resolve(_ value: _FloeValue, for binding: TableBinding, column: Int, owner: Int64, update: ExistingObjectPolicy = .error) throws(FloeError) -> Value {
        var added: LinkFrame?
        let stored = try resolve(value, for: binding, column: column, owner: owner, update: update, deferring: &added)
        if let added { try storeLinks(added) }
        return stored
    }

    /// `resolve`, leaving the links of an unmanaged object it adds to the caller: the object's
    /// row is stored, and `added` is set to what its links still need (see ``storeLinks(_:)``).
    func resolve(_ value: _FloeValue, for binding: TableBinding, column: Int, owner: Int64, update: ExistingObjectPolicy,
                 deferring added: inout LinkFrame?) throws(FloeError) -> Value {
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
            let (key, links) = try insertRow(object, update: update)
            added = links
            return .typedLink(table: schema.className, key: key)
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
        let (key, links) = try insertRow(object, update: update)
        added = links
        return .link(key)
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
