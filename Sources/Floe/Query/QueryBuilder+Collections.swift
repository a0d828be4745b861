import Foundation
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// The builder on lists, sets and linking objects: their size, membership, and aggregates of
// their values or of a number property of their objects.

/// Numbers and dates: what `min` and `max` take in a query.
public protocol _QueryMinMax: _Persistable {}
/// Numbers: what `sum` and `avg` take in a query.
public protocol _QueryNumeric: _QueryMinMax {}

extension Int: _QueryNumeric {}
extension Int8: _QueryNumeric {}
extension Int16: _QueryNumeric {}
extension Int32: _QueryNumeric {}
extension Int64: _QueryNumeric {}
extension Float: _QueryNumeric {}
extension Double: _QueryNumeric {}
extension Decimal128: _QueryNumeric {}
extension Date: _QueryMinMax {}
extension Optional: _QueryMinMax where Wrapped: _QueryMinMax {}
extension Optional: _QueryNumeric where Wrapped: _QueryNumeric {}

extension Query where T: RealmCollection {
    /// The number of elements.
    ///
    /// ```swift
    /// try people.where { $0.dogs.count > 2 }
    /// ```
    public var count: Query<Int> { aggregated(.count, of: []) }

    /// Holds `element` (an object by identity, a value by equality).
    ///
    /// ```swift
    /// try people.where { $0.dogs.contains(rex) }
    /// try dogs.where { $0.tags.contains("friendly") }
    /// ```
    public func contains(_ element: T.Element) -> Query<Bool> where T.Element: _Persistable {
        comparison(.equal, element)
    }

    /// Holds at least one of `elements`.
    ///
    /// ```swift
    /// try dogs.where { $0.tags.containsAny(in: ["friendly", "calm"]) }
    /// ```
    public func containsAny<S: Sequence>(in elements: S) -> Query<Bool> where S.Element == T.Element, T.Element: _Persistable {
        condition { lhs in
            constants(elements).map { .comparison(QueryComparison(lhs: lhs, op: .in, rhs: $0)) }
        }
    }

    func aggregated<V>(_ aggregate: QueryAggregate, of property: [String]) -> Query<V> {
        switch node {
        case .keyPath(let path, _) where !path.components.isEmpty:
            return Query<V>(.computed(.aggregate(path, aggregate, of: property), collection: nil), className: className)
        case .invalid(let error): return Query<V>(.invalid(error), className: className)
        default: return Query<V>(.invalid(refusal(written, "\(aggregate.rawValue) needs a list or a set")), className: className)
        }
    }
}

extension Query where T: RealmCollection, T.Element: _QueryMinMax {
    /// The smallest value (nil for an empty collection, which no comparison matches).
    ///
    /// ```swift
    /// try players.where { $0.scores.min >= 10 }
    /// ```
    public var min: Query<T.Element> { aggregated(.min, of: []) }

    /// The largest value (nil for an empty collection).
    ///
    /// ```swift
    /// try players.where { $0.scores.max > 90 }
    /// ```
    public var max: Query<T.Element> { aggregated(.max, of: []) }
}

extension Query where T: RealmCollection, T.Element: _QueryNumeric {
    /// The sum of the values (0 for an empty collection).
    ///
    /// ```swift
    /// try players.where { $0.scores.sum > 100 }
    /// ```
    public var sum: Query<T.Element> { aggregated(.sum, of: []) }

    /// The mean of the values (nil for an empty collection).
    ///
    /// ```swift
    /// try players.where { $0.scores.avg > 50 }
    /// ```
    public var avg: Query<Double> { aggregated(.average, of: []) }
}

extension Query where T: _QueryMinMax {
    /// The smallest value of a property over the objects of a list, set or linking objects.
    ///
    /// ```swift
    /// try people.where { $0.dogs.age.min >= 2 }
    /// ```
    public var min: Query<T> { elementAggregate(.min) }

    /// The largest value of a property over the objects of a list, set or linking objects.
    ///
    /// ```swift
    /// try people.where { $0.dogs.age.max > 10 }
    /// ```
    public var max: Query<T> { elementAggregate(.max) }

    func elementAggregate<V>(_ aggregate: QueryAggregate) -> Query<V> {
        switch node {
        case .keyPath(let path, let collection?) where path.components.count > collection.components.count:
            var property: [String] = []
            for component in path.components.dropFirst(collection.components.count) {
                guard case .property(let name) = component else {
                    return Query<V>(.invalid(refusal(written, "\(aggregate.rawValue) takes a plain property of a list's or a set's objects")),
                                    className: className)
                }
                property.append(name)
            }
            return Query<V>(.computed(.aggregate(collection, aggregate, of: property), collection: nil), className: className)
        case .invalid(let error): return Query<V>(.invalid(error), className: className)
        default:
            return Query<V>(.invalid(refusal(written, "\(aggregate.rawValue) needs a property of a list's or a set's objects, such as $0.dogs.age")),
                            className: className)
        }
    }
}

extension Query where T: _QueryNumeric {
    /// The sum of a property over the objects of a list, set or linking objects (0 for none).
    ///
    /// ```swift
    /// try people.where { $0.dogs.age.sum > 20 }
    /// ```
    public var sum: Query<T> { elementAggregate(.sum) }

    /// The mean of a property over the objects of a list, set or linking objects (nil for none).
    ///
    /// ```swift
    /// try people.where { $0.dogs.age.avg > 4.5 }
    /// ```
    public var avg: Query<Double> { elementAggregate(.average) }
}
