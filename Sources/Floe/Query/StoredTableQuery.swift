@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// The string predicate dialect evaluated on a stored class by its stored schema alone: for
/// tools that read a file whose model classes they do not have (`floe query`).
///
/// Each stored property becomes a property of the same name and stored type, so typos and
/// operators that do not fit a type are the same typed errors as for a model class. Links are
/// compared as values (`owner == nil`); key paths that follow them are refused, because no
/// model class says which class a path leads through.
///
/// ```swift
/// let keys = try StoredTableQuery.matchingKeys(in: "Dog", of: snapshot, where: "age > 3",
///                                              sortedBy: "name", ascending: true)
/// ```
@_spi(Engine) public enum StoredTableQuery {
    /// Keys of the objects of `className` that match `predicateFormat` (every object when it
    /// is nil), in key order or ordered by the stored property `sortKey`.
    ///
    /// - Throws: `FloeError.noSuchTable` for a class the file does not have,
    ///   `.invalidPredicate` / `.invalidKeyPath` for a predicate or sort key that does not parse or fit.
    public static func matchingKeys(in className: String, of reader: any VersionReading, where predicateFormat: String?,
                                    sortedBy sortKey: String? = nil, ascending: Bool = true) throws(FloeError) -> [Int64] {
        let table = try reader.table(named: className)
        let binding = storedBinding(try reader.spec(of: table), table: table)
        let noLinkedClasses: (ObjectBase.Type) throws(FloeError) -> TableBinding? = { _ in nil }
        var keys: [Int64]
        if let predicateFormat {
            let predicate = try PredicateParser.parse(predicateFormat, arguments: [])
            do throws(FloeError) {
                keys = try QueryEvaluator(predicate, binding: binding, reader: reader, bindings: noLinkedClasses).matchingKeys()
            } catch .invalidKeyPath(let className, let keyPath, let reason) {
                throw .invalidKeyPath(className: className, keyPath: keyPath, reason: linkReason(keyPath, in: binding) ?? reason)
            }
        } else {
            keys = try reader.objectKeys(in: table)
        }
        if let sortKey {
            guard let index = binding.schema.propertyIndex(named: sortKey) else {
                throw .invalidKeyPath(className: className, keyPath: sortKey, reason: "\(className) has no property '\(sortKey)' to sort by")
            }
            guard binding.schema.properties[index].type.collection == .single else {
                throw .invalidKeyPath(className: className, keyPath: sortKey, reason: "'\(sortKey)' is a collection: sort by a single value")
            }
            let hop = QueryEvaluator.Hop(binding: binding, column: binding.columnOfProperty[index], property: binding.schema.properties[index])
            let columns = try SortColumns.values(of: keys, paths: [QueryEvaluator.SortKey(hops: [hop], count: nil)], binding: binding, reader: reader)
            keys = SortColumns.order(keys, columns: columns, ascending: [ascending])
        }
        return keys
    }

    /// Why a key path through a link cannot be followed here (nil: it does not go through one).
    static func linkReason(_ keyPath: String, in binding: TableBinding) -> String? {
        let first = String(keyPath.prefix { $0 != "." && $0 != "[" })
        guard first.count < keyPath.count, let property = binding.schema.property(named: first), property.type.columnType == .link else { return nil }
        return "'\(first)' links to \(property.type.swiftName): following links needs the model classes, and this query has only the stored schema"
    }

    /// A binding whose properties are the stored columns, one for one.
    static func storedBinding(_ spec: TableSpec, table: TableHandle) -> TableBinding {
        let accessor = PropertyAccessor(columnOffset: 0, unmanagedValue: { _ in _FloeValue(.null) }, setUnmanaged: { _, _ in },
                                        swiftValue: { _ in Value.null }, detachedValue: { _ in _FloeValue(.null) })
        let properties = spec.columns.map { column in
            var type = _PropertyType(columnType: column.type, swiftName: storedTypeName(column))
            type.isOptional = column.isNullable
            type.integerBits = column.integerBits
            type.collection = column.collection
            return PropertyInfo(name: column.name, persistedName: column.name, type: type,
                                isPrimaryKey: column.isPrimaryKey, isIndexed: column.isIndexed, accessor: accessor)
        }
        let schema = ObjectSchemaInfo(type: ObjectBase.self, className: spec.name, kind: spec.kind, properties: properties)
        return TableBinding(schema: schema, table: table, columnOfProperty: Array(spec.columns.indices), columnCount: spec.columns.count)
    }

    /// The stored type as messages name it ("String?", "link → Person", "List<Int>").
    static func storedTypeName(_ column: ColumnSpec) -> String {
        var name: String
        switch column.type {
        case .link: name = column.linkTarget ?? "Object"
        case .int: name = column.integerBits == 64 ? "Int" : "Int\(column.integerBits)"
        case .bool: name = "Bool"
        case .float: name = "Float"
        case .double: name = "Double"
        case .string: name = "String"
        case .binary: name = "Data"
        case .timestamp: name = "Date"
        case .decimal128: name = "Decimal128"
        case .objectId: name = "ObjectId"
        case .uuid: name = "UUID"
        case .mixed: name = "AnyRealmValue"
        }
        if column.isNullable { name += "?" }
        switch column.collection {
        case .single: return name
        case .list: return "List<\(name)>"
        case .set: return "MutableSet<\(name)>"
        case .map: return "Map<String, \(name)>"
        }
    }
}
