@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// What every model class can do, whatever its kind.
public protocol RealmObject: ObjectBase {}

extension ObjectBase: RealmObject {}

extension RealmObject {
}

extension ObjectBase {
    /// Whether this managed object was deleted (or its write rolled back). Unmanaged objects are never invalidated.
    public var isInvalidated: Bool {
        guard let binding = _floeBinding else { return false }
        return !binding.exists
    }

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
        a === b || (a.storeIdentity != nil && a.storeIdentity == b.storeIdentity)
    }
}

extension ObjectBase: Hashable {
    /// Managed objects are equal when they are the same stored object; unmanaged ones only to themselves.
    public static func == (lhs: ObjectBase, rhs: ObjectBase) -> Bool {
        lhs.isSameObject(as: rhs)
    }

    /// Hashes what `==` compares: the class and stored key of a managed object, the
    /// instance of an unmanaged one.
    public func hash(into hasher: inout Hasher) {
        if let binding = _floeBinding {
            hasher.combine(binding.tableBinding.schema.className)
            hasher.combine(binding.key)
        } else {
            hasher.combine(ObjectIdentifier(self))
        }
    }
}
