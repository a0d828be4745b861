@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// Filtering, sorting and distinct on every collection of objects: each is a base (the objects
// a list, a set or the linking objects hold now) with a `ResultsQuery` on it, so the result is
// a live `Results` over the collection's objects, as in Realm.

/// A collection of objects that can be queried as results: `List`, `MutableSet`,
/// `LinkingObjects`, `AnyRealmCollection` and a map's values. Its members (`filter`, `where`,
/// `sorted`, `distinct`, `sectioned`) are the API; the requirement is Floe's own.
///
/// ```swift
/// let puppies = try person.dogs.where { $0.age < 2 }
/// ```
public protocol _ObjectResultsConvertible {
    /// The class of the objects queried.
    associatedtype _QueriedObject: Object
    /// The collection's objects as live results, in the collection's order.
    func _objectResults() throws(FloeError) -> Results<_QueriedObject>
}

extension _ObjectResultsConvertible {
    /// `_objectResults()` for a caller that knows the collection only as an existential.
    func _erasedObjectResults() throws(FloeError) -> Any { try _objectResults() }

    /// The collection's objects that match `predicate`: the one entry point every query front
    /// end (string predicates, the type-safe builder) uses.
    func filtered(by predicate: QueryPredicate) throws -> Results<_QueriedObject> {
        try _objectResults().filtered(by: predicate)
    }
}

extension Results {
    /// These results narrowed by a predicate tree (both must hold).
    func filtered(by predicate: QueryPredicate) throws -> Results<Element> {
        try narrowed((query ?? ResultsQuery()).filtered(by: predicate))
    }

    /// `filter(_:_:)` with its arguments as an array.
    func filter(_ predicateFormat: String, arguments: [Any]) throws -> Results<Element> {
        let predicate = try PredicateParser.parse(predicateFormat, arguments: arguments, className: Element.className())
        return try PredicateParser.locatingErrors(in: predicateFormat, arguments: arguments) { try filtered(by: predicate) }
    }

    /// These results ordered by the property a key path names (stable; nulls first ascending).
    ///
    /// ```swift
    /// let youngestFirst = try realm.objects(Dog.self).sorted(by: \.age)
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` when the key path is
    ///   not a persisted property of the class.
    public func sorted<T: _Persistable>(by keyPath: KeyPath<Element, T>, ascending: Bool = true) throws -> Results<Element> {
        try sorted(byKeyPath: KeyPathNames.name(of: keyPath), ascending: ascending)
    }

    /// These results without duplicates: of the objects with equal values at every key path
    /// (through to-one links), only the first in the current order stays.
    ///
    /// ```swift
    /// let oneDogPerName = try realm.objects(Dog.self).distinct(by: ["name", "owner.name"])
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` for a key path the
    ///   class does not have or that is not a single value.
    public func distinct<S: Sequence>(by keyPaths: S) throws -> Results<Element> where S.Element == String {
        try narrowed((query ?? ResultsQuery()).distinct(by: Array(keyPaths)))
    }
}

extension _ObjectResultsConvertible {
    /// The collection's objects matching a string predicate in Realm's dialect, as live
    /// results in the collection's order.
    ///
    /// ```swift
    /// let puppies = try person.dogs.filter("age < %@", 2)
    /// ```
    ///
    /// - Throws: ``FloeError/invalidPredicate(predicate:position:token:reason:)`` for a
    ///   malformed predicate, or a property the class does not have (naming the position and
    ///   token); ``FloeError/invalidOperation(className:detail:)`` for an unmanaged collection.
    public func filter(_ predicateFormat: String, _ args: Any...) throws -> Results<_QueriedObject> {
        try _objectResults().filter(predicateFormat, arguments: args)
    }

    /// The collection's objects ordered by one property (through to-one links), stable.
    ///
    /// ```swift
    /// let byAge = try person.dogs.sorted(byKeyPath: "age", ascending: false)
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` for a property the
    ///   class does not have; ``FloeError/invalidOperation(className:detail:)`` for an
    ///   unmanaged collection.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) throws -> Results<_QueriedObject> {
        try _objectResults().sorted(byKeyPath: keyPath, ascending: ascending)
    }

    /// The collection's objects ordered by several properties, the first deciding first.
    ///
    /// ```swift
    /// let ordered = try person.dogs.sorted(by: [Floe.SortDescriptor(keyPath: "age", ascending: false), "name"])
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` for a property the
    ///   class does not have; ``FloeError/invalidOperation(className:detail:)`` for an
    ///   unmanaged collection.
    public func sorted<S: Sequence>(by descriptors: S) throws -> Results<_QueriedObject> where S.Element == SortDescriptor {
        try _objectResults().sorted(by: descriptors)
    }

    /// The collection's objects ordered by the property a key path names.
    ///
    /// ```swift
    /// let youngestFirst = try person.dogs.sorted(by: \.age)
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` when the key path is
    ///   not a persisted property; ``FloeError/invalidOperation(className:detail:)`` for an
    ///   unmanaged collection.
    public func sorted<T: _Persistable>(by keyPath: KeyPath<_QueriedObject, T>, ascending: Bool = true) throws -> Results<_QueriedObject> {
        try _objectResults().sorted(by: keyPath, ascending: ascending)
    }

    /// The collection's objects without duplicates at `keyPaths`, the first of each group kept.
    ///
    /// ```swift
    /// let oneDogPerName = try person.dogs.distinct(by: ["name"])
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` for a key path the
    ///   class does not have; ``FloeError/invalidOperation(className:detail:)`` for an
    ///   unmanaged collection.
    public func distinct<S: Sequence>(by keyPaths: S) throws -> Results<_QueriedObject> where S.Element == String {
        try _objectResults().distinct(by: keyPaths)
    }
}

enum CollectionQuery {
    /// The live realm a managed collection reads, or why it cannot be queried.
    static func context(_ parent: ObjectBinding?, kind: String) throws(FloeError) -> (ObjectContext, ObjectBinding) {
        guard let parent else {
            throw .invalidOperation(className: kind, detail: "an unmanaged collection cannot be queried; add its object to a realm first")
        }
        guard let context = parent.source.liveContext else {
            throw .invalidOperation(className: kind, detail: "a frozen collection is queried through its frozen form (freeze() it)")
        }
        return (context, parent)
    }
}

extension List: _ObjectResultsConvertible where Element: Object {
    public func _objectResults() throws(FloeError) -> Results<Element> {
        let (context, parent) = try CollectionQuery.context(parent, kind: "List<\(Element.className())>")
        return Results(context: context, query: ResultsQuery(base: .collection(owner: parent.tableBinding.table, key: parent.key, column: column)))
    }
}

extension MutableSet: _ObjectResultsConvertible where Element: Object {
    public func _objectResults() throws(FloeError) -> Results<Element> {
        let (context, parent) = try CollectionQuery.context(parent, kind: "MutableSet<\(Element.className())>")
        return Results(context: context, query: ResultsQuery(base: .collection(owner: parent.tableBinding.table, key: parent.key, column: column)))
    }
}

extension LinkingObjects: _ObjectResultsConvertible where Element: Object {
    public func _objectResults() throws(FloeError) -> Results<Element> {
        let (context, parent) = try CollectionQuery.context(parent, kind: "LinkingObjects<\(Element.className())>")
        let schema = try SchemaDiscovery.schema(for: Element.self)
        guard let index = schema.propertyIndex(named: originProperty) else {
            throw .invalidKeyPath(className: schema.className, keyPath: originProperty, reason: "\(schema.className) has no property '\(originProperty)'")
        }
        // A class with no objects yet: its results are empty whatever the column.
        let column = try context.tableBinding(for: Element.self)?.columnOfProperty[index] ?? index
        return Results(context: context, query: ResultsQuery(base: .backlinks(column: column, target: parent.key)))
    }
}

extension AnyRealmCollection: _ObjectResultsConvertible where Element: Object {
    public func _objectResults() throws(FloeError) -> Results<Element> {
        if let results = base as? Results<Element> { return results }
        guard let convertible = base as? any _ObjectResultsConvertible,
              let results = try convertible._erasedObjectResults() as? Results<Element> else {
            throw .invalidOperation(className: Element.className(), detail: "this collection cannot be queried")
        }
        return results
    }
}

extension FrozenList where Element: Object {
    /// The list's objects as frozen results (for aggregates and queries at this version).
    func frozenResults() throws(FloeError) -> FrozenResults<Element> {
        try FrozenResults(snapshot: snapshot, query: ResultsQuery(base: .collection(owner: binding.table, key: key, column: column)))
    }
}

/// An optional model object: the element type of a map of objects (`Map<String, Dog?>`),
/// whose values can be queried and aggregated as objects.
///
/// ```swift
/// let heavy = try person.dogsByName.values.filter("weight > 30")
/// ```
public protocol _OptionalObject {
    /// The model class the optional holds.
    associatedtype _WrappedObject: Object
}

extension Optional: _OptionalObject where Wrapped: Object {
    public typealias _WrappedObject = Wrapped
}

extension MapValues: _ObjectResultsConvertible where Element: _OptionalObject {
    /// The map's objects (its null values left out), in key order, as live results.
    public func _objectResults() throws(FloeError) -> Results<Element._WrappedObject> {
        let (context, owner) = try CollectionQuery.context(owner, kind: "Map<String, \(Element._WrappedObject.className())?>")
        return Results(context: context, query: ResultsQuery(base: .collection(owner: owner.tableBinding.table, key: owner.key, column: column)))
    }
}

extension MapValues: _AggregatableObjects where Element: _OptionalObject {
    public typealias _AggregatedObject = Element._WrappedObject

    public func _aggregationSource() throws -> _AggregationSource {
        if let owner, let frozen = owner.source.frozenVersion {
            let results = try FrozenResults<Element._WrappedObject>(
                snapshot: frozen.snapshot, query: ResultsQuery(base: .collection(owner: owner.tableBinding.table, key: owner.key, column: column)))
            return try results._aggregationSource()
        }
        guard owner != nil else {
            return _AggregationSource(type: Element._WrappedObject.self, unmanaged: elements.compactMap { $0 as? Element._WrappedObject })
        }
        return try _objectResults()._aggregationSource()
    }
}
