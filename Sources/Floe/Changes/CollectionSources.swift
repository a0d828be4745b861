@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// Results: every object of a class (or those a query selects, in its order).
struct ResultsSource<T: Object>: CollectionSource {
    let query: ResultsQuery?
    /// The class whose objects the results are (see ``Results``).
    let type: T.Type
    /// Whether whether an object is in the results, and where, depends on its own row alone.
    let readsOwnRowsOnly: Bool

    /// The classes the query reads (nil: any, see ``ResultsQuery/readClassNames(of:)``): a
    /// commit touching none of them does not reach the stream.
    let observedTables: Set<String>?

    init(query: ResultsQuery?, type: T.Type = T.self) {
        self.query = query
        self.type = type
        readsOwnRowsOnly = query?.readsOwnRowsOnly(of: type) ?? true
        observedTables = readsOwnRowsOnly ? [type.className()] : query?.readClassNames(of: type)
    }

    var elementType: ObjectBase.Type? { type }
    var holdsEveryObjectInKeyOrder: Bool { query == nil }
    var incrementalQuery: ResultsQuery? { readsOwnRowsOnly ? (query ?? ResultsQuery()) : nil }

    func state(at snapshot: Snapshot) throws(FloeError) -> CollectionState? {
        guard let binding = try FrozenSource.binding(for: type, in: snapshot) else { return .keys([]) }
        guard let query else { return .keys(try snapshot.objectKeys(in: binding.table)) }
        return .keys(try query.keys(in: binding, reader: snapshot) { (type) throws(FloeError) in try FrozenSource.binding(for: type, in: snapshot) })
    }

    func frozen(at snapshot: Snapshot) throws(FloeError) -> FrozenResults<T> {
        try FrozenResults(snapshot: snapshot, query: query, elementType: type)
    }

    func frozen(at snapshot: Snapshot, keys: [Int64]) throws(FloeError) -> FrozenResults<T> {
        guard let query else { return try FrozenResults(snapshot: snapshot, elementType: type) }
        return try FrozenResults(snapshot: snapshot, query: query, keys: keys, elementType: type)
    }
}

/// A frozen list or set, made from its owner and column at a version.
protocol FrozenElements: Sendable {
    init(snapshot: Snapshot, owner: TableBinding, key: Int64, column: Int, ownerDeleted: Bool)
}

extension FrozenList: FrozenElements {
    init(snapshot: Snapshot, owner: TableBinding, key: Int64, column: Int, ownerDeleted: Bool) {
        self.init(snapshot: snapshot, binding: owner, key: key, column: column, ownerDeleted: ownerDeleted)
    }
}

extension FrozenSet: FrozenElements {
    init(snapshot: Snapshot, owner: TableBinding, key: Int64, column: Int, ownerDeleted: Bool) {
        self.init(elements: FrozenList(snapshot: snapshot, binding: owner, key: key, column: column, ownerDeleted: ownerDeleted))
    }
}

/// An object's list or set: its elements in order.
struct ElementsSource<FrozenCollection: FrozenElements>: CollectionSource {
    let owner: TableBinding
    let key: Int64
    let column: Int
    let elementType: ObjectBase.Type?

    var observedTables: Set<String>? {
        Set([owner.schema.className] + (elementType.map { [$0.className()] } ?? []))
    }

    var editedCollection: (owner: String, id: ChangeSet.CollectionID)? {
        (owner.schema.className, ChangeSet.CollectionID(key: key, column: column))
    }

    func state(at snapshot: Snapshot) throws(FloeError) -> CollectionState? {
        guard let table = try snapshot.tableIfPresent(named: owner.schema.className), try snapshot.contains(key, in: table) else { return nil }
        return .values(try snapshot.collectionElements(in: table, key: key, column: column))
    }

    func frozen(at snapshot: Snapshot) throws(FloeError) -> FrozenCollection {
        FrozenCollection(snapshot: snapshot, owner: owner, key: key, column: column, ownerDeleted: false)
    }

    func emptied(at snapshot: Snapshot) throws(FloeError) -> FrozenCollection? {
        FrozenCollection(snapshot: snapshot, owner: owner, key: key, column: column, ownerDeleted: true)
    }
}

/// The objects whose link points at one object (a `LinkingObjects` property).
struct LinkingObjectsSource<T: ObjectBase>: CollectionSource {
    let target: String
    let key: Int64
    let originProperty: String

    var observedTables: Set<String>? { [target, T.className()] }
    var elementType: ObjectBase.Type? { T.self }
    var linkingTarget: (target: String, key: Int64, origin: ObjectBase.Type, property: String)? { (target, key, T.self, originProperty) }

    func state(at snapshot: Snapshot) throws(FloeError) -> CollectionState? {
        guard let table = try snapshot.tableIfPresent(named: target), try snapshot.contains(key, in: table) else { return nil }
        guard let origin = try FrozenSource.binding(for: T.self, in: snapshot),
              let index = origin.schema.propertyIndex(named: originProperty) else { return .keys([]) }
        return .keys(try snapshot.linkingObjects(in: origin.table, column: origin.columnOfProperty[index], to: key))
    }

    func frozen(at snapshot: Snapshot) throws(FloeError) -> [Frozen<T>] {
        guard case .keys(let keys)? = try state(at: snapshot), let origin = try FrozenSource.binding(for: T.self, in: snapshot) else { return [] }
        return keys.map { Frozen<T>(snapshot: snapshot, binding: origin, key: $0) }
    }

    func frozen(at snapshot: Snapshot, keys: [Int64]) throws(FloeError) -> [Frozen<T>] {
        guard let origin = try FrozenSource.binding(for: T.self, in: snapshot) else { return [] }
        return keys.map { Frozen<T>(snapshot: snapshot, binding: origin, key: $0) }
    }

    func emptied(at snapshot: Snapshot) throws(FloeError) -> [Frozen<T>]? { [] }
}

extension ChangeSources {
    /// The store and owner of a managed collection.
    static func owner(_ parent: ObjectBinding?, kind: String) throws(FloeError) -> (Store, ObjectBinding) {
        guard let parent else {
            throw .invalidOperation(className: kind, detail: "an unmanaged collection has no changes to observe; add its object to a realm first")
        }
        return (try store(of: parent, className: kind), parent)
    }

    static func elementType(_ parent: ObjectBinding, column: Int) -> ObjectBase.Type? {
        parent.tableBinding.propertyOfColumn[column].flatMap { parent.tableBinding.schema.properties[$0].type.objectType }
    }

    /// The changes of a list's or set's elements: `kind` names the collection in errors.
    static func elementChanges<FrozenCollection: FrozenElements>(of parent: ObjectBinding?, column: Int, keyPaths: [String]?,
                                                                  kind: String) throws -> CollectionChanges<FrozenCollection> {
        let (store, parent) = try owner(parent, kind: kind)
        let source = ElementsSource<FrozenCollection>(owner: parent.tableBinding, key: parent.key, column: column,
                                                      elementType: elementType(parent, column: column))
        let channel = try ChangeChannel<CollectionDiffer<ElementsSource<FrozenCollection>>>.collection(source, store: store, keyPaths: keyPaths, kind: kind)
        return CollectionChanges(withDeletedKeys: CollectionChangesWithKeys(channel: channel))
    }
}

extension Results {
    /// These results' changes: `.initial`, then an update per commit that inserts, deletes,
    /// moves (in sorted results) or writes one of their objects (equal values included).
    ///
    /// ```swift
    /// for await change in try realm.objects(Dog.self).changes { print(change) }
    /// ```
    ///
    /// - Throws: ``FloeError/closed(path:)`` when the realm's file was closed.
    public var changes: CollectionChanges<FrozenResults<Element>> {
        get throws { try changes(keyPaths: nil) }
    }

    /// These results' changes, counting an object as modified only when a property that
    /// `keyPaths` names changed (links followed: `"owner.name"`).
    ///
    /// ```swift
    /// for await change in try realm.objects(Dog.self).changes(keyPaths: ["name"]) { print(change) }
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` naming the class and key path.
    public func changes(keyPaths: [String]?) throws -> CollectionChanges<FrozenResults<Element>> {
        let store = context.store
        let channel = try ChangeChannel<CollectionDiffer<ResultsSource<Element>>>.collection(ResultsSource<Element>(query: query, type: elementType), store: store, keyPaths: keyPaths,
                                                                                          kind: "Results<\(Element.className())>")
        return CollectionChanges(withDeletedKeys: CollectionChangesWithKeys(channel: channel))
    }
}

extension List {
    /// This list's changes: `.initial`, then an update per commit that changes its elements
    /// or (for a list of objects) writes one of them. When its object is deleted, a last update
    /// deletes every element (the list it carries is empty), then the stream ends.
    ///
    /// ```swift
    /// for await change in try person.dogs.changes { print(change) }
    /// ```
    ///
    /// - Throws: ``FloeError/invalidOperation(className:detail:)`` for an unmanaged or frozen list.
    public var changes: CollectionChanges<FrozenList<Element>> {
        get throws { try changes(keyPaths: nil) }
    }

    /// This list's changes, counting an element object as modified only when a property that
    /// `keyPaths` names changed.
    ///
    /// ```swift
    /// for await change in try person.dogs.changes(keyPaths: ["name"]) { print(change) }
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` naming the class and key path.
    public func changes(keyPaths: [String]?) throws -> CollectionChanges<FrozenList<Element>> {
        try ChangeSources.elementChanges(of: parent, column: column, keyPaths: keyPaths, kind: "List<\(Element.self)>")
    }
}

extension MutableSet {
    /// This set's changes: `.initial`, then an update per commit that changes its elements or
    /// (for a set of objects) writes one of them. Positions are in the set's stored order. When
    /// its object is deleted, a last update deletes every element, then the stream ends.
    ///
    /// ```swift
    /// for await change in try person.tags.changes { print(change) }
    /// ```
    ///
    /// - Throws: ``FloeError/invalidOperation(className:detail:)`` for an unmanaged or frozen set.
    public var changes: CollectionChanges<FrozenSet<Element>> {
        get throws { try changes(keyPaths: nil) }
    }

    /// This set's changes, counting an element object as modified only when a property that
    /// `keyPaths` names changed.
    ///
    /// ```swift
    /// for await change in try person.friends.changes(keyPaths: ["name"]) { print(change) }
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` naming the class and key path.
    public func changes(keyPaths: [String]?) throws -> CollectionChanges<FrozenSet<Element>> {
        try ChangeSources.elementChanges(of: parent, column: column, keyPaths: keyPaths, kind: "MutableSet<\(Element.self)>")
    }
}

extension LinkingObjects {
    /// The changes of the objects linking here, in key order, each frozen: `.initial`, then
    /// an update per commit that links, unlinks or writes one of them. When this object is
    /// deleted, a last update deletes every element, then the stream ends.
    ///
    /// ```swift
    /// for await change in try dog.owners.changes { print(change) }
    /// ```
    ///
    /// - Throws: ``FloeError/invalidOperation(className:detail:)`` for an unmanaged or frozen object's.
    public var changes: CollectionChanges<[Frozen<Element>]> {
        get throws { try changes(keyPaths: nil) }
    }

    /// The changes of the objects linking here, counting one as modified only when a property
    /// that `keyPaths` names changed.
    ///
    /// ```swift
    /// for await change in try dog.owners.changes(keyPaths: ["name"]) { print(change) }
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` naming the class and key path.
    public func changes(keyPaths: [String]?) throws -> CollectionChanges<[Frozen<Element>]> {
        let (store, parent) = try ChangeSources.owner(parent, kind: "LinkingObjects<\(Element.className())>")
        let source = LinkingObjectsSource<Element>(target: parent.tableBinding.schema.className, key: parent.key, originProperty: originProperty)
        let channel = try ChangeChannel<CollectionDiffer<LinkingObjectsSource<Element>>>.collection(source, store: store, keyPaths: keyPaths,
                                                                                                    kind: "LinkingObjects<\(Element.className())>")
        return CollectionChanges(withDeletedKeys: CollectionChangesWithKeys(channel: channel))
    }
}
