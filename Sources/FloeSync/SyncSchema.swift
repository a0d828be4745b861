import Foundation
@_spi(Sync) import Floe

/// The synced classes and their properties, as the server checks uploads against them and
/// creates its tables from them. Built from a realm's stored schema; `Codable`, so the server
/// reads it from a JSON file.
///
/// ```swift
/// let schema = try SyncSchema(realm: realm, classNames: ["Todo"], version: 1)
/// try JSONEncoder().encode(schema).write(to: URL(fileURLWithPath: "schema.json"))
/// ```
public struct SyncSchema: Sendable, Hashable, Codable {
    /// The schema version (a client with a newer one is refused).
    public var version: UInt64
    /// The synced classes, by name.
    public var classes: [SyncClass]

    /// A schema of `classes` at `version`.
    public init(version: UInt64, classes: [SyncClass]) {
        self.version = version
        self.classes = classes.sorted { $0.name < $1.name }
    }

    /// The class named `name`.
    public subscript(name: String) -> SyncClass? { classes.first { $0.name == name } }

    /// The schema of the classes named `classNames` as `realm` stores them (in its file, or in memory).
    ///
    /// - Throws: ``SyncError/unknownClass(className:)`` for a name the realm does not store,
    ///   ``SyncError/noPrimaryKey(className:)`` for a class without a primary key (embedded ones included).
    public init(realm: Realm, classNames: [String], version: UInt64) throws {
        let stored = try realm.storedClasses()
        var classes: [SyncClass] = []
        for name in classNames {
            guard let storedClass = stored[name] else { throw SyncError.unknownClass(className: name) }
            guard storedClass.kind == .topLevel, let key = storedClass.primaryKey else { throw SyncError.noPrimaryKey(className: name) }
            classes.append(SyncClass(name: name, primaryKey: key.name, properties: Self.properties(of: storedClass, in: stored)))
        }
        self.init(version: version, classes: classes)
    }

    /// The properties of `storedClass`; a link to an embedded class is an embedded property
    /// carrying that class's properties (embedded objects travel inside their owner).
    private static func properties(of storedClass: StoredClass, in stored: [String: StoredClass], depth: Int = 0) -> [SyncProperty] {
        storedClass.properties.map { column in
            var property = SyncProperty(column)
            if column.type == .link, let target = column.linkTarget, depth < 32, let targetClass = stored[target],
               targetClass.kind == .embedded {
                property.kind = .embedded
                property.properties = properties(of: targetClass, in: stored, depth: depth + 1)
            }
            return property
        }
    }

    /// Checks `change` against the schema.
    ///
    /// - Throws: ``SyncError`` naming the class, property and value that do not fit.
    public func validate(_ change: ObjectChange) throws(SyncError) {
        guard let syncClass = self[change.className] else { throw .unknownClass(className: change.className) }
        guard let key = syncClass.property(named: syncClass.primaryKey) else { throw .unknownClass(className: change.className) }
        try key.check(change.key, className: change.className)
        for (name, value) in change.values {
            guard let property = syncClass.property(named: name) else {
                throw .unknownProperty(className: change.className, property: name)
            }
            try property.check(value, className: change.className)
        }
        for (name, base) in change.bases ?? [:] {
            guard let property = syncClass.property(named: name) else {
                throw .unknownProperty(className: change.className, property: name)
            }
            try property.checkBase(base, carried: change.operation == .update && change.values[name] != nil, className: change.className)
        }
        if change.operation != .delete, let stored = change.values[syncClass.primaryKey], stored != change.key {
            throw .wrongType(className: change.className, property: syncClass.primaryKey, expected: "the object's key \(change.key)", value: stored.description)
        }
    }
}

/// One synced class.
public struct SyncClass: Sendable, Hashable, Codable {
    /// The class name.
    public var name: String
    /// Its primary key property.
    public var primaryKey: String
    /// Its properties (the primary key among them), in stored order.
    public var properties: [SyncProperty]

    /// A class named `name` whose primary key is `primaryKey`.
    public init(name: String, primaryKey: String, properties: [SyncProperty]) {
        self.name = name
        self.primaryKey = primaryKey
        self.properties = properties
    }

    /// The property named `name`.
    public func property(named name: String) -> SyncProperty? { properties.first { $0.name == name } }
}

/// One property of a synced class.
public struct SyncProperty: Sendable, Hashable, Codable {
    /// A property's element type.
    public enum Kind: String, Sendable, Hashable, Codable {
        case bool, int, float, double, string, data, date, decimal, objectId, uuid, link, mixed
        /// An embedded object: a map of its properties (``SyncProperty/properties``), inside its owner's value.
        case embedded
    }
    /// Whether a property holds one value or a collection.
    public enum Collection: String, Sendable, Hashable, Codable {
        case single, list, set, map
    }

    /// The persisted name.
    public var name: String
    /// The element type.
    public var kind: Kind
    /// One value, or a collection.
    public var collection: Collection
    /// Whether nil is allowed (for a collection: as an element).
    public var isOptional: Bool
    /// For links: the target class; for embedded objects: the embedded class.
    public var target: String?
    /// For embedded objects: the embedded class's properties.
    public var properties: [SyncProperty]?

    /// A property.
    ///
    /// ```swift
    /// let city = SyncProperty(name: "city", kind: .string)
    /// let address = SyncProperty(name: "address", kind: .embedded, target: "Address", properties: [city])
    /// ```
    public init(name: String, kind: Kind, collection: Collection = .single, isOptional: Bool = false, target: String? = nil,
                properties: [SyncProperty]? = nil) {
        self.name = name
        self.kind = kind
        self.collection = collection
        self.isOptional = isOptional
        self.target = target
        self.properties = properties
    }

    init(_ column: StoredProperty) {
        let kind: Kind = switch column.type {
        case .bool: .bool
        case .int: .int
        case .float: .float
        case .double: .double
        case .string: .string
        case .data: .data
        case .date: .date
        case .decimal128: .decimal
        case .objectId: .objectId
        case .uuid: .uuid
        case .link: .link
        case .mixed: .mixed
        }
        let collection: Collection = switch column.collection {
        case .single: .single
        case .list: .list
        case .set: .set
        case .map: .map
        }
        self.init(name: column.name, kind: kind, collection: collection, isOptional: column.isOptional, target: column.linkTarget)
    }

    /// The type as messages name it ("int", "list of string", "link to Dog").
    public var typeName: String {
        let element = switch kind {
        case .link: "link to \(target ?? "?")"
        case .embedded: "embedded \(target ?? "?")"
        default: kind.rawValue
        }
        let optional = isOptional && kind != .mixed ? "optional " : ""
        switch collection {
        case .single: return optional + element
        case .list: return "list of \(optional)\(element)"
        case .set: return "set of \(optional)\(element)"
        case .map: return "map of \(optional)\(element)"
        }
    }

    /// Checks that `value` fits.
    public func check(_ value: SyncValue, className: String) throws(SyncError) {
        switch collection {
        case .single:
            guard fits(value) else { throw wrong(value, className) }
        case .list, .set:
            guard case .list(let elements) = value else { throw wrong(value, className) }
            for element in elements where !fits(element) { throw wrong(value, className) }
        case .map:
            guard case .map(let entries) = value else { throw wrong(value, className) }
            for element in entries.values where !fits(element) { throw wrong(value, className) }
        }
    }

    /// Checks that `base` is this collection's value before an update that carries its value
    /// after (`carried`).
    func checkBase(_ base: CollectionBase, carried: Bool, className: String) throws(SyncError) {
        let value: SyncValue
        switch (base, collection) {
        case (.list(let elements), .list), (.set(let elements), .set): value = .list(elements)
        case (.map(let entries), .map): value = .map(entries)
        default:
            throw .wrongType(className: className, property: name, expected: "the base of a \(typeName)", value: "a \(base.kindName) base")
        }
        guard carried else {
            throw .wrongType(className: className, property: name, expected: "a base only beside the value an update writes", value: "a \(base.kindName) base")
        }
        try check(value, className: className)
    }

    private func wrong(_ value: SyncValue, _ className: String) -> SyncError {
        .wrongType(className: className, property: name, expected: typeName, value: "\(value.kindName) \(value)")
    }

    private func fits(_ value: SyncValue) -> Bool {
        if case .null = value { return isOptional || kind == .mixed || kind == .link || (kind == .embedded && collection != .list && collection != .set) }
        switch (kind, value) {
        case (.mixed, _): return value.parses
        case (.bool, .bool), (.int, .int), (.float, .double), (.double, .double), (.string, .string), (.data, .data),
             (.date, .date), (.uuid, .uuid):
            return true
        case (.decimal, .decimal(let string)): return (try? Decimal128(string: string)) != nil
        case (.objectId, .objectId(let string)): return (try? ObjectId(string: string)) != nil
        case (.link, .link(let className, _)): return className == target
        case (.embedded, .map(let values)):
            let nested = properties ?? []
            for (name, value) in values {
                guard let property = nested.first(where: { $0.name == name }), (try? property.check(value, className: target ?? name)) != nil else { return false }
            }
            return true
        default: return false
        }
    }
}

extension SyncValue {
    /// Whether every decimal and object identifier in the value (and in its elements, and a
    /// link's key) parses: what a device needs to hold it as a mixed value.
    var parses: Bool {
        switch self {
        case .decimal(let string): return (try? Decimal128(string: string)) != nil
        case .objectId(let string): return (try? ObjectId(string: string)) != nil
        case .link(_, let key): return key.parses
        case .list(let elements): return elements.allSatisfy(\.parses)
        case .map(let entries): return entries.values.allSatisfy(\.parses)
        default: return true
        }
    }
}
