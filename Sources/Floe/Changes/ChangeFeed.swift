import Foundation
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// One committed transaction, as the change feed reports it.
///
/// ```swift
/// for try await transaction in try realm.changeFeed(since: lastSeen) {
///     for object in transaction.objects { print(transaction.version, object.className, object.key, object.operation) }
///     lastSeen = transaction.version
/// }
/// ```
public struct ChangeFeedTransaction: Sendable {
    /// The version the transaction committed.
    public let version: UInt64
    /// Each object it created, changed or deleted: by class, then deletions, insertions and
    /// updates, each in key order.
    public let objects: [ChangeFeedObject]
}

/// One object's change in a ``ChangeFeedTransaction``.
public struct ChangeFeedObject: Sendable, Equatable {
    /// The object's class (as stored: the class name).
    public let className: String
    /// Its primary key, or its object key for classes without one. Embedded objects are never
    /// reported on their own: they travel inside their owner (see ``FeedValue``).
    public let key: PrimaryKeyValue
    /// What happened to it.
    public let operation: ChangeFeedOperation
    /// Its values before the transaction, by persisted name: for an update, the previous value
    /// of each property it changed (a property a migration added has none); for a deletion,
    /// every stored property; empty for an insertion. With ``after``, what an audit log, an
    /// undo or a merge needs, and nothing else.
    ///
    /// ```swift
    /// if case .update = object.operation {
    ///     for (name, old) in object.before { print(name, old, "→", object.after[name]!) }
    /// }
    /// ```
    public let before: [String: FeedValue]

    /// Its values after the transaction, by persisted name: every stored property for an
    /// insertion, the changed ones for an update, none for a deletion.
    public var after: [String: FeedValue] {
        switch operation {
        case .insert(let values), .update(let values): values
        case .delete: [:]
        }
    }

    init(className: String, key: PrimaryKeyValue, operation: ChangeFeedOperation, before: [String: FeedValue] = [:]) {
        self.className = className
        self.key = key
        self.operation = operation
        self.before = before
    }
}

/// What a transaction did to one object.
///
/// ```swift
/// switch object.operation {
/// case .insert(let values): print("new", values)
/// case .update(let values): print("changed", values.keys.sorted())
/// case .delete: print("gone")
/// }
/// ```
public enum ChangeFeedOperation: Sendable, Equatable {
    /// Created, with every stored property's value (by persisted name).
    case insert([String: FeedValue])
    /// Changed: the properties whose values differ from the previous version, with their new values.
    case update([String: FeedValue])
    /// Deleted.
    case delete
}

/// A stored value as the change feed carries it: self-contained and `Sendable`; links name
/// their target by class and primary key. An embedded object is a `.dictionary` of its
/// properties (by persisted name) inside its owner's value, and a change made only inside an
/// embedded object is reported as an update of its top-level owner's property.
///
/// ```swift
/// // person.address.city = "Porto" is reported as:
/// // .update(["address": .dictionary(["city": .string("Porto"), "street": .string("Rua A")])])
/// ```
public enum FeedValue: Sendable, Hashable {
    /// No value (nil).
    case null
    /// A `Bool`.
    case bool(Bool)
    /// Any integer.
    case int(Int64)
    /// A `Float`.
    case float(Float)
    /// A `Double`.
    case double(Double)
    /// A `String`.
    case string(String)
    /// A `Data`.
    case data(Data)
    /// A `Date`.
    case date(Date)
    /// A `Decimal128`.
    case decimal128(Decimal128)
    /// An `ObjectId`.
    case objectId(ObjectId)
    /// A `UUID`.
    case uuid(UUID)
    /// A link to the object of `className` whose primary key (or object key) is `key`.
    case link(className: String, key: PrimaryKeyValue)
    /// A list's or a set's elements, or a mixed value's nested list.
    case list([FeedValue])
    /// A map's entries, or a mixed value's nested dictionary.
    case dictionary([String: FeedValue])
}

/// Every committed transaction after a version, in order, never coalesced: a consumer that
/// falls behind reads the versions it missed back from the file. It waits for new commits
/// when it has caught up, and ends when the task iterating it is cancelled or the file closes.
///
/// ```swift
/// let feed = try realm.changeFeed(since: 0)
/// for try await transaction in feed { print(transaction.version, transaction.objects.count) }
/// ```
public struct ChangeFeed: AsyncSequence, Sendable {
    /// One committed transaction, in commit order: its version and the objects it changed, by key.
    public typealias Element = ChangeFeedTransaction
    /// Reading the feed back from the file throws a ``FloeError``: a damaged commit, or a
    /// version the file no longer holds.
    public typealias Failure = FloeError

    let store: Store
    let since: UInt64
    let first: VersionHistory
    /// In memory there is no file to read missed versions back from: the commits since the
    /// feed was made wait here until read.
    let memory: CommitQueue?
    /// Read from what a ``HistoryPin`` keeps in memory instead, from the version it kept that the feed starts at.
    var pinned: (pin: HistoryPin, start: Snapshot)? = nil

    /// An iterator over this stream's changes (iterate each stream from one task at a time).
    public func makeAsyncIterator() -> Iterator {
        Iterator(store: store, history: first, index: 1, nextVersion: since + 1, memory: memory, pin: pinned?.pin, pinnedPrevious: pinned?.start)
    }

    /// Reads the feed's transactions one by one.
    public struct Iterator: AsyncIteratorProtocol {
        let store: Store
        var history: VersionHistory
        var index: Int
        var nextVersion: UInt64
        let memory: CommitQueue?
        let pin: HistoryPin?
        /// For a feed read from a pin: the version its last transaction ended at.
        var pinnedPrevious: Snapshot?
        var wakeUps: AsyncStream<UInt64>.Iterator?

        /// The next transaction, read from the file; waits for one when there is none yet.
        ///
        /// - Throws: ``FloeError`` when the file no longer holds the next version, or is damaged.
        public mutating func next() async throws(FloeError) -> ChangeFeedTransaction? {
            if let memory { return try await memory.next() }
            if let pin, var previous = pinnedPrevious {
                defer { pinnedPrevious = previous }
                return try await pin.next(after: &previous)
            }
            while !Task.isCancelled {
                if index < history.records.count {
                    let transaction = try ChangeFeedReader.transaction(from: history.snapshot(at: index - 1), to: history.snapshot(at: index))
                    index += 1
                    nextVersion = transaction.version + 1
                    return transaction
                }
                if store.currentVersion >= nextVersion {
                    do {
                        history = try store.history(from: nextVersion - 1)
                    } catch .versionUnavailable where (try? store.history(continuing: history)) != nil {
                        // Compaction replaced the file after this feed last looked: the commits
                        // between are still in the old one, which this feed keeps open.
                        history = try store.history(continuing: history)!
                    }
                    index = 1
                    continue
                }
                if wakeUps == nil {
                    // Subscribed before looking again, so that no commit slips between the two.
                    wakeUps = store.versions().makeAsyncIterator()
                    continue
                }
                guard await wakeUps!.next() != nil else { return nil }
            }
            return nil
        }
    }
}

extension Realm {
    /// Every transaction committed after `version`, in order, with each object's class, key and
    /// operation: what change-data-capture and sync follow. Lossless and resumable from any
    /// version the file still holds (pass the last version you processed).
    ///
    /// ```swift
    /// for try await transaction in try realm.changeFeed(since: checkpoint) {
    ///     try await upload(transaction)
    ///     checkpoint = transaction.version
    /// }
    /// ```
    ///
    /// - Throws: ``FloeError/versionUnavailable(path:version:oldest:newest:)`` when `version` was
    ///   compacted away or is newer than the newest commit. An in-memory realm has no file to
    ///   read history from: its feed starts at the current version, and keeps the commits its
    ///   consumer has not read yet in memory.
    public nonisolated func changeFeed(since version: UInt64) throws -> ChangeFeed {
        // In memory, listen first: the version checked is then the one the queue starts from.
        let memory = store.isInMemory ? try CommitQueue(store: store) : nil
        if let memory, memory.baseVersion != version {
            throw FloeError.versionUnavailable(path: store.path, version: version, oldest: memory.baseVersion, newest: memory.baseVersion)
        }
        let history = try store.history(from: version)
        return ChangeFeed(store: store, since: version, first: history, memory: memory)
    }
}

/// Turns two versions into the feed's description of the transaction between them.
enum ChangeFeedReader {
    static func transaction(from old: Snapshot, to new: Snapshot) throws(FloeError) -> ChangeFeedTransaction {
        var oldTables: [String: NodeRef<TableNode>] = [:]
        for ref in old.group.tables { oldTables[try ref.load().spec.name] = ref }
        var newTables: [String: NodeRef<TableNode>] = [:]
        for ref in new.group.tables { newTables[try ref.load().spec.name] = ref }
        var objects: [ChangeFeedObject] = []
        for name in Set(oldTables.keys).union(newTables.keys).sorted() {
            let before = oldTables[name], after = newTables[name]
            if let before, let after, VersionDiff.same(before, after) { continue }
            try appendChanges(of: name, from: try before?.load(), to: try after?.load(), in: (old, new), to: &objects)
        }
        try foldEmbedded(&objects, tables: newTables, in: (old, new))
        return ChangeFeedTransaction(version: new.version, objects: objects)
    }

    /// Replaces the changes of embedded objects by updates of their top-level owners' properties
    /// (read whole at the new version), so that embedded objects travel only inside their owner.
    /// A deleted embedded object needs nothing: its owner either changed the property that held
    /// it (reported already) or was deleted itself.
    private static func foldEmbedded(_ objects: inout [ChangeFeedObject], tables: [String: NodeRef<TableNode>],
                                     in versions: (old: Snapshot, new: Snapshot)) throws(FloeError) {
        let new = versions.new
        // Only a transaction that changed an embedded object pays for the walk below.
        var touchesEmbedded = false
        for name in Set(objects.map(\.className)) where try tables[name]?.load().spec.kind == .embedded {
            touchesEmbedded = true
            break
        }
        guard touchesEmbedded else { return }
        var kinds: [String: TableKind] = [:]
        var specs: [String: (TableHandle, TableSpec)] = [:]
        for (index, ref) in new.group.tables.enumerated() {
            let spec = try ref.load().spec
            kinds[spec.name] = spec.kind
            specs[spec.name] = (TableHandle(index: index, name: spec.name), spec)
        }
        guard objects.contains(where: { kinds[$0.className] == .embedded }) else { return }
        // The top-level owners touched through their embedded objects: class → key → columns.
        var touched: [String: [Int64: Set<Int>]] = [:]
        for object in objects where kinds[object.className] == .embedded {
            guard case .objectKey(var key) = object.key, object.operation != .delete else { continue }
            var className = object.className
            // Walk up from the embedded object to its top-level owner.
            var found = true
            while kinds[className] == .embedded && found {
                found = false
                search: for (owner, entry) in specs {
                    for (column, columnSpec) in entry.1.columns.enumerated() where columnSpec.type == .link && columnSpec.linkTarget == className {
                        guard let origin = try new.linkingObjects(in: entry.0, column: column, to: key).first else { continue }
                        if entry.1.kind != .embedded { touched[owner, default: [:]][origin, default: []].insert(column) }
                        className = owner
                        key = origin
                        found = true
                        break search
                    }
                }
            }
        }
        objects.removeAll { kinds[$0.className] == .embedded }
        for (className, owners) in touched.sorted(by: { $0.key < $1.key }) {
            guard let (table, spec) = specs[className] else { continue }
            let primaryKey = spec.columns.firstIndex(where: \.isPrimaryKey)
            for (key, columns) in owners.sorted(by: { $0.key < $1.key }) {
                let identity: PrimaryKeyValue = primaryKey.map { column in
                    (try? new.value(in: table, key: key, column: column)).flatMap(PrimaryKeyValue.init) ?? .objectKey(key)
                } ?? .objectKey(key)
                var values: [String: FeedValue] = [:]
                for column in columns.sorted() {
                    values[spec.columns[column].name] = try columnValue(of: key, column: column, spec: spec, table: table, in: new)
                }
                // The same properties as they were (the owner was there: it is updated, not inserted).
                var before: [String: FeedValue] = [:]
                if let oldTable = try versions.old.tableIfPresent(named: className), try versions.old.contains(key, in: oldTable) {
                    let oldSpec = try versions.old.spec(of: oldTable)
                    for column in columns {
                        let name = spec.columns[column].name
                        guard let oldColumn = oldSpec.columns.firstIndex(where: { $0.name == name }) else { continue }
                        before[name] = try columnValue(of: key, column: oldColumn, spec: oldSpec, table: oldTable, in: versions.old)
                    }
                }
                if let index = objects.firstIndex(where: { $0.className == className && $0.key == identity }) {
                    switch objects[index].operation {
                    case .insert, .delete: continue
                    case .update(let earlier):
                        objects[index] = ChangeFeedObject(className: className, key: identity, operation: .update(earlier.merging(values) { new, _ in new }),
                                                          before: objects[index].before.merging(before) { earlier, _ in earlier })
                    }
                } else {
                    objects.append(ChangeFeedObject(className: className, key: identity, operation: .update(values), before: before))
                }
            }
        }
    }

    /// One property's value of object `key`, read by key (collections included).
    private static func columnValue(of key: Int64, column: Int, spec: TableSpec, table: TableHandle,
                                    in snapshot: Snapshot) throws(FloeError) -> FeedValue {
        let columnSpec = spec.columns[column]
        let target = columnSpec.linkTarget
        switch columnSpec.collection {
        case .single:
            return try feedValue(snapshot.value(in: table, key: key, column: column), target: target, in: snapshot)
        case .map:
            var entries: [String: FeedValue] = [:]
            for entry in try snapshot.mapEntries(in: table, key: key, column: column) {
                entries[entry.key] = try feedValue(entry.value, target: target, in: snapshot)
            }
            return .dictionary(entries)
        default:
            var elements: [FeedValue] = []
            for element in try snapshot.collectionElements(in: table, key: key, column: column) {
                elements.append(try feedValue(element, target: target, in: snapshot))
            }
            return .list(elements)
        }
    }

    /// The changed objects of one class: deletions, insertions, then updates, each in key
    /// order, their values read from the leaves the walk over the two versions stands on.
    private static func appendChanges(of name: String, from before: TableNode?, to after: TableNode?, in versions: (old: Snapshot, new: Snapshot),
                                      to objects: inout [ChangeFeedObject]) throws(FloeError) {
        var deletions: [ChangeFeedObject] = [], insertions: [ChangeFeedObject] = [], updates: [ChangeFeedObject] = []
        let oldPrimaryKey = before?.spec.columns.firstIndex(where: \.isPrimaryKey)
        let newPrimaryKey = after?.spec.columns.firstIndex(where: \.isPrimaryKey)
        let spec = after?.spec ?? before!.spec
        let oldSpec = before?.spec ?? spec
        let everyColumn = Array(spec.columns.indices)
        let everyOldColumn = Array(oldSpec.columns.indices)
        // Each column's place in the old table (a migration may have moved or added columns).
        var oldColumnOf: [String: Int] = [:]
        for (index, column) in oldSpec.columns.enumerated() where oldColumnOf[column.name] == nil { oldColumnOf[column.name] = index }
        let oldColumnAt: [Int?] = spec.columns.map { oldColumnOf[$0.name] }
        // Lists, sets and maps are read by key from the snapshot: only then is the table's handle needed.
        let handle = spec.columns.contains(where: { $0.collection != .single }) ? try versions.new.tableIfPresent(named: name) : nil
        let oldHandle = oldSpec.columns.contains(where: { $0.collection != .single }) ? try versions.old.tableIfPresent(named: name) : nil
        try VersionDiff.forEachRowChange(from: before, to: after) { (change) throws(FloeError) in
            switch change.kind {
            case .deleted:
                let previous = try self.values(of: change.key, row: change.old!, columns: everyOldColumn, spec: oldSpec, table: oldHandle, of: versions.old)
                deletions.append(ChangeFeedObject(className: name, key: identity(change.key, row: change.old!, primaryKey: oldPrimaryKey), operation: .delete, before: previous))
            case .inserted:
                let values = try self.values(of: change.key, row: change.new!, columns: everyColumn, spec: spec, table: handle, of: versions.new)
                insertions.append(ChangeFeedObject(className: name, key: identity(change.key, row: change.new!, primaryKey: newPrimaryKey), operation: .insert(values)))
            case .modified:
                let values = try self.values(of: change.key, row: change.new!, columns: change.columns, spec: spec, table: handle, of: versions.new)
                let oldColumns = change.columns.compactMap { oldColumnAt[$0] }
                let previous = try self.values(of: change.key, row: change.old!, columns: oldColumns, spec: oldSpec, table: oldHandle, of: versions.old)
                updates.append(ChangeFeedObject(className: name, key: identity(change.key, row: change.new!, primaryKey: newPrimaryKey), operation: .update(values), before: previous))
            }
        }
        objects.append(contentsOf: deletions)
        objects.append(contentsOf: insertions)
        objects.append(contentsOf: updates)
    }

    /// An object's primary key (or object key) at `snapshot`.
    static func identity(_ key: Int64, in table: TableHandle, of snapshot: Snapshot) throws(FloeError) -> PrimaryKeyValue {
        let spec = try snapshot.spec(of: table)
        guard let column = spec.columns.firstIndex(where: \.isPrimaryKey) else { return .objectKey(key) }
        return PrimaryKeyValue(try snapshot.value(in: table, key: key, column: column)) ?? .objectKey(key)
    }

    private static func identity(_ key: Int64, row: VersionDiff.LeafRow, primaryKey: Int?) -> PrimaryKeyValue {
        guard let primaryKey else { return .objectKey(key) }
        return PrimaryKeyValue(row.value(primaryKey)) ?? .objectKey(key)
    }

    /// The values of `columns` of object `key`, whose stored row is `row`.
    private static func values(of key: Int64, row: VersionDiff.LeafRow, columns: [Int], spec: TableSpec, table: TableHandle?,
                               of snapshot: Snapshot) throws(FloeError) -> [String: FeedValue] {
        var values: [String: FeedValue] = [:]
        values.reserveCapacity(columns.count)
        for column in columns {
            let columnSpec = spec.columns[column]
            let target = columnSpec.linkTarget
            switch columnSpec.collection {
            case .single:
                values[columnSpec.name] = try feedValue(row.value(column), target: target, in: snapshot)
            case .map:
                var entries: [String: FeedValue] = [:]
                guard let table else { continue }
                for entry in try snapshot.mapEntries(in: table, key: key, column: column) {
                    entries[entry.key] = try feedValue(entry.value, target: target, in: snapshot)
                }
                values[columnSpec.name] = .dictionary(entries)
            default:
                var elements: [FeedValue] = []
                guard let table else { continue }
                for element in try snapshot.collectionElements(in: table, key: key, column: column) {
                    elements.append(try feedValue(element, target: target, in: snapshot))
                }
                values[columnSpec.name] = .list(elements)
            }
        }
        return values
    }

    static func feedValue(_ value: Value, target: String?, in snapshot: Snapshot) throws(FloeError) -> FeedValue {
        switch value {
        case .null: return .null
        case .bool(let bool): return .bool(bool)
        case .int(let int): return .int(int)
        case .float(let float): return .float(float)
        case .double(let double): return .double(double)
        case .string(let string): return .string(string)
        case .binary(let bytes): return .data(Data(bytes))
        case .timestamp(let seconds): return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case .decimal128: return .decimal128(Decimal128._floeDecode(_FloeValue(value)))
        case .objectId: return .objectId(ObjectId._floeDecode(_FloeValue(value)))
        case .uuid: return .uuid(UUID._floeDecode(_FloeValue(value)))
        case .link(let key): return try link(key, className: target ?? "", in: snapshot)
        case .typedLink(let table, let key): return try link(key, className: table, in: snapshot)
        case .list(let elements):
            var list: [FeedValue] = []
            for element in elements { list.append(try feedValue(element, target: nil, in: snapshot)) }
            return .list(list)
        case .dictionary(let entries):
            var dictionary: [String: FeedValue] = [:]
            for entry in entries { dictionary[entry.key] = try feedValue(entry.value, target: nil, in: snapshot) }
            return .dictionary(dictionary)
        }
    }

    private static func link(_ key: Int64, className: String, in snapshot: Snapshot) throws(FloeError) -> FeedValue {
        guard let table = try snapshot.tableIfPresent(named: className), try snapshot.contains(key, in: table) else {
            return .link(className: className, key: .objectKey(key))
        }
        let spec = try snapshot.spec(of: table)
        if spec.kind == .embedded {
            // An embedded object travels as its values, inside its owner's.
            var values: [String: FeedValue] = [:]
            for column in spec.columns.indices {
                values[spec.columns[column].name] = try columnValue(of: key, column: column, spec: spec, table: table, in: snapshot)
            }
            return .dictionary(values)
        }
        return .link(className: className, key: try identity(key, in: table, of: snapshot))
    }
}

/// The commits of an in-memory store since a feed was made, kept until its consumer reads them.
final class CommitQueue: Sendable {
    private struct State {
        var previous: Snapshot?
        var pending: [Snapshot] = []
        var waiter: CheckedContinuation<Void, Never>?
        var finished = false
    }

    private let store: Store
    /// Shared with the store's observer (never the queue itself: the store keeps its observers,
    /// and the queue must stop observing when its feed goes).
    private let state = Locked(State())
    private let observer: UInt64
    /// The version the queue's first transaction starts from.
    let baseVersion: UInt64

    init(store: Store) throws(FloeError) {
        self.store = store
        let state = self.state
        let registration = try store.observeCommits { commit in Self.absorb(commit, into: state) }
        observer = registration.id
        baseVersion = registration.base.version
        state.withLock { $0.previous = registration.base }
    }

    deinit {
        store.stopObserving(observer)
    }

    private static func absorb(_ commit: CommittedChanges?, into state: Locked<State>) {
        let waiter = state.withLock { state in
            if let commit { state.pending.append(commit.snapshot) } else { state.finished = true }
            return state.waiter.take()
        }
        waiter?.resume()
    }

    func next() async throws(FloeError) -> ChangeFeedTransaction? {
        while !Task.isCancelled {
            let pair: (Snapshot, Snapshot)?? = state.withLock { state in
                guard !state.pending.isEmpty, let previous = state.previous else { return state.finished ? .some(nil) : nil }
                let next = state.pending.removeFirst()
                state.previous = next
                return (previous, next)
            }
            switch pair {
            case .some(let pair?): return try ChangeFeedReader.transaction(from: pair.0, to: pair.1)
            case .some(nil): return nil
            case nil:
                await withTaskCancellationHandler {
                    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                        let now = state.withLock { state -> Bool in
                            if !state.pending.isEmpty || state.finished || Task.isCancelled { return true }
                            state.waiter = continuation
                            return false
                        }
                        if now { continuation.resume() }
                    }
                } onCancel: {
                    state.withLock { $0.waiter.take() }?.resume()
                }
            }
        }
        return nil
    }
}
