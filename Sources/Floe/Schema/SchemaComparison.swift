@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// Compares a model class with the table stored for it.
enum SchemaComparison {
    /// Every difference that needs a migration, each a sentence naming the class and property.
    /// Index changes are not listed: they are applied without one.
    static func differences(_ schema: ObjectSchemaInfo, stored: TableSpec) -> [String] {
        var differences: [String] = []
        let className = schema.className
        if stored.kind != schema.kind {
            differences.append("Class '\(className)' has changed from \(describe(stored.kind)) to \(describe(schema.kind)).")
        }
        for property in schema.storedProperties {
            let wanted = property.columnSpec
            guard let column = stored.columns.first(where: { $0.name == wanted.name }) else {
                differences.append("Property '\(className).\(property.name)' has been added.")
                continue
            }
            if describe(column) != describe(wanted) {
                differences.append("Property '\(className).\(property.name)' has been changed from '\(describe(column))' to '\(describe(wanted))'.")
            }
            if column.isPrimaryKey != wanted.isPrimaryKey {
                differences.append(wanted.isPrimaryKey
                    ? "Primary key property '\(className).\(property.name)' has been added."
                    : "Primary key property '\(className).\(property.name)' has been removed.")
            }
        }
        let names = Set(schema.storedProperties.map(\.persistedName))
        for column in stored.columns where !names.contains(column.name) {
            differences.append("Property '\(className).\(column.name)' has been removed.")
        }
        return differences
    }

    /// Binds `schema` to its stored table, or throws ``FloeError/schemaMismatch(path:differences:)``.
    static func bind(_ schema: ObjectSchemaInfo, to stored: TableSpec, table: TableHandle, path: String) throws(FloeError) -> TableBinding {
        let differences = differences(schema, stored: stored)
        guard differences.isEmpty else { throw .schemaMismatch(path: path, differences: differences) }
        // Computed properties get pseudo columns past the stored ones: reads of them come back
        // as "ask the collection", like list columns.
        var pseudo = stored.columns.count
        let columns = schema.properties.map { property -> Int in
            if property.isComputed {
                defer { pseudo += 1 }
                return pseudo
            }
            return stored.columns.firstIndex { $0.name == property.persistedName }!
        }
        let objectKey = stored.objectKeyColumn
        let primaryKeyIsObjectKey = objectKey != nil && schema.primaryKeyIndex.map { columns[$0] } == objectKey
        return TableBinding(schema: schema, table: table, columnOfProperty: columns, columnCount: pseudo, primaryKeyIsObjectKey: primaryKeyIsObjectKey)
    }

    static func describe(_ column: ColumnSpec) -> String {
        var type: String
        switch column.type {
        case .link: type = "<\(column.linkTarget ?? "?")>"
        case .int where column.integerBits != 64: type = "int\(column.integerBits)"
        default: type = "\(column.type)"
        }
        if column.isNullable { type += "?" }
        switch column.collection {
        case .single: return type
        case .list: return "array<\(type)>"
        case .set: return "set<\(type)>"
        case .map: return "dictionary<string, \(type)>"
        }
    }

    private static func describe(_ kind: TableKind) -> String {
        switch kind {
        case .topLevel: return "a top-level object"
        case .embedded: return "an embedded object"
        case .asymmetric: return "an asymmetric object"
        }
    }
}
