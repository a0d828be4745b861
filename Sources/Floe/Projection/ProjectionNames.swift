@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// Naming a projection's properties from outside it: key paths written in the projection's own
// names (`"homeCity"`, `\PersonProjection.homeCity`) turned into the root's property paths
// (`"address.city"`) for observation, sorting and `distinct`.

/// One projected property a caller named, with the root path it stands for.
struct NamedProjectedProperty {
    /// The projection's name for the property.
    let name: String
    /// The root's property path: the projected property's own, followed by any further
    /// components the caller wrote after its name (`"owner.name"` through a projected link).
    let rootPath: [String]
    /// The projected property's own root path (without the caller's further components).
    let property: ProjectedProperty
}

enum ProjectionNames {
    /// The projected properties `keyPaths` name, in the projection's names; a key path may go
    /// on past a projected property that is a link (`"dog.name"` for `@Projected(\Person.dog) var dog`).
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` naming the projection
    ///   class and the key path when its first component is not a projected property.
    static func named<P: ProjectionObservable>(_ keyPaths: [String], in type: P.Type) throws(FloeError) -> [NamedProjectedProperty] {
        let properties = try ProjectionSchema.properties(of: type)
        return try keyPaths.map { keyPath throws(FloeError) in
            let components = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard let first = components.first, let property = properties.first(where: { $0.name == first }) else {
                throw .invalidKeyPath(className: "\(P.self)", keyPath: keyPath,
                                      reason: "'\(P.self)' projects no property '\(components.first ?? "")' (it projects \(properties.map(\.name).joined(separator: ", ")))")
            }
            if components.count > 1, property.path.toManyPrefix != nil, property.path.toManyPrefix! < property.path.components.count {
                throw .invalidKeyPath(className: "\(P.self)", keyPath: keyPath,
                                      reason: "'\(first)' is a collection mapped to its elements' values, so the path cannot go on through it")
            }
            return NamedProjectedProperty(name: first, rootPath: property.path.components + components.dropFirst(), property: property)
        }
    }

    /// The projected property a Swift key path of the projection reads (`\PersonProjection.homeCity`).
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` naming the projection
    ///   class and the key path when it reads no projected property, or several.
    static func named<P: ProjectionObservable>(_ keyPath: PartialKeyPath<P>) throws(FloeError) -> NamedProjectedProperty {
        _ = try ProjectionSchema.properties(of: P.self)
        guard P.self is Projection<P.Root>.Type else {
            throw .invalidKeyPath(className: "\(P.self)", keyPath: "\(keyPath)", reason: "only a Projection subclass names its properties by key path")
        }
        guard let property = try ProjectionSchema.property(readBy: keyPath) else {
            throw .invalidKeyPath(className: "\(P.self)", keyPath: "\(keyPath)",
                                  reason: "it reads no @Projected property of '\(P.self)', or several: name one projected property")
        }
        return NamedProjectedProperty(name: property.name, rootPath: property.path.components, property: property)
    }

    /// The root's property names (dotted) of Swift key paths of a model class, for the
    /// string-keyed streams (`\Dog.toy?.name` → `"toy.name"`).
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` naming the class and the
    ///   key path when it reads no persisted property, or several.
    static func rootNames<Root: ObjectBase>(_ keyPaths: [PartialKeyPath<Root>]) throws(FloeError) -> [String] {
        try keyPaths.map { keyPath throws(FloeError) in try KeyPathProbe.path(of: keyPath, for: .projection).get().dotted }
    }
}
