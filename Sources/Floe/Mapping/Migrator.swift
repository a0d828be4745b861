import Foundation
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// Does a migration's work inside one write transaction: the new columns exist before the
/// block runs (old values stay readable from the old snapshot); columns the new schema
/// dropped go once the block is done.
final class Migrator {
    let transaction: WriteTransaction
    let old: Snapshot
    let schemas: [ObjectSchemaInfo]
    private var errors: [any Error] = []

    init(transaction: WriteTransaction, old: Snapshot, schemas: [ObjectSchemaInfo]) {
        self.transaction = transaction
        self.old = old
        self.schemas = schemas
    }

    func migrate(block: MigrationBlock?, oldVersion: UInt64) throws {
        // Shape every stored table like its class: add new columns, replace changed ones.
        for schema in schemas {
            let table = try transaction.table(named: schema.className)
            var stored = try transaction.spec(of: table)
            for property in schema.storedProperties {
                let wanted = property.columnSpec
                if let index = stored.columnIndex(named: wanted.name) {
                    let column = stored.columns[index]
                    if SchemaComparison.describe(column) != SchemaComparison.describe(wanted) || column.isPrimaryKey != wanted.isPrimaryKey {
                        try transaction.removeColumn(named: wanted.name, from: table)
                        try addColumn(wanted, to: table, className: schema.className)
                    }
                } else {
                    try addColumn(wanted, to: table, className: schema.className)
                }
                stored = try transaction.spec(of: table)
            }
        }
        block?(Migration(migrator: self), oldVersion)
        if let error = errors.first { throw error }
        // Drop what the new schema no longer has.
        for schema in schemas {
            guard let table = try transaction.tableIfPresent(named: schema.className) else { continue }
            let wanted = Set(schema.storedProperties.map(\.persistedName))
            for column in try transaction.spec(of: table).columns where !wanted.contains(column.name) {
                try transaction.removeColumn(named: column.name, from: table)
            }
        }
    }

    /// Adds a column; a new primary key gets each object's value filled in by the block,
    /// so it is added as a plain column and made the key afterwards only if values are unique.
    private func addColumn(_ column: ColumnSpec, to table: TableHandle, className: String) throws(FloeError) {
        let count = try transaction.objectCount(in: table)
        if column.isPrimaryKey && count > 1 {
            var plain = column
            plain.isPrimaryKey = false
            plain.isIndexed = true
            try transaction.addColumn(plain, to: table)
        } else {
            try transaction.addColumn(column, to: table)
        }
    }

    func enumerate(_ typeName: String, _ block: (MigrationObject?, MigrationObject?) -> Void) {
        do {
            let oldTable = try old.tableIfPresent(named: typeName)
            let newTable = try transaction.tableIfPresent(named: typeName)
            let keys = try oldTable.map { try old.objectKeys(in: $0) } ?? newTable.map { try transaction.objectKeys(in: $0) } ?? []
            for key in keys {
                let oldObject = oldTable.map { MigrationObject(migrator: self, table: $0, key: key, reader: old, isNew: false) }
                var newObject: MigrationObject?
                if let newTable, try transaction.contains(key, in: newTable) {
                    newObject = MigrationObject(migrator: self, table: newTable, key: key, reader: transaction, isNew: true)
                }
                block(oldObject, newObject)
            }
        } catch {
            errors.append(error)
        }
    }

    func create(_ typeName: String, value: [String: Any]) -> MigrationObject? {
        do {
            let table = try transaction.table(named: typeName)
            let spec = try transaction.spec(of: table)
            var row: [Value] = spec.columns.map { $0.isNullable || $0.type == .link || $0.type == .mixed || $0.collection != .single ? .null : .defaultValue(for: $0.type) }
            for (name, entry) in value {
                guard let index = spec.columnIndex(named: name) else { continue }
                row[index] = try Self.engineValue(entry, for: spec.columns[index], table: typeName)
                try checkModel(row[index], table: typeName, column: name)
            }
            let key = try transaction.insertObject(into: table, values: row)
            return MigrationObject(migrator: self, table: table, key: key, reader: transaction, isNew: true)
        } catch {
            errors.append(error)
            return nil
        }
    }

    func delete(_ object: MigrationObject) {
        do {
            try transaction.deleteObject(from: transaction.table(named: object.table.name), key: object.key)
        } catch {
            errors.append(error)
        }
    }

    func deleteData(_ typeName: String) -> Bool {
        do {
            guard let table = try transaction.tableIfPresent(named: typeName) else { return false }
            if schemas.contains(where: { $0.className == typeName }) {
                try transaction.removeAllObjects(from: table)
            } else {
                try transaction.removeTable(table)
            }
            return true
        } catch {
            errors.append(error)
            return false
        }
    }

    func rename(_ typeName: String, from oldName: String, to newName: String) {
        do {
            guard let oldTable = try old.tableIfPresent(named: typeName) else {
                throw FloeError.noSuchTable(name: typeName)
            }
            let oldSpec = try old.spec(of: oldTable)
            guard let oldColumn = oldSpec.columnIndex(named: oldName) else {
                throw FloeError.noSuchColumn(table: typeName, column: oldName)
            }
            let table = try transaction.table(named: typeName)
            let spec = try transaction.spec(of: table)
            guard let newColumn = spec.columnIndex(named: newName) else {
                throw FloeError.noSuchColumn(table: typeName, column: newName)
            }
            for key in try old.objectKeys(in: oldTable) where try transaction.contains(key, in: table) {
                let value = try old.value(in: oldTable, key: key, column: oldColumn)
                try transaction.setValue(value, in: table, key: key, column: newColumn)
            }
        } catch {
            errors.append(error)
        }
    }

    func read(_ object: MigrationObject, _ name: String) -> Any? {
        do {
            let spec = try object.reader.spec(of: object.table)
            guard let column = spec.columnIndex(named: name) else { throw FloeError.noSuchColumn(table: object.table.name, column: name) }
            return Self.swiftValue(try object.reader.value(in: object.table, key: object.key, column: column))
        } catch {
            errors.append(error)
            return nil
        }
    }

    func write(_ object: MigrationObject, _ name: String, _ value: Any?) {
        do {
            let spec = try transaction.spec(of: object.table)
            guard let column = spec.columnIndex(named: name) else { throw FloeError.noSuchColumn(table: object.table.name, column: name) }
            let stored = try Self.engineValue(value ?? NSNull(), for: spec.columns[column], table: object.table.name)
            try checkModel(stored, table: object.table.name, column: name)
            try transaction.setValue(stored, in: object.table, key: object.key, column: column)
        } catch {
            errors.append(error)
        }
    }

    /// A value the model's property refuses though its column takes it: an enum's raw value that
    /// names no case, a failable type projection's value with no mapping (a URL from "").
    private func checkModel(_ value: Value, table: String, column: String) throws(FloeError) {
        guard value != .null, let schema = schemas.first(where: { $0.className == table }),
              let property = schema.properties.first(where: { $0.persistedName == column }),
              property.type.collection == .single, let accepts = property.type.acceptsValue, !accepts(value) else { return }
        throw .typeMismatch(table: table, column: property.name, expected: property.type.swiftName,
                            value: value.debugText.replacingOccurrences(of: "\"", with: "'"))
    }

    /// A stored value as the Swift value a migration block reads.
    static func swiftValue(_ value: Value) -> Any? {
        switch value {
        case .null: return nil
        case .bool(let flag): return flag
        case .int(let int): return Int(int)
        case .float(let float): return float
        case .double(let double): return double
        case .string(let string): return string
        case .binary(let bytes): return Data(bytes)
        case .timestamp(let seconds): return Date(timeIntervalSinceReferenceDate: seconds)
        case .decimal128(let word): return Decimal128._floeDecode(_FloeValue(.decimal128(word)))
        case .objectId(let word): return ObjectId._floeDecode(_FloeValue(.objectId(word)))
        case .uuid(let word): return UUID._floeDecode(_FloeValue(.uuid(word)))
        case .link(let key): return key
        case .typedLink(_, let key): return key
        case .list(let values): return values.map(swiftValue)
        case .dictionary(let entries): return Dictionary(uniqueKeysWithValues: entries.map { ($0.key, swiftValue($0.value) as Any) })
        }
    }

    /// A Swift value a migration block writes, as the column stores it.
    static func engineValue(_ value: Any, for column: ColumnSpec, table: String) throws(FloeError) -> Value {
        let type = _PropertyType(columnType: column.type, isOptional: column.isNullable, integerBits: column.integerBits,
                                 collection: column.collection, swiftName: SchemaComparison.describe(column))
        let property = PropertyInfo(name: column.name, persistedName: column.name, type: type, isPrimaryKey: column.isPrimaryKey,
                                    isIndexed: column.isIndexed, accessor: Persisted<Int>.makeAccessor(offset: 0))
        return try ValueCoercion.coerce(value, to: property, in: table)
    }
}
