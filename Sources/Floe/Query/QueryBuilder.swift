import Foundation
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// The type-safe query builder: `where { $0.age > 3 && $0.name.starts(with: "R") }`. It builds
// the same `QueryPredicate` the string parser builds, so both run on one evaluator; key paths
// are resolved to property names when the closure runs, and to columns when the query runs.

/// One side of a type-safe query: a property of the queried class (through links), a value
/// computed from one (`dogs.count`), or a condition (`Query<Bool>`).
///
/// You never make one: `where` hands the closure a `Query` of the class, and its properties,
/// operators and methods build the condition.
///
/// ```swift
/// let rexes = try realm.objects(Dog.self).where { $0.name == "Rex" && $0.age >= 2 }
/// let ownedByAda = try realm.objects(Dog.self).where { $0.owner.name.starts(with: "Ada") }
/// ```
@dynamicMemberLookup
public struct Query<T> {
    let node: QueryBuilderNode
    /// The queried class, for error messages.
    let className: String

    init(_ node: QueryBuilderNode, className: String) {
        self.node = node
        self.className = className
    }
}

// The member subscripts sit in extensions constrained by a protocol, `_QueryObject`, not by
// `T: ObjectBase` (on the subscript or on the extension): Swift does not enforce a superclass
// requirement of a dynamic member subscript when the base's type is still being inferred (a
// chain in a `where` closure), so `$0.birthday.timeIntervalSince1970` (a `Date`) compiled and
// reached schema discovery with a type that is no model class. A conformance requirement is
// enforced: a `Query` of a `Date`, a mapped struct or any other value has no members at all,
// as in Realm.

/// Model classes, for the builder's member lookup: every ``ObjectBase`` subclass, and nothing
/// else (see ``Query``). You never conform to it yourself.
///
/// ```swift
/// try realm.objects(Dog.self).where { $0.owner.name == "Ada" }   // Dog and Person are _QueryObjects
/// ```
public protocol _QueryObject: ObjectBase {}

extension ObjectBase: _QueryObject {}

extension Query where T: _QueryObject {
    /// A property of the queried class.
    ///
    /// ```swift
    /// try realm.objects(Dog.self).where { $0.age > 3 }
    /// ```
    public subscript<V>(dynamicMember member: KeyPath<T, V>) -> Query<V> {
        appending(property(member))
    }
}

extension Query where T: _QueryOptional, T.Wrapped: _QueryObject {
    /// A property of the object an optional link leads to (a null link matches only `nil`).
    ///
    /// ```swift
    /// try realm.objects(Dog.self).where { $0.owner.name == "Ada" }
    /// ```
    public subscript<V>(dynamicMember member: KeyPath<T.Wrapped, V>) -> Query<V> {
        appending(property(member))
    }
}

extension Query where T: RealmCollection, T.Element: _QueryObject {
    /// A property of the objects of a list, a set or linking objects: a comparison on it holds
    /// when it holds for any of them.
    ///
    /// ```swift
    /// try realm.objects(Person.self).where { $0.dogs.name == "Rex" }
    /// ```
    public subscript<V>(dynamicMember member: KeyPath<T.Element, V>) -> Query<V> {
        appending(property(member))
    }
}

extension Query {
    /// The persisted property `member` reads, or a typed error naming the queried class and the
    /// key path; a key path whose root is no model class (which the constraints above keep out)
    /// is refused here rather than handed to schema discovery.
    func property<Root: ObjectBase, V>(_ member: KeyPath<Root, V>) -> Result<PropertyPath, FloeError> {
        let root = Swift.type(of: member as AnyKeyPath).rootType
        guard Self.isModelClass(root) else {
            var step = KeyPathProbe.describe(member)
            if step.hasPrefix("\\\(root).") { step.removeFirst("\\\(root).".count) }
            let path = written.isEmpty ? step : "\(written).\(step)"
            return .failure(refusal(path, "\(root) is not a model class: a query reads the @Persisted properties of objects, not the members of a \(root)"))
        }
        return KeyPathProbe.path(of: member, for: .query)
    }

    /// Whether `type` is a model class: the root of a key path the builder was handed, checked
    /// at run time (kept from being folded away by the compiler, which takes the generic
    /// constraints on trust).
    @inline(never) @_optimize(none)
    static func isModelClass(_ type: Any.Type) -> Bool {
        type is ObjectBase.Type
    }
}

extension Query {
    func appending<V>(_ resolved: Result<PropertyPath, FloeError>) -> Query<V> {
        switch (node, resolved) {
        case (.invalid(let error), _), (_, .failure(let error)):
            return Query<V>(.invalid(error), className: className)
        case (.keyPath(let path, let collection), .success(let property)):
            let extended = QueryKeyPath(path.components + property.components.map { .property($0) })
            let throughMany = property.toManyPrefix.map { QueryKeyPath(path.components + property.components.prefix($0).map { .property($0) }) }
            return Query<V>(.keyPath(extended, collection: collection ?? throughMany), className: className)
        case (_, .success(let property)):
            return Query<V>(.invalid(refusal(property.dotted, "a computed value has no properties")), className: className)
        }
    }

    /// A typed error about this side of the query.
    func refusal(_ keyPath: String, _ reason: String) -> FloeError {
        .invalidKeyPath(className: className, keyPath: keyPath, reason: reason)
    }

    /// The query's text so far, for error messages.
    var written: String {
        switch node {
        case .keyPath(let path, _): return path.description
        case .computed(let expression, _): return "\(expression)"
        case .predicate(let predicate, _): return "\(predicate)"
        case .invalid: return ""
        }
    }
}

/// What a builder expression stands for before it becomes part of a ``QueryPredicate``.
enum QueryBuilderNode {
    /// A key path; `collection` is its prefix through its first to-many hop (nil: none).
    case keyPath(QueryKeyPath, collection: QueryKeyPath?)
    /// A value computed per object: an aggregate or a subquery's count.
    case computed(QueryExpression, collection: QueryKeyPath?)
    /// A condition; `collections` are the to-many prefixes its key paths go through (what
    /// `.count` turns into a subquery).
    case predicate(QueryPredicate, collections: Set<QueryKeyPath>)
    /// A mistake found while building (a key path naming no persisted property, a value Floe
    /// cannot store); `where` throws it.
    case invalid(FloeError)
}

/// Optionals, for the builder's constraints on `Query<T?>`.
public protocol _QueryOptional {
    /// The type inside the optional.
    associatedtype Wrapped
}

extension Optional: _QueryOptional {}

/// Realm's string comparison options for the builder's string methods.
///
/// ```swift
/// try dogs.where { $0.name.starts(with: "r", options: [.caseInsensitive, .diacriticInsensitive]) }
/// ```
public struct StringOptions: OptionSet, Sendable {
    /// The options' bits: 1 case-insensitive, 2 diacritic-insensitive.
    public let rawValue: Int8

    /// Makes options from their raw bits.
    public init(rawValue: Int8) { self.rawValue = rawValue }

    /// `"rex"` matches `"Rex"` (Unicode case folding, not Latin only).
    public static let caseInsensitive = StringOptions(rawValue: 1)
    /// `"ele"` matches `"élé"`.
    public static let diacriticInsensitive = StringOptions(rawValue: 2)

    var predicateOptions: QueryStringOptions {
        var options: QueryStringOptions = []
        if contains(.caseInsensitive) { options.insert(.caseInsensitive) }
        if contains(.diacriticInsensitive) { options.insert(.diacriticInsensitive) }
        return options
    }
}

extension Query {
    /// This side as an expression of a comparison.
    var expression: Result<(QueryExpression, collection: QueryKeyPath?), FloeError> {
        switch node {
        case .keyPath(let path, let collection):
            guard !path.components.isEmpty else { return .failure(refusal(className, "compare a property of the object, not the object itself")) }
            return .success((.keyPath(path), collection))
        case .computed(let expression, let collection): return .success((expression, collection))
        case .predicate: return .failure(refusal(written, "a condition is not a value to compare"))
        case .invalid(let error): return .failure(error)
        }
    }

    /// A value in stored form, or the error naming it.
    func constant(_ value: Any) -> Result<Value, FloeError> {
        guard let stored = QueryArgument.value(of: value) else {
            let reason = value is ObjectBase ? "the object to compare with is not managed by a realm" : "\(type(of: value)) is not a value Floe stores"
            return .failure(refusal(written, reason))
        }
        return .success(stored)
    }

    /// `self op value`.
    func comparison(_ op: QueryOperator, _ value: Any, options: QueryStringOptions = []) -> Query<Bool> {
        condition { lhs in
            switch constant(value) {
            case .success(let stored):
                return .success(.comparison(QueryComparison(lhs: lhs, op: op, rhs: .constant(stored), options: options)))
            case .failure(let error): return .failure(error)
            }
        }
    }

    /// A condition on this side; carries this side's to-many prefix along.
    func condition(_ make: (QueryExpression) -> Result<QueryPredicate, FloeError>) -> Query<Bool> {
        switch expression {
        case .failure(let error): return Query<Bool>(.invalid(error), className: className)
        case .success(let (lhs, collection)):
            switch make(lhs) {
            case .failure(let error): return Query<Bool>(.invalid(error), className: className)
            case .success(let predicate):
                return Query<Bool>(.predicate(predicate, collections: collection.map { [$0] } ?? []), className: className)
            }
        }
    }

    /// `self op other`: two properties compared, object by object.
    func comparison(_ op: QueryOperator, to other: Query<T>) -> Query<Bool> {
        switch (expression, other.expression) {
        case (.failure(let error), _), (_, .failure(let error)): return Query<Bool>(.invalid(error), className: className)
        case (.success(let (lhs, leftCollection)), .success(let (rhs, rightCollection))):
            let collections = Set([leftCollection, rightCollection].compactMap { $0 })
            return Query<Bool>(.predicate(.comparison(QueryComparison(lhs: lhs, op: op, rhs: rhs)), collections: collections), className: className)
        }
    }

    /// A list of constants (for `IN`), or the first that Floe cannot store.
    func constants<S: Sequence>(_ values: S) -> Result<QueryExpression, FloeError> {
        var list: [QueryExpression] = []
        for value in values {
            switch constant(value) {
            case .success(let stored): list.append(.constant(stored))
            case .failure(let error): return .failure(error)
            }
        }
        return .success(.list(list))
    }
}

// MARK: Comparisons

extension Query where T: _Persistable {
    /// Equal: numbers across kinds, strings exactly, `nil` only to `nil`, objects by identity.
    ///
    /// ```swift
    /// try dogs.where { $0.name == "Rex" && $0.owner == nil }
    /// ```
    public static func == (lhs: Query<T>, rhs: T) -> Query<Bool> { lhs.comparison(.equal, rhs) }

    /// Not equal (`nil` differs from every value).
    ///
    /// ```swift
    /// try dogs.where { $0.nickname != nil }
    /// ```
    public static func != (lhs: Query<T>, rhs: T) -> Query<Bool> { lhs.comparison(.notEqual, rhs) }

    /// Two properties equal (`nil` only to `nil`).
    ///
    /// ```swift
    /// try dogs.where { $0.age == $0.owner.age }
    /// ```
    public static func == (lhs: Query<T>, rhs: Query<T>) -> Query<Bool> { lhs.comparison(.equal, to: rhs) }

    /// Two properties not equal.
    ///
    /// ```swift
    /// try dogs.where { $0.name != $0.owner.name }
    /// ```
    public static func != (lhs: Query<T>, rhs: Query<T>) -> Query<Bool> { lhs.comparison(.notEqual, to: rhs) }

    /// Equal to one of `values`.
    ///
    /// ```swift
    /// try dogs.where { $0.age.in([1, 3, 5]) }
    /// ```
    public func `in`<S: Sequence>(_ values: S) -> Query<Bool> where S.Element == T {
        condition { lhs in
            constants(values).map { .comparison(QueryComparison(lhs: lhs, op: .in, rhs: $0)) }
        }
    }
}

/// Values the builder orders with `<`, `<=`, `>`, `>=` and ranges: numbers, dates, strings,
/// object ids, and optionals of them (`nil` is neither less nor greater than anything).
public protocol _QueryComparable: _Persistable {
    /// The non-optional type, for ranges.
    associatedtype _QueryBound: Comparable
}

extension Int: _QueryComparable { public typealias _QueryBound = Int }
extension Int8: _QueryComparable { public typealias _QueryBound = Int8 }
extension Int16: _QueryComparable { public typealias _QueryBound = Int16 }
extension Int32: _QueryComparable { public typealias _QueryBound = Int32 }
extension Int64: _QueryComparable { public typealias _QueryBound = Int64 }
extension Float: _QueryComparable { public typealias _QueryBound = Float }
extension Double: _QueryComparable { public typealias _QueryBound = Double }
extension Date: _QueryComparable { public typealias _QueryBound = Date }
extension String: _QueryComparable { public typealias _QueryBound = String }
extension Decimal128: _QueryComparable { public typealias _QueryBound = Decimal128 }
extension ObjectId: _QueryComparable { public typealias _QueryBound = ObjectId }
extension Optional: _QueryComparable where Wrapped: _QueryComparable & Comparable {
    public typealias _QueryBound = Wrapped
}

extension Query where T: _QueryComparable {
    /// Less than (`nil` never is).
    ///
    /// ```swift
    /// try dogs.where { $0.age < 3 }
    /// ```
    public static func < (lhs: Query<T>, rhs: T) -> Query<Bool> { lhs.comparison(.less, rhs) }

    /// Less than or equal.
    ///
    /// ```swift
    /// try dogs.where { $0.age <= 3 }
    /// ```
    public static func <= (lhs: Query<T>, rhs: T) -> Query<Bool> { lhs.comparison(.lessOrEqual, rhs) }

    /// Greater than (`nil` never is).
    ///
    /// ```swift
    /// try dogs.where { $0.weight > 20.5 }
    /// ```
    public static func > (lhs: Query<T>, rhs: T) -> Query<Bool> { lhs.comparison(.greater, rhs) }

    /// Greater than or equal.
    ///
    /// ```swift
    /// try dogs.where { $0.age >= 3 }
    /// ```
    public static func >= (lhs: Query<T>, rhs: T) -> Query<Bool> { lhs.comparison(.greaterOrEqual, rhs) }

    /// One property less than another (`nil` never is).
    ///
    /// ```swift
    /// try dogs.where { $0.age < $0.owner.age }
    /// ```
    public static func < (lhs: Query<T>, rhs: Query<T>) -> Query<Bool> { lhs.comparison(.less, to: rhs) }

    /// One property less than or equal to another.
    ///
    /// ```swift
    /// try dogs.where { $0.age <= $0.owner.age }
    /// ```
    public static func <= (lhs: Query<T>, rhs: Query<T>) -> Query<Bool> { lhs.comparison(.lessOrEqual, to: rhs) }

    /// One property greater than another (`nil` never is).
    ///
    /// ```swift
    /// try dogs.where { $0.age > $0.owner.age }
    /// ```
    public static func > (lhs: Query<T>, rhs: Query<T>) -> Query<Bool> { lhs.comparison(.greater, to: rhs) }

    /// One property greater than or equal to another.
    ///
    /// ```swift
    /// try dogs.where { $0.age >= $0.owner.age }
    /// ```
    public static func >= (lhs: Query<T>, rhs: Query<T>) -> Query<Bool> { lhs.comparison(.greaterOrEqual, to: rhs) }

    /// Within a closed range, both ends included (`BETWEEN`).
    ///
    /// ```swift
    /// try dogs.where { $0.age.contains(2...6) }
    /// ```
    public func contains(_ range: ClosedRange<T._QueryBound>) -> Query<Bool> {
        condition { lhs in
            guard case .success(let low) = constant(range.lowerBound), case .success(let high) = constant(range.upperBound) else {
                return .failure(refusal(written, "\(T._QueryBound.self) is not a value Floe stores"))
            }
            return .success(.between(lhs, low: .constant(low), high: .constant(high), quantifier: .any))
        }
    }

    /// Within a half-open range: at least its lower bound and less than its upper bound.
    ///
    /// ```swift
    /// try dogs.where { $0.age.contains(2..<6) }
    /// ```
    public func contains(_ range: Range<T._QueryBound>) -> Query<Bool> {
        condition { lhs in
            guard case .success(let low) = constant(range.lowerBound), case .success(let high) = constant(range.upperBound) else {
                return .failure(refusal(written, "\(T._QueryBound.self) is not a value Floe stores"))
            }
            return .success(.and([.comparison(QueryComparison(lhs: lhs, op: .greaterOrEqual, rhs: .constant(low))),
                                  .comparison(QueryComparison(lhs: lhs, op: .less, rhs: .constant(high)))]))
        }
    }
}

// MARK: Strings

/// Strings and optional strings, for the builder's string methods.
public protocol _QueryString: _Persistable {}

extension String: _QueryString {}
extension Optional: _QueryString where Wrapped: _QueryString {}

extension Query where T: _QueryString {
    /// Contains `value` (an empty string is in every string).
    ///
    /// ```swift
    /// try dogs.where { $0.name.contains("ex", options: .caseInsensitive) }
    /// ```
    public func contains(_ value: String, options: StringOptions = []) -> Query<Bool> {
        comparison(.contains, value, options: options.predicateOptions)
    }

    /// Starts with `value`.
    ///
    /// ```swift
    /// try dogs.where { $0.name.starts(with: "R") }
    /// ```
    public func starts(with value: String, options: StringOptions = []) -> Query<Bool> {
        comparison(.beginsWith, value, options: options.predicateOptions)
    }

    /// Ends with `value`.
    ///
    /// ```swift
    /// try dogs.where { $0.name.ends(with: "x") }
    /// ```
    public func ends(with value: String, options: StringOptions = []) -> Query<Bool> {
        comparison(.endsWith, value, options: options.predicateOptions)
    }

    /// Equal to `value` under `options`.
    ///
    /// ```swift
    /// try dogs.where { $0.name.equals("élan", options: [.caseInsensitive, .diacriticInsensitive]) }
    /// ```
    public func equals(_ value: String, options: StringOptions = []) -> Query<Bool> {
        comparison(.equal, value, options: options.predicateOptions)
    }

    /// Not equal to `value` under `options`.
    ///
    /// ```swift
    /// try dogs.where { $0.name.notEquals("rex", options: .caseInsensitive) }
    /// ```
    public func notEquals(_ value: String, options: StringOptions = []) -> Query<Bool> {
        comparison(.notEqual, value, options: options.predicateOptions)
    }

    /// Matches a wildcard pattern: `?` is one character, `*` any run of characters.
    ///
    /// ```swift
    /// try dogs.where { $0.name.like("R?x*", caseInsensitive: true) }
    /// ```
    public func like(_ pattern: String, caseInsensitive: Bool = false) -> Query<Bool> {
        comparison(.like, pattern, options: caseInsensitive ? .caseInsensitive : [])
    }
}
