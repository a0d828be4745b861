/// Reads for frozen objects: always the same version.
final class FrozenSource: ObjectSource {
    let snapshot: Snapshot

    init(snapshot: Snapshot) {
        self.snapshot = snapshot
    }

    var isFrozen: Bool { true }

    func currentReader() throws(FloeError) -> any VersionReading { snapshot }

    func linkedObject(_ type: ObjectBase.Type, key: Int64) -> ObjectBase? {
        let found: TableBinding?
        do throws(FloeError) {
            if let binding = try FrozenRealm.binding(for: type, in: snapshot), try snapshot.contains(key, in: binding.table) {
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

    func changeCollection(binding: ObjectBinding, column: Int, _ change: (CollectionEditor) throws(FloeError) -> Void) {
        preconditionFailure("Cannot modify '\(binding.className).\(binding.tableBinding.propertyName(ofColumn: column))' of a frozen \(binding.className) object.")
    }

    func write(_ value: _FloeValue, binding: ObjectBinding, column: Int) {
        preconditionFailure("Cannot modify '\(binding.className).\(binding.tableBinding.propertyName(ofColumn: column))' of a frozen \(binding.className) object.")
    }
}
