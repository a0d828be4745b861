@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// Realm's (and Swift's `Dictionary`'s) merging with a closure that settles each key present on
// both sides, and the lookups Realm's Map adds to subscripting.

extension Map {
    /// Adds every pair of `sequence`; where a key exists already (or repeats in `sequence`),
    /// `combine` is given the current and the new value and returns the one to keep.
    ///
    /// ```swift
    /// try await realm.write { realm in
    ///     let dog = realm.object(ofType: Dog.self, forPrimaryKey: 1)!
    ///     dog.visits.merge([("Central", 2), ("Hyde", 1)]) { old, new in old + new }
    /// }
    /// ```
    ///
    /// Keys are checked as by `updateValue`: a key with a `.` or a leading `$` makes the
    /// enclosing write throw `FloeError.invalidMapKey`. A throwing `combine` stops the merge
    /// (inside a write, throw it on to roll the write back).
    public func merge<S: Sequence>(_ sequence: S, uniquingKeysWith combine: (Value, Value) throws -> Value) rethrows
    where S.Element == (key: Key, value: Value) {
        var merged: [Key: Value] = [:]
        var order: [Key] = []
        for (key, value) in sequence {
            if let pending = merged[key] {
                merged[key] = try combine(pending, value)
            } else if let current = self[key] {
                merged[key] = try combine(current, value)
                order.append(key)
            } else {
                merged[key] = value
                order.append(key)
            }
        }
        // Written only once every value is settled: a throwing combine changes nothing.
        for key in order { updateValue(merged[key]!, forKey: key) }
    }

    /// Adds every pair of `sequence` given as unlabeled tuples, as `Dictionary.merge` takes them.
    ///
    /// ```swift
    /// dog.visits.merge([("Central", 2), ("Hyde", 1)]) { old, new in old + new }
    /// ```
    public func merge<S: Sequence>(_ sequence: S, uniquingKeysWith combine: (Value, Value) throws -> Value) rethrows
    where S.Element == (Key, Value) {
        try merge(sequence.map { (key: $0.0, value: $0.1) }, uniquingKeysWith: combine)
    }

    /// Adds every entry of `dictionary`, `combine` settling keys present on both sides.
    ///
    /// ```swift
    /// dog.visits.merge(["Central": 1]) { old, new in max(old, new) }
    /// ```
    public func merge(_ dictionary: [Key: Value], uniquingKeysWith combine: (Value, Value) throws -> Value) rethrows {
        try merge(dictionary.keys.sorted().map { (key: $0, value: dictionary[$0]!) }, uniquingKeysWith: combine)
    }

    /// Adds every entry of another map, `combine` settling keys present on both sides.
    ///
    /// ```swift
    /// dog.visits.merge(otherDog.visits) { old, new in old + new }
    /// ```
    public func merge(_ other: Map<Key, Value>, uniquingKeysWith combine: (Value, Value) throws -> Value) rethrows {
        try merge(Array(other), uniquingKeysWith: combine)
    }

    /// Whether the map has no entries.
    ///
    /// ```swift
    /// if dog.visits.isEmpty { print("never walked") }
    /// ```
    public var isEmpty: Bool { count == 0 }

    /// The value for `key`, or nil (Realm's name for the subscript).
    ///
    /// ```swift
    /// let central = dog.visits.value(forKey: "Central")
    /// ```
    public func value(forKey key: Key) -> Value? { self[key] }

    /// The entries as a sequence of key-value pairs (Realm's spelling of iterating the map).
    ///
    /// ```swift
    /// for (park, count) in dog.visits.asKeyValueSequence() { print(park, count) }
    /// ```
    public func asKeyValueSequence() -> [(key: Key, value: Value)] { Array(self) }
}
