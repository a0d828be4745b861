@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// One change to an observed object.
///
/// ```swift
/// for await change in try dog.changes {
///     switch change {
///     case .change(let dog, let properties): print(dog.name, properties.map(\.name))
///     case .deleted: print("gone")
///     }
/// }
/// ```
public enum ObjectChange<T: Sendable>: Sendable {
    /// A commit wrote some of the object's observed properties (equal values included): the
    /// object frozen at that commit, and each written property.
    case change(T, [PropertyChange])
    /// The object was deleted; the stream ends after this.
    case deleted
}

/// One written property of an ``ObjectChange``.
///
/// Values are `Sendable`: scalars as their Swift values, enums as their raw values, links as
/// `Frozen` objects, lists, sets and maps in their frozen forms; nil for nil.
///
/// ```swift
/// if case .change(_, let properties) = change, let age = properties.first(where: { $0.name == "age" }) {
///     print(age.oldValue as? Int ?? 0, "→", age.newValue as? Int ?? 0)
/// }
/// ```
public struct PropertyChange: Sendable {
    /// The property's name (for a key path through a link, its first property).
    public let name: String
    /// The value before the change (nil when the object did not exist yet, or the value was nil).
    public let oldValue: (any Sendable)?
    /// The value after the change.
    public let newValue: (any Sendable)?
}

/// The changes of one object, as a `Sendable` `AsyncSequence` of ``ObjectChange``.
///
/// It observes from its creation: no commit between `changes` and the first `next()` is
/// missed. It ends after `.deleted`, or when the task iterating it is cancelled. A consumer
/// slower than the writes gets one change per look, merging the properties written meanwhile.
///
/// ```swift
/// let stream = try await realm.read { realm in try realm.objects(Dog.self)[0].changes }
/// Task {
///     for await change in stream { print(change) }
/// }
/// ```
public struct ObjectChanges<T: ObjectBase>: AsyncSequence, ChangeStream {
    /// A `.change` per commit that writes one of the object's properties, then `.deleted`.
    public typealias Element = ObjectChange<Frozen<T>>
    /// Change streams never throw.
    public typealias Failure = Never

    let channel: ChangeChannel<ObjectDiffer<T>>

    /// This stream's identity, shared by its copies.
    public var changeStreamID: ChangeStreamID { ChangeStreamID(channel: channel) }

    /// An iterator over this stream's changes (iterate each stream from one task at a time).
    public func makeAsyncIterator() -> ChangeStreamIterator<Element> {
        let channel = self.channel
        return ChangeStreamIterator { await channel.next() }
    }
}

extension RealmObject {
    /// This managed object's changes: an `AsyncSequence` of ``ObjectChange`` for every commit
    /// that writes any of its persisted properties (equal values included) or deletes it.
    ///
    /// ```swift
    /// for await change in try dog.changes {
    ///     if case .change(let dog, let properties) = change { print(dog.name, properties.map(\.name)) }
    /// }
    /// ```
    ///
    /// - Throws: ``FloeError/invalidOperation(className:detail:)`` for an unmanaged or frozen object.
    public var changes: ObjectChanges<Self> {
        get throws { try changes(keyPaths: nil) }
    }

    /// This object's changes to the properties `keyPaths` name, links followed (`"toy.name"`,
    /// through lists, embedded objects and `LinkingObjects` too, any number of levels deep).
    ///
    /// ```swift
    /// for await change in try person.changes(keyPaths: ["name", "dogs.age"]) { print(change) }
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` naming the class and the
    ///   key path when it names no property or goes on through one that is not a link;
    ///   ``FloeError/invalidOperation(className:detail:)`` for an unmanaged or frozen object.
    public func changes(keyPaths: [String]) throws -> ObjectChanges<Self> {
        try changes(keyPaths: Optional(keyPaths))
    }

    private func changes(keyPaths: [String]?) throws -> ObjectChanges<Self> {
        let binding = try ChangeSources.managedBinding(of: self)
        let store = try ChangeSources.store(of: binding, className: Self.className())
        let filter = try keyPaths.map { keyPaths throws(FloeError) in try KeyPathFilter(schema: binding.tableBinding.schema, keyPaths: keyPaths) }
        let tables = filter?.classNames ?? [binding.tableBinding.schema.className]
        let channel = try ChangeChannel<ObjectDiffer<Self>>.open(store: store, observedTables: tables) { _ in
            ObjectDiffer(store: store, binding: binding.tableBinding, key: binding.key, filter: filter, observedTables: tables)
        }
        return ObjectChanges(channel: channel)
    }
}

/// Where streams find the store behind a managed object or collection.
enum ChangeSources {
    static func managedBinding(of object: ObjectBase) throws(FloeError) -> ObjectBinding {
        guard let binding = object._floeBinding else {
            throw .invalidOperation(className: type(of: object).className(), detail: "an unmanaged object has no changes to observe; add it to a realm first")
        }
        return binding
    }

    static func store(of binding: ObjectBinding, className: String) throws(FloeError) -> Store {
        guard let context = binding.source.liveContext else {
            throw .invalidOperation(className: className, detail: "a frozen object never changes; observe the live object (thaw it first)")
        }
        return context.store
    }
}

/// Turns commits into one object's ``ObjectChange``s.
struct ObjectDiffer<T: ObjectBase>: ChangeDiffer {
    let store: Store
    let binding: TableBinding
    let key: Int64
    let filter: KeyPathFilter?
    let observedTables: Set<String>?

    func initial(at base: Snapshot) -> ObjectChange<Frozen<T>>? { nil }

    func rebase(to base: Snapshot) {}

    func diff(from old: Snapshot, to new: Snapshot, changes: ChangeSet?) throws(FloeError) -> (element: ObjectChange<Frozen<T>>?, ended: Bool) {
        let className = binding.schema.className
        if changes?.tables[className]?.deleted.contains(key) == true { return (.deleted, true) }
        guard let table = try new.tableIfPresent(named: className), try new.contains(key, in: table) else { return (.deleted, true) }
        let current = try FrozenSource.binding(for: T.self, in: new) ?? binding
        let existed = try old.tableIfPresent(named: className).map { table throws(FloeError) in try old.contains(key, in: table) } ?? false
        let properties = try written(existed: existed, current: current, old: old, new: new, changes: changes)
        guard !properties.isEmpty else { return (nil, false) }
        let before = existed ? try FrozenSource.binding(for: T.self, in: old).map { Frozen<T>(snapshot: old, binding: $0, key: key).makeModel() } : nil
        let after = Frozen<T>(snapshot: new, binding: current, key: key).makeModel()
        let list = properties.map { index in
            let property = current.schema.properties[index]
            return PropertyChange(name: property.name,
                                  oldValue: before.flatMap { ChangeValues.sendable(property.accessor.swiftValue($0)) },
                                  newValue: ChangeValues.sendable(property.accessor.swiftValue(after)))
        }
        return (.change(Frozen<T>(snapshot: store.pinned(new), binding: current, key: key), list), false)
    }

    /// The indexes of the observed properties the commits wrote.
    private func written(existed: Bool, current: TableBinding, old: Snapshot, new: Snapshot, changes: ChangeSet?) throws(FloeError) -> [Int] {
        let schema = current.schema
        let watched = filter.map { Array($0.properties.keys).sorted() } ?? schema.properties.indices.filter { !schema.properties[$0].isComputed }
        guard existed, let changes else {
            // A new object (created by the write that opened the stream), or commits another
            // process made, whose details are unknown: every watched property counts.
            return watched
        }
        if let filter { return try filter.touchedProperties(of: key, old: old, new: new, changes: changes) }
        let columns = changes.tables[schema.className]?.modified[key] ?? []
        return watched.filter { columns.contains(current.columnOfProperty[$0]) }
    }
}
