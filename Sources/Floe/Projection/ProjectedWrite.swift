@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// Assigning a projected property whose key path Swift cannot write (one through an optional
// link): the names the key path reads lead from the root to the object that holds the property.

enum ProjectedWrite {
    static func assign<Root: ObjectBase, Value>(_ newValue: Value, through keyPath: KeyPath<Root, Value>, of root: Root, in projection: String) {
        let path: PropertyPath
        switch KeyPathProbe.path(of: keyPath, for: .projection) {
        case .success(let found): path = found
        case .failure(let error): preconditionFailure("Cannot assign a property of \(projection): \(error)")
        }
        guard path.toManyPrefix == nil, let last = path.components.last else {
            preconditionFailure("Cannot assign '\(path.dotted)' through \(projection): a property mapped from a list is read-only")
        }
        var holder: ObjectBase = root
        for name in path.components.dropLast() {
            guard let (schema, index) = property(named: name, of: holder),
                  let next = Self.object(in: schema.accessors[index].swiftValue(holder)) else { return }   // a nil link: nothing to write
            holder = next
        }
        guard let (schema, index) = property(named: last, of: holder) else { return }
        let property = schema.properties[index]
        guard let encoded = (newValue as? any _Persistable)?._floeEncoded else {
            preconditionFailure("Cannot assign '\(path.dotted)' through \(projection): \(Value.self) is not a stored type")
        }
        precondition(encoded.value != .null || property.type.isOptional,
                     "Cannot assign nil to '\(path.dotted)' through \(projection): '\(schema.className).\(property.name)' is required")
        if let binding = holder._floeBinding {
            binding.write(encoded, column: binding.tableBinding.columnOfProperty[index])
        } else {
            schema.accessors[index].setUnmanaged(holder, encoded)
        }
    }

    private static func property(named name: String, of object: ObjectBase) -> (ObjectSchemaInfo, Int)? {
        guard let schema = try? SchemaDiscovery.schema(for: type(of: object)), let index = schema.propertyIndex(named: name) else { return nil }
        return (schema, index)
    }

    private static func object(in value: Any) -> ObjectBase? {
        if let object = value as? ObjectBase { return object }
        if let optional = value as? ObjectBase? { return optional }
        return nil
    }
}
