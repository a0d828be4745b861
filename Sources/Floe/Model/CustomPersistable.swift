@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// A type Floe does not store itself, persisted as one it does (a type projection): `URL` as
/// a `String`, a coordinate as an embedded object. The stored schema holds `PersistedType`, so
/// switching a property between the mapped and the persisted type needs no migration. The
/// mapped type may be used required, optional, and in `List`, `MutableSet` and `Map`.
///
/// ```swift
/// struct Coordinate { var latitude = 0.0, longitude = 0.0 }
///
/// final class Location: EmbeddedObject {
///     @Persisted var latitude = 0.0
///     @Persisted var longitude = 0.0
/// }
///
/// extension Coordinate: CustomPersistable {
///     typealias PersistedType = Location
///     init(persistedValue: Location) { self.init(latitude: persistedValue.latitude, longitude: persistedValue.longitude) }
///     var persistableValue: Location { try! Location(value: [latitude, longitude]) }
/// }
///
/// final class Club: Object {
///     @Persisted var location: Coordinate     // required: a missing object reads as Coordinate()'s mapping
/// }
/// ```
///
/// `PersistedType` is any type Floe stores, or an embedded object; never an optional or a
/// collection (`PersistedType = String?` does not compile, as in Realm).
public protocol CustomPersistable: _PersistableSingleValue {
    /// The stored type: one value, never an optional or a collection.
    associatedtype PersistedType: _PersistableSingleValue
    /// The mapped value of a stored one (reading).
    init(persistedValue: PersistedType)
    /// The stored value of a mapped one (writing).
    var persistableValue: PersistedType { get }
}

/// A type projection whose reading can fail: `URL` from a `String` that is not a URL. On an
/// optional property an invalid stored value reads as nil; on a required one the enclosing
/// `read { }` or write throws a ``FloeError`` naming the type and the value. Writing a value
/// with no mapping to a required property or a collection element (`create(_:value:)`,
/// `Object(value:)`) throws, naming the class, the property and the value. A required property
/// declared without an initial value, of a type with no mapping for its persisted type's default
/// (`@Persisted var homepage: URL`: `""` is no URL), is refused when the realm opens.
///
/// ```swift
/// extension URL: FailableCustomPersistable {
///     public typealias PersistedType = String
///     public init?(persistedValue: String) { self.init(string: persistedValue) }
///     public var persistableValue: String { absoluteString }
/// }
///
/// final class Club: Object {
///     @Persisted var url: URL?
/// }
/// ```
public protocol FailableCustomPersistable: _PersistableSingleValue {
    /// The stored type: one value, never an optional or a collection.
    associatedtype PersistedType: _PersistableSingleValue
    /// The mapped value of a stored one, or nil when it has none.
    init?(persistedValue: PersistedType)
    /// The stored value of a mapped one.
    var persistableValue: PersistedType { get }
}

/// What both kinds of type projection share: how the property is stored.
enum TypeProjection {
    static func type(of mapped: Any.Type, persisted: _PropertyType) -> _PropertyType {
        var type = persisted
        type.persistedSwiftName = persisted.swiftName
        type.swiftName = "\(mapped)"
        type.isMapped = true
        // A required property mapped to an embedded object still stores a nullable link: a
        // missing object reads as the mapping of a default one.
        if type.columnType == .link { type.isOptional = true }
        return type
    }

    /// The stored value to map, with a missing embedded object read as a default one.
    static func persisted<P: _Persistable>(_ type: P.Type, from stored: _FloeValue) -> P {
        if P._floeType.columnType == .link, stored.value == .null, stored.object == nil { return P._floeDefault() }
        return P._floeDecode(stored)
    }
}

extension CustomPersistable {
    public static var _floeType: _PropertyType { TypeProjection.type(of: Self.self, persisted: PersistedType._floeType) }
    public static func _floeDefault() -> Self { Self(persistedValue: PersistedType._floeDefault()) }
    public static func _floeDecode(_ stored: _FloeValue) -> Self {
        Self(persistedValue: TypeProjection.persisted(PersistedType.self, from: stored))
    }
    public var _floeEncoded: _FloeValue { persistableValue._floeEncoded }
    /// A plain persisted type is read by its typed read, then mapped.
    @inlinable
    public static func _floeRead(_ read: _FloeColumnRead) -> Self {
        if let persisted = read.plainValue(as: PersistedType.self) { return Self(persistedValue: persisted) }
        return _floeDecode(read.stored)
    }
}

extension FailableCustomPersistable {
    /// A value with no mapping is refused when written to a required property (or a list, set
    /// or map element): `create`, `Object(value:)` and dynamic sets throw naming the class, the
    /// property and the value. (An optional property stores it and reads it as nil.)
    public static var _floeType: _PropertyType {
        var type = TypeProjection.type(of: Self.self, persisted: PersistedType._floeType)
        if type.columnType != .link {
            type.acceptsValue = { value in Self(persistedValue: PersistedType._floeDecode(_FloeValue(value))) != nil }
        }
        return type
    }

    public static var _floeHasDefault: Bool { Self(persistedValue: PersistedType._floeDefault()) != nil }

    /// The mapping of the persisted type's default (a property declared without a value).
    /// A model class with a required property of a type that has none is refused when a realm
    /// opens (``FloeError/invalidSchema(className:property:reason:)``), so only an unmanaged
    /// object read before it is given a value gets here without one, and that stops, as in
    /// Realm.
    public static func _floeDefault() -> Self {
        guard let value = Self(persistedValue: PersistedType._floeDefault()) else {
            preconditionFailure("\(Self.self) has no value for \(PersistedType.self)'s default: give the property an initial value or make it optional")
        }
        return value
    }

    public static func _floeDecodeIfValid(_ stored: _FloeValue) -> Self? {
        Self(persistedValue: TypeProjection.persisted(PersistedType.self, from: stored))
    }

    /// A required property holding a value with no mapping: the enclosing read or write throws
    /// a typed error, and the read answers the mapping of the persisted type's default.
    public static func _floeDecode(_ stored: _FloeValue) -> Self {
        if let value = _floeDecodeIfValid(stored) { return value }
        return InvalidStoredValue.placeholder(for: stored, expected: "a value \(Self.self)(persistedValue:) accepts",
                                              validValue: _floeDecodeIfValid, fallback: _floeDefault)
    }

    public var _floeEncoded: _FloeValue { persistableValue._floeEncoded }

    /// A plain persisted type is read by its typed read, then mapped; a value with no mapping
    /// takes the checked read, which records the error.
    @inlinable
    public static func _floeRead(_ read: _FloeColumnRead) -> Self {
        if let persisted = read.plainValue(as: PersistedType.self), let value = Self(persistedValue: persisted) { return value }
        return _floeDecode(read.stored)
    }
}
