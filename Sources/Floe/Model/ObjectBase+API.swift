/// What every model class can do, whatever its kind.
public protocol RealmObject: ObjectBase {}

extension ObjectBase: RealmObject {}

extension RealmObject {
    /// Creates an unmanaged object from a dictionary, an array in property order, or another
    /// object (a managed one gives an independent, unmanaged copy).
    ///
    /// ```swift
    /// let copy = try Dog(value: managedDog)
    /// let pluto = try Dog(value: ["name": "Pluto", "age": 3])
    /// ```
    public init(value: Any) throws {
        self.init()
        // The dynamic class: called through a metatype (nested values), `Self` is only the base.
        let schema = try SchemaDiscovery.schema(for: type(of: self))
        let values = try ValueCoercion.propertyValues(for: schema, from: value, core: nil)
        for (index, property) in schema.properties.enumerated() {
            guard var value = values[index] else { continue }
            if let target = property.type.objectType {
                // Nested values become unmanaged related objects.
                if let nested = value.nested { value = _FloeValue(.null, object: try target.init(value: nested)) }
                if let elements = value.elements {
                    var objects: [_FloeValue] = []
                    for element in elements {
                        objects.append(try element.nested.map { _FloeValue(.null, object: try target.init(value: $0)) } ?? element)
                    }
                    value.elements = objects
                }
            }
            property.accessor.setUnmanaged(self, value)
        }
    }

    /// A frozen, `Sendable` view of this managed object at its realm's last committed version.
    ///
    /// ```swift
    /// let frozenDog = try dog.freeze()
    /// Task.detached { print(frozenDog.name) }
    /// ```
    public func freeze() throws -> Frozen<Self> {
        guard let binding = _floeBinding else {
            throw FloeError.invalidOperation(className: Self.className(), detail: "unmanaged objects cannot be frozen; add the object to a realm first")
        }
        if let frozen = binding.source as? FrozenSource {
            return Frozen(snapshot: frozen.snapshot, binding: binding.tableBinding, key: binding.key)
        }
        guard let core = binding.source as? RealmCore else {
            throw FloeError.invalidOperation(className: Self.className(), detail: "this object cannot be frozen")
        }
        return Frozen(snapshot: try core.latestSnapshot(), binding: binding.tableBinding, key: binding.key)
    }
}

extension ObjectBase {
    /// Whether this managed object was deleted (or its write rolled back). Unmanaged objects are never invalidated.
    public var isInvalidated: Bool {
        guard let binding = _floeBinding else { return false }
        return !binding.exists
    }

    /// The realm managing this object (nil while unmanaged).
    ///
    /// ```swift
    /// extension Realm {
    ///     func isMine(_ dog: Dog) -> Bool { dog.realm === self }
    /// }
    /// ```
    public var realm: Realm? { (_floeBinding?.source as? RealmCore)?.realm }

    /// Whether this object is a frozen view (never, for a live or unmanaged object).
    public var isFrozen: Bool { _floeBinding?.source.isFrozen ?? false }

    /// The schema of this object's class.
    public var objectSchema: ObjectSchema {
        ObjectSchema(info: try! SchemaDiscovery.schema(for: type(of: self)))
    }

    /// Whether two objects are the same stored object (for unmanaged objects: the same instance).
    public func isSameObject(as other: ObjectBase?) -> Bool {
        guard let other else { return false }
        if self === other { return true }
        guard let mine = _floeBinding, let theirs = other._floeBinding else { return false }
        return mine.key == theirs.key && mine.tableBinding.schema.className == theirs.tableBinding.schema.className
            && sameStore(mine.source, theirs.source)
    }

    private func sameStore(_ a: ObjectSource, _ b: ObjectSource) -> Bool {
        if a === b { return true }
        if let a = a as? RealmCore, let b = b as? RealmCore { return a.store === b.store }
        return false
    }
}

extension ObjectBase: Hashable {
    /// Managed objects are equal when they are the same stored object; unmanaged ones only to themselves.
    public static func == (lhs: ObjectBase, rhs: ObjectBase) -> Bool {
        lhs.isSameObject(as: rhs)
    }

    public func hash(into hasher: inout Hasher) {
        if let binding = _floeBinding {
            hasher.combine(binding.tableBinding.schema.className)
            hasher.combine(binding.key)
        } else {
            hasher.combine(ObjectIdentifier(self))
        }
    }
}

extension ObjectBase: CustomStringConvertible {
    /// Every persisted property with its value, like Realm's:
    ///
    /// ```
    /// Dog {
    ///     name = Rex;
    ///     toys = List<String> <0x600003e0a0a0> (
    ///         [0] ball
    ///     );
    ///     owner = Person(id: 1);
    /// }
    /// ```
    public var description: String { ObjectDescription.describe(self, indent: 0) }
}
