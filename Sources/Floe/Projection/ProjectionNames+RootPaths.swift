@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// Naming projected properties for observation by the root's key paths as well: Realm filters a
// projection's notifications by the root key path each property projects (`"address.city"`
// for `@Projected(\Person.address?.city) var homeCity`), so that spelling is accepted beside
// the projection's own names.

extension ProjectionNames {
    /// The projected properties `keyPaths` name for a change stream: each key path is a
    /// projected property's name (or a path on from a projected link, as ``named(_:in:)``
    /// takes it) or, failing that, the root's key path one or more projected properties read
    /// (`"address.city"`; for a collection mapping the collection's own path, `"friends"`, or
    /// the path to the mapped property, `"friends.firstName"`). A root key path names every
    /// projected property that reads it.
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` naming the projection
    ///   class and the key path when it is neither a projected name nor a projected root path.
    static func observed<P: ProjectionObservable>(_ keyPaths: [String], in type: P.Type) throws(FloeError) -> [NamedProjectedProperty] {
        let properties = try ProjectionSchema.properties(of: type)
        var named: [NamedProjectedProperty] = []
        for keyPath in keyPaths {
            let first = keyPath.split(separator: ".", omittingEmptySubsequences: false).first.map(String.init) ?? ""
            if properties.contains(where: { $0.name == first }) {
                named += try Self.named([keyPath], in: type)
                continue
            }
            let reading = properties.filter { $0.path.dotted == keyPath || $0.path.collectionOrigin == keyPath }
            guard !reading.isEmpty else {
                throw .invalidKeyPath(className: "\(P.self)", keyPath: keyPath,
                                      reason: "'\(P.self)' projects no property '\(first)', and none of its properties reads '\(keyPath)' of \(P.Root.className()) "
                                          + "(it projects \(properties.map(\.name).joined(separator: ", ")), which read \(properties.map(\.path.origin).joined(separator: ", ")))")
            }
            named += reading.map { NamedProjectedProperty(name: $0.name, rootPath: $0.path.components, property: $0) }
        }
        return named
    }
}

extension PropertyPath {
    /// For a collection mapping, the path to the list or set it maps (`"friends"` for
    /// `\Person.friends.projectTo.firstName`); nil for any other projected property.
    var collectionOrigin: String? {
        guard let prefix = toManyPrefix, prefix < components.count else { return nil }
        return components.prefix(prefix).joined(separator: ".")
    }

    /// The root key path a projected property is shown as (as Realm names it): the mapped
    /// collection's path for a collection mapping, the dotted path otherwise.
    var origin: String { collectionOrigin ?? dotted }
}
