@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// A frozen realm: the whole database at one version, `Sendable` and unchanging.
///
/// ```swift
/// let frozen = try await realm.read { realm in try realm.freeze() }
/// let rex = frozen.object(ofType: Dog.self, forPrimaryKey: 1)
/// ```
public struct FrozenRealm: Sendable {
    let snapshot: Snapshot
    /// The configuration of the realm this was frozen from.
    public let configuration: Realm.Configuration

    /// Always true.
    public var isFrozen: Bool { true }

    /// The version this realm was frozen at.
    public var version: UInt64 { snapshot.version }

    /// Every object of a class at this version.
    public func objects<T: Object>(_ type: T.Type) -> FrozenResults<T> {
        // Without a query nothing is evaluated up front, so this cannot fail: a class that no
        // longer matches the file reads as empty here, as `try freeze()` reported when it was made.
        (try? FrozenResults(snapshot: snapshot, elementType: type)) ?? FrozenResults(empty: snapshot)
    }

    /// The object of `type` whose primary key is `key` at this version, or nil.
    public func object<T: Object, Key: _Persistable>(ofType type: T.Type, forPrimaryKey key: Key) throws -> Frozen<T>? {
        let schema = try SchemaDiscovery.schema(for: type)
        guard let pk = schema.primaryKeyIndex else {
            throw FloeError.invalidOperation(className: schema.className, detail: "has no primary key")
        }
        guard let binding = try FrozenSource.binding(for: type, in: snapshot),
              let found = try snapshot.findObjects(in: binding.table, column: binding.columnOfProperty[pk],
                                                   equalTo: key._floeEncoded.value, limit: 1).first
        else { return nil }
        return Frozen(snapshot: snapshot, binding: binding, key: found)
    }

}
