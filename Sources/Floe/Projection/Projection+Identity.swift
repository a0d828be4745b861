@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// What a projection answers about itself, as Realm's projections do: equality and hashing by
// the root object, a description with the projected values, its realm and whether its root
// object still exists.

extension Projection: Hashable {
    /// Projections are equal when their root objects are the same object (whatever the
    /// projection class or how each was made); an unmanaged root equals only itself.
    ///
    /// ```swift
    /// let mapped = realm.objects(PersonProjection.self).first!
    /// mapped == PersonProjection(projecting: realm.objects(Person.self).first!)   // true
    /// ```
    public static func == (lhs: Projection, rhs: Projection) -> Bool {
        lhs.rootObject == rhs.rootObject
    }

    /// Hashes what `==` compares: the root object.
    ///
    /// ```swift
    /// let unique = Set(realm.objects(PersonProjection.self))
    /// ```
    public func hash(into hasher: inout Hasher) {
        hasher.combine(rootObject)
    }
}

extension Projection: CustomStringConvertible {
    /// The projection class, the root class and each projected property with the root key
    /// path it reads and its value now:
    ///
    /// ```
    /// PersonProjection<Person> <0x600000c04000> {
    ///     firstName(\.firstName) = John;
    ///     homeCity(\.address.city) = Optional("Winterfell");
    ///     firstFriendsName(\.friends) = ProjectedCollection<String> {
    ///     [0] Daenerys
    /// };
    /// }
    /// ```
    ///
    /// ```swift
    /// print(projection.description)
    /// ```
    public var description: String {
        let fields = Mirror.projectedFields(of: self)
        let properties = (try? ProjectionSchema.properties(of: Self.self)) ?? []
        let lines = fields.enumerated().map { index, field in
            let value = rootObject[keyPath: field.rootKeyPath].map { "\($0)" } ?? "nil"
            guard properties.indices.contains(index) else { return "\t\(field.rootKeyPath) = \(value);" }
            return "\t\(properties[index].name)(\\.\(properties[index].path.origin)) = \(value);"
        }
        let address = Unmanaged.passUnretained(rootObject).toOpaque()
        return "\(type(of: self))<\(type(of: rootObject))> <\(address)> {\n\(lines.joined(separator: "\n"))\n}"
    }
}

extension ProjectionObservable {
    /// The realm managing the root object (nil while it is unmanaged).
    ///
    /// ```swift
    /// if let realm = projection.realm { print(realm.configuration.fileURL as Any) }
    /// ```
    public var realm: Realm? { rootObject.realm }

    /// Whether the root object was deleted (or the write that made it rolled back); a
    /// projection of an unmanaged object is never invalidated.
    ///
    /// ```swift
    /// if projection.isInvalidated { return }
    /// print(projection.rootObject)
    /// ```
    public var isInvalidated: Bool { rootObject.isInvalidated }
}

extension FrozenProjection: Hashable {
    /// Frozen projections are equal when their root objects are the same object frozen at the
    /// same version.
    ///
    /// ```swift
    /// try projection.freeze() == projection.freeze()   // true while nothing was committed between
    /// ```
    public static func == (lhs: FrozenProjection, rhs: FrozenProjection) -> Bool {
        lhs.rootObject.isSameObject(as: rhs.rootObject) && lhs.version == rhs.version
    }

    /// Hashes what `==` compares: the root object's class, key and version.
    ///
    /// ```swift
    /// let seen: Set<FrozenProjection<PersonProjection>> = [frozen]
    /// ```
    public func hash(into hasher: inout Hasher) {
        hasher.combine(rootObject.binding.schema.className)
        hasher.combine(rootObject.key)
        hasher.combine(rootObject.version)
    }

    /// Itself: a frozen projection is already frozen.
    ///
    /// ```swift
    /// let frozen = try projection.freeze()
    /// frozen.freeze() == frozen   // true
    /// ```
    public func freeze() -> FrozenProjection<P> { self }
}

extension FrozenProjection: CustomStringConvertible {
    /// The projection's description (class, projected properties and values) at the frozen version.
    ///
    /// ```swift
    /// print(try projection.freeze())
    /// ```
    public var description: String { "\(P(projecting: rootObject.makeModel()))" }
}
