@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// A frozen list or set: the elements of one object's collection at one version,
/// `Sendable`, readable from any task, never changing.
///
/// ```swift
/// let frozenDogs = try person.dogs.freeze()
/// Task.detached { print(frozenDogs.count) }
/// ```
public struct FrozenList<Element: _Persistable>: RandomAccessCollection, Sendable {
    let snapshot: Snapshot
    let binding: TableBinding
    let key: Int64
    let column: Int
    /// Whether the owner no longer exists at `snapshot`: the collection is then empty (the
    /// last state a change stream reports before it ends).
    var ownerDeleted = false

    /// The position of the first element: always 0.
    public var startIndex: Int { 0 }
    /// The number of elements: the position one past the last element.
    public var endIndex: Int {
        if ownerDeleted { return 0 }
        return ManagedCollection.count(ObjectBinding(source: FrozenSource(snapshot: snapshot), tableBinding: binding, key: key), column)
    }

    /// The element at `position`, from 0 to `count - 1`.
    public subscript(position: Int) -> Element {
        let parent = ObjectBinding(source: FrozenSource(snapshot: snapshot), tableBinding: binding, key: key)
        return Element._floeDecode(ManagedCollection.element(parent, column, at: position, kind: "FrozenList"))
    }

    /// Always true.
    public var isFrozen: Bool { true }

    /// The version these elements were frozen at.
    public var version: UInt64 { snapshot.version }
}

/// A frozen set: one object's set at one version, `Sendable` and unchanging.
public struct FrozenSet<Element: _Persistable>: RandomAccessCollection, Sendable {
    let elements: FrozenList<Element>

    /// The position of the first element: always 0.
    public var startIndex: Int { 0 }
    /// The number of elements: the position one past the last element.
    public var endIndex: Int { elements.endIndex }
    /// The element at `position`, from 0 to `count - 1`.
    public subscript(position: Int) -> Element { elements[position] }

    /// Whether the set held `element` at this version.
    public func contains(_ element: Element) -> Bool {
        let parent = ObjectBinding(source: FrozenSource(snapshot: elements.snapshot), tableBinding: elements.binding, key: elements.key)
        return MutableSet<Element>(parent: parent, column: elements.column).contains(element)
    }

    /// Always true.
    public var isFrozen: Bool { true }
}

/// A frozen map: one object's map at one version, `Sendable` and unchanging.
public struct FrozenMap<Key: Hashable & Comparable, Value: _Persistable>: Sequence, Sendable {
    let snapshot: Snapshot
    let binding: TableBinding
    let key: Int64
    let column: Int
    /// Whether the owner no longer exists at `snapshot`: the map is then empty (the last
    /// state a change stream reports before it ends).
    var ownerDeleted = false

    private var live: Map<Key, Value> {
        if ownerDeleted { return Map() }
        return Map(parent: ObjectBinding(source: FrozenSource(snapshot: snapshot), tableBinding: binding, key: key), column: column)
    }

    /// The number of entries at this version.
    public var count: Int { live.count }
    /// The value for `key` at this version, or nil.
    public subscript(key: Key) -> Value? { live[key] }
    /// The keys, in order.
    public var keys: [Key] { live.keys }
    /// The values, in key order.
    public var values: MapValues<Value> { live.values }
    /// The entries in key order, as `(key:value:)` pairs.
    public func makeIterator() -> IndexingIterator<[(key: Key, value: Value)]> { live.makeIterator() }

    /// Always true.
    public var isFrozen: Bool { true }
}

extension ManagedCollection {
    /// The snapshot a managed collection's freeze captures: its realm's last commit.
    static func frozenSnapshot(_ parent: ObjectBinding?, kind: String) throws -> (Snapshot, ObjectBinding) {
        guard let parent else {
            throw FloeError.invalidOperation(className: kind, detail: "an unmanaged collection cannot be frozen; add its object to a realm first")
        }
        // A frozen version's snapshot is its own; a live realm's, its last commit.
        return (try parent.source.frozenSnapshot(), parent)
    }
}

extension List {
    /// A frozen, `Sendable` view of this list at its realm's last committed version.
    public func freeze() throws -> FrozenList<Element> {
        let (snapshot, parent) = try ManagedCollection.frozenSnapshot(parent, kind: "List<\(Element.self)>")
        return FrozenList(snapshot: snapshot, binding: parent.tableBinding, key: parent.key, column: column)
    }
}

extension MutableSet {
    /// A frozen, `Sendable` view of this set at its realm's last committed version.
    public func freeze() throws -> FrozenSet<Element> {
        let (snapshot, parent) = try ManagedCollection.frozenSnapshot(parent, kind: "MutableSet<\(Element.self)>")
        return FrozenSet(elements: FrozenList(snapshot: snapshot, binding: parent.tableBinding, key: parent.key, column: column))
    }
}

extension Map {
    /// A frozen, `Sendable` view of this map at its realm's last committed version.
    public func freeze() throws -> FrozenMap<Key, Value> {
        let (snapshot, parent) = try ManagedCollection.frozenSnapshot(parent, kind: "Map<String, \(Value.self)>")
        return FrozenMap(snapshot: snapshot, binding: parent.tableBinding, key: parent.key, column: column)
    }
}

extension LinkingObjects {
    /// The objects linking here at the realm's last committed version, each frozen, in key
    /// order: `Sendable`, as this property's change stream hands them out.
    ///
    /// ```swift
    /// let owners = try dog.owners.freeze()
    /// Task.detached { print(owners.map(\.name)) }
    /// ```
    ///
    /// - Throws: ``FloeError/invalidOperation(className:detail:)`` for an unmanaged object's.
    public func freeze() throws -> [Frozen<Element>] {
        let (snapshot, parent) = try ManagedCollection.frozenSnapshot(parent, kind: "LinkingObjects<\(Element.className())>")
        guard try snapshot.tableIfPresent(named: parent.tableBinding.schema.className).map({ (table) throws(FloeError) in try snapshot.contains(parent.key, in: table) }) == true,
              let origin = try FrozenSource.binding(for: Element.self, in: snapshot),
              let index = origin.schema.propertyIndex(named: originProperty) else { return [] }
        return try snapshot.linkingObjects(in: origin.table, column: origin.columnOfProperty[index], to: parent.key).map {
            Frozen(snapshot: snapshot, binding: origin, key: $0)
        }
    }
}

extension Frozen {
    /// A frozen object's list, frozen too.
    public subscript<Element>(dynamicMember keyPath: KeyPath<Model, List<Element>>) -> FrozenList<Element> {
        try! makeModel()[keyPath: keyPath].freeze()
    }

    /// A frozen object's set, frozen too.
    public subscript<Element>(dynamicMember keyPath: KeyPath<Model, MutableSet<Element>>) -> FrozenSet<Element> {
        try! makeModel()[keyPath: keyPath].freeze()
    }

    /// A frozen object's map, frozen too.
    public subscript<Key, Value>(dynamicMember keyPath: KeyPath<Model, Map<Key, Value>>) -> FrozenMap<Key, Value> {
        try! makeModel()[keyPath: keyPath].freeze()
    }
}
