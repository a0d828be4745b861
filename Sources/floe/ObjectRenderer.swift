import Foundation
@_spi(Engine) import Floe
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// Writes stored objects as JSON objects: `_key`, then each property by its stored name; links
/// as the linked object's primary key (its object key when its class has none); embedded
/// objects in full, inside their owner, as `import` reads them back.
final class ObjectRenderer {
    let snapshot: any VersionReading
    private var specs: [String: TableSpec] = [:]
    /// For each linked class: its table and its primary key's column (nil: none).
    private var primaryKeys: [String: (table: TableHandle, column: Int?)] = [:]
    /// Embedded objects nest as deep as their classes do; deeper means a link cycle, which only
    /// a damaged file holds.
    static let maximumEmbeddingDepth = 100

    init(snapshot: any VersionReading) { self.snapshot = snapshot }

    func spec(of table: TableHandle) throws -> TableSpec {
        if let known = specs[table.name] { return known }
        let spec = try snapshot.spec(of: table)
        specs[table.name] = spec
        return spec
    }

    func spec(named className: String) throws -> TableSpec {
        try spec(of: try snapshot.table(named: className))
    }

    /// Why an embedded class has no objects of its own to list, and where they are.
    func embeddedClassNote(_ className: String) throws -> String {
        let owners = try ownerProperties(of: className)
        return "\(className) is an embedded class: its objects are written inside the objects that own them"
            + (owners.isEmpty ? "" : " (\(owners.joined(separator: ", ")))")
    }

    /// The properties (`Class.property`) whose links own objects of the embedded class `className`.
    func ownerProperties(of className: String) throws -> [String] {
        var owners: [String] = []
        for name in try snapshot.tableNames() {
            let spec = try spec(named: name)
            for column in spec.columns where column.type == .link && column.linkTarget == className {
                owners.append("\(name).\(column.name)")
            }
        }
        return owners
    }

    func render(_ key: Int64, in table: TableHandle, withClass: Bool) throws -> String {
        try render(key, in: table, withClass: withClass, withKey: true, depth: 0)
    }

    private func render(_ key: Int64, in table: TableHandle, withClass: Bool, withKey: Bool, depth: Int) throws -> String {
        let spec = try spec(of: table)
        var fields = withClass ? ["\"_class\": \(Dump.quote(spec.name))"] : []
        if withKey { fields.append("\"_key\": \(key)") }
        for (column, columnSpec) in spec.columns.enumerated() {
            let origin = Origin(className: spec.name, key: key, property: columnSpec.name)
            let rendered: String
            switch columnSpec.collection {
            case .single:
                rendered = try json(try snapshot.value(in: table, key: key, column: column), column: columnSpec, origin: origin, depth: depth)
            case .list, .set:
                var elements: [String] = []
                for element in try snapshot.collectionElements(in: table, key: key, column: column) {
                    elements.append(try json(element, column: columnSpec, origin: origin, depth: depth))
                }
                rendered = "[" + elements.joined(separator: ", ") + "]"
            case .map:
                var entries: [String] = []
                for entry in try snapshot.mapEntries(in: table, key: key, column: column) {
                    entries.append("\(Dump.quote(entry.key)): \(try json(entry.value, column: columnSpec, origin: origin, depth: depth))")
                }
                rendered = "{" + entries.joined(separator: ", ") + "}"
            }
            fields.append("\(Dump.quote(columnSpec.name)): \(rendered)")
        }
        return "{" + fields.joined(separator: ", ") + "}"
    }

    /// The object and property a value belongs to, for messages about what it links to.
    private struct Origin {
        let className: String
        let key: Int64
        let property: String
    }

    private func json(_ value: Value, column: ColumnSpec, origin: Origin, depth: Int) throws -> String {
        switch value {
        case .link(let key):
            guard let target = column.linkTarget else { return "\(key)" }
            return try linked(key, in: target, origin: origin, depth: depth)
        case .typedLink(let table, let key):
            return "{\"_class\": \(Dump.quote(table)), \"key\": \(try linked(key, in: table, origin: origin, depth: depth))}"
        case .list(let values) where column.type == .mixed:
            return "[" + (try values.map { try json($0, column: column, origin: origin, depth: depth) }).joined(separator: ", ") + "]"
        case .dictionary(let entries) where column.type == .mixed:
            return "{" + (try entries.map { "\(Dump.quote($0.key)): \(try json($0.value, column: column, origin: origin, depth: depth))" })
                .joined(separator: ", ") + "}"
        default:
            return Dump.json(value, inMixed: column.type == .mixed)
        }
    }

    /// The object `key` of `className` as a link shows it: an embedded object in full, any
    /// other by its primary key.
    private func linked(_ key: Int64, in className: String, origin: Origin, depth: Int) throws -> String {
        if primaryKeys[className] == nil {
            let table = try snapshot.table(named: className)
            primaryKeys[className] = (table, try spec(of: table).columns.firstIndex { $0.isPrimaryKey })
        }
        let (table, column) = primaryKeys[className]!
        guard try snapshot.contains(key, in: table) else {
            throw Dump.DumpError("\(origin.className) \(origin.key), property '\(origin.property)', links to \(className) \(key), "
                                 + "which does not exist (floe verify lists every such link)")
        }
        if try spec(of: table).kind == .embedded {
            guard depth < Self.maximumEmbeddingDepth else {
                throw Dump.DumpError("\(origin.className) \(origin.key), property '\(origin.property)': embedded objects nest more than "
                                     + "\(Self.maximumEmbeddingDepth) deep, a cycle only a damaged file holds (floe verify names it)")
            }
            return try render(key, in: table, withClass: false, withKey: false, depth: depth + 1)
        }
        guard let column else { return "\(key)" }
        return Dump.json(try snapshot.value(in: table, key: key, column: column))
    }
}
