@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// The change streams of an `AnyRealmCollection`: the wrapped collection's own stream, each
// frozen collection it hands out wrapped as a `FrozenAnyRealmCollection`.

extension RealmCollectionChange {
    /// The same change, its collection passed through `transform`.
    func mapCollection<D: Sendable>(_ transform: (C) -> D) -> RealmCollectionChange<D> {
        switch self {
        case .initial(let collection): .initial(transform(collection))
        case .update(let collection, let deletions, let insertions, let modifications):
            .update(transform(collection), deletions: deletions, insertions: insertions, modifications: modifications)
        }
    }
}

extension CollectionChanges {
    /// The same stream (one identity, so `write(withoutNotifying:)` skips it), each collection
    /// behind the type-erased frozen form.
    func erased() -> CollectionChanges<FrozenAnyRealmCollection<C.Item>> where C: FrozenAnyStorage {
        let next = withDeletedKeys.nextElement
        let keys = CollectionChangesWithKeys<FrozenAnyRealmCollection<C.Item>>(nextElement: {
            guard let element = await next() else { return nil }
            return CollectionChangeWithKeys(change: element.change.mapCollection { $0.erased }, deletedKeys: element.deletedKeys)
        }, keysWanted: withDeletedKeys.keysWanted, baseWanted: withDeletedKeys.baseWanted, changeStreamID: withDeletedKeys.changeStreamID)
        return CollectionChanges<FrozenAnyRealmCollection<C.Item>>(withDeletedKeys: keys)
    }
}

/// A collection whose stream an ``AnyRealmCollection`` forwards.
protocol AnyRealmCollectionObserving<Element> {
    associatedtype Element
    func anyChanges(keyPaths: [String]?) throws -> CollectionChanges<FrozenAnyRealmCollection<Element>>
}

extension Results: AnyRealmCollectionObserving {
    func anyChanges(keyPaths: [String]?) throws -> CollectionChanges<FrozenAnyRealmCollection<Element>> {
        try changes(keyPaths: keyPaths).erased()
    }
}

extension List: AnyRealmCollectionObserving {
    func anyChanges(keyPaths: [String]?) throws -> CollectionChanges<FrozenAnyRealmCollection<Element>> {
        try changes(keyPaths: keyPaths).erased()
    }
}

extension MutableSet: AnyRealmCollectionObserving {
    func anyChanges(keyPaths: [String]?) throws -> CollectionChanges<FrozenAnyRealmCollection<Element>> {
        try changes(keyPaths: keyPaths).erased()
    }
}

extension LinkingObjects: AnyRealmCollectionObserving {
    func anyChanges(keyPaths: [String]?) throws -> CollectionChanges<FrozenAnyRealmCollection<Element>> {
        try changes(keyPaths: keyPaths).erased()
    }
}

extension AnyRealmCollection: AnyRealmCollectionObserving {
    func anyChanges(keyPaths: [String]?) throws -> CollectionChanges<FrozenAnyRealmCollection<Element>> {
        try changes(keyPaths: keyPaths)
    }

    /// The wrapped collection's changes: `.initial`, then an update per commit that changes
    /// it, each collection frozen. It is the wrapped collection's own stream, so
    /// `write(withoutNotifying:)` takes it.
    ///
    /// ```swift
    /// let dogs = AnyRealmCollection(realm.objects(Dog.self))
    /// for await change in try dogs.changes { print(change) }
    /// ```
    ///
    /// - Throws: what the wrapped collection's `changes` throws, and
    ///   ``FloeError/invalidOperation(className:detail:)`` for a collection without a stream
    ///   (a map's values).
    public var changes: CollectionChanges<FrozenAnyRealmCollection<Element>> {
        get throws { try changes(keyPaths: nil) }
    }

    /// The wrapped collection's changes, counting an element object as modified only when a
    /// property that `keyPaths` names changed (links followed: `"owner.name"`).
    ///
    /// ```swift
    /// let dogs = AnyRealmCollection(person.dogs)
    /// for await change in try dogs.changes(keyPaths: ["name"]) { print(change) }
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` naming the class and
    ///   key path; ``FloeError/invalidOperation(className:detail:)`` for a collection without
    ///   a stream (a map's values).
    public func changes(keyPaths: [String]?) throws -> CollectionChanges<FrozenAnyRealmCollection<Element>> {
        guard let base = base as? any AnyRealmCollectionObserving<Element> else {
            throw FloeError.invalidOperation(className: "AnyRealmCollection<\(Element.self)>",
                                             detail: "a collection wrapping \(type(of: self.base)) has no changes to observe; wrap results, a list, a set or linking objects")
        }
        return try base.anyChanges(keyPaths: keyPaths)
    }
}
