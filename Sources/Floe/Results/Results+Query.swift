@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// Filtering and sorting results with Realm's string predicates and key paths.

extension Results {
    /// The objects that match a string predicate in Realm's dialect, live: they always show the
    /// realm's current version. Results chain: filtering filtered or sorted results narrows them.
    ///
    /// ```swift
    /// let puppies = try realm.objects(Dog.self).filter("age < %@ AND name BEGINSWITH[c] %@", 2, "r")
    /// let owned = try realm.objects(Dog.self).filter("owner.name == 'Ada'")
    /// ```
    ///
    /// - Throws: ``FloeError/invalidPredicate(predicate:position:token:reason:)`` naming the
    ///   position and token: for a malformed predicate or arguments that do not fit it, and for
    ///   a property the class does not have or an operator or value its type does not take
    ///   (the reason names the class and the key path).
    public func filter(_ predicateFormat: String, _ args: Any...) throws -> Results<Element> {
        let predicate = try PredicateParser.parse(predicateFormat, arguments: args, className: Element.className())
        return try PredicateParser.locatingErrors(in: predicateFormat, arguments: args) {
            try narrowed((query ?? ResultsQuery(predicate: nil, sort: [])).filtered(by: predicate))
        }
    }

    /// These results ordered by one property (through to-one links: `"owner.name"`), stable:
    /// objects with equal values keep their order. Nulls come first ascending, as in Realm.
    ///
    /// ```swift
    /// let youngestFirst = try realm.objects(Dog.self).sorted(byKeyPath: "age")
    /// ```
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) throws -> Results<Element> {
        try sorted(by: [SortDescriptor(keyPath: keyPath, ascending: ascending)])
    }

    /// These results ordered by several properties, the first deciding first.
    ///
    /// ```swift
    /// let ordered = try dogs.sorted(by: [Floe.SortDescriptor(keyPath: "age", ascending: false), "name"])
    /// ```
    public func sorted<S: Sequence>(by descriptors: S) throws -> Results<Element> where S.Element == SortDescriptor {
        try narrowed((query ?? ResultsQuery(predicate: nil, sort: [])).sorted(by: Array(descriptors)))
    }

    func narrowed(_ query: ResultsQuery) throws -> Results<Element> {
        try query.validate(for: elementType, binding: context.tableBinding(for: elementType)) { (type) throws(FloeError) in
            try context.tableBinding(for: type)
        }
        return Results(context: context, query: query, elementType: elementType)
    }
}
