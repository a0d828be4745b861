/// A frozen model object: an immutable, `Sendable` view of one object at one version,
/// readable from any task without `await`.
///
/// Read it with the model's own property names (computed properties included); it cannot
/// be written, and it never changes.
///
/// ```swift
/// let frozenDog = try dog.freeze()
/// Task.detached { print(frozenDog.name) }
/// ```
/// A frozen object whose values `create(_:value:)` can copy.
protocol FrozenObjectSource: Sendable {
    func makeObject() -> ObjectBase
}

@dynamicMemberLookup
public struct Frozen<Model: ObjectBase>: Sendable, FrozenObjectSource {
    let snapshot: Snapshot
    let binding: TableBinding
    let key: Int64

    /// Reads a property (or any key path) of the object as it was at this version.
    public subscript<Property>(dynamicMember keyPath: KeyPath<Model, Property>) -> Property {
        makeModel()[keyPath: keyPath]
    }

    /// Follows a to-one link: the linked object, frozen at the same version (so that frozen
    /// objects are read-only all the way down).
    public subscript<Target: ObjectBase>(dynamicMember keyPath: KeyPath<Model, Target?>) -> Frozen<Target>? {
        guard let linked = makeModel()[keyPath: keyPath], let binding = linked._floeBinding else { return nil }
        return Frozen<Target>(snapshot: snapshot, binding: binding.tableBinding, key: binding.key)
    }

    /// Always true.
    public var isFrozen: Bool { true }

    /// Whether the object did not exist at this version (it was deleted, or created by a
    /// write that had not committed when it was frozen).
    public var isInvalidated: Bool { !((try? snapshot.contains(key, in: binding.table)) ?? false) }

    /// The version this object was frozen at.
    public var version: UInt64 { snapshot.version }

    /// Whether two frozen objects are the same stored object (at any versions).
    public func isSameObject(as other: Frozen<Model>) -> Bool {
        key == other.key && binding.schema === other.binding.schema
    }

    /// A throwaway instance bound to the frozen version; it never leaves the calling task.
    func makeObject() -> ObjectBase { makeModel() }

    func makeModel() -> Model {
        let object = (binding.schema.type as! Model.Type).init()
        let source = FrozenSource(snapshot: snapshot)
        object._floeBinding = ObjectBinding(source: source, tableBinding: binding, key: key)
        for (index, property) in binding.schema.properties.enumerated() {
            property.accessor.bind(object, binding.columnOfProperty[index])
        }
        return object
    }
}

/// Reads for frozen objects: always the same version.
final class FrozenSource: ObjectSource {
    let snapshot: Snapshot

    init(snapshot: Snapshot) {
        self.snapshot = snapshot
    }

    var isFrozen: Bool { true }

    func currentReader() throws(FloeError) -> any VersionReading { snapshot }

    func linkedObject(_ type: ObjectBase.Type, key: Int64) -> ObjectBase? {
        let found: TableBinding?
        do throws(FloeError) {
            if let binding = try FrozenRealm.binding(for: type, in: snapshot), try snapshot.contains(key, in: binding.table) {
                found = binding
            } else {
                found = nil
            }
        } catch {
            return readFailed(error, reading: "a link to a \(type.className()) object", placeholder: type.init())
        }
        guard let binding = found else { return nil }
        let object = type.init()
        object._floeBinding = ObjectBinding(source: self, tableBinding: binding, key: key)
        for (index, accessor) in binding.schema.accessors.enumerated() { accessor.bind(object, binding.columnOfProperty[index]) }
        return object
    }

    func modelType(named className: String) -> ObjectBase.Type? { SchemaDiscovery.type(named: className) }

    /// No enclosing read to throw from: the damage is kept for `checkIntegrity()`.
    func recordReadFailure(_ error: FloeError) { snapshot.damage.record(error) }

    var hasRecordedDamage: Bool { snapshot.damage.firstError != nil }

    /// No enclosing read to throw from: kept with the damage, for `checkIntegrity()`.
    func recordInvalidValue(_ error: FloeError) { snapshot.damage.record(error) }

    func changeCollection(binding: ObjectBinding, column: Int, _ change: (CollectionEditor) throws(FloeError) -> Void) {
        preconditionFailure("Cannot modify '\(binding.className).\(binding.tableBinding.propertyName(ofColumn: column))' of a frozen \(binding.className) object.")
    }

    func write(_ value: _FloeValue, binding: ObjectBinding, column: Int) {
        preconditionFailure("Cannot modify '\(binding.className).\(binding.tableBinding.propertyName(ofColumn: column))' of a frozen \(binding.className) object.")
    }
}

/// Frozen results: every object of a class at one version, `Sendable` and unchanging.
///
/// ```swift
/// let frozenDogs = try await realm.read { realm in try realm.objects(Dog.self).freeze() }
/// await withTaskGroup(of: Void.self) { group in
///     group.addTask { print(frozenDogs.count) }
/// }
/// ```
public struct FrozenResults<Element: Object>: RandomAccessCollection, Sendable {
    let snapshot: Snapshot
    private let binding: TableBinding?

    init(snapshot: Snapshot) {
        self.snapshot = snapshot
        binding = try? FrozenRealm.binding(for: Element.self, in: snapshot)
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    /// The number of objects at this version.
    public var count: Int {
        guard let binding else { return 0 }
        do {
            return try snapshot.objectCount(in: binding.table)
        } catch {
            snapshot.damage.record(error)
            return 0
        }
    }

    public subscript(position: Int) -> Frozen<Element> {
        let found: Int64?
        do {
            found = try binding.flatMap { binding throws(FloeError) in try snapshot.objectKey(at: position, in: binding.table) }
        } catch {
            // Damaged: an object that reads as placeholders; checkIntegrity() reports the damage.
            snapshot.damage.record(error)
            found = .min
        }
        guard let binding, let key = found else {
            preconditionFailure("Index \(position) is out of bounds for FrozenResults<\(Element.className())> of \(count) objects.")
        }
        return Frozen(snapshot: snapshot, binding: binding, key: key)
    }

    /// Always true.
    public var isFrozen: Bool { true }

    /// The version these results show.
    public var version: UInt64 { snapshot.version }
}

/// A frozen realm: the whole database at one version, `Sendable` and unchanging.
///
/// ```swift
/// let frozen = try await realm.read { realm in try realm.freeze() }
/// let rex = frozen.object(ofType: Dog.self, forPrimaryKey: 1)
/// ```
public struct FrozenRealm: Sendable {
    let snapshot: Snapshot
    /// The configuration of the realm this was frozen from.
    public let configuration: Realm.Configuration

    /// Always true.
    public var isFrozen: Bool { true }

    /// The version this realm was frozen at.
    public var version: UInt64 { snapshot.version }

    /// Every object of a class at this version.
    public func objects<T: Object>(_ type: T.Type) -> FrozenResults<T> {
        FrozenResults(snapshot: snapshot)
    }

    /// The object of `type` whose primary key is `key` at this version, or nil.
    public func object<T: Object, Key: _Persistable>(ofType type: T.Type, forPrimaryKey key: Key) throws -> Frozen<T>? {
        let schema = try SchemaDiscovery.schema(for: type)
        guard let pk = schema.primaryKeyIndex else {
            throw FloeError.invalidOperation(className: schema.className, detail: "has no primary key")
        }
        guard let binding = try Self.binding(for: type, in: snapshot),
              let found = try snapshot.findObjects(in: binding.table, column: binding.columnOfProperty[pk],
                                                   equalTo: key._floeEncoded.value, limit: 1).first
        else { return nil }
        return Frozen(snapshot: snapshot, binding: binding, key: found)
    }

    static func binding(for type: ObjectBase.Type, in snapshot: Snapshot) throws(FloeError) -> TableBinding? {
        let schema = try SchemaDiscovery.schema(for: type)
        guard let table = try snapshot.tableIfPresent(named: schema.className) else { return nil }
        return try SchemaComparison.bind(schema, to: snapshot.spec(of: table), table: table, path: "frozen realm")
    }
}

extension RealmCore {
    func thaw<T: ObjectBase>(_ frozen: Frozen<T>) -> T? {
        guard let binding = try? tableBinding(for: T.self),
              let reader = try? currentReader(),
              (try? reader.contains(frozen.key, in: binding.table)) == true
        else { return nil }
        return materialize(T.self, key: frozen.key, binding: binding)
    }
}
