import Foundation
@_spi(Engine) import Floe

/// Writes stored objects as JSON objects: `_key`, then each property by its stored name;
/// links as the linked object's primary key (its object key when its class has none).
final class ObjectRenderer {
    let snapshot: Snapshot
    private var specs: [String: TableSpec] = [:]
    /// For each linked class: its table and its primary key's column (nil: none).
    private var primaryKeys: [String: (table: TableHandle, column: Int?)] = [:]

    init(snapshot: Snapshot) { self.snapshot = snapshot }

    func spec(of table: TableHandle) throws -> TableSpec {
        if let known = specs[table.name] { return known }
        let spec = try snapshot.spec(of: table)
        specs[table.name] = spec
        return spec
    }

    func render(_ key: Int64, in table: TableHandle, withClass: Bool) throws -> String {
        let spec = try spec(of: table)
        var fields = withClass ? ["\"_class\": \(Dump.quote(spec.name))"] : []
        fields.append("\"_key\": \(key)")
        for (column, columnSpec) in spec.columns.enumerated() {
            let target = columnSpec.linkTarget
            let rendered: String
            switch columnSpec.collection {
            case .single:
                rendered = try json(try snapshot.value(in: table, key: key, column: column), target: target)
            case .list, .set:
                var elements: [String] = []
                for element in try snapshot.collectionElements(in: table, key: key, column: column) { elements.append(try json(element, target: target)) }
                rendered = "[" + elements.joined(separator: ", ") + "]"
            case .map:
                var entries: [String] = []
                for entry in try snapshot.mapEntries(in: table, key: key, column: column) {
                    entries.append("\(Dump.quote(entry.key)): \(try json(entry.value, target: target))")
                }
                rendered = "{" + entries.joined(separator: ", ") + "}"
            }
            fields.append("\(Dump.quote(columnSpec.name)): \(rendered)")
        }
        return "{" + fields.joined(separator: ", ") + "}"
    }

    private func json(_ value: Value, target: String?) throws -> String {
        switch value {
        case .link(let key):
            guard let target else { return "\(key)" }
            return try linked(key, in: target)
        case .typedLink(let table, let key):
            return "{\"_class\": \(Dump.quote(table)), \"key\": \(try linked(key, in: table))}"
        default:
            return Dump.json(value)
        }
    }

    /// The primary key of the object `key` of `className`, as JSON.
    private func linked(_ key: Int64, in className: String) throws -> String {
        if primaryKeys[className] == nil {
            let table = try snapshot.table(named: className)
            primaryKeys[className] = (table, try spec(of: table).columns.firstIndex { $0.isPrimaryKey })
        }
        guard let (table, column) = primaryKeys[className], let column else { return "\(key)" }
        return Dump.json(try snapshot.value(in: table, key: key, column: column))
    }
}
