@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// The rules a model class must follow, each broken rule a typed error naming the class and property.
enum SchemaValidation {
    static let primaryKeyTypes: Set<ColumnType> = [.int, .string, .objectId, .uuid]
    static let indexableTypes: Set<ColumnType> = [.bool, .int, .string, .timestamp, .uuid, .objectId, .mixed]

    static func validate(_ property: PropertyInfo, in className: String, kind: TableKind) throws(FloeError) {
        let type = property.type
        for name in Set([property.name, property.persistedName]) where name.utf8.count > TableSpec.maximumColumnNameLength {
            throw .invalidName(kind: "property '\(className).\(name)'", name: name,
                               reason: "\(name.utf8.count) UTF-8 bytes is more than the limit of \(TableSpec.maximumColumnNameLength)")
        }
        if type.isNestedOptional {
            throw .invalidSchema(className: className, property: property.name, reason: "\(type.swiftName) nests one optional in another")
        }
        if type.columnType == .link, let target = type.objectType, target is AsymmetricObject.Type {
            // Every form of link: to-one, `List`, `MutableSet`, `Map` values and `LinkingObjects`
            // (which would read asymmetric objects back).
            throw .invalidSchema(className: className, property: property.name,
                                 reason: "'\(target.className())' is an asymmetric object; asymmetric objects cannot be linked to")
        }
        if type.columnType == .link, type.collection == .single, let target = type.objectType {
            if !type.isOptional {
                throw .invalidSchema(className: className, property: property.name,
                                     reason: "a to-one relationship must be optional: declare it as \(type.swiftName)?")
            }
            if kind == .embedded && !(target is EmbeddedObject.Type) {
                throw .invalidSchema(className: className, property: property.name, reason: "embedded objects may link only to embedded objects, not to \(target.className())")
            }
        }
        if type.swiftName.hasPrefix("LinkingObjects<") && (property.originProperty ?? "").isEmpty {
            throw .invalidSchema(className: className, property: property.name,
                                 reason: "a LinkingObjects property needs its origin: declare it @Persisted(originProperty: \"…\")")
        }
        if type.columnType == .mixed && type.isOptional {
            throw .invalidSchema(className: className, property: property.name, reason: "AnyRealmValue is never optional: its .none is its nil")
        }
        if type.columnType == .link && type.collection == .map && !type.isOptional {
            throw .invalidSchema(className: className, property: property.name, reason: "map values that are objects must be optional: declare \(type.swiftName.dropLast())?>")
        }
        if type.columnType == .link && (type.collection == .list || type.collection == .set) && type.isOptional {
            throw .invalidSchema(className: className, property: property.name, reason: "lists and sets of objects hold objects, not optionals: drop the '?' in \(type.swiftName)")
        }
        if property.isPrimaryKey {
            if kind == .embedded {
                throw .invalidSchema(className: className, property: property.name, reason: "embedded objects cannot have a primary key")
            }
            guard primaryKeyTypes.contains(type.columnType), type.collection == .single else {
                throw .invalidSchema(className: className, property: property.name,
                                     reason: "a primary key must be Int, String, ObjectId or UUID (or an optional of them), not \(type.swiftName)")
            }
        }
        if property.isIndexed {
            if kind == .embedded {
                throw .invalidSchema(className: className, property: property.name, reason: "properties of embedded objects cannot be indexed")
            }
            guard indexableTypes.contains(type.columnType), type.collection == .single else {
                throw .invalidSchema(className: className, property: property.name,
                                     reason: "only Bool, integers, String, Date, UUID, ObjectId and AnyRealmValue can be indexed, not \(type.swiftName)")
            }
        }
    }

    static func validate(_ properties: [PropertyInfo], in className: String, kind: TableKind) throws(FloeError) {
        let keys = properties.filter(\.isPrimaryKey)
        if keys.count > 1 {
            throw .invalidSchema(className: className, property: keys[1].name,
                                 reason: "'\(keys[0].name)' is already the primary key; a class has at most one")
        }
        var seen: Set<String> = []
        for property in properties where !seen.insert(property.persistedName).inserted {
            throw .invalidSchema(className: className, property: property.name,
                                 reason: "another property is already persisted as '\(property.persistedName)'")
        }
    }
}
