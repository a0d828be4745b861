@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// A frozen model object: an immutable, `Sendable` view of one object at one version,
/// readable from any task without `await`.
///
/// Read it with the model's own property names (computed properties included); it cannot
/// be written, and it never changes.
///
/// ```swift
/// let frozenDog = try dog.freeze()
/// Task.detached { print(frozenDog.name) }
/// ```
@dynamicMemberLookup
public struct Frozen<Model: ObjectBase>: Sendable, FrozenObjectSource {
    let snapshot: Snapshot
    let binding: TableBinding
    let key: Int64

    /// Reads a property (or any key path) of the object as it was at this version.
    public subscript<Property>(dynamicMember keyPath: KeyPath<Model, Property>) -> Property {
        makeModel()[keyPath: keyPath]
    }

    /// Follows a to-one link: the linked object, frozen at the same version (so that frozen
    /// objects are read-only all the way down).
    public subscript<Target: ObjectBase>(dynamicMember keyPath: KeyPath<Model, Target?>) -> Frozen<Target>? {
        guard let linked = makeModel()[keyPath: keyPath], let binding = linked._floeBinding else { return nil }
        return Frozen<Target>(snapshot: snapshot, binding: binding.tableBinding, key: binding.key)
    }

    /// Always true.
    public var isFrozen: Bool { true }

    /// Whether the object did not exist at this version (it was deleted, or created by a
    /// write that had not committed when it was frozen).
    public var isInvalidated: Bool { !((try? snapshot.contains(key, in: binding.table)) ?? false) }

    /// The version this object was frozen at.
    public var version: UInt64 { snapshot.version }

    /// Whether two frozen objects are the same stored object (at any versions).
    public func isSameObject(as other: Frozen<Model>) -> Bool {
        key == other.key && binding.schema === other.binding.schema
    }

    /// A throwaway instance bound to the frozen version; it never leaves the calling task.
    func makeObject() -> ObjectBase { makeModel() }

    func makeModel() -> Model {
        let object = (binding.schema.type as! Model.Type).init()
        let source = FrozenSource(snapshot: snapshot)
        object._floeBinding = ObjectBinding(source: source, tableBinding: binding, key: key)
        for (index, property) in binding.schema.properties.enumerated() {
            property.accessor.bind(object, binding.columnOfProperty[index])
        }
        return object
    }
}
