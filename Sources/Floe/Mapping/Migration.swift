import Foundation
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// Handed to a ``MigrationBlock``: reads the old data and shapes the new.
///
/// ```swift
/// configuration.migrationBlock = { migration, oldSchemaVersion in
///     if oldSchemaVersion < 1 {
///         migration.enumerateObjects(ofType: "Person") { oldObject, newObject in
///             let first = oldObject!["firstName"] as! String
///             let last = oldObject!["lastName"] as! String
///             newObject!["fullName"] = "\(first) \(last)"
///         }
///     }
/// }
/// ```
public final class Migration {
    let migrator: Migrator

    init(migrator: Migrator) {
        self.migrator = migrator
    }

    /// Calls `block` for every object of a class, with its old values and its new (writable) object.
    public func enumerateObjects(ofType typeName: String, _ block: (_ oldObject: MigrationObject?, _ newObject: MigrationObject?) -> Void) {
        migrator.enumerate(typeName, block)
    }

    /// Creates an object of a class in the new schema.
    @discardableResult
    public func create(_ typeName: String, value: [String: Any] = [:]) -> MigrationObject? {
        migrator.create(typeName, value: value)
    }

    /// Deletes an object created or enumerated in this migration.
    public func delete(_ object: MigrationObject) {
        migrator.delete(object)
    }

    /// Deletes every object of a class (and the class's table, when the new schema does not have it).
    /// Returns whether there was such a class.
    @discardableResult
    public func deleteData(forType typeName: String) -> Bool {
        migrator.deleteData(typeName)
    }

    /// Moves a property's values to its new name (the old property must not be in the new schema).
    public func renameProperty(onType typeName: String, from oldName: String, to newName: String) {
        migrator.rename(typeName, from: oldName, to: newName)
    }
}

/// One object inside a migration, read and written by property name.
public final class MigrationObject {
    let migrator: Migrator
    let table: TableHandle
    let key: Int64
    let reader: any VersionReading
    let isNew: Bool

    init(migrator: Migrator, table: TableHandle, key: Int64, reader: any VersionReading, isNew: Bool) {
        self.migrator = migrator
        self.table = table
        self.key = key
        self.reader = reader
        self.isNew = isNew
    }

    /// A property's value (nil for null); setting it on a new object stores it.
    public subscript(propertyName: String) -> Any? {
        get { migrator.read(self, propertyName) }
        set {
            precondition(isNew, "Cannot modify '\(table.name).\(propertyName)' of an old object in a migration; change the new object.")
            migrator.write(self, propertyName, newValue)
        }
    }
}

/// Called to migrate a realm whose stored schema version is lower than the configuration's.
public typealias MigrationBlock = @Sendable (_ migration: Migration, _ oldSchemaVersion: UInt64) -> Void
