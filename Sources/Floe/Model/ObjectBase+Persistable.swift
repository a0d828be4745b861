@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// Model objects are persisted as links: a property of type `Dog?` stores the linked dog's key.
///
/// ```swift
/// class Dog: Object {
///     @Persisted var favoriteToy: DogToy?   // to-one relationship
/// }
/// class Person: Object {
///     @Persisted var address: Address?      // an embedded object, owned by this person
/// }
/// ```
extension ObjectBase: _PersistableSingleValue {
    public static var _floeType: _PropertyType {
        _PropertyType(columnType: .link, objectType: self, swiftName: className())
    }

    /// Never used for stored links (they are optional); a fresh unmanaged object.
    public static func _floeDefault() -> Self { Self() }

    public static func _floeDecode(_ stored: _FloeValue) -> Self {
        if let object = stored.object, stored.value == .null || stored.parent == nil { return cast(object) }
        // What a damaged read answers in place of an object (it recorded the damage, so the
        // enclosing read throws): an unmanaged placeholder, never a trap.
        if stored.value == .null && stored.parent == nil { return Self() }
        guard case .link(let key) = stored.value, let parent = stored.parent,
              let object = parent.source.linkedObject(self, key: key)
        else { preconditionFailure("A link to a \(className()) object could not be read: \(stored.value.debugText)") }
        return cast(object)
    }

    private static func cast<T>(_ object: ObjectBase) -> T { object as! T }

    public var _floeEncoded: _FloeValue {
        if let binding = _floeBinding, !binding.source.isFrozen {
            return .object(self, stored: .link(binding.key))
        }
        return .object(self, stored: .null)
    }
}
