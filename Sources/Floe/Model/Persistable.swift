import Foundation
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// A property's value on its way between Swift and the store, in one of the forms it takes
/// (``Form``). Opaque outside Floe.
public struct _FloeValue {
    /// The forms a value takes between Swift and the store.
    enum Form {
        /// A value in stored form and nothing else: a Swift scalar, a mixed value's nested
        /// element, an aggregate.
        case stored(Value)
        /// A value read from a property of a managed object (`column`) or from an element of
        /// one of its collections (`column` nil): the object's binding knows the realm, or the
        /// frozen version, that linked objects come from, and names the property in errors.
        case read(Value, parent: ObjectBinding, column: Int?)
        /// An element of a managed object's list, set or map (`collectionColumn`): read
        /// through the object, like ``read(_:parent:column:)``, and naming that property in errors.
        case element(Value, parent: ObjectBinding, collectionColumn: Int)
        /// A value read from inside a mixed property's nested lists and dictionaries, where it sits.
        case nested(Value, at: NestedLocation)
        /// A managed list, set, map or linking-objects property, read through its owner.
        case managedCollection(parent: ObjectBinding, column: Int)
        /// A Swift object given for a link: `stored` is the link to it once managed (`.null`
        /// while it is not).
        case object(ObjectBase, stored: Value)
        /// In `create(_:value:)`: what to create the linked object from (a dictionary, an
        /// array, another object).
        case toCreate(Any)
        /// An unmanaged list's, set's or map's contents, each in this form; a map's keys beside them.
        case elements([_FloeValue], keys: [String]?)
        /// A mixed value whose nested collections hold an object not yet in any realm (of class
        /// `className`): it cannot be stored until that object is added.
        case holdingUnmanagedObject(Value, className: String)
    }

    let form: Form

    init(form: Form) { self.form = form }

    /// A value in stored form and nothing else (``Form/stored(_:)``).
    init(_ value: Value) { form = .stored(value) }

    static func read(_ value: Value, parent: ObjectBinding, column: Int?) -> _FloeValue {
        _FloeValue(form: .read(value, parent: parent, column: column))
    }

    static func element(_ value: Value, parent: ObjectBinding, collectionColumn: Int) -> _FloeValue {
        _FloeValue(form: .element(value, parent: parent, collectionColumn: collectionColumn))
    }

    static func nested(_ value: Value, at location: NestedLocation) -> _FloeValue {
        _FloeValue(form: .nested(value, at: location))
    }

    static func managedCollection(parent: ObjectBinding, column: Int) -> _FloeValue {
        _FloeValue(form: .managedCollection(parent: parent, column: column))
    }

    static func object(_ object: ObjectBase, stored: Value) -> _FloeValue {
        _FloeValue(form: .object(object, stored: stored))
    }

    static func toCreate(_ value: Any) -> _FloeValue {
        _FloeValue(form: .toCreate(value))
    }

    static func elements(_ elements: [_FloeValue], keys: [String]? = nil) -> _FloeValue {
        _FloeValue(form: .elements(elements, keys: keys))
    }

    static func holdingUnmanagedObject(_ value: Value, className: String) -> _FloeValue {
        _FloeValue(form: .holdingUnmanagedObject(value, className: className))
    }

    /// The stored form (`.null` for the forms that have none yet).
    var value: Value {
        switch form {
        case .stored(let value), .read(let value, _, _), .element(let value, _, _), .nested(let value, _), .object(_, let value),
             .holdingUnmanagedObject(let value, _):
            return value
        case .managedCollection, .toCreate, .elements:
            return .null
        }
    }

    /// The Swift object given for a link.
    var object: ObjectBase? {
        if case .object(let object, _) = form { return object }
        return nil
    }

    /// The managed object this value was read from.
    var parent: ObjectBinding? {
        switch form {
        case .read(_, let parent, _), .element(_, let parent, _), .managedCollection(let parent, _): return parent
        case .nested(_, let location): return location.parent
        default: return nil
        }
    }

    /// The column of the managed object's property this value was read from (-1: none, or
    /// an element of a collection).
    var column: Int {
        switch form {
        case .read(_, _, let column): return column ?? -1
        case .managedCollection(_, let column): return column
        case .nested(_, let location): return location.column
        default: return -1
        }
    }

    /// The column of the managed object's property this value, or the collection it is an
    /// element of, was read from: what an error about the value names.
    var propertyColumn: Int? {
        switch form {
        case .read(_, _, let column?), .element(_, _, let column): return column
        default: return nil
        }
    }

    /// Where a nested mixed collection read from a managed property lives: the property
    /// itself (an empty path), or a place inside it.
    var nestedLocation: NestedLocation? {
        switch form {
        case .read(_, let parent, let column?): return NestedLocation(parent: parent, column: column, path: [])
        case .nested(_, let location): return location
        default: return nil
        }
    }

    /// What `create(_:value:)` makes the linked object from.
    var valueToCreate: Any? {
        if case .toCreate(let value) = form { return value }
        return nil
    }

    /// An unmanaged collection's elements.
    var elements: [_FloeValue]? {
        if case .elements(let elements, _) = form { return elements }
        return nil
    }

    /// The same value without the managed object it was read from: what a copy keeps.
    var detached: _FloeValue {
        if case .holdingUnmanagedObject = form { return self }
        return _FloeValue(value)
    }

    /// The class of an object not yet in any realm that a mixed value's nested collections hold.
    var unmanagedObjectInside: String? {
        if case .holdingUnmanagedObject(_, let className) = form { return className }
        return nil
    }

    /// An unmanaged map's keys, beside ``elements``.
    var keys: [String]? {
        if case .elements(_, let keys) = form { return keys }
        return nil
    }
}

/// How a Swift type is persisted: its column type, optionality and, for links and
/// collections, what they hold. Opaque outside Floe.
public struct _PropertyType: @unchecked Sendable {
    // @unchecked: `objectType` is a class metatype and `acceptsValue` a pure function of its argument.
    var columnType: ColumnType
    var isOptional = false
    var integerBits: UInt8 = 64
    var collection: CollectionKind = .single
    /// For links and collections of objects: the model class.
    var objectType: ObjectBase.Type?
    /// A short Swift spelling for messages ("String?", "Int8").
    var swiftName: String
    /// An optional of an optional, which Floe refuses.
    var isNestedOptional = false
    /// For enums: whether a stored value names one of the cases.
    var acceptsValue: ((Value) -> Bool)?
    /// A type projection (`CustomPersistable`): stored as its `PersistedType`. One mapped to an
    /// embedded object is stored as a nullable link even when the property is required (a
    /// missing object reads as the mapping of a default one).
    var isMapped = false
    /// For a type projection: the Swift spelling of what is stored (`"String?"` for a `URL?`),
    /// as the schema describes the property.
    var persistedSwiftName: String?
}

/// A type that a `@Persisted` property can hold.
///
/// Floe provides the conformances (`Bool`, the integer types, `Float`, `Double`,
/// `String`, `Data`, `Date`, `UUID`, `ObjectId`, `Decimal128`, and optionals of them);
/// your own enums conform through ``PersistableEnum``.
///
/// ```swift
/// class Dog: Object {
///     @Persisted var name = ""        // String: _Persistable
///     @Persisted var weight: Double?  // Optional<Double>: _Persistable
/// }
/// ```
public protocol _Persistable {
    static var _floeType: _PropertyType { get }
    /// The value of a property declared without an initial value.
    static func _floeDefault() -> Self
    static func _floeDecode(_ stored: _FloeValue) -> Self
    var _floeEncoded: _FloeValue { get }
    /// The value, or nil when the stored value cannot become one (a failable type projection);
    /// optionals read that as nil.
    static func _floeDecodeIfValid(_ stored: _FloeValue) -> Self?
    /// The value of a managed object's property: a type projection reads its persisted type
    /// by that type's typed read, everything else decodes the stored value.
    static func _floeRead(_ read: _FloeColumnRead) -> Self
    /// Whether ``_floeDefault()`` has a value: false for a failable type projection whose
    /// mapping refuses its persisted type's default (a `URL` from `""`).
    static var _floeHasDefault: Bool { get }
}

/// A type stored as one value: never an optional, never a collection. A type projection's
/// ``CustomPersistable/PersistedType`` must be one, so `PersistedType = String?` or
/// `List<String>` does not compile (as in Realm).
///
/// ```swift
/// extension URL: FailableCustomPersistable {
///     public typealias PersistedType = String   // String: _PersistableSingleValue; String? is not
///     public init?(persistedValue: String) { self.init(string: persistedValue) }
///     public var persistableValue: String { absoluteString }
/// }
/// ```
public protocol _PersistableSingleValue: _Persistable {}

extension _Persistable {
    public static var _floeHasDefault: Bool { true }
    public static func _floeDecodeIfValid(_ stored: _FloeValue) -> Self? { _floeDecode(stored) }
    @inlinable
    public static func _floeRead(_ read: _FloeColumnRead) -> Self { _floeDecode(read.stored) }
}

extension Bool: _PersistableSingleValue {
    public static var _floeType: _PropertyType { _PropertyType(columnType: .bool, swiftName: "Bool") }
    public static func _floeDefault() -> Bool { false }
    public static func _floeDecode(_ stored: _FloeValue) -> Bool {
        if case .bool(let flag) = stored.value { return flag }
        return false
    }
    public var _floeEncoded: _FloeValue { _FloeValue(.bool(self)) }
}

/// The fixed-width integers share one encoding; only their width differs.
public protocol _PersistableInteger: _PersistableSingleValue, FixedWidthInteger {}

extension _PersistableInteger {
    public static var _floeType: _PropertyType {
        _PropertyType(columnType: .int, integerBits: UInt8(Self.bitWidth), swiftName: "\(Self.self)")
    }
    public static func _floeDefault() -> Self { 0 }
    public static func _floeDecode(_ stored: _FloeValue) -> Self {
        if case .int(let int) = stored.value { return Self(truncatingIfNeeded: int) }
        return 0
    }
    public var _floeEncoded: _FloeValue { _FloeValue(.int(Int64(self))) }
}

extension Int: _PersistableInteger {}
extension Int8: _PersistableInteger {}
extension Int16: _PersistableInteger {}
extension Int32: _PersistableInteger {}
extension Int64: _PersistableInteger {}

extension Float: _PersistableSingleValue {
    public static var _floeType: _PropertyType { _PropertyType(columnType: .float, swiftName: "Float") }
    public static func _floeDefault() -> Float { 0 }
    public static func _floeDecode(_ stored: _FloeValue) -> Float {
        if case .float(let float) = stored.value { return float }
        return 0
    }
    public var _floeEncoded: _FloeValue { _FloeValue(.float(self)) }
}

extension Double: _PersistableSingleValue {
    public static var _floeType: _PropertyType { _PropertyType(columnType: .double, swiftName: "Double") }
    public static func _floeDefault() -> Double { 0 }
    public static func _floeDecode(_ stored: _FloeValue) -> Double {
        if case .double(let double) = stored.value { return double }
        return 0
    }
    public var _floeEncoded: _FloeValue { _FloeValue(.double(self)) }
}

extension String: _PersistableSingleValue {
    public static var _floeType: _PropertyType { _PropertyType(columnType: .string, swiftName: "String") }
    public static func _floeDefault() -> String { "" }
    public static func _floeDecode(_ stored: _FloeValue) -> String {
        if case .string(let string) = stored.value { return string }
        return ""
    }
    public var _floeEncoded: _FloeValue { _FloeValue(.string(self)) }
}

extension Data: _PersistableSingleValue {
    public static var _floeType: _PropertyType { _PropertyType(columnType: .binary, swiftName: "Data") }
    public static func _floeDefault() -> Data { Data() }
    public static func _floeDecode(_ stored: _FloeValue) -> Data {
        if case .binary(let bytes) = stored.value { return Data(bytes) }
        return Data()
    }
    public var _floeEncoded: _FloeValue { _FloeValue(.binary([UInt8](self))) }
}

extension Date: _PersistableSingleValue {
    public static var _floeType: _PropertyType { _PropertyType(columnType: .timestamp, swiftName: "Date") }
    public static func _floeDefault() -> Date { Date(timeIntervalSinceReferenceDate: 0) }
    public static func _floeDecode(_ stored: _FloeValue) -> Date {
        if case .timestamp(let seconds) = stored.value { return Date(timeIntervalSinceReferenceDate: seconds) }
        return Date(timeIntervalSinceReferenceDate: 0)
    }
    public var _floeEncoded: _FloeValue { _FloeValue(.timestamp(timeIntervalSinceReferenceDate)) }
}

extension Date {
    /// The date as `print` shows it, or its interval since the reference date where Foundation
    /// cannot show it: NaN (which traps in `description`), infinities, years beyond its calendar.
    var floeDescription: String {
        let interval = timeIntervalSinceReferenceDate
        guard interval.isFinite else { return "Date(timeIntervalSinceReferenceDate: \(interval))" }
        let text = "\(self)"
        return text.hasPrefix("<") ? "Date(timeIntervalSinceReferenceDate: \(interval))" : text
    }
}

extension UUID: _PersistableSingleValue {
    public static var _floeType: _PropertyType { _PropertyType(columnType: .uuid, swiftName: "UUID") }
    /// A declared `@Persisted var id: UUID` gets a fresh random value.
    public static func _floeDefault() -> UUID { UUID() }
    public static func _floeDecode(_ stored: _FloeValue) -> UUID {
        guard case .uuid(let word) = stored.value else { return UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }
        let high = word.high.bigEndian, low = word.low.bigEndian
        var uuid = UUID().uuid
        withUnsafeMutableBytes(of: &uuid) { raw in
            withUnsafeBytes(of: high) { raw.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: 8) }
            withUnsafeBytes(of: low) { (raw.baseAddress! + 8).copyMemory(from: $0.baseAddress!, byteCount: 8) }
        }
        return UUID(uuid: uuid)
    }
    public var _floeEncoded: _FloeValue {
        var uuid = self.uuid
        let (high, low) = withUnsafeBytes(of: &uuid) { raw in
            (UInt64(bigEndian: raw.loadUnaligned(as: UInt64.self)), UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
        }
        return _FloeValue(.uuid(Word128(high: high, low: low)))
    }
}

extension Optional: _Persistable where Wrapped: _Persistable {
    public static var _floeType: _PropertyType {
        var type = Wrapped._floeType
        if type.isOptional && !type.isMapped { type.isNestedOptional = true }
        // An optional failable type projection stores any value of its persisted type: one
        // with no mapping reads as nil.
        if type.isMapped { type.acceptsValue = nil }
        type.swiftName += "?"
        type.persistedSwiftName = type.persistedSwiftName.map { $0 + "?" }
        type.isOptional = true
        return type
    }
    public static func _floeDefault() -> Wrapped? { nil }
    public static func _floeDecode(_ stored: _FloeValue) -> Wrapped? {
        stored.value == .null && stored.object == nil ? nil : Wrapped._floeDecodeIfValid(stored)
    }
    public var _floeEncoded: _FloeValue { self?._floeEncoded ?? _FloeValue(.null) }

    /// A to-one link (an optional model object) reads its target through the typed link
    /// read; any other optional decodes the stored value.
    @inlinable
    public static func _floeRead(_ read: _FloeColumnRead) -> Wrapped? {
        if let objectType = Wrapped.self as? ObjectBase.Type, let linked = read.binding.readLink(column: read.column, as: objectType) {
            // The typed read answers an object of `objectType` itself (the class the link names).
            return linked.map { unsafeBitCast($0, to: Wrapped.self) }
        }
        return _floeDecode(read.stored)
    }
}
