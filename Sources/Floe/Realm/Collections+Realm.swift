@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// The realm a live collection belongs to, as Realm's collections answer it.

extension Results {
    /// The realm these results read.
    ///
    /// ```swift
    /// extension Realm { func owns(_ dogs: Results<Dog>) -> Bool { dogs.realm === self } }
    /// ```
    public var realm: Realm? { context.owner as? Realm }

    /// Whether the realm these results read was closed (then they can no longer be read).
    public var isInvalidated: Bool { context.store.isClosed }
}

extension List {
    /// The realm of the object that owns this list (nil while unmanaged).
    public var realm: Realm? { (parent ?? nested?.parent)?.source.owner as? Realm }
}

extension MutableSet {
    /// The realm of the object that owns this set (nil while unmanaged).
    public var realm: Realm? { parent?.source.owner as? Realm }
}

extension Map {
    /// The realm of the object that owns this map (nil while unmanaged).
    public var realm: Realm? { (parent ?? nested?.parent)?.source.owner as? Realm }
}

extension LinkingObjects {
    /// The realm of the object these objects link to (nil while unmanaged).
    public var realm: Realm? { parent?.source.owner as? Realm }
}
