import Foundation
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// Property values as change streams hand them out: `Sendable`, read from a frozen object.
///
/// Scalars come as their Swift values, enums as their raw values, links as `Frozen<Target>`,
/// lists, sets and maps as their frozen forms, all at the version the change describes.
enum ChangeValues {
    static func sendable(_ value: Any) -> (any Sendable)? {
        if let object = value as? ObjectBase { return frozen(object) }
        if let convertible = value as? any SendableChangeValue { return convertible.changeValue }
        if let collection = value as? any FrozenChangeValue { return collection.frozenChangeValue }
        if let enumeration = value as? any RawRepresentable { return sendable(enumeration.rawValue) }
        return nil
    }

    /// The object, frozen at the version of the frozen object it was read through.
    static func frozen(_ object: ObjectBase) -> (any Sendable)? {
        guard let binding = object._floeBinding, let source = binding.source.frozenVersion else { return nil }
        // Cast, not coerced: a coercion would open the static type (ObjectBase), the cast finds the model class.
        let dynamicType: Any.Type = type(of: object)
        guard let modelType = dynamicType as? any RealmObject.Type else { return nil }
        return makeFrozen(modelType, snapshot: source.snapshot, binding: binding.tableBinding, key: binding.key)
    }

    private static func makeFrozen<Model: RealmObject>(_ type: Model.Type, snapshot: Snapshot, binding: TableBinding, key: Int64) -> any Sendable {
        Frozen<Model>(snapshot: snapshot, binding: binding, key: key)
    }
}

/// A value that is its own change value.
protocol SendableChangeValue {
    var changeValue: any Sendable { get }
}

extension SendableChangeValue where Self: Sendable {
    var changeValue: any Sendable { self }
}

extension Bool: SendableChangeValue {}
extension Int: SendableChangeValue {}
extension Int8: SendableChangeValue {}
extension Int16: SendableChangeValue {}
extension Int32: SendableChangeValue {}
extension Int64: SendableChangeValue {}
extension Float: SendableChangeValue {}
extension Double: SendableChangeValue {}
extension String: SendableChangeValue {}
extension Data: SendableChangeValue {}
extension Date: SendableChangeValue {}
extension UUID: SendableChangeValue {}
extension ObjectId: SendableChangeValue {}
extension Decimal128: SendableChangeValue {}

/// A managed collection read through a frozen object: its frozen form.
protocol FrozenChangeValue {
    var frozenChangeValue: (any Sendable)? { get }
}

extension List: FrozenChangeValue {
    var frozenChangeValue: (any Sendable)? { try? freeze() }
}

extension MutableSet: FrozenChangeValue {
    var frozenChangeValue: (any Sendable)? { try? freeze() }
}

extension Map: FrozenChangeValue {
    var frozenChangeValue: (any Sendable)? { try? freeze() }
}
