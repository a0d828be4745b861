@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// Everything Floe knows about a model class: discovered once per class, then cached.
final class ObjectSchemaInfo: @unchecked Sendable {
    // @unchecked: immutable after discovery; `type` is a class metatype.
    let type: ObjectBase.Type
    let className: String
    let kind: TableKind
    let properties: [PropertyInfo]
    let primaryKeyIndex: Int?

    init(type: ObjectBase.Type, className: String, kind: TableKind, properties: [PropertyInfo]) {
        self.type = type
        self.className = className
        self.kind = kind
        self.properties = properties
        accessors = properties.map(\.accessor)
        primaryKeyIndex = properties.firstIndex { $0.isPrimaryKey }
    }

    /// The properties' accessors alone, for the per-object loops (binding, reading an unmanaged object).
    let accessors: [PropertyAccessor]

    /// The table this class is stored in (computed properties have no column).
    var tableSpec: TableSpec {
        TableSpec(name: className, kind: kind, columns: storedProperties.map(\.columnSpec))
    }

    /// The properties that have a column.
    var storedProperties: [PropertyInfo] { properties.filter { !$0.isComputed } }

    func property(named name: String) -> PropertyInfo? {
        properties.first { $0.name == name }
    }

    func propertyIndex(named name: String) -> Int? {
        properties.firstIndex { $0.name == name }
    }
}

/// One `@Persisted` property of a model class.
struct PropertyInfo: @unchecked Sendable {
    // @unchecked: immutable; `type` holds a class metatype.
    /// The Swift property name.
    let name: String
    /// The column name (differs from `name` through `propertiesMapping()`).
    let persistedName: String
    let type: _PropertyType
    let isPrimaryKey: Bool
    let isIndexed: Bool
    let accessor: PropertyAccessor
    /// For `LinkingObjects`: the property of the origin class that links here.
    var originProperty: String? = nil
    /// For links, lists, sets and maps of objects: whether deleting the owner deletes the targets.
    var deleteRule: DeleteRule = .nullify

    /// Not stored: computed from other objects (`LinkingObjects`).
    var isComputed: Bool { originProperty != nil }

    /// The same property seen as one of its collection's elements.
    var element: PropertyInfo {
        var type = self.type
        type.collection = .single
        for prefix in ["List<", "MutableSet<", "Map<String, "] where type.swiftName.hasPrefix(prefix) {
            type.swiftName = String(type.swiftName.dropFirst(prefix.count).dropLast())
        }
        return PropertyInfo(name: name, persistedName: persistedName, type: type, isPrimaryKey: false, isIndexed: false, accessor: accessor)
    }

    var columnSpec: ColumnSpec {
        ColumnSpec(name: persistedName, type: type.columnType, isNullable: type.isOptional, collection: type.collection,
                   linkTarget: type.objectType?.className(), integerBits: type.integerBits,
                   isIndexed: isIndexed, isPrimaryKey: isPrimaryKey)
    }
}
