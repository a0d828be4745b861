/// The property name a Swift key path reaches (`\Dog.age` → `"age"`), for the key-path forms
/// of aggregates and sorting. Swift keeps no names for the property-wrapper accessors behind
/// `@Persisted`, so the name is found by reading the key path on a scratch object whose
/// properties are bound, one at a time, to a source that notes the read.
///
/// ```swift
/// let name = try KeyPathNames.name(of: \Dog.age)   // "age"
/// ```
enum KeyPathNames {
    private static let cache = Locked<[AnyKeyPath: String]>([:])

    /// The name of the persisted property of `Root` that `keyPath` reads.
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` when the key path
    ///   reads no persisted property, or more than one (a computed Swift property).
    static func name<Root: ObjectBase, Value>(of keyPath: KeyPath<Root, Value>) throws(FloeError) -> String {
        if let name = cache.withLock({ $0[keyPath] }) { return name }
        let schema = try SchemaDiscovery.schema(for: Root.self)
        let binding = TableBinding(schema: schema, table: TableHandle(index: -1, name: schema.className),
                                   columnOfProperty: Array(schema.properties.indices), columnCount: schema.properties.count)
        var found: [String] = []
        for (index, property) in schema.properties.enumerated() where property.type.collection == .single && !property.isComputed {
            let recorder = ReadRecorder()
            let object = Root()
            object._floeBinding = ObjectBinding(source: recorder, tableBinding: binding, key: 0)
            schema.accessors[index].bind(object, index)
            _ = object[keyPath: keyPath]
            schema.accessors[index].bind(object, -1)
            object._floeBinding = nil
            if recorder.wasRead { found.append(property.name) }
        }
        guard found.count == 1 else {
            throw .invalidKeyPath(className: schema.className, keyPath: "\(keyPath)",
                                  reason: found.isEmpty ? "the key path reads no persisted property of \(schema.className)"
                                                        : "the key path reads several properties (\(found.joined(separator: ", "))): use a persisted property")
        }
        cache.withLock { $0[keyPath] = found[0] }
        return found[0]
    }
}

/// A source that answers no read but notes that one was asked for.
private final class ReadRecorder: ObjectSource {
    var wasRead = false

    func currentReader() throws(FloeError) -> any VersionReading {
        wasRead = true
        // An I/O error makes the property read answer its type's placeholder value.
        throw .io(path: "", operation: "naming a key path", errno: 0)
    }

    var isFrozen: Bool { true }
    func write(_ value: _FloeValue, binding: ObjectBinding, column: Int) {}
    func linkedObject(_ type: ObjectBase.Type, key: Int64) -> ObjectBase? { nil }
    func modelType(named className: String) -> ObjectBase.Type? { nil }
    func changeCollection(binding: ObjectBinding, column: Int, _ change: (CollectionEditor) throws(FloeError) -> Void) {}
    func recordReadFailure(_ error: FloeError) {}
    func recordInvalidValue(_ error: FloeError) {}
    var hasRecordedDamage: Bool { false }
}
