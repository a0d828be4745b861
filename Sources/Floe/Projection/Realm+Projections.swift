@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// Projections from the realm actor itself and from frozen realms (the transactions get them
// from `RealmReading`).

extension Realm {
    /// Every object of a projection's root class, each seen through the projection (live,
    /// inside the realm's isolation).
    ///
    /// ```swift
    /// let people = realm.objects(PersonProjection.self)
    /// ```
    public func objects<P: ProjectionObservable>(_ type: P.Type) -> ProjectionResults<P> where P.Root: Object {
        access.objects(type)
    }

    /// The projection of the root object whose primary key is `key`, or nil.
    ///
    /// ```swift
    /// let person = realm.object(ofType: PersonProjection.self, forPrimaryKey: 1)
    /// ```
    public func object<P: ProjectionObservable, Key: _Persistable>(ofType type: P.Type, forPrimaryKey key: Key) -> P? where P.Root: Object {
        access.object(ofType: type, forPrimaryKey: key)
    }

    /// The live projection of a frozen one, or nil if its root object was deleted since.
    ///
    /// ```swift
    /// let live = realm.thaw(frozenProjection)
    /// ```
    public func thaw<P: ProjectionObservable>(_ frozen: FrozenProjection<P>) -> P? {
        access.thaw(frozen)
    }
}

extension FrozenRealm {
    /// Every object of a projection's root class at this version, each seen through the projection.
    ///
    /// ```swift
    /// let people = try realm.freeze().objects(PersonProjection.self)
    /// ```
    ///
    /// A projection whose key path reads no persisted property of the root (a plain `var`) is
    /// refused here as a frozen object's unreadable value is: this frozen realm's
    /// `checkIntegrity()` throws ``FloeError/invalidKeyPath(className:keyPath:reason:)``,
    /// naming the projection class, its property and the root class.
    public func objects<P: ProjectionObservable>(_ type: P.Type) -> FrozenProjectionResults<P> where P.Root: Object {
        ProjectionSchema.check(P.self, in: snapshot)
        return FrozenProjectionResults(rootResults: objects(P.Root.self))
    }
}
