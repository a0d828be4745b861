@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// `where { }`: results and collections narrowed by a condition written with the type-safe
// builder (`Query`, on the Query floor), as `filter(_:_:)` narrows them by a string.

extension Results {
    /// The objects that meet a condition written with the type-safe builder, live, as with
    /// `filter(_:_:)` (they chain with it and with `sorted`).
    ///
    /// ```swift
    /// let puppies = try realm.objects(Dog.self).where { $0.age < 2 && $0.name.starts(with: "R") }
    /// let ownedByAda = try realm.objects(Dog.self).where { $0.owner.name == "Ada" }
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` for a key path that
    ///   reads no persisted property (or several), an operator its type does not take, or an
    ///   object to compare with that no realm manages.
    public func `where`(_ isIncluded: (Query<Element>) -> Query<Bool>) throws -> Results<Element> {
        try filtered(by: Query<Bool>.predicate(for: Element.self, isIncluded))
    }
}

extension _ObjectResultsConvertible {
    /// The collection's objects that meet a condition written with the type-safe builder, as
    /// live results in the collection's order (they chain with `filter` and `sorted`).
    ///
    /// ```swift
    /// let puppies = try person.dogs.where { $0.age < 2 && $0.name.starts(with: "R") }
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` for a key path that
    ///   reads no persisted property (or several), or an operator its type does not take;
    ///   ``FloeError/invalidOperation(className:detail:)`` for an unmanaged collection.
    public func `where`(_ isIncluded: (Query<_QueriedObject>) -> Query<Bool>) throws -> Results<_QueriedObject> {
        try filtered(by: Query<Bool>.predicate(for: _QueriedObject.self, isIncluded))
    }
}
