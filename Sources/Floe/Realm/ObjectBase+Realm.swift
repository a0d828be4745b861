@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// What a model object answers about the realm it belongs to.

extension RealmObject {
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
        return Frozen(snapshot: try binding.source.frozenSnapshot(), binding: binding.tableBinding, key: binding.key)
    }
}

extension ObjectBase {
    /// The realm managing this object (nil while unmanaged).
    ///
    /// ```swift
    /// extension Realm {
    ///     func isMine(_ dog: Dog) -> Bool { dog.realm === self }
    /// }
    /// ```
    public var realm: Realm? { _floeBinding?.source.owner as? Realm }
}
