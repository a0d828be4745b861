@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// The property name a Swift key path reaches (`\Dog.age` → `"age"`), for the key-path forms
/// of aggregates and sorting: the key-path probe (``KeyPathProbe``) answers it, as it does for
/// the builder.
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
        try KeyPathProbe.path(of: keyPath, for: .query).get().dotted
    }
}
