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
    enum Storage {
        /// An unmanaged object's value.
        case unmanaged(Value)
        /// No value given; the type's default is made on first read (a fresh `ObjectId`, say).
        case unmanagedDefault
        /// A managed object's property: the column it reads in the object's table.
        case managed(column: Int)
    }

    var storage: Storage
    let options: PropertyOptions

    /// A property whose value starts as the type's default.
    public init() {
        storage = .unmanagedDefault
        options = PropertyOptions()
    }

    /// A property with an initial value.
    public init(wrappedValue: Value) {
        storage = .unmanaged(wrappedValue)
        options = PropertyOptions()
    }

    /// A primary key (or not, with `false`). One per class; Int, String, ObjectId or UUID (or optionals).
    public init(primaryKey: Bool) {
        storage = .unmanagedDefault
        options = PropertyOptions(isPrimaryKey: primaryKey)
    }

    /// A primary key with an initial value.
    public init(wrappedValue: Value, primaryKey: Bool) {
        storage = .unmanaged(wrappedValue)
        options = PropertyOptions(isPrimaryKey: primaryKey)
    }

    /// An indexed property: `==` and `IN` queries on it are fast.
    public init(indexed: Bool) {
        storage = .unmanagedDefault
        options = PropertyOptions(isIndexed: indexed)
    }

    /// An indexed property with an initial value.
    public init(wrappedValue: Value, indexed: Bool) {
        storage = .unmanaged(wrappedValue)
        options = PropertyOptions(isIndexed: indexed)
    }

    @available(*, unavailable, message: "@Persisted can only be used on properties of Object, EmbeddedObject and AsymmetricObject subclasses")
    public var wrappedValue: Value {
        get { fatalError("@Persisted outside a model class") }
        set { fatalError("@Persisted outside a model class") }
    }

    public static subscript<EnclosingSelf: ObjectBase>(
        _enclosingInstance object: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Persisted<Value>>
    ) -> Value {
        get {
            switch object[keyPath: storageKeyPath].storage {
            case .managed(let column):
                return Value._floeDecode(object._floeBinding!.read(column: column))
            case .unmanaged(let value):
                return value
            case .unmanagedDefault:
                let value = Value._floeDefault()
                object[keyPath: storageKeyPath].storage = .unmanaged(value)
                return value
            }
        }
        set {
            if case .managed(let column) = object[keyPath: storageKeyPath].storage {
                object._floeBinding!.write(newValue._floeEncoded, column: column)
            } else {
                object[keyPath: storageKeyPath].storage = .unmanaged(newValue)
            }
        }
    }
}

/// What a `@Persisted` declaration says beyond its type.
struct PropertyOptions: Sendable, Equatable {
    var isPrimaryKey = false
    var isIndexed = false
    var originProperty: String?
}

/// Lets schema discovery see a `@Persisted` field through `Mirror` and bind it by offset.
protocol PersistedField {
    var options: PropertyOptions { get }
    static var valueType: _PropertyType { get }
    static func makeAccessor(offset: Int) -> PropertyAccessor
}

extension Persisted: PersistedField {
    static var valueType: _PropertyType { Value._floeType }

    static func makeAccessor(offset: Int) -> PropertyAccessor {
        PropertyAccessor(
            bind: { object, column in
                field(of: object, at: offset).pointee.storage = .managed(column: column)
            },
            unmanagedValue: { object in
                let field = field(of: object, at: offset)
                switch field.pointee.storage {
                case .unmanaged(let value): return value._floeEncoded.value
                case .unmanagedDefault:
                    let value = Value._floeDefault()
                    field.pointee.storage = .unmanaged(value)
                    return value._floeEncoded.value
                case .managed(let column): return object._floeBinding!.read(column: column).value
                }
            },
            setUnmanaged: { object, value in
                field(of: object, at: offset).pointee.storage = .unmanaged(Value._floeDecode(_FloeValue(value)))
            },
            unbind: { object in
                let field = field(of: object, at: offset)
                if case .managed = field.pointee.storage { field.pointee.storage = .unmanagedDefault }
            }
        )
    }

    /// The field's storage inside `object`; valid while the caller holds `object`.
    private static func field(of object: ObjectBase, at offset: Int) -> UnsafeMutablePointer<Persisted<Value>> {
        (Unmanaged.passUnretained(object).toOpaque() + offset).assumingMemoryBound(to: Persisted<Value>.self)
    }
}

/// Reads and writes one `@Persisted` field of any instance of a class, by its offset.
struct PropertyAccessor: @unchecked Sendable {
    // @unchecked: the closures capture only the field offset.
    /// Makes the field read and write `column` of the object's binding.
    let bind: (ObjectBase, Int) -> Void
    /// The field's value in stored form (an unmanaged object's own value).
    let unmanagedValue: (ObjectBase) -> Value
    /// Sets an unmanaged object's field from a stored-form value.
    let setUnmanaged: (ObjectBase, Value) -> Void
    /// Returns the field to an unmanaged state.
    let unbind: (ObjectBase) -> Void
}
