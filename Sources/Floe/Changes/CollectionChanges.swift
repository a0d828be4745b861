@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// The changes of a collection, as a `Sendable` `AsyncSequence` of ``RealmCollectionChange``:
/// `.initial` first, then an update for each commit that changed it (a slow consumer gets one
/// update per look, merging the commits it missed). It observes from its creation and ends
/// when the task iterating it is cancelled, or when the object owning the collection is deleted.
///
/// ```swift
/// let stream = try await realm.read { realm in try realm.objects(Dog.self).changes }
/// for await change in stream {
///     if case .update(let dogs, let deletions, let insertions, let modifications) = change {
///         print(dogs.count, deletions, insertions, modifications)
///     }
/// }
/// ```
public struct CollectionChanges<C: Sendable>: AsyncSequence, ChangeStream {
    /// `.initial` with the collection as it is, then an `.update` per commit that changes it.
    public typealias Element = RealmCollectionChange<C>
    /// Change streams never throw.
    public typealias Failure = Never

    /// The same stream with the deleted objects' keys.
    public let withDeletedKeys: CollectionChangesWithKeys<C>

    /// This stream's identity, shared by its copies.
    public var changeStreamID: ChangeStreamID { withDeletedKeys.changeStreamID }

    /// An iterator over this stream's changes (iterate each stream from one task at a time).
    public func makeAsyncIterator() -> ChangeStreamIterator<Element> {
        let next = withDeletedKeys.nextElement
        return ChangeStreamIterator { await next()?.change }
    }
}

/// A collection's changes with each deleted object's key (see ``CollectionChangeWithKeys``).
///
/// ```swift
/// for await detail in try realm.objects(Dog.self).changes.withDeletedKeys {
///     print(detail.deletedKeys)
/// }
/// ```
public struct CollectionChangesWithKeys<C: Sendable>: AsyncSequence, ChangeStream {
    /// Each change of the collection with the identity of every object it removed.
    public typealias Element = CollectionChangeWithKeys<C>
    /// Change streams never throw.
    public typealias Failure = Never

    let nextElement: @Sendable () async -> CollectionChangeWithKeys<C>?
    /// Set when this form is iterated: only then are deleted objects' keys looked up.
    let keysWanted: Locked<Bool>
    /// Set by a stream built on this one that needs, after a skipped write, the state the
    /// next update is measured from (see ``CollectionChangeWithKeys/measuredFrom``).
    let baseWanted: Locked<Bool>
    /// This stream's identity, shared by its copies.
    public let changeStreamID: ChangeStreamID

    init(nextElement: @escaping @Sendable () async -> CollectionChangeWithKeys<C>?, keysWanted: Locked<Bool>,
         baseWanted: Locked<Bool>, changeStreamID: ChangeStreamID) {
        self.nextElement = nextElement
        self.keysWanted = keysWanted
        self.baseWanted = baseWanted
        self.changeStreamID = changeStreamID
    }

    init<Source: CollectionSource>(channel: ChangeChannel<CollectionDiffer<Source>>) where Source.FrozenCollection == C {
        nextElement = { await channel.next() }
        keysWanted = channel.state.withLock { $0.differ?.deletedKeysWanted } ?? Locked(false)
        baseWanted = channel.state.withLock { $0.differ?.baseWanted } ?? Locked(false)
        changeStreamID = ChangeStreamID(channel: channel)
    }

    /// An iterator over this stream's changes (iterate each stream from one task at a time).
    public func makeAsyncIterator() -> ChangeStreamIterator<Element> {
        keysWanted.withLock { $0 = true }
        return ChangeStreamIterator(nextElement: nextElement)
    }
}

/// A collection's state at one version: object keys (results, linking objects, which hold
/// each object once) or values (lists and sets, whose links are `.link` values).
enum CollectionState {
    case keys([Int64])
    case values([Value])
}

/// What one kind of collection tells a ``CollectionDiffer``.
protocol CollectionSource: Sendable {
    associatedtype FrozenCollection: Sendable
    /// The tables whose changes can change the collection (nil: any table, for queries through links).
    var observedTables: Set<String>? { get }
    /// The class of the objects the collection holds (nil: values).
    var elementType: ObjectBase.Type? { get }
    /// The state at `snapshot`; nil when the collection's owner no longer exists.
    func state(at snapshot: Snapshot) throws(FloeError) -> CollectionState?
    /// The collection as `freeze()` gives it, at `snapshot`.
    func frozen(at snapshot: Snapshot) throws(FloeError) -> FrozenCollection
    /// Whether the collection is every object of its class in key order (then a commit's
    /// insertions and deletions alone give the next state).
    var holdsEveryObjectInKeyOrder: Bool { get }
    /// A query over every object of the class whose answer depends on each object's own row
    /// alone: then a commit's touched objects alone move the answer on (see ``IncrementalResults``).
    var incrementalQuery: ResultsQuery? { get }
    /// The collection as `freeze()` gives it, at `snapshot`, whose object keys are known to be `keys`.
    func frozen(at snapshot: Snapshot, keys: [Int64]) throws(FloeError) -> FrozenCollection
    /// For an object's list or set: its owner's class, key and column (then a commit's logged
    /// edits of it give the diff, see ``CollectionEditDiff``).
    var editedCollection: (owner: String, id: ChangeSet.CollectionID)? { get }
    /// For linking objects: the target's class and key, and the origin class and its link
    /// property (then a commit's touched origins give the diff, see ``LinkingObjectsDiff``).
    var linkingTarget: (target: String, key: Int64, origin: ObjectBase.Type, property: String)? { get }
    /// For an object's collection: the collection, empty, at a version where its owner is gone
    /// (the update a stream sends before it ends, as Realm does); nil for other collections.
    func emptied(at snapshot: Snapshot) throws(FloeError) -> FrozenCollection?
}

extension CollectionSource {
    var holdsEveryObjectInKeyOrder: Bool { false }
    var incrementalQuery: ResultsQuery? { nil }
    var editedCollection: (owner: String, id: ChangeSet.CollectionID)? { nil }
    var linkingTarget: (target: String, key: Int64, origin: ObjectBase.Type, property: String)? { nil }
    func frozen(at snapshot: Snapshot, keys: [Int64]) throws(FloeError) -> FrozenCollection { try frozen(at: snapshot) }
    func emptied(at snapshot: Snapshot) throws(FloeError) -> FrozenCollection? { nil }
}

/// Turns commits into one collection's changes.
struct CollectionDiffer<Source: CollectionSource>: ChangeDiffer {
    let source: Source
    let store: Store
    let filter: KeyPathFilter?
    var previous: CollectionState?
    /// For a query whose answer each object's own row decides: the answer, moved on commit by commit.
    var incremental: IncrementalResults? = nil
    /// Whether someone iterates the stream `.withDeletedKeys` (finding each deleted object's
    /// key costs a search per deletion, so it is done only then). Shared by the differ's copies.
    let deletedKeysWanted = Locked(false)
    /// Whether the update after a skipped write carries the state it is measured from (see
    /// ``CollectionChangeWithKeys/measuredFrom``): set for sections. Shared by the differ's copies.
    let baseWanted = Locked(false)
    /// Set by a skipped write until the next update is made.
    var rebased = false

    var observedTables: Set<String>? {
        guard let tables = source.observedTables else { return nil }
        return tables.union(filter?.classNames ?? [])
    }

    mutating func initial(at base: Snapshot) throws(FloeError) -> CollectionChangeWithKeys<Source.FrozenCollection>? {
        if let incremental, try incremental.reset(at: base) {
            previous = .keys(incremental.keys)
            return CollectionChangeWithKeys(change: .initial(try source.frozen(at: store.pinned(base), keys: incremental.keys)), deletedKeys: [])
        }
        guard let state = try source.state(at: base) else { return nil }
        previous = state
        return CollectionChangeWithKeys(change: .initial(try source.frozen(at: store.pinned(base))), deletedKeys: [])
    }

    mutating func rebase(to base: Snapshot) throws(FloeError) {
        rebased = baseWanted.withLock { $0 }
        if let incremental, try incremental.reset(at: base) {
            previous = .keys(incremental.keys)
            return
        }
        previous = try source.state(at: base)
    }

    mutating func diff(from old: Snapshot, to new: Snapshot, changes: ChangeSet?) throws(FloeError) -> (element: CollectionChangeWithKeys<Source.FrozenCollection>?, ended: Bool) {
        guard rebased else { return try measuredDiff(from: old, to: new, changes: changes) }
        let before = previous
        let produced = try measuredDiff(from: old, to: new, changes: changes)
        guard let element = produced.element else { return produced }
        // The first update after a skipped write: it carries the state it is measured from, so
        // that a stream built on this one (sections) moves its own state there first.
        rebased = false
        let base: Source.FrozenCollection
        if case .keys(let keys)? = before { base = try source.frozen(at: store.pinned(old), keys: keys) } else { base = try source.frozen(at: store.pinned(old)) }
        return (CollectionChangeWithKeys(change: element.change, deletedKeys: element.deletedKeys, measuredFrom: base), produced.ended)
    }

    private mutating func measuredDiff(from old: Snapshot, to new: Snapshot, changes: ChangeSet?) throws(FloeError) -> (element: CollectionChangeWithKeys<Source.FrozenCollection>?, ended: Bool) {
        if source.holdsEveryObjectInKeyOrder, filter == nil, let changes, case .keys(let keys)? = previous, let type = source.elementType,
           changes.tables[type.className()]?.structureChanged != true {
            return try keyOrderedDiff(keys, type: type, from: old, to: new, changes: changes.tables[type.className()] ?? ChangeSet.TableChanges())
        }
        if let incremental {
            if let changes, let type = source.elementType, changes.tables[type.className()]?.structureChanged != true {
                if !incremental.isReady { try incremental.reset(at: old) }
                if incremental.isReady { return try incrementalDiff(incremental, type: type, from: old, to: new, changes: changes) }
            }
            incremental.invalidate()
        }
        if let linking = source.linkingTarget, let changes, case .keys(let keys)? = previous, filter?.watchesOwnRowsOnly ?? true,
           let produced = try linkingDiff(keys, linking: linking, from: old, to: new, changes: changes) {
            return produced
        }
        if let edited = source.editedCollection, let changes,
           let produced = try editedDiff(owner: edited.owner, id: edited.id, from: old, to: new, changes: changes) {
            return produced
        }
        guard let next = try source.state(at: new) else { return (try ownerDeletedUpdate(from: old, to: new), true) }
        var before = previous
        if before == nil { before = try source.state(at: old) }
        guard let before else { return (nil, true) }
        previous = next
        let elementClass = source.elementType?.className()
        let tableChanges = elementClass.flatMap { changes?.tables[$0] }
        let replaced = tableChanges.map { $0.deleted.intersection($0.inserted) } ?? []
        let modified = try modifiedKeys(old: old, new: new, changes: changes)
        let diff: CollectionDiff
        var deletedKeys: [PrimaryKeyValue] = []
        var oldBinding: TableBinding?
        if let type = source.elementType, deletedKeysWanted.withLock({ $0 }) { oldBinding = try FrozenSource.binding(for: type, in: old) }
        switch (before, next) {
        case (.keys(let oldKeys), .keys(let newKeys)):
            diff = CollectionDiff.keyed(old: oldKeys, new: newKeys, replaced: replaced) { modified($0) }
            if let oldBinding {
                for position in diff.deletions { deletedKeys.append(try PrimaryKeyValue.of(oldKeys[position], binding: oldBinding, in: old)) }
            }
        case (.values(let oldValues), .values(let newValues)):
            diff = CollectionDiff.unkeyed(old: oldValues, new: newValues) { value in
                if case .link(let key) = value { return modified(key) }
                return false
            }
            if let oldBinding {
                for position in diff.deletions {
                    if case .link(let key) = oldValues[position] { deletedKeys.append(try PrimaryKeyValue.of(key, binding: oldBinding, in: old)) }
                }
            }
        default:
            return (nil, false)
        }
        guard !diff.isEmpty else { return (nil, false) }
        let frozen = try source.frozen(at: store.pinned(new))
        let change = RealmCollectionChange<Source.FrozenCollection>.update(frozen, deletions: diff.deletions, insertions: diff.insertions,
                                                                  modifications: diff.modifications)
        return (CollectionChangeWithKeys(change: change, deletedKeys: deletedKeys), false)
    }

    /// The owner of the collection was deleted: every element goes, and the collection left is
    /// empty (nil when it was empty already, or the source has no owner).
    private mutating func ownerDeletedUpdate(from old: Snapshot, to new: Snapshot) throws(FloeError) -> CollectionChangeWithKeys<Source.FrozenCollection>? {
        var before = previous
        if before == nil { before = try source.state(at: old) }
        previous = nil
        guard let before, let empty = try source.emptied(at: store.pinned(new)) else { return nil }
        var deletedKeys: [PrimaryKeyValue] = []
        var keys: [Int64] = []
        let count: Int
        switch before {
        case .keys(let oldKeys):
            count = oldKeys.count
            keys = oldKeys
        case .values(let oldValues):
            count = oldValues.count
            for case .link(let key) in oldValues { keys.append(key) }
        }
        guard count > 0 else { return nil }
        if let type = source.elementType, deletedKeysWanted.withLock({ $0 }), let oldBinding = try FrozenSource.binding(for: type, in: old) {
            for key in keys { deletedKeys.append(try PrimaryKeyValue.of(key, binding: oldBinding, in: old)) }
        }
        let change = RealmCollectionChange<Source.FrozenCollection>.update(empty, deletions: Array(0..<count), insertions: [], modifications: [])
        return CollectionChangeWithKeys(change: change, deletedKeys: deletedKeys)
    }

    /// The diff of every object of a class in key order, from what the commits touched alone:
    /// O(k log N) for k touched objects, besides copying the keys when objects come or go.
    private mutating func keyOrderedDiff(_ oldKeys: [Int64], type: ObjectBase.Type, from old: Snapshot, to new: Snapshot,
                                         changes: ChangeSet.TableChanges) throws(FloeError) -> (element: CollectionChangeWithKeys<Source.FrozenCollection>?, ended: Bool) {
        var newKeys = oldKeys
        if !changes.deleted.isEmpty { newKeys.removeAll { changes.deleted.contains($0) } }
        if !changes.inserted.isEmpty { newKeys = Self.merge(newKeys, changes.inserted.sorted()) }
        var diff = CollectionDiff()
        diff.deletions = changes.deleted.compactMap { Self.position(of: $0, in: oldKeys) }.sorted()
        diff.insertions = changes.inserted.compactMap { Self.position(of: $0, in: newKeys) }.sorted()
        diff.modifications = changes.modified.keys.compactMap { Self.position(of: $0, in: oldKeys) }.sorted()
        previous = .keys(newKeys)
        guard !diff.isEmpty else { return (nil, false) }
        var deletedKeys: [PrimaryKeyValue] = []
        if deletedKeysWanted.withLock({ $0 }), let oldBinding = try FrozenSource.binding(for: type, in: old) {
            for position in diff.deletions { deletedKeys.append(try PrimaryKeyValue.of(oldKeys[position], binding: oldBinding, in: old)) }
        }
        let frozen = try source.frozen(at: store.pinned(new))
        let change = RealmCollectionChange<Source.FrozenCollection>.update(frozen, deletions: diff.deletions, insertions: diff.insertions,
                                                                            modifications: diff.modifications)
        return (CollectionChangeWithKeys(change: change, deletedKeys: deletedKeys), false)
    }

    /// The diff of a query's answer that each object's own row decides, from what the commits
    /// touched alone (see ``IncrementalResults``).
    private mutating func incrementalDiff(_ incremental: IncrementalResults, type: ObjectBase.Type, from old: Snapshot, to new: Snapshot,
                                          changes: ChangeSet) throws(FloeError) -> (element: CollectionChangeWithKeys<Source.FrozenCollection>?, ended: Bool) {
        let oldKeys = incremental.keys
        let modified = try modifiedKeys(old: old, new: new, changes: changes)
        let diff = try incremental.advance(from: old, to: new, changes: changes.tables[type.className()] ?? ChangeSet.TableChanges(), modified: modified)
        previous = nil   // the incremental answer is the state
        guard !diff.isEmpty else { return (nil, false) }
        var deletedKeys: [PrimaryKeyValue] = []
        if deletedKeysWanted.withLock({ $0 }), let oldBinding = try FrozenSource.binding(for: type, in: old) {
            for position in diff.deletions { deletedKeys.append(try PrimaryKeyValue.of(oldKeys[position], binding: oldBinding, in: old)) }
        }
        let frozen = try source.frozen(at: store.pinned(new), keys: incremental.keys)
        let change = RealmCollectionChange<Source.FrozenCollection>.update(frozen, deletions: diff.deletions, insertions: diff.insertions,
                                                                            modifications: diff.modifications)
        return (CollectionChangeWithKeys(change: change, deletedKeys: deletedKeys), false)
    }

    /// A list or set's diff from the edits the commits logged for it and the element objects
    /// they wrote (see ``CollectionEditDiff``); nil when those do not describe the change (the
    /// owner deleted or replaced, a structure change, edits not logged), to compare in full.
    private mutating func editedDiff(owner: String, id: ChangeSet.CollectionID, from old: Snapshot, to new: Snapshot,
                                     changes: ChangeSet) throws(FloeError) -> (element: CollectionChangeWithKeys<Source.FrozenCollection>?, ended: Bool)? {
        let ownerChanges = changes.tables[owner] ?? ChangeSet.TableChanges()
        guard !ownerChanges.structureChanged, !ownerChanges.deleted.contains(id.key), !ownerChanges.inserted.contains(id.key) else { return nil }
        let elementChanges = source.elementType.flatMap { changes.tables[$0.className()] }
        if elementChanges?.structureChanged == true { return nil }
        guard let oldTable = try old.tableIfPresent(named: owner), try old.contains(id.key, in: oldTable),
              let newTable = try new.tableIfPresent(named: owner), try new.contains(id.key, in: newTable) else { return nil }
        let oldCount = try old.collectionCount(in: oldTable, key: id.key, column: id.column)
        var edits = CollectionEditDiff(oldCount: oldCount)
        if ownerChanges.modified[id.key]?.contains(id.column) == true {
            guard let log = ownerChanges.collectionEdits[id], log.isComplete else { return nil }
            for edit in log.edits where !edits.apply(edit) { return nil }
        }
        guard edits.count == (try new.collectionCount(in: newTable, key: id.key, column: id.column)) else { return nil }
        // Element objects written in place: their old positions among the elements that stayed.
        var modifiedOld: [Int] = []
        if source.elementType != nil {
            let modified = try modifiedKeys(old: old, new: new, changes: changes)
            var candidates: Set<Int64>? = nil   // nil: any element may count as modified (key paths through links)
            if filter?.watchesOwnRowsOnly ?? true {
                candidates = Set((elementChanges?.modified.keys).map { $0.filter { modified($0) } } ?? [])
            }
            if candidates?.isEmpty != true, try linksAny(of: candidates, owner: oldTable, id: id, at: old) {
                let elements = try old.collectionElements(in: oldTable, key: id.key, column: id.column)
                for (position, element) in elements.enumerated() {
                    guard case .link(let key) = element, candidates?.contains(key) ?? modified(key), edits.survives(position) else { continue }
                    modifiedOld.append(position)
                }
            }
        }
        previous = nil   // the next fallback reads the state at its old version
        let diff = edits.result(modifiedOld: modifiedOld)
        guard !diff.isEmpty else { return (nil, false) }
        var deletedKeys: [PrimaryKeyValue] = []
        if let type = source.elementType, deletedKeysWanted.withLock({ $0 }), let oldBinding = try FrozenSource.binding(for: type, in: old) {
            for position in diff.deletions {
                if case .link(let key) = try old.collectionElement(in: oldTable, key: id.key, column: id.column, at: position) {
                    deletedKeys.append(try PrimaryKeyValue.of(key, binding: oldBinding, in: old))
                }
            }
        }
        let frozen = try source.frozen(at: store.pinned(new))
        let change = RealmCollectionChange<Source.FrozenCollection>.update(frozen, deletions: diff.deletions, insertions: diff.insertions,
                                                                            modifications: diff.modifications)
        return (CollectionChangeWithKeys(change: change, deletedKeys: deletedKeys), false)
    }

    /// The diff of the objects linking to one object from the origins the commits touched (see
    /// ``LinkingObjectsDiff``); nil when those do not describe the change (the target deleted
    /// or replaced, a structure change, an origin linking more than once), to compare in full.
    private mutating func linkingDiff(_ oldKeys: [Int64], linking: (target: String, key: Int64, origin: ObjectBase.Type, property: String),
                                      from old: Snapshot, to new: Snapshot,
                                      changes: ChangeSet) throws(FloeError) -> (element: CollectionChangeWithKeys<Source.FrozenCollection>?, ended: Bool)? {
        let originName = linking.origin.className()
        guard changes.tables[originName]?.structureChanged != true, changes.tables[linking.target]?.structureChanged != true,
              changes.tables[linking.target]?.deleted.contains(linking.key) != true,
              let origin = try FrozenSource.binding(for: linking.origin, in: new),
              let index = origin.schema.propertyIndex(named: linking.property) else { return nil }
        let column = origin.columnOfProperty[index]
        let link = LinkingObjectsDiff.Link(origin: origin.table, column: column, target: linking.key,
                                           isCollection: try new.spec(of: origin.table).columns[column].collection != .single)
        let modified = try modifiedKeys(old: old, new: new, changes: changes)
        guard let (keys, diff) = try LinkingObjectsDiff.make(previous: oldKeys, link: link, changes: changes.tables[originName] ?? ChangeSet.TableChanges(),
                                                             at: new, modified: modified) else { return nil }
        previous = .keys(keys)
        guard !diff.isEmpty else { return (nil, false) }
        var deletedKeys: [PrimaryKeyValue] = []
        if deletedKeysWanted.withLock({ $0 }), let oldBinding = try FrozenSource.binding(for: linking.origin, in: old) {
            for position in diff.deletions { deletedKeys.append(try PrimaryKeyValue.of(oldKeys[position], binding: oldBinding, in: old)) }
        }
        let frozen = try source.frozen(at: store.pinned(new), keys: keys)
        let change = RealmCollectionChange<Source.FrozenCollection>.update(frozen, deletions: diff.deletions, insertions: diff.insertions,
                                                                            modifications: diff.modifications)
        return (CollectionChangeWithKeys(change: change, deletedKeys: deletedKeys), false)
    }

    /// Whether the collection linked, at `snapshot`, to any of `keys` (nil: assume so), from
    /// the backlinks: a search per key instead of reading the elements.
    private func linksAny(of keys: Set<Int64>?, owner: TableHandle, id: ChangeSet.CollectionID, at snapshot: Snapshot) throws(FloeError) -> Bool {
        guard let keys, keys.count <= 64 else { return true }
        for key in keys where try snapshot.linkingObjects(in: owner, column: id.column, to: key).contains(id.key) { return true }
        return false
    }

    private static func position(of key: Int64, in keys: [Int64]) -> Int? {
        var low = 0, high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] < key { low = middle + 1 } else { high = middle }
        }
        return low < keys.count && keys[low] == key ? low : nil
    }

    private static func merge(_ keys: [Int64], _ inserted: [Int64]) -> [Int64] {
        var merged: [Int64] = []
        merged.reserveCapacity(keys.count + inserted.count)
        var index = 0
        for key in inserted {
            while index < keys.count && keys[index] < key { merged.append(keys[index]); index += 1 }
            merged.append(key)
        }
        merged.append(contentsOf: keys[index...])
        return merged
    }

    /// Whether an element object changed, as this stream counts changes (its key paths, if any).
    private func modifiedKeys(old: Snapshot, new: Snapshot, changes: ChangeSet?) throws(FloeError) -> (Int64) -> Bool {
        guard let type = source.elementType else { return { _ in false } }
        let className = type.className()
        guard let changes else {
            // Unknown changes (another process's commits): compare the stored rows.
            guard let oldBinding = try FrozenSource.binding(for: type, in: old), let newBinding = try FrozenSource.binding(for: type, in: new) else { return { _ in false } }
            return { key in
                ((try? old.row(in: oldBinding.table, key: key)) ?? []) != ((try? new.row(in: newBinding.table, key: key)) ?? [])
            }
        }
        if let filter {
            return { key in !((try? filter.touchedProperties(of: key, old: old, new: new, changes: changes)) ?? []).isEmpty }
        }
        let modified = changes.tables[className]?.modified ?? [:]
        return { modified[$0] != nil }
    }
}

extension ChangeChannel {
    /// A collection stream's channel, its key paths checked against the element class.
    static func collection<Source: CollectionSource>(_ source: Source, store: Store, keyPaths: [String]?, kind: String) throws(FloeError) -> ChangeChannel<CollectionDiffer<Source>> where Differ == CollectionDiffer<Source> {
        var filter: KeyPathFilter?
        if let keyPaths {
            guard let type = source.elementType else {
                throw .invalidKeyPath(className: kind, keyPath: keyPaths.joined(separator: ", "), reason: "a collection of values has no properties to watch")
            }
            filter = try KeyPathFilter(schema: SchemaDiscovery.schema(for: type), keyPaths: keyPaths)
        }
        var differ = CollectionDiffer(source: source, store: store, filter: filter, previous: nil)
        if let query = source.incrementalQuery, let type = source.elementType, filter?.watchesOwnRowsOnly ?? true { differ.incremental = IncrementalResults(type: type, query: query) }
        return try ChangeChannel<CollectionDiffer<Source>>.open(store: store, observedTables: differ.observedTables) { _ in differ }
    }
}
