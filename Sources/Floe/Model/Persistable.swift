import Foundation

/// A property value in its stored form. Opaque outside Floe.
public struct _FloeValue {
    var value: Value
    /// For links: the object linked to (managed or not), when the value comes from Swift.
    var object: ObjectBase?
    /// For links and collections read from a managed object: that object's binding, which
    /// knows the realm (or frozen version) to materialize linked objects from.
    var parent: ObjectBinding?
    /// For nested values in `create(_:value:)`: what to create the linked object from.
    var nested: Any?
    /// For collection properties read from a managed object: the column they live in.
    var column: Int
    /// For collection properties of unmanaged objects: their elements, each in stored form.
    var elements: [_FloeValue]?
    /// For map properties of unmanaged objects: the keys of `elements`.
    var keys: [String]?
    /// For values read from inside a mixed property's nested collections: where they sit.
    var path: [NestedLocation.Step]?

    init(_ value: Value, object: ObjectBase? = nil, parent: ObjectBinding? = nil, nested: Any? = nil,
         column: Int = -1, elements: [_FloeValue]? = nil, keys: [String]? = nil, path: [NestedLocation.Step]? = nil) {
        self.path = path
        self.value = value
        self.object = object
        self.parent = parent
        self.nested = nested
        self.column = column
        self.elements = elements
        self.keys = keys
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
}

extension _Persistable {
    public static func _floeDecodeIfValid(_ stored: _FloeValue) -> Self? { _floeDecode(stored) }
}

extension Bool: _Persistable {
    public static var _floeType: _PropertyType { _PropertyType(columnType: .bool, swiftName: "Bool") }
    public static func _floeDefault() -> Bool { false }
    public static func _floeDecode(_ stored: _FloeValue) -> Bool {
        if case .bool(let flag) = stored.value { return flag }
        return false
    }
    public var _floeEncoded: _FloeValue { _FloeValue(.bool(self)) }
}

/// The fixed-width integers share one encoding; only their width differs.
public protocol _PersistableInteger: _Persistable, FixedWidthInteger {}

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

extension Float: _Persistable {
    public static var _floeType: _PropertyType { _PropertyType(columnType: .float, swiftName: "Float") }
    public static func _floeDefault() -> Float { 0 }
    public static func _floeDecode(_ stored: _FloeValue) -> Float {
        if case .float(let float) = stored.value { return float }
        return 0
    }
    public var _floeEncoded: _FloeValue { _FloeValue(.float(self)) }
}

extension Double: _Persistable {
    public static var _floeType: _PropertyType { _PropertyType(columnType: .double, swiftName: "Double") }
    public static func _floeDefault() -> Double { 0 }
    public static func _floeDecode(_ stored: _FloeValue) -> Double {
        if case .double(let double) = stored.value { return double }
        return 0
    }
    public var _floeEncoded: _FloeValue { _FloeValue(.double(self)) }
}

extension String: _Persistable {
    public static var _floeType: _PropertyType { _PropertyType(columnType: .string, swiftName: "String") }
    public static func _floeDefault() -> String { "" }
    public static func _floeDecode(_ stored: _FloeValue) -> String {
        if case .string(let string) = stored.value { return string }
        return ""
    }
    public var _floeEncoded: _FloeValue { _FloeValue(.string(self)) }
}

extension Data: _Persistable {
    public static var _floeType: _PropertyType { _PropertyType(columnType: .binary, swiftName: "Data") }
    public static func _floeDefault() -> Data { Data() }
    public static func _floeDecode(_ stored: _FloeValue) -> Data {
        if case .binary(let bytes) = stored.value { return Data(bytes) }
        return Data()
    }
    public var _floeEncoded: _FloeValue { _FloeValue(.binary([UInt8](self))) }
}

extension Date: _Persistable {
    public static var _floeType: _PropertyType { _PropertyType(columnType: .timestamp, swiftName: "Date") }
    public static func _floeDefault() -> Date { Date(timeIntervalSinceReferenceDate: 0) }
    public static func _floeDecode(_ stored: _FloeValue) -> Date {
        if case .timestamp(let seconds) = stored.value { return Date(timeIntervalSinceReferenceDate: seconds) }
        return Date(timeIntervalSinceReferenceDate: 0)
    }
    public var _floeEncoded: _FloeValue { _FloeValue(.timestamp(timeIntervalSinceReferenceDate)) }
}

extension UUID: _Persistable {
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
        type.swiftName += "?"
        type.isOptional = true
        return type
    }
    public static func _floeDefault() -> Wrapped? { nil }
    public static func _floeDecode(_ stored: _FloeValue) -> Wrapped? {
        stored.value == .null && stored.object == nil ? nil : Wrapped._floeDecodeIfValid(stored)
    }
    public var _floeEncoded: _FloeValue { self?._floeEncoded ?? _FloeValue(.null) }
}
