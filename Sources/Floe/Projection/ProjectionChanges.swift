@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// Observing a projection: the root object's changes restricted to the projected key paths, each
// written property reported under the projection's name for it, with the value read through
// the projected key path (the city, not the address it is read through).

/// The changes of one projection, as a `Sendable` `AsyncSequence` of ``ObjectChange``: a commit
/// notifies only when it writes a property the projection shows (through links and lists too).
///
/// ```swift
/// for await change in try projection.changes {
///     if case .change(let person, let properties) = change { print(person.firstName, properties.map(\.name)) }
/// }
/// ```
public struct ProjectionChanges<P: ProjectionObservable>: AsyncSequence, ChangeStream {
    /// A `.change` per commit that writes one of the projected properties, then `.deleted`.
    public typealias Element = ObjectChange<FrozenProjection<P>>
    /// Change streams never throw.
    public typealias Failure = Never

    let channel: ChangeChannel<ProjectionDiffer<P>>

    /// This stream's identity, shared by its copies.
    public var changeStreamID: ChangeStreamID { ChangeStreamID(channel: channel) }

    /// An iterator over this stream's changes (iterate each stream from one task at a time).
    public func makeAsyncIterator() -> ChangeStreamIterator<Element> {
        let channel = self.channel
        return ChangeStreamIterator { await channel.next() }
    }
}

/// One property a projection stream reports.
struct ObservedProjectedProperty: @unchecked Sendable {
    // @unchecked: the key path is immutable and only applied to frozen objects.
    /// The projection's name for it.
    let name: String
    /// The root's property the change is first seen on (the path's first component).
    let firstComponent: String
    /// The filter of this property's root path alone (the stream's filter joins every
    /// property's: a write through `dog.name` must not report a property projecting `dog`).
    let filter: KeyPathFilter
    /// The projected key path on the root, applied to the frozen root for the value.
    let keyPath: AnyKeyPath
}

/// Turns commits into one projection's changes: the root object's (restricted to the projected
/// paths), each reported property's values read through its projected key path.
struct ProjectionDiffer<P: ProjectionObservable>: ChangeDiffer {
    var root: ObjectDiffer<P.Root>
    let properties: [ObservedProjectedProperty]

    var observedTables: Set<String>? { root.observedTables }

    func initial(at base: Snapshot) -> ObjectChange<FrozenProjection<P>>? { nil }

    func rebase(to base: Snapshot) { root.rebase(to: base) }

    func diff(from old: Snapshot, to new: Snapshot, changes: ChangeSet?) throws(FloeError) -> (element: ObjectChange<FrozenProjection<P>>?, ended: Bool) {
        let (element, ended) = try root.diff(from: old, to: new, changes: changes)
        guard let element else { return (nil, ended) }
        guard case .change(let frozen, let written) = element else { return (.deleted, ended) }
        let writtenNames = Set(written.map(\.name))
        let className = root.binding.schema.className
        let existed = try old.tableIfPresent(named: className).map { table throws(FloeError) in try old.contains(root.key, in: table) } ?? false
        let before: P.Root? = existed ? try FrozenSource.binding(for: P.Root.self, in: old).map {
            Frozen<P.Root>(snapshot: old, binding: $0, key: root.key).makeModel()
        } : nil
        let after = frozen.makeModel()
        var reported: [PropertyChange] = []
        for property in properties where writtenNames.contains(property.firstComponent) {
            // The commit may have written another property reached through the same link.
            if existed, let changes, try property.filter.touchedProperties(of: root.key, old: old, new: new, changes: changes).isEmpty { continue }
            reported.append(PropertyChange(name: property.name,
                                           oldValue: before.flatMap { Self.value(of: $0, property.keyPath) },
                                           newValue: Self.value(of: after, property.keyPath)))
        }
        guard !reported.isEmpty else { return (nil, ended) }
        return (.change(FrozenProjection(rootObject: frozen), reported), ended)
    }

    /// The projected value read on a frozen root, in its `Sendable` form.
    static func value(of root: P.Root, _ keyPath: AnyKeyPath) -> (any Sendable)? {
        guard let read = root[keyPath: keyPath] else { return nil }
        if let mapped = read as? any ProjectedValues { return mapped.elementChangeValues }
        return ChangeValues.sendable(read)
    }
}

/// A ``ProjectedCollection`` as a change value: its values as an array, each in its
/// `Sendable` form (`as? [String]` reads a mapping of strings back).
protocol ProjectedValues {
    var elementChangeValues: any Sendable { get }
}

extension ProjectedCollection: ProjectedValues {
    var elementChangeValues: any Sendable {
        let values = map { ChangeValues.sendable($0) }
        guard values.allSatisfy({ $0 != nil }) else { return values }
        return values.map { $0! }
    }
}

extension ProjectionObservable {
    /// This projection's changes: an ``ObjectChange`` for every commit that writes a projected
    /// property (equal values included) or deletes the root object. Each written property is
    /// named as the projection names it, and its old and new values are the projected values
    /// (for `@Projected(\Person.address?.city) var homeCity`, the cities; for a collection
    /// mapping, an array of the mapped values).
    ///
    /// ```swift
    /// for await change in try projection.changes { print(change) }
    /// ```
    ///
    /// - Throws: ``FloeError/invalidOperation(className:detail:)`` for an unmanaged or frozen root
    ///   object; ``FloeError/invalidKeyPath(className:keyPath:reason:)`` naming the projection class
    ///   and the property whose key path reads no persisted property.
    public var changes: ProjectionChanges<Self> {
        get throws {
            let properties = try ProjectionSchema.properties(of: Self.self)
            return try observe(properties.map { NamedProjectedProperty(name: $0.name, rootPath: $0.path.components, property: $0) })
        }
    }

    /// This projection's changes to the projected properties `keyPaths` name: in the
    /// projection's names (a projected link may be followed on: `"dog.name"`), or by the root
    /// key path a projected property reads (`"address.city"` for `homeCity`, `"friends"` for a
    /// mapping of `friends`), which names every projected property that reads it. Changes
    /// always name the projection's properties.
    ///
    /// ```swift
    /// for await change in try projection.changes(keyPaths: ["firstName", "homeCity"]) { print(change) }
    /// for await change in try projection.changes(keyPaths: ["address.city"]) { print(change) }   // homeCity
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` naming the projection
    ///   class and the key path when it names no projected property and no projected property
    ///   reads it; ``FloeError/invalidOperation(className:detail:)`` for an unmanaged or frozen
    ///   root object.
    public func changes(keyPaths: [String]) throws -> ProjectionChanges<Self> {
        try observe(try ProjectionNames.observed(keyPaths, in: Self.self))
    }

    /// This projection's changes to the projected properties `keyPaths` read.
    ///
    /// ```swift
    /// for await change in try projection.changes(keyPaths: [\PersonProjection.homeCity]) { print(change) }
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` naming the projection
    ///   class and the key path when it reads no projected property;
    ///   ``FloeError/invalidOperation(className:detail:)`` for an unmanaged or frozen root object.
    public func changes(keyPaths: [PartialKeyPath<Self>]) throws -> ProjectionChanges<Self> {
        try observe(try keyPaths.map { keyPath throws(FloeError) in try ProjectionNames.named(keyPath) })
    }

    private func observe(_ named: [NamedProjectedProperty]) throws -> ProjectionChanges<Self> {
        let binding = try ChangeSources.managedBinding(of: rootObject)
        let store = try ChangeSources.store(of: binding, className: Root.className())
        let schema = binding.tableBinding.schema
        let rootKeyPaths = Array(Set(named.map { $0.rootPath.joined(separator: ".") })).sorted()
        let filter = try KeyPathFilter(schema: schema, keyPaths: rootKeyPaths)
        let fields = Mirror.projectedFields(of: Self(projecting: Root()))
        let all = try ProjectionSchema.properties(of: Self.self)
        var observed: [ObservedProjectedProperty] = []
        for property in named {
            guard let first = property.rootPath.first, let index = all.firstIndex(where: { $0.name == property.name }), fields.indices.contains(index) else { continue }
            guard !observed.contains(where: { $0.name == property.name && $0.firstComponent == first }) else { continue }
            let own = try KeyPathFilter(schema: schema, keyPaths: [property.rootPath.joined(separator: ".")])
            observed.append(ObservedProjectedProperty(name: property.name, firstComponent: first, filter: own, keyPath: fields[index].rootKeyPath))
        }
        let tables = filter.classNames
        let channel = try ChangeChannel<ProjectionDiffer<Self>>.open(store: store, observedTables: tables) { _ in
            ProjectionDiffer(root: ObjectDiffer(store: store, binding: binding.tableBinding, key: binding.key, filter: filter, observedTables: tables),
                             properties: observed)
        }
        return ProjectionChanges(channel: channel)
    }
}
