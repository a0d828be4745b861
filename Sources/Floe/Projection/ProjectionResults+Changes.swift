@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// Projection results observed, sorted and made distinct in the projection's own names: each
// name stands for the root's property path it reads, and the root's results do the work.

extension ProjectionResults {
    /// These projections' changes: `.initial`, then an update per commit that inserts, deletes,
    /// moves (in sorted results) or writes one of their objects' projected properties (equal
    /// values included), each with the projections as `freeze()` returns them. As with
    /// ``Results/changes``, `.withDeletedKeys` adds each deleted object's primary key.
    ///
    /// ```swift
    /// for await change in try realm.objects(PersonProjection.self).changes {
    ///     if case .update(let people, let deletions, let insertions, let modifications) = change {
    ///         print(people.map(\.firstName), deletions, insertions, modifications)
    ///     }
    /// }
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` naming the projection
    ///   class and the property whose key path reads no persisted property.
    public var changes: CollectionChanges<FrozenProjectionResults<Element>> {
        get throws {
            let properties = try ProjectionSchema.properties(of: Element.self)
            return try observing(rootKeyPaths: properties.map(\.path.dotted))
        }
    }

    /// These projections' changes, counting an object as modified only when a projected
    /// property that `keyPaths` names changed (in the projection's names, or by the root key
    /// path a projected property reads, `"address.city"`; nil: every projected one).
    ///
    /// ```swift
    /// for await change in try realm.objects(PersonProjection.self).changes(keyPaths: ["homeCity"]) { print(change) }
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` naming the projection
    ///   class and the key path when it names no projected property and no projected property reads it.
    public func changes(keyPaths: [String]?) throws -> CollectionChanges<FrozenProjectionResults<Element>> {
        guard let keyPaths else { return try changes }
        return try observing(rootKeyPaths: try ProjectionNames.observed(keyPaths, in: Element.self).map { $0.rootPath.joined(separator: ".") })
    }

    /// These projections' changes, counting an object as modified only when a projected
    /// property that `keyPaths` read changed.
    ///
    /// ```swift
    /// for await change in try realm.objects(PersonProjection.self).changes(keyPaths: [\PersonProjection.homeCity]) { print(change) }
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` naming the projection
    ///   class and the key path when it reads no projected property.
    public func changes(keyPaths: [PartialKeyPath<Element>]) throws -> CollectionChanges<FrozenProjectionResults<Element>> {
        try observing(rootKeyPaths: try keyPaths.map { keyPath throws(FloeError) in try ProjectionNames.named(keyPath).rootPath.joined(separator: ".") })
    }

    private func observing(rootKeyPaths: [String]) throws -> CollectionChanges<FrozenProjectionResults<Element>> {
        let base = try rootResults.changes(keyPaths: Array(Set(rootKeyPaths)).sorted())
        return CollectionChanges(withDeletedKeys: CollectionChangesWithKeys(mapping: base.withDeletedKeys) { FrozenProjectionResults(rootResults: $0) })
    }

    /// These projections without repeats of the projected properties `keyPaths` name: the first
    /// object of each distinct combination of values, in order.
    ///
    /// ```swift
    /// let oneACity = try realm.objects(PersonProjection.self).distinct(by: ["homeCity"])
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` naming the projection
    ///   class and the key path when it names no projected property, or one the root cannot
    ///   make distinct by.
    public func distinct<S: Sequence>(by keyPaths: S) throws -> ProjectionResults<Element> where S.Element == String {
        let named = try ProjectionNames.named(Array(keyPaths), in: Element.self)
        return ProjectionResults(rootResults: try rootResults.distinct(by: named.map { $0.rootPath.joined(separator: ".") }))
    }

    /// These projections ordered by projected properties, the first descriptor first
    /// (descriptors name the projection's properties).
    ///
    /// ```swift
    /// let ordered = try realm.objects(PersonProjection.self).sorted(by: [SortDescriptor(keyPath: "homeCity"), "firstName"])
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` naming the projection
    ///   class and the key path when it names no projected property, or one the root cannot sort by.
    public func sorted<S: Sequence>(by descriptors: S) throws -> ProjectionResults<Element> where S.Element == SortDescriptor {
        let descriptors = Array(descriptors)
        let named = try ProjectionNames.named(descriptors.map(\.keyPath), in: Element.self)
        let rootDescriptors = zip(descriptors, named).map { SortDescriptor(keyPath: $1.rootPath.joined(separator: "."), ascending: $0.ascending) }
        return ProjectionResults(rootResults: try rootResults.sorted(by: rootDescriptors))
    }
}

extension CollectionChangesWithKeys {
    /// The same stream (its identity too, for `write(withoutNotifying:)`), each collection
    /// shown as `transform` makes it.
    init<Base>(mapping base: CollectionChangesWithKeys<Base>, _ transform: @escaping @Sendable (Base) -> C) {
        let next = base.nextElement
        nextElement = {
            guard let element = await next() else { return nil }
            switch element.change {
            case .initial(let collection):
                return CollectionChangeWithKeys(change: .initial(transform(collection)), deletedKeys: element.deletedKeys)
            case .update(let collection, let deletions, let insertions, let modifications):
                return CollectionChangeWithKeys(change: .update(transform(collection), deletions: deletions, insertions: insertions,
                                                                modifications: modifications), deletedKeys: element.deletedKeys,
                                                measuredFrom: element.measuredFrom.map(transform))
            }
        }
        keysWanted = base.keysWanted
        baseWanted = base.baseWanted
        changeStreamID = base.changeStreamID
    }
}
