import Foundation
@_spi(Engine) import Floe

/// `floe dump`: objects as JSON, one object per line inside a JSON object keyed by class.
///
/// The whole document is built before anything is printed, so a file that fails half way
/// prints nothing on standard output (only the error, on standard error).
enum Dump {
    static func run(path: String, className requested: String?) throws {
        let store = try Store.open(path: path, options: StoreOptions(readOnly: true))
        defer { store.close() }
        let snapshot = try store.snapshot()
        let names = try snapshot.tableNames()
        if let requested, !names.contains(requested) {
            throw DumpError("\(path) has no class named '\(requested)' (it has \(names.isEmpty ? "none" : names.joined(separator: ", ")))")
        }
        let selected = requested.map { [$0] } ?? names
        var lines = ["{"]
        for (tableIndex, name) in selected.enumerated() {
            let table = try snapshot.table(named: name)
            let spec = try snapshot.spec(of: table)
            lines.append("  \(quote(name)): [")
            let keys = try snapshot.objectKeys(in: table)
            for (index, key) in keys.enumerated() {
                var fields = ["\"_key\": \(key)"]
                for (column, columnSpec) in spec.columns.enumerated() {
                    let rendered: String
                    switch columnSpec.collection {
                    case .single:
                        rendered = json(try snapshot.value(in: table, key: key, column: column))
                    case .list, .set:
                        rendered = "[" + (try snapshot.collectionElements(in: table, key: key, column: column)).map(json).joined(separator: ", ") + "]"
                    case .map:
                        rendered = "{" + (try snapshot.mapEntries(in: table, key: key, column: column))
                            .map { "\(quote($0.key)): \(json($0.value))" }.joined(separator: ", ") + "}"
                    }
                    fields.append("\(quote(columnSpec.name)): \(rendered)")
                }
                lines.append("    {" + fields.joined(separator: ", ") + "}" + (index + 1 < keys.count ? "," : ""))
            }
            lines.append("  ]" + (tableIndex + 1 < selected.count ? "," : ""))
        }
        lines.append("}")
        print(lines.joined(separator: "\n"))
    }

    struct DumpError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    static func json(_ value: Value) -> String {
        switch value {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .int(let int): return "\(int)"
        case .float(let float): return float.isFinite ? "\(float)" : quote("\(float)")
        case .double(let double): return double.isFinite ? "\(double)" : quote("\(double)")
        case .string(let string): return quote(string)
        case .binary(let bytes): return quote(Data(bytes).base64EncodedString())
        case .timestamp(let seconds): return quote(ISO8601DateFormatter().string(from: Date(timeIntervalSinceReferenceDate: seconds)))
        case .decimal128(let word): return quote(String(format: "0x%016llx%016llx", word.high, word.low))
        case .objectId(let word): return quote(String(format: "%016llx%08llx", word.high, word.low >> 32))
        case .uuid(let word): return quote(String(format: "%016llx%016llx", word.high, word.low))
        case .link(let key): return "\(key)"
        case .typedLink(let table, let key): return "{\"table\": \(quote(table)), \"key\": \(key)}"
        case .list(let values): return "[" + values.map(json).joined(separator: ", ") + "]"
        case .dictionary(let entries): return "{" + entries.map { "\(quote($0.key)): \(json($0.value))" }.joined(separator: ", ") + "}"
        }
    }

    static func quote(_ string: String) -> String {
        var result = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20: result += String(format: "\\u%04x", scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
