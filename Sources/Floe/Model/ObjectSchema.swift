@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// The schema of a model class, as Realm describes it.
///
/// ```swift
/// for property in dog.objectSchema.properties { print(property.name, property.type) }
/// ```
public struct ObjectSchema: Sendable, CustomStringConvertible {
    let info: ObjectSchemaInfo

    /// The class (and table) name.
    public var className: String { info.className }
    /// The persisted properties, in declaration order (superclass first).
    public var properties: [Property] { info.properties.filter { !$0.isComputed }.map(Property.init) }
    /// The computed properties (`LinkingObjects`).
    public var computedProperties: [Property] { info.properties.filter(\.isComputed).map(Property.init) }
    /// The primary key property, if any.
    public var primaryKeyProperty: Property? { info.primaryKeyIndex.map { Property(info: info.properties[$0]) } }
    /// Whether the class is an embedded object class.
    public var isEmbedded: Bool { info.kind == .embedded }

    /// The persisted property named `propertyName`, or nil.
    public subscript(propertyName: String) -> Property? {
        info.property(named: propertyName).map(Property.init)
    }

    /// The class name and each property's description, as Realm prints a schema.
    public var description: String {
        "\(className) {\n" + properties.map { "\t\($0)" }.joined(separator: "\n") + "\n}"
    }
}

/// One persisted property of a model class.
public struct Property: Sendable, CustomStringConvertible, Equatable {
    /// The Swift property name.
    public let name: String
    /// The name it is persisted under (see `propertiesMapping()`).
    public let columnName: String
    /// The Swift type that is stored, spelled as declared (`"String?"`, `"Int8"`); for a type
    /// projection (`CustomPersistable`) its persisted type, as Realm's schema describes it.
    public let type: String
    /// For a type projection: the Swift type the property is declared with (`"URL?"`), whose
    /// values are stored as ``type``; nil for every other property.
    public let mappedType: String?
    /// Whether the property may hold nil.
    public let isOptional: Bool
    /// Whether the property is the primary key.
    public let isPrimary: Bool
    /// Whether `==` and `IN` queries on the property use an index.
    public let isIndexed: Bool
    /// For links and collections of objects: the target class name.
    public let objectClassName: String?
    /// For links and collections of objects: what deleting the owner does to the targets
    /// (``DeleteRule/nullify`` unless declared `@Persisted(deleteRule: .cascade)`).
    public let deleteRule: DeleteRule
    /// Whether the property is a `List`.
    ///
    /// ```swift
    /// let lists = Dog().objectSchema.properties.filter(\.isArray).map(\.name)
    /// ```
    public let isArray: Bool
    /// Whether the property is a `MutableSet`.
    ///
    /// ```swift
    /// let sets = Dog().objectSchema.properties.filter(\.isSet).map(\.name)
    /// ```
    public let isSet: Bool
    /// Whether the property is a `Map`.
    ///
    /// ```swift
    /// let maps = Dog().objectSchema.properties.filter(\.isMap).map(\.name)
    /// ```
    public let isMap: Bool

    init(info: PropertyInfo) {
        name = info.name
        columnName = info.persistedName
        type = info.type.persistedSwiftName ?? info.type.swiftName
        mappedType = info.type.persistedSwiftName == nil ? nil : info.type.swiftName
        isOptional = info.type.isOptional
        isPrimary = info.isPrimaryKey
        isIndexed = info.isIndexed || info.isPrimaryKey
        objectClassName = info.type.objectType?.className()
        deleteRule = info.deleteRule
        isArray = info.type.collection == .list
        isSet = info.type.collection == .set
        isMap = info.type.collection == .map
    }

    /// The property's name, type, and whether it is indexed, the primary key and optional.
    public var description: String {
        "\(name) {\n\t\ttype = \(type);\n" + (mappedType.map { "\t\tmappedType = \($0);\n" } ?? "") + (deleteRule == .cascade ? "\t\tdeleteRule = cascade;\n" : "") + "\t\tindexed = \(isIndexed ? "YES" : "NO");\n\t\tisPrimary = \(isPrimary ? "YES" : "NO");\n\t\toptional = \(isOptional ? "YES" : "NO");\n\t}"
    }
}
