@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// Frozen projections: a frozen root object seen through the projection.

/// A frozen projection: `Sendable`, readable from any task without `await`, never changing.
/// It shows the projected properties only.
///
/// ```swift
/// let frozen = try projection.freeze()
/// Task.detached { print(frozen.firstName, frozen.homeCity ?? "") }
/// ```
@dynamicMemberLookup
public struct FrozenProjection<P: ProjectionObservable>: Sendable {
    /// The root object, frozen at the same version.
    public let rootObject: Frozen<P.Root>

    /// A projected property as it was at the frozen version.
    public subscript<V>(dynamicMember keyPath: KeyPath<P, V>) -> V {
        P(projecting: rootObject.makeModel())[keyPath: keyPath]
    }

    /// Always true.
    public var isFrozen: Bool { true }

    /// Whether the root object did not exist at this version.
    public var isInvalidated: Bool { rootObject.isInvalidated }

    /// The version this projection was frozen at.
    public var version: UInt64 { rootObject.version }
}

extension ProjectionObservable {
    /// A frozen, `Sendable` snapshot of this projection at the realm's newest version.
    ///
    /// ```swift
    /// let frozen = try await realm.read { realm in try realm.objects(PersonProjection.self)[0].freeze() }
    /// ```
    ///
    /// - Throws: ``FloeError/invalidOperation(className:detail:)`` when the root object is not
    ///   managed or was deleted; ``FloeError/invalidKeyPath(className:keyPath:reason:)`` for a
    ///   projected property whose key path reads no persisted property.
    public func freeze() throws -> FrozenProjection<Self> {
        _ = try ProjectionSchema.properties(of: Self.self)
        if rootObject.isInvalidated {
            throw FloeError.invalidOperation(className: "\(Self.self)", detail: "its \(Root.className()) object was deleted, so it cannot be frozen")
        }
        return FrozenProjection(rootObject: try rootObject.freeze())
    }

    /// Whether the root object is frozen (a projection made over a frozen version's object).
    ///
    /// ```swift
    /// if !projection.isFrozen { projection.firstName = "Ana" }
    /// ```
    public var isFrozen: Bool { rootObject.isFrozen }
}

extension RealmReading where Self: ~Copyable {
    /// The live projection of a frozen one, or nil if its root object was deleted since.
    ///
    /// ```swift
    /// try await realm.write { realm in realm.thaw(frozen)?.firstName = "Ana" }
    /// ```
    public func thaw<P: ProjectionObservable>(_ frozen: FrozenProjection<P>) -> P? {
        thaw(frozen.rootObject).map { P(projecting: $0) }
    }
}
