@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// A frozen collection whose changes are reported by key (maps).
public protocol FrozenKeyedCollection: Sendable {
    /// The type of the keys the changes are reported by.
    associatedtype Key
}

extension FrozenMap: FrozenKeyedCollection {}

/// One change to an observed map: its state when observation began, then, per commit that
/// changed it, the keys removed and added (in the new state) and the keys whose value was
/// replaced or whose object was written, each sorted.
///
/// ```swift
/// for await change in try person.parks.changes {
///     if case .update(let parks, let deletions, let insertions, let modifications) = change {
///         print(parks.count, deletions, insertions, modifications)
///     }
/// }
/// ```
public enum RealmMapChange<C: FrozenKeyedCollection> {
    /// The map when observation began, as `freeze()` returns it.
    case initial(C)
    /// The map after a change, with the keys that changed.
    case update(C, deletions: [C.Key], insertions: [C.Key], modifications: [C.Key])
}

extension RealmMapChange: Sendable where C.Key: Sendable {}

/// The changes of a map, as a `Sendable` `AsyncSequence` of ``RealmMapChange``. It observes
/// from its creation and ends when the task iterating it is cancelled or the map's object is deleted.
///
/// ```swift
/// let stream = try await realm.read { realm in try realm.objects(Person.self)[0].parks.changes }
/// for await change in stream { print(change) }
/// ```
public struct MapChanges<Key: Hashable & Comparable & Sendable, Value: _Persistable>: AsyncSequence, ChangeStream {
    /// The map as it is, then per commit the keys removed, added and modified.
    public typealias Element = RealmMapChange<FrozenMap<Key, Value>>
    /// Change streams never throw.
    public typealias Failure = Never

    let channel: ChangeChannel<MapDiffer<Key, Value>>

    /// This stream's identity, shared by its copies.
    public var changeStreamID: ChangeStreamID { ChangeStreamID(channel: channel) }

    /// An iterator over this stream's changes (iterate each stream from one task at a time).
    public func makeAsyncIterator() -> Iterator {
        Iterator(channel: channel)
    }

    /// Hands out the map's changes.
    public struct Iterator: AsyncIteratorProtocol {
        let channel: ChangeChannel<MapDiffer<Key, Value>>

        /// The next change; nil once the stream ended.
        public mutating func next() async -> Element? {
            await channel.next()
        }
    }
}

extension Map where Key: Sendable {
    /// This map's changes: `.initial`, then the keys removed, added and modified by each commit
    /// that changed it (a value replaced by a different one or, for a map of objects, one written).
    /// When its object is deleted, a last update removes every key, then the stream ends.
    ///
    /// ```swift
    /// for await change in try person.parks.changes { print(change) }
    /// ```
    ///
    /// - Throws: ``FloeError/invalidOperation(className:detail:)`` for an unmanaged or frozen map.
    public var changes: MapChanges<Key, Value> {
        get throws { try changes(keyPaths: nil) }
    }

    /// This map's changes, counting a key's object as modified only when a property that
    /// `keyPaths` names changed (links followed: `"owner.name"`); a replaced value always counts.
    ///
    /// ```swift
    /// for await change in try person.parks.changes(keyPaths: ["name"]) { print(change) }
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` naming the class and key
    ///   path, or for a map of values (which has no properties to watch).
    public func changes(keyPaths: [String]?) throws -> MapChanges<Key, Value> {
        let kind = "Map<String, \(Value.self)>"
        let (store, parent) = try ChangeSources.owner(parent, kind: kind)
        let elementType = ChangeSources.elementType(parent, column: column)
        var filter: KeyPathFilter?
        if let keyPaths {
            guard let elementType else {
                throw FloeError.invalidKeyPath(className: kind, keyPath: keyPaths.joined(separator: ", "), reason: "a map of values has no properties to watch")
            }
            filter = try KeyPathFilter(schema: SchemaDiscovery.schema(for: elementType), keyPaths: keyPaths)
        }
        let differ = MapDiffer<Key, Value>(store: store, owner: parent.tableBinding, key: parent.key, column: column,
                                           elementType: elementType, filter: filter)
        return MapChanges(channel: try ChangeChannel<MapDiffer<Key, Value>>.open(store: store, observedTables: differ.observedTables) { _ in differ })
    }
}

/// Turns commits into one map's changes.
struct MapDiffer<Key: Hashable & Comparable & Sendable, Value: _Persistable>: ChangeDiffer {
    let store: Store
    let owner: TableBinding
    let key: Int64
    let column: Int
    let elementType: ObjectBase.Type?
    /// What counts as a modification of a key's object (nil: any write to it).
    let filter: KeyPathFilter?
    var previous: [String: FloeEngine.Value]?

    init(store: Store, owner: TableBinding, key: Int64, column: Int, elementType: ObjectBase.Type?, filter: KeyPathFilter? = nil) {
        self.store = store
        self.owner = owner
        self.key = key
        self.column = column
        self.elementType = elementType
        self.filter = filter
    }

    var observedTables: Set<String>? {
        Set([owner.schema.className] + (elementType.map { [$0.className()] } ?? [])).union(filter?.classNames ?? [])
    }

    private func entries(at snapshot: Snapshot) throws(FloeError) -> [String: FloeEngine.Value]? {
        guard let table = try snapshot.tableIfPresent(named: owner.schema.className), try snapshot.contains(key, in: table) else { return nil }
        var entries: [String: FloeEngine.Value] = [:]
        for entry in try snapshot.mapEntries(in: table, key: key, column: column) { entries[entry.key] = entry.value }
        return entries
    }

    private func frozen(at snapshot: Snapshot) -> FrozenMap<Key, Value> {
        FrozenMap(snapshot: store.pinned(snapshot), binding: owner, key: key, column: column)
    }

    mutating func initial(at base: Snapshot) throws(FloeError) -> RealmMapChange<FrozenMap<Key, Value>>? {
        guard let entries = try entries(at: base) else { return nil }
        previous = entries
        return .initial(frozen(at: base))
    }

    mutating func rebase(to base: Snapshot) throws(FloeError) {
        previous = try entries(at: base)
    }

    mutating func diff(from old: Snapshot, to new: Snapshot, changes: ChangeSet?) throws(FloeError) -> (element: RealmMapChange<FrozenMap<Key, Value>>?, ended: Bool) {
        guard let next = try entries(at: new) else {
            // The owner is gone: every key goes, and the map left is empty (as Realm reports it).
            var before = previous
            if before == nil { before = try entries(at: old) }
            previous = nil
            guard let before, !before.isEmpty else { return (nil, true) }
            var emptied = frozen(at: new)
            emptied.ownerDeleted = true
            return (.update(emptied, deletions: before.keys.sorted().map { $0 as! Key }, insertions: [], modifications: []), true)
        }
        var before = previous
        if before == nil { before = try entries(at: old) }
        guard let before else { return (nil, true) }
        previous = next
        let objects = elementType.flatMap { changes?.tables[$0.className()]?.modified } ?? [:]
        let deletions = before.keys.filter { next[$0] == nil }.sorted()
        let insertions = next.keys.filter { before[$0] == nil }.sorted()
        let filter = self.filter
        let modifications = next.keys.filter { name in
            guard let earlier = before[name], let value = next[name] else { return false }
            if earlier != value { return true }
            guard case .link(let target) = value else { return false }
            guard let filter else { return objects[target] != nil }
            guard let changes else { return false }   // another process's commit: as without key paths
            return !((try? filter.touchedProperties(of: target, old: old, new: new, changes: changes)) ?? []).isEmpty
        }.sorted()
        guard !deletions.isEmpty || !insertions.isEmpty || !modifications.isEmpty else { return (nil, false) }
        return (.update(frozen(at: new), deletions: deletions.map { $0 as! Key }, insertions: insertions.map { $0 as! Key },
                        modifications: modifications.map { $0 as! Key }), false)
    }
}
