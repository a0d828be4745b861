@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// A list, set or map of values compared with one value: the condition holds when any element
// (a map: any value) meets it, as in Realm (`$0.scores > 1000`, `$0.tags == "blue"`).

extension Query where T: RealmCollection, T.Element: _Persistable {
    /// Any element equals `value`.
    ///
    /// ```swift
    /// try dogs.where { $0.tags == "blue" }
    /// ```
    public static func == (lhs: Query<T>, rhs: T.Element) -> Query<Bool> { lhs.comparison(.equal, rhs) }

    /// Any element differs from `value`.
    ///
    /// ```swift
    /// try dogs.where { $0.tags != "blue" }
    /// ```
    public static func != (lhs: Query<T>, rhs: T.Element) -> Query<Bool> { lhs.comparison(.notEqual, rhs) }
}

extension Query where T: RealmCollection, T.Element: _QueryComparable {
    /// Any element is less than `value`.
    ///
    /// ```swift
    /// try players.where { $0.scores < 10 }
    /// ```
    public static func < (lhs: Query<T>, rhs: T.Element) -> Query<Bool> { lhs.comparison(.less, rhs) }

    /// Any element is less than or equal to `value`.
    ///
    /// ```swift
    /// try players.where { $0.scores <= 10 }
    /// ```
    public static func <= (lhs: Query<T>, rhs: T.Element) -> Query<Bool> { lhs.comparison(.lessOrEqual, rhs) }

    /// Any element is greater than `value`.
    ///
    /// ```swift
    /// try players.where { $0.scores > 1000 }
    /// ```
    public static func > (lhs: Query<T>, rhs: T.Element) -> Query<Bool> { lhs.comparison(.greater, rhs) }

    /// Any element is greater than or equal to `value`.
    ///
    /// ```swift
    /// try players.where { $0.scores >= 1000 }
    /// ```
    public static func >= (lhs: Query<T>, rhs: T.Element) -> Query<Bool> { lhs.comparison(.greaterOrEqual, rhs) }
}

extension Query where T: _QueryMap, T.Key == String, T.Value: _Persistable {
    /// Any value of the map equals `value`.
    ///
    /// ```swift
    /// try dogs.where { $0.parksByCity == "Central Park" }
    /// ```
    public static func == (lhs: Query<T>, rhs: T.Value) -> Query<Bool> { lhs.values.comparison(.equal, rhs) }

    /// Any value of the map differs from `value`.
    ///
    /// ```swift
    /// try dogs.where { $0.parksByCity != "Central Park" }
    /// ```
    public static func != (lhs: Query<T>, rhs: T.Value) -> Query<Bool> { lhs.values.comparison(.notEqual, rhs) }
}

extension Query where T: _QueryMap, T.Key == String, T.Value: _QueryComparable {
    /// Any value of the map is less than `value`.
    ///
    /// ```swift
    /// try shops.where { $0.prices < 10 }
    /// ```
    public static func < (lhs: Query<T>, rhs: T.Value) -> Query<Bool> { lhs.values.comparison(.less, rhs) }

    /// Any value of the map is less than or equal to `value`.
    ///
    /// ```swift
    /// try shops.where { $0.prices <= 10 }
    /// ```
    public static func <= (lhs: Query<T>, rhs: T.Value) -> Query<Bool> { lhs.values.comparison(.lessOrEqual, rhs) }

    /// Any value of the map is greater than `value`.
    ///
    /// ```swift
    /// try shops.where { $0.prices > 100 }
    /// ```
    public static func > (lhs: Query<T>, rhs: T.Value) -> Query<Bool> { lhs.values.comparison(.greater, rhs) }

    /// Any value of the map is greater than or equal to `value`.
    ///
    /// ```swift
    /// try shops.where { $0.prices >= 100 }
    /// ```
    public static func >= (lhs: Query<T>, rhs: T.Value) -> Query<Bool> { lhs.values.comparison(.greaterOrEqual, rhs) }
}

extension Query where T == AnyRealmValue {
    /// Less than, by the one order of values: numbers of every kind by value, strings by
    /// Swift's order; values of kinds that do not compare never match.
    ///
    /// ```swift
    /// try items.where { $0.value < .int(10) }
    /// ```
    public static func < (lhs: Query<T>, rhs: T) -> Query<Bool> { lhs.comparison(.less, rhs) }

    /// Less than or equal, by the one order of values.
    ///
    /// ```swift
    /// try items.where { $0.value <= .double(9.5) }
    /// ```
    public static func <= (lhs: Query<T>, rhs: T) -> Query<Bool> { lhs.comparison(.lessOrEqual, rhs) }

    /// Greater than, by the one order of values.
    ///
    /// ```swift
    /// try items.where { $0.value > .int(1) }
    /// ```
    public static func > (lhs: Query<T>, rhs: T) -> Query<Bool> { lhs.comparison(.greater, rhs) }

    /// Greater than or equal, by the one order of values.
    ///
    /// ```swift
    /// try items.where { $0.value >= .decimal128(1) }
    /// ```
    public static func >= (lhs: Query<T>, rhs: T) -> Query<Bool> { lhs.comparison(.greaterOrEqual, rhs) }
}
