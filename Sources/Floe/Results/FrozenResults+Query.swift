@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// Filtering, sorting and distinct on frozen results: frozen results of the same version, as
// Realm's frozen `Results` give, readable from any task.

extension FrozenResults {
    /// The frozen objects that match a string predicate, at the same version.
    ///
    /// ```swift
    /// let frozen = try await realm.read { realm in try realm.objects(Dog.self).freeze() }
    /// let puppies = try frozen.filter("age < %@", 2)
    /// ```
    ///
    /// - Throws: ``FloeError/invalidPredicate(predicate:position:token:reason:)`` for a
    ///   malformed predicate, or a property the class does not have (naming the position and token).
    public func filter(_ predicateFormat: String, _ args: Any...) throws -> FrozenResults<Element> {
        let predicate = try PredicateParser.parse(predicateFormat, arguments: args, className: Element.className())
        return try PredicateParser.locatingErrors(in: predicateFormat, arguments: args) { try narrowed((query ?? ResultsQuery()).filtered(by: predicate)) }
    }

    /// The frozen objects that meet a condition written with the type-safe builder.
    ///
    /// ```swift
    /// let puppies = try frozen.where { $0.age < 2 }
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` for a key path that
    ///   reads no persisted property, or an operator its type does not take.
    public func `where`(_ isIncluded: (Query<Element>) -> Query<Bool>) throws -> FrozenResults<Element> {
        try narrowed((query ?? ResultsQuery()).filtered(by: Query<Bool>.predicate(for: Element.self, isIncluded)))
    }

    /// These frozen objects ordered by one property (through to-one links), stable.
    ///
    /// ```swift
    /// let youngestFirst = try frozen.sorted(byKeyPath: "age")
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` for a property the
    ///   class does not have.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) throws -> FrozenResults<Element> {
        try sorted(by: [SortDescriptor(keyPath: keyPath, ascending: ascending)])
    }

    /// These frozen objects ordered by several properties, the first deciding first.
    ///
    /// ```swift
    /// let ordered = try frozen.sorted(by: [Floe.SortDescriptor(keyPath: "age", ascending: false), "name"])
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` for a property the
    ///   class does not have.
    public func sorted<S: Sequence>(by descriptors: S) throws -> FrozenResults<Element> where S.Element == SortDescriptor {
        try narrowed((query ?? ResultsQuery()).sorted(by: Array(descriptors)))
    }

    /// These frozen objects ordered by the property a key path names.
    ///
    /// ```swift
    /// let youngestFirst = try frozen.sorted(by: \.age)
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` when the key path is
    ///   not a persisted property of the class.
    public func sorted<T: _Persistable>(by keyPath: KeyPath<Element, T>, ascending: Bool = true) throws -> FrozenResults<Element> {
        try sorted(byKeyPath: KeyPathNames.name(of: keyPath), ascending: ascending)
    }

    /// These frozen objects without duplicates at the key paths, the first of each kept.
    ///
    /// ```swift
    /// let oneDogPerName = try frozen.distinct(by: ["name"])
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` for a key path the
    ///   class does not have or that is not a single value.
    public func distinct<S: Sequence>(by keyPaths: S) throws -> FrozenResults<Element> where S.Element == String {
        try narrowed((query ?? ResultsQuery()).distinct(by: Array(keyPaths)))
    }

    private func narrowed(_ query: ResultsQuery) throws -> FrozenResults<Element> {
        let snapshot = self.snapshot
        try query.validate(for: elementType, binding: FrozenSource.binding(for: elementType, in: snapshot)) { (type) throws(FloeError) in
            try FrozenSource.binding(for: type, in: snapshot)
        }
        return try FrozenResults(snapshot: snapshot, query: query, elementType: elementType)
    }
}
