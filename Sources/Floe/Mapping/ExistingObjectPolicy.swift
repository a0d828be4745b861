@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// What the mapper does when an object it stores has the primary key of one that exists:
/// the engine-side form of ``Realm/UpdatePolicy``, which the realm translates.
enum ExistingObjectPolicy {
    /// Refuse: a duplicate primary key is an error.
    case error
    /// Write only the properties whose values differ.
    case modified
    /// Write every property.
    case all
}
