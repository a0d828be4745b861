@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// Reads for frozen objects: always the same version.
final class FrozenSource: ObjectSource {
    let snapshot: Snapshot

    init(snapshot: Snapshot) {
        self.snapshot = snapshot
    }

    var isFrozen: Bool { true }

    func frozenSnapshot() throws(FloeError) -> Snapshot { snapshot }

    var storeIdentity: ObjectIdentifier? { nil }

    var owner: AnyObject? { nil }

    /// The binding of `type` to its table in `snapshot`, or nil when the table does not exist.
    static func binding(for type: ObjectBase.Type, in snapshot: Snapshot) throws(FloeError) -> TableBinding? {
        let schema = try SchemaDiscovery.schema(for: type)
        guard let table = try snapshot.tableIfPresent(named: schema.className) else { return nil }
        return try SchemaComparison.bind(schema, to: snapshot.spec(of: table), table: table, path: "frozen realm")
    }

    func currentReader() throws(FloeError) -> any VersionReading { snapshot }

    func isCurrent(_ position: RowPosition) -> Bool { position.isValid(in: snapshot) }

    func linkedObject(_ type: ObjectBase.Type, key: Int64) -> ObjectBase? {
        let found: TableBinding?
        do throws(FloeError) {
            if let binding = try FrozenSource.binding(for: type, in: snapshot), try snapshot.contains(key, in: binding.table) {
                found = binding
            } else {
                found = nil
            }
        } catch {
            return readFailed(error, reading: "a link to a \(type.className()) object", placeholder: type.init())
        }
        guard let binding = found else { return nil }
        let object = type.init()
        object._floeBinding = ObjectBinding(source: self, tableBinding: binding, key: key)
        for (index, accessor) in binding.schema.accessors.enumerated() { accessor.bind(object, binding.columnOfProperty[index]) }
        return object
    }

    func modelType(named className: String) -> ObjectBase.Type? { SchemaDiscovery.type(named: className) }

    /// No enclosing read to throw from: the damage is kept for `checkIntegrity()`.
    func recordReadFailure(_ error: FloeError) { snapshot.damage.record(error) }

    var hasRecordedDamage: Bool { snapshot.damage.firstError != nil }

    /// No enclosing read to throw from: kept with the damage, for `checkIntegrity()`.
    func recordInvalidValue(_ error: FloeError) { snapshot.damage.record(error) }

    func changeCollection(binding: ObjectBinding, column: Int, _ change: (any CollectionEditing) throws(FloeError) -> Void) {
        preconditionFailure("Cannot modify '\(binding.className).\(binding.tableBinding.propertyName(ofColumn: column))' of a frozen \(binding.className) object.")
    }

    func write(_ value: _FloeValue, binding: ObjectBinding, column: Int) {
        preconditionFailure("Cannot modify '\(binding.className).\(binding.tableBinding.propertyName(ofColumn: column))' of a frozen \(binding.className) object.")
    }
}

/// A frozen object whose values `create(_:value:)` can copy.
protocol FrozenObjectSource: Sendable {
    func makeObject() -> ObjectBase
}
