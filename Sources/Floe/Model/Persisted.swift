import Foundation
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// Marks a stored property of a model class.
///
/// Properties without `@Persisted` are ignored: not stored, not queryable, not observed.
///
/// ```swift
/// class Person: Object {
///     @Persisted(primaryKey: true) var id = 0
///     @Persisted(indexed: true) var name = ""
///     @Persisted var nickname: String?
///     var isSelected = false   // ignored
/// }
/// ```
@propertyWrapper
public struct Persisted<Value: _Persistable> {
    /// The column this field reads in its object's table while the object is managed; -1
    /// while it is unmanaged. The first stored property, so that binding a managed object
    /// writes it at a known byte offset, with no generic code per field.
    @usableFromInline var column: Int
    /// An unmanaged object's value; nil until one is given or the type's default (a fresh
    /// `ObjectId`, say) is made on first read.
    @usableFromInline var value: Value?
    @usableFromInline let options: PropertyOptions

    /// A property whose value starts as the type's default.
    @inlinable public init() {
        column = -1
        value = nil
        options = PropertyOptions()
    }

    /// A property with an initial value.
    @inlinable public init(wrappedValue: Value) {
        column = -1
        value = wrappedValue
        options = PropertyOptions()
    }

    /// A primary key (or not, with `false`). One per class; Int, String, ObjectId or UUID (or optionals).
    @inlinable public init(primaryKey: Bool) {
        column = -1
        value = nil
        options = PropertyOptions(isPrimaryKey: primaryKey)
    }

    /// A primary key with an initial value.
    @inlinable public init(wrappedValue: Value, primaryKey: Bool) {
        column = -1
        value = wrappedValue
        options = PropertyOptions(isPrimaryKey: primaryKey)
    }

    /// An indexed property: `==` and `IN` queries on it are fast.
    @inlinable public init(indexed: Bool) {
        column = -1
        value = nil
        options = PropertyOptions(isIndexed: indexed)
    }

    /// An indexed property with an initial value.
    @inlinable public init(wrappedValue: Value, indexed: Bool) {
        column = -1
        value = wrappedValue
        options = PropertyOptions(isIndexed: indexed)
    }

    @available(*, unavailable, message: "@Persisted can only be used on properties of Object, EmbeddedObject and AsymmetricObject subclasses")
    public var wrappedValue: Value {
        get { fatalError("@Persisted outside a model class") }
        set { fatalError("@Persisted outside a model class") }
    }

    // Inlinable, and always inlined, so that in each model property's accessors the key paths
    // become direct field accesses and nothing generic is resolved at run time (left to the
    // optimizer, the setter with its typed writes grew past its inlining limit, and every call
    // then built both key paths and applied them through the runtime).
    @inlinable @inline(__always)
    public static subscript<EnclosingSelf: ObjectBase>(
        _enclosingInstance object: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Persisted<Value>>
    ) -> Value {
        get {
            // Only the column is read on the managed path: copying the whole field would copy
            // (and retain) its unmanaged value and options too.
            let column = object[keyPath: storageKeyPath].column
            if column >= 0 {
                // Unretained: the object, which the caller holds, holds its binding for the read
                // (an `unowned(unsafe)` reference is copied to a strong one for the call: a
                // retain and a release per read).
                return Unmanaged.passUnretained(object._floeBinding!)._withUnsafeGuaranteedRef { binding in
                    binding.read(column: column, as: Value.self)
                }
            }
            if let value = object[keyPath: storageKeyPath].value { return value }
            let value = Value._floeDefault()
            object[keyPath: storageKeyPath].value = value
            return value
        }
        set {
            let column = object[keyPath: storageKeyPath].column
            if column >= 0 {
                // Unretained, as in the getter: the object holds its binding for the write.
                Unmanaged.passUnretained(object._floeBinding!)._withUnsafeGuaranteedRef { binding in
                    binding.write(newValue, column: column)
                }
            } else {
                object[keyPath: storageKeyPath].value = newValue
            }
        }
    }
}

/// What a `@Persisted` declaration says beyond its type.
@usableFromInline
struct PropertyOptions: Sendable, Equatable {
    var isPrimaryKey: Bool
    var isIndexed: Bool
    var originProperty: String?
    var deleteRule: DeleteRule

    @usableFromInline
    init(isPrimaryKey: Bool = false, isIndexed: Bool = false, originProperty: String? = nil, deleteRule: DeleteRule = .nullify) {
        self.isPrimaryKey = isPrimaryKey
        self.isIndexed = isIndexed
        self.originProperty = originProperty
        self.deleteRule = deleteRule
    }
}

/// Lets schema discovery see a `@Persisted` field through `Mirror` and bind it by offset.
protocol PersistedField {
    var options: PropertyOptions { get }
    /// Declared without an initial value, of a type that has no default (a required `URL`).
    var lacksStartingValue: Bool { get }
    static var valueType: _PropertyType { get }
    static func makeAccessor(offset: Int) -> PropertyAccessor
}

extension Persisted: PersistedField {
    static var valueType: _PropertyType { Value._floeType }
    var lacksStartingValue: Bool { value == nil && !Value._floeHasDefault }

    static func makeAccessor(offset: Int) -> PropertyAccessor {
        // The common types get accessors compiled for them: generic code here would look up
        // `Persisted<Value>`'s metadata at run time on every call.
        // The types with a typed field kind are also stored by inserts with no `Value` in between.
        switch Value.self {
        case is Int.Type: return Persisted<Int>.accessor(offset: offset, kind: .int)
        case is String.Type: return Persisted<String>.accessor(offset: offset, kind: .string)
        case is Double.Type: return Persisted<Double>.accessor(offset: offset, kind: .double)
        case is Bool.Type: return Persisted<Bool>.accessor(offset: offset, kind: .bool)
        case is Date.Type: return Persisted<Date>.accessor(offset: offset)
        case is ObjectId.Type: return Persisted<ObjectId>.accessor(offset: offset)
        case is Int64.Type: return Persisted<Int64>.accessor(offset: offset, kind: .int64)
        case is Int?.Type: return Persisted<Int?>.accessor(offset: offset, kind: .optionalInt)
        case is String?.Type: return Persisted<String?>.accessor(offset: offset, kind: .optionalString)
        case is Double?.Type: return Persisted<Double?>.accessor(offset: offset, kind: .optionalDouble)
        default: return accessor(offset: offset)
        }
    }

    @inline(__always)
    static func accessor(offset: Int, kind: TypedFieldKind? = nil) -> PropertyAccessor {
        PropertyAccessor(
            columnOffset: offset + MemoryLayout<Persisted<Value>>.offset(of: \Persisted<Value>.column)!,
            typedField: kind.map { TypedField(kind: $0, offset: offset) },
            unmanagedValue: { object in
                let field = field(of: object, at: offset)
                if field.pointee.column >= 0 { return object._floeBinding!.read(column: field.pointee.column) }
                if let value = field.pointee.value { return value._floeEncoded }
                let value = Value._floeDefault()
                field.pointee.value = value
                return value._floeEncoded
            },
            setUnmanaged: { object, value in
                field(of: object, at: offset).pointee.value = Value._floeDecode(value)
            },
            swiftValue: { object in
                let field = field(of: object, at: offset)
                if field.pointee.column >= 0 { return object._floeBinding!.read(column: field.pointee.column, as: Value.self) }
                return field.pointee.value ?? Value._floeDefault()
            },
            detachedValue: { object in
                let field = field(of: object, at: offset)
                guard field.pointee.column >= 0 else { return field.pointee.value?._floeEncoded ?? Value._floeDefault()._floeEncoded }
                // A managed list, set or map reads as a handle; decoding it reads its elements out.
                return Value._floeDecode(object._floeBinding!.read(column: field.pointee.column))._floeEncoded
            },
            forgetUnmanagedValue: { object in
                field(of: object, at: offset).pointee.value = nil
            }
        )
    }

    /// The field's storage inside `object`; valid while the caller holds `object`.
    private static func field(of object: ObjectBase, at offset: Int) -> UnsafeMutablePointer<Persisted<Value>> {
        (Unmanaged.passUnretained(object).toOpaque() + offset).assumingMemoryBound(to: Persisted<Value>.self)
    }
}

/// The Swift types whose `@Persisted` fields an insert reads in place and stores with no
/// `Value` in between (see ``TypedField``).
enum TypedFieldKind: Sendable {
    case int, int64, optionalInt, bool, double, optionalDouble, string, optionalString

    /// How the engine takes values of this kind.
    var columnKind: TypedColumnKind {
        switch self {
        case .int, .int64: return .int
        case .optionalInt: return .optionalInt
        case .bool: return .bool
        case .double: return .double
        case .optionalDouble: return .optionalDouble
        case .string: return .string
        case .optionalString: return .optionalString
        }
    }
}

/// A `@Persisted` field of one of the ``TypedFieldKind`` types, read straight from an
/// unmanaged instance's memory: the field's own value, or the type's constant default
/// (0, false, "", nil) while none was given.
struct TypedField: Sendable {
    let kind: TypedFieldKind
    /// Where the `Persisted` field sits inside an instance.
    let offset: Int

    @inline(__always)
    private func pointer<Stored>(_ object: ObjectBase, _ type: Stored.Type) -> UnsafeMutablePointer<Persisted<Stored>> {
        (Unmanaged.passUnretained(object).toOpaque() + offset).assumingMemoryBound(to: Persisted<Stored>.self)
    }

    @inline(__always) func int(_ object: ObjectBase) -> Int64 {
        kind == .int64 ? pointer(object, Int64.self).pointee.value ?? 0 : Int64(pointer(object, Int.self).pointee.value ?? 0)
    }
    @inline(__always) func optionalInt(_ object: ObjectBase) -> Int64? { pointer(object, Int?.self).pointee.value?.map(Int64.init) ?? nil }
    @inline(__always) func bool(_ object: ObjectBase) -> Bool { pointer(object, Bool.self).pointee.value ?? false }
    @inline(__always) func double(_ object: ObjectBase) -> Double { pointer(object, Double.self).pointee.value ?? 0 }
    @inline(__always) func optionalDouble(_ object: ObjectBase) -> Double? { pointer(object, Double?.self).pointee.value ?? nil }
    @inline(__always) func string(_ object: ObjectBase) -> String { pointer(object, String.self).pointee.value ?? "" }
    @inline(__always) func optionalString(_ object: ObjectBase) -> String? { pointer(object, String?.self).pointee.value ?? nil }

    /// The UTF-8 size of a string field's value (0 for other kinds and nil).
    @inline(__always) func stringSize(_ object: ObjectBase) -> Int {
        switch kind {
        case .string: return pointer(object, String.self).pointee.value?.utf8.count ?? 0
        case .optionalString: return (pointer(object, String?.self).pointee.value ?? nil)?.utf8.count ?? 0
        default: return 0
        }
    }
}

/// Reads and writes one `@Persisted` field of any instance of a class, by its offset.
/// A class, so that walking a schema's properties retains one object, not several closures.
final class PropertyAccessor: @unchecked Sendable {
    // @unchecked: immutable; the closures capture only the field offset.
    /// Where the field's `column` sits inside an instance.
    let columnOffset: Int
    /// The field read in place by typed inserts, for the ``TypedFieldKind`` types (nil: others).
    let typedField: TypedField?
    /// The field's value in stored form (an unmanaged object's own value; links carry the object).
    let unmanagedValue: (ObjectBase) -> _FloeValue
    /// Sets an unmanaged object's field from a stored-form value (links: from its `object`).
    let setUnmanaged: (ObjectBase, _FloeValue) -> Void
    /// The field's value with nothing left pointing into a realm's storage: a managed
    /// collection comes back with its elements (and map keys), for copies of the object.
    let detachedValue: (ObjectBase) -> _FloeValue
    /// The property's value as the model's getter returns it (for descriptions).
    let swiftValue: (ObjectBase) -> Any
    /// Lets go of the value an object held while unmanaged (a managed object reads its realm):
    /// a long chain of linked objects, once added, is then not released link by link, recursively.
    let forgetUnmanagedValue: (ObjectBase) -> Void

    init(columnOffset: Int, typedField: TypedField? = nil, unmanagedValue: @escaping (ObjectBase) -> _FloeValue,
         setUnmanaged: @escaping (ObjectBase, _FloeValue) -> Void,
         swiftValue: @escaping (ObjectBase) -> Any, detachedValue: @escaping (ObjectBase) -> _FloeValue,
         forgetUnmanagedValue: @escaping (ObjectBase) -> Void = { _ in }) {
        self.columnOffset = columnOffset
        self.typedField = typedField
        self.unmanagedValue = unmanagedValue
        self.setUnmanaged = setUnmanaged
        self.swiftValue = swiftValue
        self.detachedValue = detachedValue
        self.forgetUnmanagedValue = forgetUnmanagedValue
    }

    /// Makes the field read and write `column` of the object's binding (-1: unmanaged again).
    @inline(__always)
    func bind(_ object: ObjectBase, _ column: Int) {
        (Unmanaged.passUnretained(object).toOpaque() + columnOffset).storeBytes(of: column, as: Int.self)
    }
}
