import Foundation
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// A value of any of the types a property can hold: a mixed property.
///
/// `.none` is its nil: an `AnyRealmValue` property is never optional. It cannot hold a set
/// or an embedded object. Assigning an unmanaged object adds it to the realm with its owner.
///
/// ```swift
/// class Dog: Object {
///     @Persisted var companion: AnyRealmValue
/// }
/// dog.companion = .string("Fluffy the Cat")
/// dog.companion = .object(otherDog)
/// if case .object(let companion) = dog.companion { print(companion) }
/// ```
public enum AnyRealmValue {
    /// No value (nil).
    case none
    /// An integer.
    case int(Int)
    /// A Boolean.
    case bool(Bool)
    /// A `Float`.
    case float(Float)
    /// A `Double`.
    case double(Double)
    /// A string.
    case string(String)
    /// Bytes.
    case data(Data)
    /// A date.
    case date(Date)
    /// An ``ObjectId``.
    case objectId(ObjectId)
    /// A ``Decimal128``.
    case decimal128(Decimal128)
    /// A `UUID`.
    case uuid(UUID)
    /// A link to an object of any class.
    case object(Object)
    /// A list of mixed values (lists and dictionaries nest up to 100 levels).
    case list(List<AnyRealmValue>)
    /// A dictionary of mixed values.
    case dictionary(Map<String, AnyRealmValue>)

    /// A `.list` holding `values` (nested arrays and dictionaries become nested collections).
    ///
    /// ```swift
    /// dog.companion = AnyRealmValue.fromArray([.string("a"), .int(1)])
    /// ```
    public static func fromArray(_ values: [AnyRealmValue]) -> AnyRealmValue {
        let list = List<AnyRealmValue>()
        list.append(objectsIn: values)
        return .list(list)
    }

    /// A `.dictionary` holding `entries`.
    ///
    /// ```swift
    /// dog.companion = AnyRealmValue.fromDictionary(["name": .string("Spot"), "age": .int(3)])
    /// ```
    public static func fromDictionary(_ entries: [String: AnyRealmValue]) -> AnyRealmValue {
        let map = Map<String, AnyRealmValue>()
        for key in entries.keys.sorted() { map[key] = entries[key]! }
        return .dictionary(map)
    }

    /// The nested list, or nil for other kinds.
    public var listValue: List<AnyRealmValue>? { if case .list(let value) = self { return value }; return nil }
    /// The nested dictionary, or nil for other kinds.
    public var dictionaryValue: Map<String, AnyRealmValue>? { if case .dictionary(let value) = self { return value }; return nil }

    /// The `Int`, or nil for other kinds.
    public var intValue: Int? { if case .int(let value) = self { return value }; return nil }
    /// The `String`, or nil for other kinds.
    public var stringValue: String? { if case .string(let value) = self { return value }; return nil }
    /// The `Bool`, or nil for other kinds.
    public var boolValue: Bool? { if case .bool(let value) = self { return value }; return nil }
    /// The `Double`, or nil for other kinds.
    public var doubleValue: Double? { if case .double(let value) = self { return value }; return nil }
    /// The object, or nil for other kinds.
    public var objectValue: Object? { if case .object(let value) = self { return value }; return nil }

    /// The object, as `type` (nil when it holds something else).
    public func object<T: Object>(_ type: T.Type) -> T? { objectValue as? T }
}

extension AnyRealmValue: _PersistableSingleValue {
    public static var _floeType: _PropertyType { _PropertyType(columnType: .mixed, swiftName: "AnyRealmValue") }

    public static func _floeDefault() -> AnyRealmValue { .none }

    public static func _floeDecode(_ stored: _FloeValue) -> AnyRealmValue {
        if let object = stored.object as? Object, stored.parent == nil { return .object(object) }
        switch stored.value {
        case .null, .link: return .none
        case .bool(let flag): return .bool(flag)
        case .int(let int): return .int(Int(int))
        case .float(let float): return .float(float)
        case .double(let double): return .double(double)
        case .string(let string): return .string(string)
        case .binary(let bytes): return .data(Data(bytes))
        case .timestamp: return .date(Date._floeDecode(stored))
        case .decimal128: return .decimal128(Decimal128._floeDecode(stored))
        case .objectId: return .objectId(ObjectId._floeDecode(stored))
        case .uuid: return .uuid(UUID._floeDecode(stored))
        case .list(let values):
            if let location = stored.nestedLocation { return .list(List(nestedIn: location)) }
            return fromArray(values.map { _floeDecode(_FloeValue($0)) })
        case .dictionary(let entries):
            if let location = stored.nestedLocation { return .dictionary(Map(nestedIn: location)) }
            return fromDictionary(Dictionary(uniqueKeysWithValues: entries.map { ($0.key, _floeDecode(_FloeValue($0.value))) }))
        case .typedLink(let table, let key):
            guard let source = stored.parent?.source, let type = source.modelType(named: table),
                  let object = source.linkedObject(type, key: key) as? Object else {
                return .none
            }
            return .object(object)
        }
    }

    public var _floeEncoded: _FloeValue { encoded(level: 0) }

    /// The stored form; `level`: how many nested lists and dictionaries enclose this value.
    /// A list or dictionary nested deeper than a mixed value may nest is cut off there,
    /// empty: the result still nests too deep, so writing it is refused with a typed error
    /// (``FloeError/typeMismatch(table:column:expected:value:)``), and however deep the value
    /// is, encoding it never goes deeper than the limit.
    func encoded(level: Int) -> _FloeValue {
        switch self {
        case .none: return _FloeValue(.null)
        case .int(let value): return value._floeEncoded
        case .bool(let value): return value._floeEncoded
        case .float(let value): return value._floeEncoded
        case .double(let value): return value._floeEncoded
        case .string(let value): return value._floeEncoded
        case .data(let value): return value._floeEncoded
        case .date(let value): return value._floeEncoded
        case .objectId(let value): return value._floeEncoded
        case .decimal128(let value): return value._floeEncoded
        case .uuid(let value): return value._floeEncoded
        case .object(let object):
            if let binding = object._floeBinding, !binding.source.isFrozen {
                return .object(object, stored: .typedLink(table: binding.className, key: binding.key))
            }
            return .object(object, stored: .null)
        case .list(let list):
            guard level < Value.maximumNesting else { return _FloeValue(.list([])) }
            // Nested collections are stored whole; objects inside them must already be managed.
            let elements = list.map { $0.nestedEncoding(level: level + 1) }
            return Self.nested(.list(elements.map(\.value)), holding: elements.lazy.compactMap(\.unmanagedClass).first)
        case .dictionary(let map):
            guard level < Value.maximumNesting else { return _FloeValue(.dictionary([])) }
            let entries = map.map { (key: $0.key, encoding: $0.value.nestedEncoding(level: level + 1)) }
            return Self.nested(.dictionary(entries.map { Value.MapEntry(key: $0.key, value: $0.encoding.value) }),
                               holding: entries.lazy.compactMap(\.encoding.unmanagedClass).first)
        }
    }
}

extension AnyRealmValue {
    private static func nested(_ value: Value, holding unmanagedClass: String?) -> _FloeValue {
        unmanagedClass.map { .holdingUnmanagedObject(value, className: $0) } ?? _FloeValue(value)
    }

    /// The stored form inside a nested collection, and the class of an object not yet in any
    /// realm found inside it (which the write refuses rather than storing nothing).
    var nestedEncoding: (value: Value, unmanagedClass: String?) { nestedEncoding(level: 0) }

    /// `nestedEncoding` of a value that `level` lists and dictionaries enclose (see ``encoded(level:)``).
    func nestedEncoding(level: Int) -> (value: Value, unmanagedClass: String?) {
        if case .object(let object) = self, object._floeBinding == nil {
            return (.null, type(of: object).className())
        }
        let encoded = encoded(level: level)
        return (encoded.value, encoded.unmanagedObjectInside)
    }
}

extension AnyRealmValue: Hashable {
    /// Values compare by value; nested lists and dictionaries by their elements; objects as objects do.
    public static func == (lhs: AnyRealmValue, rhs: AnyRealmValue) -> Bool {
        switch (lhs, rhs) {
        case let (.object(a), .object(b)): return a == b
        default: return lhs._floeEncoded.value == rhs._floeEncoded.value && lhs.objectValue == nil && rhs.objectValue == nil
        }
    }

    /// Hashes what `==` compares: the value, or the object for `.object`.
    public func hash(into hasher: inout Hasher) {
        if case .object(let object) = self { hasher.combine(object) } else { hasher.combine(_floeEncoded.value) }
    }
}
