/// An enum stored through its raw value.
///
/// A property declared without an initial value starts at the first case.
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

    /// A stored raw value with no matching case reads as the first case.
    public static func _floeDecode(_ stored: _FloeValue) -> Self {
        Self(rawValue: RawValue._floeDecode(stored)) ?? allCases.first!
    }

    public var _floeEncoded: _FloeValue { rawValue._floeEncoded }
}
