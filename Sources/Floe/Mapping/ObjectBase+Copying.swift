@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// Unmanaged copies: `Dog(value:)` from a dictionary, an array or another object.

extension RealmObject {
    /// Creates an unmanaged object from a dictionary, an array in property order, or another
    /// object (a managed one gives an independent, unmanaged copy).
    ///
    /// Nested values become unmanaged related objects, nesting at most 100 levels deep, as in
    /// `create(_:value:)`: a deeper value is refused with ``FloeError/cyclicValue(className:)``.
    ///
    /// ```swift
    /// let copy = try Dog(value: managedDog)
    /// let pluto = try Dog(value: ["name": "Pluto", "age": 3])
    /// ```
    public init(value: Any) throws {
        self.init()
        try ObjectBase.fillUnmanaged(self, from: value)
    }
}

extension ObjectBase {
    /// Sets an unmanaged object's properties from `value`, making the unmanaged objects that
    /// nested values describe. The nested values are found with a worklist, not recursion, so
    /// their depth never decides the stack's; each object's properties are set after those of
    /// the objects it holds (a type mapped to an embedded object reads the object when set).
    static func fillUnmanaged(_ root: ObjectBase, from value: Any) throws(FloeError) {
        var filled: [(object: ObjectBase, schema: ObjectSchemaInfo, values: [_FloeValue?])] = []
        var pending: [(object: ObjectBase, value: Any, level: Int)] = [(root, value, 1)]
        while let (object, value, level) = pending.popLast() {
            // The dynamic class: the object may have been made through a metatype.
            let schema = try SchemaDiscovery.schema(for: type(of: object))
            var values = try ValueCoercion.propertyValues(for: schema, from: value, context: nil)
            for (index, property) in schema.properties.enumerated() {
                guard let given = values[index], let target = property.type.objectType else { continue }
                func made(from nested: Any) throws(FloeError) -> _FloeValue {
                    guard level < WriteSession.maximumNesting else { throw .cyclicValue(className: target.className()) }
                    let related = target.init()
                    pending.append((related, nested, level + 1))
                    return .object(related, stored: .null)
                }
                if let nested = given.valueToCreate {
                    values[index] = try made(from: nested)
                } else if let elements = given.elements {
                    var objects: [_FloeValue] = []
                    objects.reserveCapacity(elements.count)
                    for element in elements {
                        if let nested = element.valueToCreate { objects.append(try made(from: nested)) } else { objects.append(element) }
                    }
                    values[index] = .elements(objects, keys: given.keys)
                }
            }
            filled.append((object, schema, values))
        }
        // Each object comes after those holding it in `filled`: backwards, it is set before them.
        for (object, schema, values) in filled.reversed() {
            for (index, property) in schema.properties.enumerated() {
                guard let value = values[index] else { continue }
                property.accessor.setUnmanaged(object, value)
            }
        }
    }
}
