@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// Change streams restricted by Swift key paths (`[\Dog.name, \Dog.toy?.name]`), as Realm's
// `observe(keyPaths: [PartialKeyPath<T>])`: each key path is named by the key-path probe
// (`Schema/KeyPathProbe.swift`) as a projected key path is (following to-one links and
// embedded objects), then the stream is the string-keyed one.

extension RealmObject {
    /// This object's changes to the properties `keyPaths` read, links followed
    /// (`\Dog.toy?.name` watches the toy's name).
    ///
    /// ```swift
    /// for await change in try dog.changes(keyPaths: [\Dog.name, \Dog.toy?.name]) { print(change) }
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` naming the class and the
    ///   key path when it reads no persisted property, or several;
    ///   ``FloeError/invalidOperation(className:detail:)`` for an unmanaged or frozen object.
    public func changes(keyPaths: [PartialKeyPath<Self>]) throws -> ObjectChanges<Self> {
        try changes(keyPaths: ProjectionNames.rootNames(keyPaths))
    }
}

extension Results {
    /// These results' changes, counting an object as modified only when a property that
    /// `keyPaths` read changed.
    ///
    /// ```swift
    /// for await change in try realm.objects(Dog.self).changes(keyPaths: [\Dog.name]) { print(change) }
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` naming the class and key path.
    public func changes(keyPaths: [PartialKeyPath<Element>]) throws -> CollectionChanges<FrozenResults<Element>> {
        try changes(keyPaths: Optional(ProjectionNames.rootNames(keyPaths)))
    }
}

extension SectionedResults where Key: Sendable {
    /// These sections' changes, counting an object as modified only when a property that
    /// `keyPaths` read changed.
    ///
    /// ```swift
    /// for await change in try contacts.sectioned(by: \.firstLetter).changes(keyPaths: [\Contact.name]) { print(change) }
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` naming the class and key path.
    public func changes(keyPaths: [PartialKeyPath<Element>]) throws -> SectionedResultsChanges<Key, Element> {
        try changes(keyPaths: Optional(ProjectionNames.rootNames(keyPaths)))
    }
}

extension List where Element: ObjectBase {
    /// This list's changes, counting an element object as modified only when a property that
    /// `keyPaths` read changed.
    ///
    /// ```swift
    /// for await change in try person.dogs.changes(keyPaths: [\Dog.name]) { print(change) }
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` naming the class and key path.
    public func changes(keyPaths: [PartialKeyPath<Element>]) throws -> CollectionChanges<FrozenList<Element>> {
        try changes(keyPaths: Optional(ProjectionNames.rootNames(keyPaths)))
    }
}

extension MutableSet where Element: ObjectBase {
    /// This set's changes, counting an element object as modified only when a property that
    /// `keyPaths` read changed.
    ///
    /// ```swift
    /// for await change in try person.friends.changes(keyPaths: [\Person.name]) { print(change) }
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` naming the class and key path.
    public func changes(keyPaths: [PartialKeyPath<Element>]) throws -> CollectionChanges<FrozenSet<Element>> {
        try changes(keyPaths: Optional(ProjectionNames.rootNames(keyPaths)))
    }
}

extension LinkingObjects {
    /// The changes of the objects linking here, counting one as modified only when a property
    /// that `keyPaths` read changed.
    ///
    /// ```swift
    /// for await change in try dog.owners.changes(keyPaths: [\Person.name]) { print(change) }
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` naming the class and key path.
    public func changes(keyPaths: [PartialKeyPath<Element>]) throws -> CollectionChanges<[Frozen<Element>]> {
        try changes(keyPaths: Optional(ProjectionNames.rootNames(keyPaths)))
    }
}

extension Map where Key: Sendable, Value: _FloeOptionalObject {
    /// This map's changes, counting a key's object as modified only when a property that
    /// `keyPaths` read changed.
    ///
    /// ```swift
    /// for await change in try person.parks.changes(keyPaths: [\Park.name]) { print(change) }
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` naming the class and key path.
    public func changes(keyPaths: [PartialKeyPath<Value.Wrapped>]) throws -> MapChanges<Key, Value> {
        try changes(keyPaths: Optional(ProjectionNames.rootNames(keyPaths)))
    }
}

/// An optional object type (`Park?`), as a map of objects holds its values; it lets a map's
/// key-path forms name the object's class.
///
/// ```swift
/// func watch(_ parks: Map<String, Park?>) throws { _ = try parks.changes(keyPaths: [\Park.name]) }
/// ```
public protocol _FloeOptionalObject {
    /// The object class.
    associatedtype Wrapped: ObjectBase
}

extension Optional: _FloeOptionalObject where Wrapped: ObjectBase {}

extension AnyRealmCollection where Element: ObjectBase {
    /// The wrapped collection's changes, counting an element object as modified only when a
    /// property that `keyPaths` read changed.
    ///
    /// ```swift
    /// let dogs = AnyRealmCollection(realm.objects(Dog.self))
    /// for await change in try dogs.changes(keyPaths: [\Dog.name]) { print(change) }
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` naming the class and key path.
    public func changes(keyPaths: [PartialKeyPath<Element>]) throws -> CollectionChanges<FrozenAnyRealmCollection<Element>> {
        try changes(keyPaths: Optional(ProjectionNames.rootNames(keyPaths)))
    }
}
