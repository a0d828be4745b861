@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// The builder on maps (`keys`, `values`, `[key]`) and on mixed values (`[index]`, `[key]`, `any`).

/// Maps, for the builder's constraints on `Query<Map<String, V>>`.
public protocol _QueryMap {
    /// The map's key type.
    associatedtype Key
    /// The map's value type.
    associatedtype Value
}

extension Map: _QueryMap {}

extension Query {
    /// This key path with a subscript after it.
    func appendingStep<V>(_ step: QueryKeyPathComponent) -> Query<V> {
        switch node {
        case .keyPath(let path, let collection) where !path.components.isEmpty:
            return Query<V>(.keyPath(QueryKeyPath(path.components + [step]), collection: collection), className: className)
        case .invalid(let error): return Query<V>(.invalid(error), className: className)
        default: return Query<V>(.invalid(refusal(written, "\(QueryKeyPath([step])) applies to a map or a mixed property")), className: className)
        }
    }
}

extension Query where T: _QueryMap, T.Key == String {
    /// The map's keys: a comparison holds when it holds for any key.
    ///
    /// ```swift
    /// try dogs.where { $0.parksByCity.keys.starts(with: "New") }
    /// ```
    public var keys: Query<String> { appendingStep(.allKeys) }

    /// The map's values: a comparison holds when it holds for any value.
    ///
    /// ```swift
    /// try dogs.where { $0.parksByCity.values == "Central Park" }
    /// ```
    public var values: Query<T.Value> { appendingStep(.allValues) }

    /// The value for `key` (`nil` when the map has no such key).
    ///
    /// ```swift
    /// try dogs.where { $0.parksByCity["Paris"] == "Buttes-Chaumont" }
    /// ```
    public subscript(key: String) -> Query<T.Value> { appendingStep(.mapKey(key)) }

    /// The number of entries.
    ///
    /// ```swift
    /// try dogs.where { $0.parksByCity.count > 1 }
    /// ```
    public var count: Query<Int> { mapAggregate(.count) }

    func mapAggregate<V>(_ aggregate: QueryAggregate) -> Query<V> {
        switch node {
        case .keyPath(let path, _) where !path.components.isEmpty:
            return Query<V>(.computed(.aggregate(path, aggregate, of: []), collection: nil), className: className)
        case .invalid(let error): return Query<V>(.invalid(error), className: className)
        default: return Query<V>(.invalid(refusal(written, "\(aggregate.rawValue) needs a map")), className: className)
        }
    }

    /// Holds `value` among its values.
    ///
    /// ```swift
    /// try dogs.where { $0.parksByCity.contains("Central Park") }
    /// ```
    public func contains(_ value: T.Value) -> Query<Bool> where T.Value: _Persistable {
        comparison(.equal, value)
    }
}

extension Query where T: _QueryMap, T.Key == String, T.Value: _QueryMinMax {
    /// The smallest value (nil for an empty map, which no comparison matches).
    ///
    /// ```swift
    /// try shops.where { $0.pricesByItem.min >= 2 }
    /// ```
    public var min: Query<T.Value> { mapAggregate(.min) }

    /// The largest value (nil for an empty map).
    ///
    /// ```swift
    /// try shops.where { $0.pricesByItem.max < 100 }
    /// ```
    public var max: Query<T.Value> { mapAggregate(.max) }
}

extension Query where T: _QueryMap, T.Key == String, T.Value: _QueryNumeric {
    /// The sum of the values (0 for an empty map).
    ///
    /// ```swift
    /// try shops.where { $0.pricesByItem.sum > 50 }
    /// ```
    public var sum: Query<T.Value> { mapAggregate(.sum) }

    /// The mean of the values (nil for an empty map).
    ///
    /// ```swift
    /// try shops.where { $0.pricesByItem.avg > 9.5 }
    /// ```
    public var avg: Query<Double> { mapAggregate(.average) }
}

extension Query where T == AnyRealmValue {
    /// The element at `position` of a mixed list (`nil` when there is none).
    ///
    /// ```swift
    /// try dogs.where { $0.companion[0] == .string("ball") }
    /// ```
    public subscript(position: Int) -> Query<AnyRealmValue> { appendingStep(.index(position)) }

    /// The value for `key` in a mixed dictionary (`nil` when there is none).
    ///
    /// ```swift
    /// try dogs.where { $0.companion["kind"] == .string("cat") }
    /// ```
    public subscript(key: String) -> Query<AnyRealmValue> { appendingStep(.mapKey(key)) }

    /// Every element of a mixed list or dictionary: a comparison holds when it holds for any.
    ///
    /// ```swift
    /// try dogs.where { $0.companion.any == .int(3) }
    /// ```
    public var any: Query<AnyRealmValue> { appendingStep(.anyElement) }
}
