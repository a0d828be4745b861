import Foundation
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// Realm's positional reads on results and collections of objects: the index of an object, of
// the first match of a predicate, and the objects at a set of indexes.

extension Results {
    /// The position of a managed object in these results, or nil when they do not hold it.
    ///
    /// ```swift
    /// let position = dogs.index(of: rex)
    /// ```
    public func index(of object: Element) -> Int? {
        firstIndex { $0.isSameObject(as: object) }
    }

    /// The position of the first object that matches a string predicate, or nil.
    ///
    /// ```swift
    /// let firstPuppy = try dogs.index(matching: "age < %@", 2)
    /// ```
    ///
    /// - Throws: what ``filter(_:_:)`` throws for a bad predicate.
    public func index(matching predicateFormat: String, _ args: Any...) throws -> Int? {
        try firstPosition(of: filter(predicateFormat, arguments: args))
    }

    /// The position of the first object that meets a condition written with the builder, or nil.
    ///
    /// ```swift
    /// let firstPuppy = try dogs.index(matching: { $0.age < 2 })
    /// ```
    ///
    /// - Throws: what ``where(_:)`` throws for a bad condition.
    public func index(matching isIncluded: (Query<Element>) -> Query<Bool>) throws -> Int? {
        try firstPosition(of: self.where(isIncluded))
    }

    /// The objects at `indexes`, in index order.
    ///
    /// ```swift
    /// let firstTwo = dogs.objects(at: IndexSet([0, 1]))
    /// ```
    public func objects(at indexes: IndexSet) -> [Element] {
        indexes.map { self[$0] }
    }

    /// The position here of the first of `matches` (which keep these results' order).
    private func firstPosition(of matches: Results<Element>) -> Int? {
        guard let first = matches.first else { return nil }
        return index(of: first)
    }
}

extension _ObjectResultsConvertible {
    /// The position of the first object that matches a string predicate, or nil.
    ///
    /// ```swift
    /// let firstPuppy = try person.dogs.index(matching: "age < %@", 2)
    /// ```
    ///
    /// - Throws: what `filter(_:_:)` throws for a bad predicate;
    ///   ``FloeError/invalidOperation(className:detail:)`` for an unmanaged collection.
    public func index(matching predicateFormat: String, _ args: Any...) throws -> Int? {
        let all = try _objectResults()
        guard let first = try all.filter(predicateFormat, arguments: args).first else { return nil }
        return all.index(of: first)
    }

    /// The position of the first object that meets a condition written with the builder, or nil.
    ///
    /// ```swift
    /// let firstPuppy = try person.dogs.index(matching: { $0.age < 2 })
    /// ```
    ///
    /// - Throws: what `where(_:)` throws for a bad condition.
    public func index(matching isIncluded: (Query<_QueriedObject>) -> Query<Bool>) throws -> Int? {
        let all = try _objectResults()
        guard let first = try all.where(isIncluded).first else { return nil }
        return all.index(of: first)
    }
}
