import Foundation
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// A realm: a database of model objects, opened from a file (or in memory), isolated to
/// this actor.
///
/// Inside the actor — in `Realm` extensions you write, or in the closures of
/// ``write(_:)-((Transaction)->Result)`` and ``read(_:)`` — the API is synchronous, as in Realm.
/// From anywhere else, `await` a write or a read; what leaves the actor is `Sendable`:
/// values, or frozen snapshots.
///
/// ```swift
/// let realm = try await Realm()
/// try await realm.write { realm in
///     let dog = Dog()
///     dog.name = "Rex"
///     dog.age = 10
///     try realm.add(dog)
/// }
/// let names = try await realm.read { realm in realm.objects(Dog.self).map(\.name) }
/// ```
public actor Realm {
    let context: ObjectContext
    /// The shared implementation of the synchronous API (``RealmReading``, ``RealmWriting``).
    var access: _RealmAccess { _RealmAccess(context: context) }
    /// The shared store of the file (Sendable; every realm of the file in the process has the same).
    nonisolated let store: Store
    /// Awaited writes waiting to run on the actor, back to back (see ``WriteQueue``).
    nonisolated let writeQueue = WriteQueue()

    /// The configuration this realm was opened with.
    public nonisolated let configuration: Configuration

    /// Opens the realm described by `configuration` (by default ``Configuration/defaultConfiguration``).
    ///
    /// File work (open, recovery, migration) runs off the caller's executor.
    public init(configuration: Configuration = .defaultConfiguration) async throws {
        let store = try await Task.detached(priority: nil) { () throws -> Store in
            try RealmOpener.openStore(configuration)
        }.value
        self.configuration = configuration
        self.store = store
        context = try ObjectContext(store: store, isReadOnly: configuration.readOnly, objectTypes: configuration.objectTypes)
        context.owner = self
    }

    /// Opens the realm described by `configuration`.
    ///
    /// ```swift
    /// let realm = try await Realm.open(configuration: Realm.Configuration(inMemoryIdentifier: "scratch"))
    /// ```
    public static func open(configuration: Configuration = .defaultConfiguration) async throws -> Realm {
        try await Realm(configuration: configuration)
    }

    // MARK: Writing inside the actor

    /// Whether a write transaction is open.
    public var isInWriteTransaction: Bool { context.isInWriteTransaction }

    /// Runs `block` in a write transaction: commits when it returns, rolls everything back
    /// when it throws (or when a property setter inside it failed).
    ///
    /// ```swift
    /// extension Realm {
    ///     func adopt(_ dog: Dog) throws {
    ///         try write { try add(dog) }
    ///     }
    /// }
    /// ```
    ///
    /// The closure takes no arguments (`write { … }`, as in Realm). Its type is spelled with
    /// one `Void` parameter, which a closure without arguments matches: that way a mistake
    /// inside a `write { realm in … }` closure from outside the actor is reported where it is,
    /// not as a closure expecting no arguments (the compiler weighs both `write`s and would
    /// blame the closure's shape).
    @discardableResult
    public func write<Result>(_ block: (()) throws -> Result) throws -> Result {
        try context.write { try block(()) }
    }

    /// Opens a write transaction; end it with ``commitWrite()`` or ``cancelWrite()``.
    public func beginWrite() throws { try context.beginWrite() }

    /// Commits the open write transaction.
    public func commitWrite() throws { try context.commitWrite() }

    /// Discards the open write transaction.
    public func cancelWrite() { context.cancelWrite() }

    // The members below are ``RealmWriting``'s and ``RealmReading``'s, forwarded: an actor's
    // synchronous API cannot satisfy a protocol. Their documentation is there.

    /// Adds an unmanaged object; see ``RealmWriting/add(_:update:)-(Object,_)``.
    public func add(_ object: Object, update: UpdatePolicy = .error) throws { try access.add(object, update: update) }

    /// Adds every object of a sequence (see ``RealmWriting``).
    public func add<S: Sequence>(_ objects: S, update: UpdatePolicy = .error) throws where S.Element: Object {
        try access.add(objects, update: update)
    }

    /// Creates an object from a dictionary, an array in property order, or another object;
    /// see ``RealmWriting/create(_:value:update:)``.
    ///
    /// ```swift
    /// let dog = try realm.create(Dog.self, value: ["name": "Pluto", "age": 3])
    /// ```
    @discardableResult
    public func create<T: Object>(_ type: T.Type, value: Any = [String: Any](), update: UpdatePolicy = .error) throws -> T {
        try access.create(type, value: value, update: update)
    }

    /// Creates an asymmetric object (it joins the outbox; nothing is returned, as in Realm);
    /// see ``RealmWriting/create(_:value:)``.
    ///
    /// ```swift
    /// try realm.write { try realm.create(WeatherSensor.self, value: ["deviceId": "WX1278UIT"]) }
    /// ```
    public func create<T: AsymmetricObject>(_ type: T.Type, value: Any = [String: Any]()) throws {
        try access.create(type, value: value)
    }

    /// Deletes a managed object; see ``RealmWriting/delete(_:)-(ObjectBase)``.
    public func delete(_ object: ObjectBase) throws { try access.delete(object) }

    /// Deletes every object of a sequence (see ``RealmWriting``).
    public func delete<S: Sequence>(_ objects: S) throws where S.Element: ObjectBase { try access.delete(objects) }

    /// Deletes every object in the realm.
    public func deleteAll() throws { try access.deleteAll() }

    // MARK: Reading inside the actor

    /// Every object of a class, live: it always shows the realm's current version.
    ///
    /// ```swift
    /// let dogs = realm.objects(Dog.self)
    /// ```
    public func objects<T: Object>(_ type: T.Type) -> Results<T> { access.objects(type) }

    /// The object of `type` whose primary key is `key`, or nil.
    ///
    /// ```swift
    /// let dog = realm.object(ofType: Dog.self, forPrimaryKey: id)
    /// ```
    public func object<T: Object, Key: _Persistable>(ofType type: T.Type, forPrimaryKey key: Key) -> T? {
        access.object(ofType: type, forPrimaryKey: key)
    }

    /// A frozen, `Sendable` snapshot of the whole realm at its current version.
    public func freeze() throws -> FrozenRealm { try access.freeze() }

    /// The live counterpart of a frozen object, or nil if it was deleted since.
    public func thaw<T: ObjectBase>(_ frozen: Frozen<T>) -> T? { access.thaw(frozen) }

    /// The live counterpart of frozen results, with the same filter and order.
    public func thaw<T: Object>(_ frozen: FrozenResults<T>) -> Results<T> { access.thaw(frozen) }

    /// The live counterpart of a frozen list, or nil if its object was deleted since.
    public func thaw<Element>(_ frozen: FrozenList<Element>) -> List<Element>? { access.thaw(frozen) }

    /// The live counterpart of a frozen set, or nil if its object was deleted since.
    public func thaw<Element>(_ frozen: FrozenSet<Element>) -> MutableSet<Element>? { access.thaw(frozen) }

    /// The live counterpart of a frozen map, or nil if its object was deleted since.
    public func thaw<Key, Value>(_ frozen: FrozenMap<Key, Value>) -> Map<Key, Value>? { access.thaw(frozen) }

    /// Whether the realm holds no objects at all.
    public var isEmpty: Bool { access.isEmpty }

    /// Versions currently alive in this realm's file: the newest, plus those frozen snapshots hold.
    public var numberOfActiveVersions: Int { context.store.activeVersionCount }
}
