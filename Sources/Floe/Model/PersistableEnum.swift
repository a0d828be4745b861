@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// An enum stored through its raw value.
///
/// A property declared without an initial value starts at the first case. Writing a raw value
/// that names no case (`create(_:value:)`, a migration) is refused; a stored one (left by a
/// build whose enum had more cases) makes the enclosing `read { }` or write throw a
/// ``FloeError/typeMismatch(table:column:expected:value:)`` naming the class, the property and
/// the value, and `checkIntegrity()` report it: it never reads as some case.
///
/// ```swift
/// enum TaskStatus: String, PersistableEnum {
///     case notStarted, inProgress, complete
/// }
///
/// class Task: Object {
///     @Persisted var status = TaskStatus.notStarted
///     @Persisted var optionalStatus: TaskStatus?
/// }
/// ```
public protocol PersistableEnum: _PersistableSingleValue, RawRepresentable, CaseIterable where RawValue: _Persistable {}

extension PersistableEnum {
    public static var _floeType: _PropertyType {
        var type = RawValue._floeType
        type.swiftName = "\(Self.self)"
        type.acceptsValue = { value in Self(rawValue: RawValue._floeDecode(_FloeValue(value))) != nil }
        return type
    }

    public static func _floeDefault() -> Self { allCases.first! }

    /// A stored raw value with no matching case is recorded as an invalid stored value (the
    /// enclosing read or write throws); the read answers a placeholder that never leaves it.
    public static func _floeDecode(_ stored: _FloeValue) -> Self {
        if let value = Self(rawValue: RawValue._floeDecode(stored)) { return value }
        return InvalidStoredValue.placeholder(for: stored, expected: "a raw value of a \(Self.self) case",
                                              validValue: { Self(rawValue: RawValue._floeDecode($0)) },
                                              fallback: { allCases.first! })
    }

    public var _floeEncoded: _FloeValue { rawValue._floeEncoded }
}
