import Foundation
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// Opens a realm's store and brings its schema up to the configuration's: checks the
/// stored schema against `objectTypes`, then migrates, deletes and recreates, or refuses.
enum RealmOpener {
    static func openStore(_ configuration: Realm.Configuration) throws -> Store {
        let store: Store
        if let identifier = configuration.inMemoryIdentifier {
            var options = configuration.storeOptions
            options.shouldCompactOnOpen = nil
            store = Store.inMemory(identifier: identifier, options: options)
        } else {
            store = try Store.open(path: configuration.resolvedPath!, options: configuration.storeOptions)
        }
        do {
            try prepareSchema(of: store, configuration: configuration)
        } catch let error as FloeError {
            guard configuration.deleteRealmIfMigrationNeeded, !configuration.readOnly, error.meansMigrationNeeded,
                  let path = configuration.resolvedPath
            else { throw error }
            store.close()
            FileHandle.remove(path)
            let fresh = try Store.open(path: path, options: configuration.storeOptions)
            try prepareSchema(of: fresh, configuration: configuration)
            return fresh
        }
        return store
    }

    private static func prepareSchema(of store: Store, configuration: Realm.Configuration) throws {
        let snapshot = try store.snapshot()
        let isNew = try snapshot.tableNames().isEmpty && snapshot.version == 0
        if !isNew && snapshot.schemaVersion > configuration.schemaVersion {
            throw FloeError.schemaVersionTooLow(path: store.path, stored: snapshot.schemaVersion, requested: configuration.schemaVersion)
        }
        guard let types = configuration.objectTypes else {
            guard snapshot.schemaVersion != configuration.schemaVersion, !configuration.readOnly else { return }
            // A raised version announces changed classes, and migrating reshapes the stored
            // classes into them. Without objectTypes they are known only once used, after the
            // open: storing the version now would skip the migration for good (the next open
            // finds nothing to migrate from). Only a file with nothing to migrate takes it.
            let classNames = try snapshot.tableNames()
            guard isNew || classNames.isEmpty && configuration.migrationBlock == nil else {
                throw FloeError.migrationNeedsObjectTypes(path: store.path, stored: snapshot.schemaVersion,
                                                          requested: configuration.schemaVersion, classNames: classNames.sorted())
            }
            let transaction = try store.beginWrite()
            try transaction.setSchemaVersion(configuration.schemaVersion)
            try transaction.commit()
            return
        }
        let schemas = try types.map { try SchemaDiscovery.schema(for: $0) }
        var seen: [String: ObjectBase.Type] = [:]
        for schema in schemas {
            if let other = seen[schema.className], other != schema.type {
                throw FloeError.invalidSchema(className: schema.className, property: "(class)",
                                              reason: "objectTypes holds two classes stored as '\(schema.className)': \(String(reflecting: other)) and \(String(reflecting: schema.type))")
            }
            seen[schema.className] = schema.type
        }
        var differences: [String] = []
        var indexChanges: [(String, Int, Bool)] = []
        for schema in schemas {
            guard let table = try snapshot.tableIfPresent(named: schema.className) else { continue }
            let stored = try snapshot.spec(of: table)
            differences += SchemaComparison.differences(schema, stored: stored)
            for property in schema.storedProperties {
                if let column = stored.columnIndex(named: property.persistedName),
                   stored.columns[column].isIndexed != property.isIndexed {
                    indexChanges.append((schema.className, column, property.isIndexed))
                }
            }
        }
        let missingTables = try schemas.filter { try snapshot.tableIfPresent(named: $0.className) == nil }
        let needsMigration = !differences.isEmpty
        if needsMigration && (isNew || configuration.schemaVersion == snapshot.schemaVersion || configuration.migrationBlock == nil && configuration.schemaVersion == snapshot.schemaVersion) {
            throw FloeError.schemaMismatch(path: store.path, differences: differences)
        }
        if needsMigration && configuration.deleteRealmIfMigrationNeeded {
            throw FloeError.schemaMismatch(path: store.path, differences: differences)
        }
        let versionChanged = snapshot.schemaVersion != configuration.schemaVersion
        guard needsMigration || versionChanged || !missingTables.isEmpty || !indexChanges.isEmpty else { return }
        if configuration.readOnly {
            if needsMigration { throw FloeError.schemaMismatch(path: store.path, differences: differences) }
            return
        }
        let transaction = try store.beginWrite()
        do {
            for schema in missingTables { try transaction.createTable(schema.tableSpec) }
            for (className, column, indexed) in indexChanges {
                try transaction.setIndexed(indexed, column: column, in: transaction.table(named: className))
            }
            if needsMigration || versionChanged {
                try Migrator(transaction: transaction, old: snapshot, schemas: schemas)
                    .migrate(block: configuration.migrationBlock, oldVersion: snapshot.schemaVersion)
            }
            try transaction.setSchemaVersion(configuration.schemaVersion)
            try transaction.commit()
        } catch {
            transaction.rollback()
            throw error
        }
    }
}

extension FloeError {
    /// Whether opening failed because the file needs a migration (which
    /// `deleteRealmIfMigrationNeeded` answers by starting a new file).
    var meansMigrationNeeded: Bool {
        switch self {
        case .schemaMismatch, .migrationNeedsObjectTypes: true
        default: false
        }
    }
}
