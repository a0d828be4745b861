/// The property name a Swift key path reaches (`\Dog.age` → `"age"`), for the key-path forms
/// of aggregates and sorting: the builder's probe (``QueryPropertyNames``) answers it.
///
/// ```swift
/// let name = try KeyPathNames.name(of: \Dog.age)   // "age"
/// ```
enum KeyPathNames {
    /// The name of the persisted property of `Root` that `keyPath` reads.
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` when the key path
    ///   reads no persisted property, several, or computes a value from one.
    static func name<Root: ObjectBase, Value>(of keyPath: KeyPath<Root, Value>) throws(FloeError) -> String {
        try QueryPropertyNames.property(keyPath).get().name
    }
}
