@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// What every live view of a realm reads through: the transactions handed to the closures of
/// ``Realm/write(_:)-((Transaction)->Result)`` and ``Realm/read(_:)``, and (by forwarding, because an
/// actor's synchronous API cannot satisfy a protocol) the ``Realm`` actor itself. Each member
/// is written once, here.
///
/// Generic code over reads takes `borrowing some RealmReading & ~Copyable` (the transactions cannot be copied):
///
/// ```swift
/// func adultNames(in realm: borrowing some RealmReading & ~Copyable) -> [String] {
///     realm.objects(Person.self).filter { $0.age >= 18 }.map(\.name)
/// }
/// let names = try await realm.read { realm in adultNames(in: realm) }
/// ```
public protocol RealmReading: ~Copyable {
    /// The realm's object layer, for the members below. Not for use by applications.
    var _access: _RealmAccess { get }
}

/// What every live view of a realm that is inside a write transaction can change: the
/// transaction handed to the closure of ``Realm/write(_:)-((Transaction)->Result)`` and, by forwarding,
/// the ``Realm`` actor inside ``Realm/write(_:)-((Transaction)->Result)``.
///
/// ```swift
/// func adopt(_ dog: Dog, in realm: borrowing some RealmWriting & ~Copyable) throws {
///     try realm.add(dog, update: .modified)
/// }
/// try await realm.write { realm in try adopt(Dog(), in: realm) }
/// ```
public protocol RealmWriting: RealmReading, ~Copyable {}

/// The object layer of one realm, as the ``RealmReading`` members reach it. Opaque: it has
/// no public members.
public struct _RealmAccess: RealmWriting {
    /// The one reference a copy of this access (one per API call) retains; the realm itself,
    /// for its configuration, is the context's owner.
    let context: ObjectContext

    /// The realm's configuration; `.closed` once the realm is gone (an access kept past it).
    func configuration() throws(FloeError) -> Realm.Configuration {
        guard let realm = context.owner as? Realm else { throw .closed(path: context.store.path) }
        return realm.configuration
    }

    public var _access: _RealmAccess { self }
}

extension RealmReading where Self: ~Copyable {
    /// Every object of a class, live: it always shows the realm's current version (inside a
    /// write, the write's own changes).
    ///
    /// ```swift
    /// let dogs = realm.objects(Dog.self)
    /// ```
    public func objects<T: Object>(_ type: T.Type) -> Results<T> {
        // The metatype passed, not `T`: `let type: Object.Type = Dog.self` reads Dogs.
        Results(context: _access.context, elementType: type)
    }

    /// The object of `type` whose primary key is `key`, or nil.
    ///
    /// ```swift
    /// let dog = realm.object(ofType: Dog.self, forPrimaryKey: id)
    /// ```
    public func object<T: Object, Key: _Persistable>(ofType type: T.Type, forPrimaryKey key: Key) -> T? {
        _access.context.object(ofType: type, forPrimaryKey: key)
    }

    /// A frozen, `Sendable` snapshot of the whole realm at its newest committed version.
    ///
    /// ```swift
    /// let frozen = try await realm.read { realm in try realm.freeze() }
    /// ```
    public func freeze() throws -> FrozenRealm {
        FrozenRealm(snapshot: try _access.context.latestSnapshot(), configuration: try _access.configuration())
    }

    /// The live counterpart of a frozen object, or nil if it was deleted since.
    ///
    /// ```swift
    /// let live = realm.thaw(frozenDog)
    /// ```
    public func thaw<T: ObjectBase>(_ frozen: Frozen<T>) -> T? {
        _access.context.thaw(frozen)
    }

    /// The live counterpart of frozen results: every object of the class now, with the same
    /// filter and sort.
    public func thaw<T: Object>(_ frozen: FrozenResults<T>) -> Results<T> {
        _access.context.thaw(frozen)
    }

    /// The live counterpart of a frozen list, or nil if its object was deleted since.
    public func thaw<Element>(_ frozen: FrozenList<Element>) -> List<Element>? {
        _access.context.thaw(frozen)
    }

    /// The live counterpart of a frozen set, or nil if its object was deleted since.
    public func thaw<Element>(_ frozen: FrozenSet<Element>) -> MutableSet<Element>? {
        _access.context.thaw(frozen)
    }

    /// The live counterpart of a frozen map, or nil if its object was deleted since.
    public func thaw<Key, Value>(_ frozen: FrozenMap<Key, Value>) -> Map<Key, Value>? {
        _access.context.thaw(frozen)
    }

    /// Whether the realm holds no objects at all.
    ///
    /// ```swift
    /// if realm.isEmpty { try seedSampleData(in: realm) }
    /// ```
    public var isEmpty: Bool {
        guard let reader = try? _access.context.currentReader(), let names = try? reader.tableNames() else { return true }
        return names.allSatisfy { name in
            (try? reader.table(named: name)).map { (try? reader.objectCount(in: $0)) == 0 } ?? true
        }
    }
}

extension RealmWriting where Self: ~Copyable {
    /// Adds an unmanaged object (and, through its properties, the objects it reaches).
    ///
    /// With a primary key, `update` says what happens when an object with the same key exists.
    ///
    /// ```swift
    /// try realm.add(dog, update: .modified)
    /// ```
    public func add(_ object: Object, update: Realm.UpdatePolicy = .error) throws {
        try _access.context.add(object, update: update.existingObjectPolicy)
    }

    /// Adds every object of a sequence.
    ///
    /// ```swift
    /// try realm.add([rex, pluto])
    /// ```
    public func add<S: Sequence>(_ objects: S, update: Realm.UpdatePolicy = .error) throws where S.Element: Object {
        for object in objects { try _access.context.add(object, update: update.existingObjectPolicy) }
    }

    /// Creates an object from a dictionary, an array in property order, or another object.
    ///
    /// Properties the value leaves out take their defaults; keys that name no property are
    /// ignored, as in Realm (so JSON with extra fields can be passed as it is). With a primary
    /// key and `update` other than `.error`, an existing object with that key is updated
    /// instead, and so are nested objects with existing primary keys.
    ///
    /// ```swift
    /// let dog = try realm.create(Dog.self, value: ["name": "Pluto", "age": 3])
    /// ```
    ///
    /// - Throws: ``FloeError`` naming the class, property and value for a value that does not
    ///   fit, a duplicate primary key (``FloeError/primaryKeyNotGiven(className:property:defaultValue:)``
    ///   when the key was left out), or a cyclic value.
    @discardableResult
    public func create<T: Object>(_ type: T.Type, value: Any = [String: Any](), update: Realm.UpdatePolicy = .error) throws -> T {
        try _access.context.create(type, value: value, update: update.existingObjectPolicy)
    }

    /// Creates an asymmetric object, which joins the realm's outbox (``Realm/outbox(_:batchSize:)``)
    /// and cannot be read back, so, as in Realm, nothing is returned. An asymmetric object is
    /// never updated: `create` takes no update policy for one (the general `create` takes
    /// ``Object`` classes only), and `let sensor: WeatherSensor = try realm.create(...)` does not
    /// compile.
    ///
    /// ```swift
    /// try await realm.write { realm in
    ///     try realm.create(WeatherSensor.self, value: ["_id": ObjectId.generate(), "deviceId": "WX1278UIT"])
    /// }
    /// ```
    ///
    /// - Throws: ``FloeError`` naming the class, property and value for a value that does not fit.
    public func create<T: AsymmetricObject>(_ type: T.Type, value: Any = [String: Any]()) throws {
        _ = try _access.context.create(type, value: value, update: .error)
    }

    /// Deletes a managed object (and the embedded objects it owns); links to it become nil.
    ///
    /// Relationships declared `@Persisted(deleteRule: .cascade)` delete their targets too,
    /// unless something else still links to them (see ``DeleteRule``).
    ///
    /// ```swift
    /// try realm.delete(dog)
    /// ```
    public func delete(_ object: ObjectBase) throws {
        try _access.context.delete(object)
    }

    /// Deletes every object of a sequence (results, a list, an array…).
    ///
    /// ```swift
    /// try realm.delete(realm.objects(Dog.self).filter("age > 10"))
    /// ```
    public func delete<S: Sequence>(_ objects: S) throws where S.Element: ObjectBase {
        // Every object of a class that nothing links to and that owns no embedded objects:
        // the class's objects go at once, without visiting each.
        if let results = objects as? any WholeClassResults, let (context, type) = results.everyObjectOfClass,
           context === _access.context, try context.deleteEveryObjectAtOnce(of: type) {
            return
        }
        // A list may hold one object twice: it is deleted once. All go together, so that the
        // delete rules see every one of them as deleted.
        var seen = Set<ObjectBase>()
        try _access.context.delete(Array(objects).filter { seen.insert($0).inserted })
    }

    /// Deletes every object in the realm.
    public func deleteAll() throws {
        try _access.context.deleteAll()
    }
}
