@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// The projected properties of a projection class, found once per class: their names (the
// `@Projected` fields, through `Mirror`) and the root's properties each one reads.

/// One projected property.
struct ProjectedProperty {
    /// The projection's name for it.
    let name: String
    /// The root's properties it reads.
    let path: PropertyPath
}

enum ProjectionSchema {
    private static let cache = Locked<[ObjectIdentifier: Result<[ProjectedProperty], FloeError>]>([:])

    /// The projected properties of `P`, in declaration order.
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` naming the projection
    ///   class and the property whose key path reads no persisted property of the root.
    static func properties<P: ProjectionObservable>(of type: P.Type) throws(FloeError) -> [ProjectedProperty] {
        try verdict(of: type).get()
    }

    /// ``properties(of:)``'s answer, found once per projection class (`type` is the class
    /// itself, which may be a subclass of `P`).
    private static func verdict<P: ProjectionObservable>(of type: P.Type) -> Result<[ProjectedProperty], FloeError> {
        let id = ObjectIdentifier(type)
        if let known = cache.withLock({ $0[id] }) { return known }
        let found = discover(type)
        cache.withLock { $0[id] = found }
        return found
    }

    private static func discover<P: ProjectionObservable>(_ type: P.Type) -> Result<[ProjectedProperty], FloeError> {
        // `type.init`, not `P(...)`: `type` may be a subclass of the class `P` names.
        let probe = type.init(projecting: P.Root())
        var properties: [ProjectedProperty] = []
        var mirror: Mirror? = Mirror(reflecting: probe)
        var levels: [[ProjectedProperty]] = []
        while let current = mirror {
            var level: [ProjectedProperty] = []
            for child in current.children {
                guard let field = child.value as? any ProjectedField, let label = child.label else { continue }
                let name = label.hasPrefix("_") ? String(label.dropFirst()) : label
                switch field.resolvePath() {
                case .success(let path): level.append(ProjectedProperty(name: name, path: path))
                case .failure(let error):
                    let written = error.keyPathText ?? "\(field.rootKeyPath)"
                    return .failure(.invalidKeyPath(className: "\(type)", keyPath: name,
                                                    reason: "its key path \(written) on \(P.Root.className()): \(error.reasonText)"))
                }
            }
            levels.append(level)
            mirror = current.superclassMirror
        }
        // A subclass of a projection shows its superclass's properties first.
        for level in levels.reversed() { properties += level }
        return .success(properties)
    }

    /// Checks `P`'s projected properties where the check cannot throw (`realm.objects(P.self)`,
    /// `object(ofType:forPrimaryKey:)`): a refused key path is recorded on the realm, so that
    /// the `read { }` or `write { }` it happens in throws it when its closure returns (a write
    /// rolls back), and nothing read through the projection leaves.
    static func check<P: ProjectionObservable>(_ type: P.Type, in context: ObjectContext) {
        if case .failure(let error) = verdict(of: type) { context.deferReadError(error) }
    }

    /// Checks the projection class `type` where a projection of a managed object is made
    /// (`init(projecting:)`, which cannot throw): a refused key path is recorded on the
    /// object's source as an invalid value is (a live realm's enclosing `read { }` or
    /// `write { }` throws it, a frozen realm's `checkIntegrity()` does). The verdict is found
    /// once per class.
    static func check<P: ProjectionObservable>(_ type: P.Type, recordingOn source: any ObjectSource) {
        if case .failure(let error) = verdict(of: type) { source.recordInvalidValue(error) }
    }

    /// Checks `P` for a frozen realm's `objects(P.self)`: a refused key path is kept with the
    /// frozen version's damage, which `checkIntegrity()` throws.
    static func check<P: ProjectionObservable>(_ type: P.Type, in snapshot: Snapshot) {
        if case .failure(let error) = verdict(of: type) { snapshot.damage.record(error) }
    }

    /// The projected property that `keyPath` of the projection reads.
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` naming the projection
    ///   class and the key path when it reads no projected property, or several.
    static func property<P: ProjectionObservable, V>(_ keyPath: KeyPath<P, V>) throws(FloeError) -> ProjectedProperty {
        guard let property = try property(readBy: keyPath) else {
            throw .invalidKeyPath(className: "\(P.self)", keyPath: "\(keyPath)",
                                  reason: "it reads no @Projected property, or several: queries and sorts name one projected property")
        }
        return property
    }

    /// The projected property a Swift key path of the projection reads (`\PersonProjection.homeCity`):
    /// a projection of a new root object reports each field the key path reads. Nil when it
    /// reads none or several, or when `P` is no ``Projection`` (only a projection reports reads).
    static func property<P: ProjectionObservable>(readBy keyPath: PartialKeyPath<P>) throws(FloeError) -> ProjectedProperty? {
        let properties = try properties(of: P.self)
        let probe = P(projecting: P.Root())
        guard let recording = probe as? Projection<P.Root> else { return nil }
        var read: [AnyKeyPath] = []
        recording.fieldReadRecorder = { read.append($0.rootKeyPath) }
        _ = probe[keyPath: keyPath]
        recording.fieldReadRecorder = nil
        let fields = Mirror.projectedFields(of: probe)
        guard read.count == 1, let found = fields.firstIndex(where: { $0.rootKeyPath == read[0] }), properties.indices.contains(found) else {
            return nil
        }
        return properties[found]
    }
}

extension Mirror {
    /// The `@Projected` fields of a projection, superclasses' first (the order of ``ProjectionSchema``).
    static func projectedFields(of projection: AnyObject) -> [any ProjectedField] {
        var levels: [[any ProjectedField]] = []
        var mirror: Mirror? = Mirror(reflecting: projection)
        while let current = mirror {
            levels.append(current.children.compactMap { $0.value as? any ProjectedField })
            mirror = current.superclassMirror
        }
        return levels.reversed().flatMap { $0 }
    }
}

extension FloeError {
    /// The key path a key-path error names, to restate it for the projection property that caused it.
    var keyPathText: String? {
        if case .invalidKeyPath(_, let keyPath, _) = self { return keyPath }
        return nil
    }

    /// The reason of a key-path error, to restate it for the projection property that caused it.
    var reasonText: String {
        if case .invalidKeyPath(_, _, let reason) = self { return reason }
        return "\(self)"
    }
}
