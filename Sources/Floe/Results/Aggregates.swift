import Foundation
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// What an aggregate runs over: the objects of one class that a collection holds now. Part of
/// how Floe's collections share their aggregates; not for use outside Floe.
public struct _AggregationSource {
    let type: ObjectBase.Type
    let binding: TableBinding?
    let reader: (any VersionReading)?
    /// The objects' keys, or nil for every object of the table (then aggregates run over
    /// whole columns).
    let keys: [Int64]?
    /// An unmanaged collection's objects, read from their own fields.
    let unmanaged: [ObjectBase]?

    init(type: ObjectBase.Type, binding: TableBinding?, reader: (any VersionReading)?, keys: [Int64]?) {
        self.type = type
        self.binding = binding
        self.reader = reader
        self.keys = keys
        unmanaged = nil
    }

    init(type: ObjectBase.Type, unmanaged: [ObjectBase]) {
        self.type = type
        binding = nil
        reader = nil
        keys = nil
        self.unmanaged = unmanaged
    }

    /// Refuses a Swift result type that cannot hold the aggregate of `name` (a `String` asked
    /// for the sum of an Int property), instead of answering a default value.
    func checkResult<T: _Persistable>(_ operation: Aggregation.Operation, _ name: String, as _: T.Type) throws(FloeError) {
        let schema = try SchemaDiscovery.schema(for: type)
        guard let index = schema.propertyIndex(named: name) else { return }   // compute() names the missing property
        let source = schema.properties[index].type.columnType
        let wanted = T._floeType.columnType
        let numeric: Set<ColumnType> = [.int, .float, .double, .decimal128]
        let fits = numeric.contains(source) ? numeric.contains(wanted) : (source == .timestamp ? wanted == .timestamp : true)
        guard fits else {
            throw .invalidKeyPath(className: schema.className, keyPath: name,
                                  reason: "the \(operation.rawValue) of '\(name)' (\(schema.properties[index].type.swiftName)) cannot be read as \(T._floeType.swiftName)")
        }
    }

    /// An aggregate of `name` as `T`; an error when `T` cannot hold it.
    func decode<T: _Persistable>(_ value: Value, _ operation: Aggregation.Operation, _ name: String, as _: T.Type) throws(FloeError) -> T {
        try Aggregation.decode(value, as: T.self, className: type.className(), property: name, operation: operation)
    }

    func compute(_ operation: Aggregation.Operation, _ name: String) throws(FloeError) -> Value {
        guard let unmanaged else { return try Aggregation.compute(operation, property: name, of: type, binding: binding, reader: reader, keys: keys) }
        let schema = try SchemaDiscovery.schema(for: type)
        guard let index = schema.propertyIndex(named: name) else {
            throw .invalidKeyPath(className: schema.className, keyPath: name, reason: "\(schema.className) has no property '\(name)'")
        }
        let type = schema.properties[index].type
        guard type.collection == .single, !schema.properties[index].isComputed else {
            throw .invalidKeyPath(className: schema.className, keyPath: name, reason: "\(operation.rawValue) needs a single value, and '\(name)' is \(type.swiftName)")
        }
        let values = unmanaged.map { schema.accessors[index].unmanagedValue($0).value }
        do {
            return try Aggregation.compute(operation, values: values, type: type.columnType, kind: schema.className)
        } catch {
            throw .invalidKeyPath(className: schema.className, keyPath: name,
                                  reason: "\(operation.rawValue) needs an Int, Float, Double, Decimal128 or Date property, and '\(name)' is \(type.swiftName)")
        }
    }
}

/// A collection of objects that computes `min`, `max`, `sum` and `average` of their properties:
/// `Results`, `List`, `MutableSet`, `LinkingObjects`, `AnyRealmCollection` and their frozen forms.
///
/// ```swift
/// func oldest<C: _AggregatableObjects>(_ dogs: C) throws -> Int? where C._AggregatedObject == Dog {
///     try dogs.max(ofProperty: "age")
/// }
/// ```
public protocol _AggregatableObjects {
    /// The class of the objects aggregated.
    associatedtype _AggregatedObject: Object
    /// The objects as they are now.
    func _aggregationSource() throws -> _AggregationSource
}

extension _AggregatableObjects {
    /// The smallest value of a property (Int, Float, Double, Decimal128 or Date) over the
    /// objects, nulls skipped; nil when there are none.
    ///
    /// ```swift
    /// let youngest: Int? = try dogs.min(ofProperty: "age")
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` when the class has no
    ///   such property or its type has no minimum.
    public func min<T: _Persistable>(ofProperty property: String) throws -> T? {
        try optional(.min, property)
    }

    /// The largest value of a property (Int, Float, Double, Decimal128 or Date) over the
    /// objects, nulls skipped; nil when there are none.
    ///
    /// ```swift
    /// let latest: Date? = try dogs.max(ofProperty: "birthday")
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` when the class has no
    ///   such property or its type has no maximum.
    public func max<T: _Persistable>(ofProperty property: String) throws -> T? {
        try optional(.max, property)
    }

    /// The sum of a numeric property (Int, Float, Double or Decimal128) over the objects,
    /// nulls skipped; 0 when there are none.
    ///
    /// ```swift
    /// let totalAge: Int = try dogs.sum(ofProperty: "age")
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` when the class has no
    ///   such property or it is not numeric.
    public func sum<T: _Persistable>(ofProperty property: String) throws -> T {
        let source = try _aggregationSource()
        try source.checkResult(.sum, property, as: T.self)
        return try source.decode(try source.compute(.sum, property), .sum, property, as: T.self)
    }

    /// The mean of a numeric property (Int, Float, Double or Decimal128) over the objects,
    /// nulls skipped; nil when there are none.
    ///
    /// ```swift
    /// let meanAge: Double? = try dogs.average(ofProperty: "age")
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` when the class has no
    ///   such property or it is not numeric.
    public func average<T: _Persistable>(ofProperty property: String) throws -> T? {
        try optional(.average, property)
    }

    /// The smallest value of the property a key path names; nil when there are no values.
    ///
    /// ```swift
    /// let youngest = try dogs.min(of: \.age)
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` when the key path is
    ///   not a persisted property of the class, or its type has no minimum.
    public func min<T: _Persistable>(of keyPath: KeyPath<_AggregatedObject, T>) throws -> T? {
        try optional(.min, KeyPathNames.name(of: keyPath))
    }

    /// The largest value of the property a key path names; nil when there are no values.
    ///
    /// ```swift
    /// let oldest = try dogs.max(of: \.age)
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` when the key path is
    ///   not a persisted property of the class, or its type has no maximum.
    public func max<T: _Persistable>(of keyPath: KeyPath<_AggregatedObject, T>) throws -> T? {
        try optional(.max, KeyPathNames.name(of: keyPath))
    }

    /// The sum of the numeric property a key path names; 0 when there are no values.
    ///
    /// ```swift
    /// let totalAge = try dogs.sum(of: \.age)
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` when the key path is
    ///   not a persisted numeric property of the class.
    public func sum<T: _Persistable>(of keyPath: KeyPath<_AggregatedObject, T>) throws -> T {
        let source = try _aggregationSource(), property = try KeyPathNames.name(of: keyPath)
        return try source.decode(try source.compute(.sum, property), .sum, property, as: T.self)
    }

    /// The mean of the numeric property a key path names, in its own type; nil when there
    /// are no values.
    ///
    /// ```swift
    /// let meanWeight = try dogs.average(of: \.weight)
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` when the key path is
    ///   not a persisted numeric property of the class.
    public func average<T: _Persistable>(of keyPath: KeyPath<_AggregatedObject, T>) throws -> T? {
        try optional(.average, KeyPathNames.name(of: keyPath))
    }

    private func optional<T: _Persistable>(_ operation: Aggregation.Operation, _ property: String) throws -> T? {
        let source = try _aggregationSource()
        try source.checkResult(operation, property, as: T.self)
        let value = try source.compute(operation, property)
        return value == .null ? nil : try source.decode(value, operation, property, as: T.self)
    }
}

extension Results: _AggregatableObjects {
    public typealias _AggregatedObject = Element

    public func _aggregationSource() throws -> _AggregationSource {
        guard let binding = try context.tableBinding(for: elementType) else {
            return _AggregationSource(type: elementType, binding: nil, reader: nil, keys: [])
        }
        let reader = try context.currentReader()
        let keys = try query.map { query throws(FloeError) in
            try query.keys(in: binding, reader: reader) { (type) throws(FloeError) in try context.tableBinding(for: type) }
        }
        return _AggregationSource(type: elementType, binding: binding, reader: reader, keys: keys)
    }
}

extension FrozenResults: _AggregatableObjects {
    public typealias _AggregatedObject = Element

    public func _aggregationSource() throws -> _AggregationSource {
        guard let binding = try FrozenSource.binding(for: elementType, in: snapshot) else {
            return _AggregationSource(type: elementType, binding: nil, reader: nil, keys: [])
        }
        let keys = try query.map { query throws(FloeError) in
            try query.keys(in: binding, reader: snapshot) { (type) throws(FloeError) in try FrozenSource.binding(for: type, in: snapshot) }
        }
        return _AggregationSource(type: elementType, binding: binding, reader: snapshot, keys: keys)
    }
}

extension List: _AggregatableObjects where Element: Object {
    public typealias _AggregatedObject = Element

    public func _aggregationSource() throws -> _AggregationSource {
        guard parent != nil || nested != nil else { return _AggregationSource(type: Element.self, unmanaged: Array(self)) }
        return try _objectResults()._aggregationSource()
    }
}

extension MutableSet: _AggregatableObjects where Element: Object {
    public typealias _AggregatedObject = Element

    public func _aggregationSource() throws -> _AggregationSource {
        guard parent != nil else { return _AggregationSource(type: Element.self, unmanaged: Array(self)) }
        return try _objectResults()._aggregationSource()
    }
}

extension LinkingObjects: _AggregatableObjects where Element: Object {
    public typealias _AggregatedObject = Element

    public func _aggregationSource() throws -> _AggregationSource {
        guard parent != nil else { return _AggregationSource(type: Element.self, binding: nil, reader: nil, keys: []) }
        return try _objectResults()._aggregationSource()
    }
}

extension FrozenList: _AggregatableObjects where Element: Object {
    public typealias _AggregatedObject = Element

    public func _aggregationSource() throws -> _AggregationSource {
        try frozenResults()._aggregationSource()
    }
}

extension FrozenSet: _AggregatableObjects where Element: Object {
    public typealias _AggregatedObject = Element

    public func _aggregationSource() throws -> _AggregationSource {
        try elements.frozenResults()._aggregationSource()
    }
}

extension AnyRealmCollection: _AggregatableObjects where Element: Object {
    public typealias _AggregatedObject = Element

    public func _aggregationSource() throws -> _AggregationSource {
        guard let queryable = base as? any _AggregatableObjects else {
            throw FloeError.invalidOperation(className: Element.className(), detail: "this collection cannot be aggregated")
        }
        return try queryable._aggregationSource()
    }
}

// MARK: Collections of values

/// A type whose values have a minimum and a maximum (numbers and dates), as Realm names it.
///
/// ```swift
/// let earliest = dog.vetVisits.min()   // List<Date>
/// ```
public protocol MinMaxType: _Persistable {}

/// A type whose values add up (numbers), as Realm names it.
///
/// ```swift
/// let total = dog.scores.sum()   // List<Int>
/// ```
public protocol AddableType: MinMaxType {}

extension Int: AddableType {}
extension Int8: AddableType {}
extension Int16: AddableType {}
extension Int32: AddableType {}
extension Int64: AddableType {}
extension Float: AddableType {}
extension Double: AddableType {}
extension Decimal128: AddableType {}
extension Date: MinMaxType {}
extension Optional: MinMaxType where Wrapped: MinMaxType {}
extension Optional: AddableType where Wrapped: AddableType {}

extension List where Element: MinMaxType {
    /// The smallest element, nulls skipped; nil when there is none.
    ///
    /// ```swift
    /// let lowest = dog.scores.min()
    /// ```
    public func min() -> Element? { Aggregation.optional(.min, storedValues, Element.self) }

    /// The largest element, nulls skipped; nil when there is none.
    ///
    /// ```swift
    /// let highest = dog.scores.max()
    /// ```
    public func max() -> Element? { Aggregation.optional(.max, storedValues, Element.self) }

    /// The elements as stored (a managed list read once).
    var storedValues: [Value] {
        guard let parent, nested == nil else { return map { List.nestedValue($0).value } }
        do {
            return try parent.source.currentReader().collectionElements(in: parent.tableBinding.table, key: parent.key, column: column)
        } catch {
            return parent.source.readFailed(error, reading: ManagedCollection.name(parent, column), placeholder: [])
        }
    }
}

extension List where Element: AddableType {
    /// The sum of the elements, nulls skipped; 0 for none.
    ///
    /// ```swift
    /// let total = dog.scores.sum()
    /// ```
    public func sum() -> Element { Aggregation.optional(.sum, storedValues, Element.self, elementType: Element.self, owner: parent, column: column) ?? Aggregation.zero(Element.self) }

    /// The mean of the elements as `T`, nulls skipped; nil when there is none.
    ///
    /// ```swift
    /// let mean: Double? = dog.scores.average()
    /// ```
    public func average<T: _Persistable>() -> T? { Aggregation.optional(.average, storedValues, T.self, elementType: Element.self, owner: parent, column: column) }
}

extension MutableSet where Element: MinMaxType {
    /// The smallest element, nulls skipped; nil when there is none.
    ///
    /// ```swift
    /// let lowest = dog.luckyNumbers.min()
    /// ```
    public func min() -> Element? { Aggregation.optional(.min, storedValues, Element.self) }

    /// The largest element, nulls skipped; nil when there is none.
    ///
    /// ```swift
    /// let highest = dog.luckyNumbers.max()
    /// ```
    public func max() -> Element? { Aggregation.optional(.max, storedValues, Element.self) }

    var storedValues: [Value] {
        guard let parent else { return map(\._floeEncoded.value) }
        do {
            return try parent.source.currentReader().collectionElements(in: parent.tableBinding.table, key: parent.key, column: column)
        } catch {
            return parent.source.readFailed(error, reading: ManagedCollection.name(parent, column), placeholder: [])
        }
    }
}

extension MutableSet where Element: AddableType {
    /// The sum of the elements, nulls skipped; 0 for none.
    ///
    /// ```swift
    /// let total = dog.luckyNumbers.sum()
    /// ```
    public func sum() -> Element { Aggregation.optional(.sum, storedValues, Element.self, elementType: Element.self, owner: parent, column: column) ?? Aggregation.zero(Element.self) }

    /// The mean of the elements as `T`, nulls skipped; nil when there is none.
    ///
    /// ```swift
    /// let mean: Double? = dog.luckyNumbers.average()
    /// ```
    public func average<T: _Persistable>() -> T? { Aggregation.optional(.average, storedValues, T.self, elementType: Element.self, owner: parent, column: column) }
}

extension Aggregation {
    /// Zero in `T`: the sum of nothing, and what a sum that failed answers until its error is thrown.
    static func zero<T: _Persistable>(_: T.Type) -> T {
        T._floeDecode(_FloeValue(Value.defaultValue(for: T._floeType.columnType)))
    }

    static func optional<Element: _Persistable>(_ operation: Operation, _ values: [Value], _: Element.Type) -> Element? {
        optional(operation, values, Element.self, elementType: Element.self, owner: nil, column: -1)
    }

    /// The aggregate of a list's or set's values as `T`; nil (`.null`) for the min, max and
    /// average of nothing. A sum or mean `T` cannot hold (an overflowing Int sum) is recorded
    /// on the owner's realm, whose enclosing read or write throws it, as it does a stored value
    /// no Swift type holds; an unmanaged collection stops with the error's message.
    static func optional<T: _Persistable, Element: _Persistable>(_ operation: Operation, _ values: [Value], _: T.Type,
                                                                 elementType: Element.Type, owner: ObjectBinding?, column: Int) -> T? {
        do {
            let kind = "\(Element.self)"
            let value = try compute(operation, values: values, type: Element._floeType.columnType, kind: kind)
            if value == .null { return nil }
            return try decode(value, as: T.self, className: owner?.className ?? kind,
                              property: owner.map { $0.tableBinding.propertyName(ofColumn: column) } ?? "self", operation: operation)
        } catch {
            guard let owner else { preconditionFailure("\(error)") }
            owner.source.recordInvalidValue(error)
            return nil
        }
    }
}
