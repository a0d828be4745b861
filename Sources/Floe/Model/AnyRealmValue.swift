import Foundation

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
public enum AnyRealmValue: Hashable {
    case none
    case int(Int)
    case bool(Bool)
    case float(Float)
    case double(Double)
    case string(String)
    case data(Data)
    case date(Date)
    case objectId(ObjectId)
    case decimal128(Decimal128)
    case uuid(UUID)
    case object(Object)

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

extension AnyRealmValue: _Persistable {
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
        case .typedLink(let table, let key):
            guard let source = stored.parent?.source, let type = source.modelType(named: table),
                  let object = source.linkedObject(type, key: key) as? Object else {
                return .none
            }
            return .object(object)
        }
    }

    public var _floeEncoded: _FloeValue {
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
                return _FloeValue(.typedLink(table: binding.className, key: binding.key), object: object)
            }
            return _FloeValue(.null, object: object)
        }
    }
}
