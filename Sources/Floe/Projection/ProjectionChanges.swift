// Observing a projection: the root object's changes restricted to the projected key paths, each
// written property reported under the projection's name for it.

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

    let base: ObjectChanges<P.Root>
    /// The projection's names for each root property a change can report.
    let namesByRootProperty: [String: [String]]

    /// This stream's identity, shared by its copies.
    public var changeStreamID: ChangeStreamID { base.changeStreamID }

    /// An iterator over this stream's changes (iterate each stream from one task at a time).
    public func makeAsyncIterator() -> ChangeStreamIterator<Element> {
        let channel = base.channel
        let names = namesByRootProperty
        return ChangeStreamIterator {
            guard let change = await channel.next() else { return nil }
            return Self.projected(change, names: names)
        }
    }

    static func projected(_ change: ObjectChange<Frozen<P.Root>>, names: [String: [String]]) -> Element {
        switch change {
        case .deleted: return .deleted
        case .change(let root, let properties):
            let renamed = properties.flatMap { property in
                (names[property.name] ?? []).map { PropertyChange(name: $0, oldValue: property.oldValue, newValue: property.newValue) }
            }
            return .change(FrozenProjection(rootObject: root), renamed)
        }
    }
}

extension ProjectionObservable {
    /// This projection's changes: an ``ObjectChange`` for every commit that writes a projected
    /// property (equal values included) or deletes the root object. Each written property is
    /// named as the projection names it; for one reached through a link or a list, the old and
    /// new values are those of the root's link or list.
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
            var names: [String: [String]] = [:]
            for property in properties {
                guard let first = property.path.components.first else { continue }
                names[first, default: []].append(property.name)
            }
            let keyPaths = Array(Set(properties.map(\.path.dotted))).sorted()
            return ProjectionChanges(base: try rootObject.changes(keyPaths: keyPaths), namesByRootProperty: names)
        }
    }
}
