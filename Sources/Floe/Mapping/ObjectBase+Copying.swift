// Unmanaged copies: `Dog(value:)` from a dictionary, an array or another object.

extension RealmObject {
    /// Creates an unmanaged object from a dictionary, an array in property order, or another
    /// object (a managed one gives an independent, unmanaged copy).
    ///
    /// ```swift
    /// let copy = try Dog(value: managedDog)
    /// let pluto = try Dog(value: ["name": "Pluto", "age": 3])
    /// ```
    public init(value: Any) throws {
        self.init()
        // The dynamic class: called through a metatype (nested values), `Self` is only the base.
        let schema = try SchemaDiscovery.schema(for: type(of: self))
        let values = try ValueCoercion.propertyValues(for: schema, from: value, core: nil)
        for (index, property) in schema.properties.enumerated() {
            guard var value = values[index] else { continue }
            if let target = property.type.objectType {
                // Nested values become unmanaged related objects.
                if let nested = value.valueToCreate { value = .object(try target.init(value: nested), stored: .null) }
                if let elements = value.elements {
                    var objects: [_FloeValue] = []
                    for element in elements {
                        objects.append(try element.valueToCreate.map { .object(try target.init(value: $0), stored: .null) } ?? element)
                    }
                    value = .elements(objects, keys: value.keys)
                }
            }
            property.accessor.setUnmanaged(self, value)
        }
    }
}
