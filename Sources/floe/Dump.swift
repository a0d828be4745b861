import Foundation
@_spi(Engine) import Floe
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// `floe dump`: objects as JSON, one object per line inside a JSON object keyed by class, or
/// (`--jsonl`) one JSON object per line. Embedded objects are written inside their owners, so
/// embedded classes have no lines of their own.
///
/// The whole document is built before anything is printed, so a file that fails half way
/// prints nothing on standard output (only the error, on standard error).
enum Dump {
    static func run(path: String, className requested: String?, jsonLines: Bool) throws {
        let store = try Store.open(path: path, options: StoreOptions(readOnly: true))
        defer { store.close() }
        let snapshot = try store.snapshot()
        let names = try snapshot.tableNames()
        if let requested, !names.contains(requested) {
            throw DumpError("\(path) has no class named '\(requested)' (it has \(names.isEmpty ? "none" : names.joined(separator: ", ")))")
        }
        let renderer = ObjectRenderer(snapshot: snapshot)
        // Embedded objects are written inside the objects that own them, as `import` reads them.
        if let requested, try renderer.spec(of: try snapshot.table(named: requested)).kind == .embedded {
            throw DumpError(try renderer.embeddedClassNote(requested))
        }
        let selected = try requested.map { [$0] } ?? names.filter { try renderer.spec(of: try snapshot.table(named: $0)).kind != .embedded }
        var lines = jsonLines ? [] : ["{"]
        for (tableIndex, name) in selected.enumerated() {
            let table = try snapshot.table(named: name)
            let keys = try snapshot.objectKeys(in: table)
            let progress = Progress("dumping \(name)")
            if !jsonLines { lines.append("  \(quote(name)): [") }
            for (index, key) in keys.enumerated() {
                if jsonLines {
                    lines.append(try renderer.render(key, in: table, withClass: true))
                } else {
                    lines.append("    " + (try renderer.render(key, in: table, withClass: false)) + (index + 1 < keys.count ? "," : ""))
                }
                progress.update(index + 1, of: keys.count)
            }
            progress.finish()
            if !jsonLines { lines.append("  ]" + (tableIndex + 1 < selected.count ? "," : "")) }
        }
        if !jsonLines { lines.append("}") }
        if !lines.isEmpty { print(lines.joined(separator: "\n")) }
    }

    struct DumpError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// A stored value as JSON, in the forms `import` reads back to an equal value: dates as
    /// ISO 8601 UTC text, decimals as decimal text, binary data as base64, ObjectIds as hex, UUIDs
    /// as UUID strings, and the non-finite numbers as "NaN", "Infinity" and "-Infinity". Inside a
    /// mixed value, a type JSON cannot tell apart is written as a one-key object naming it
    /// (`{"$date": "2024-05-01T12:30:00Z"}`, `{"$decimal128": "12.5"}`, `{"$float": 0.5}` …).
    static func json(_ value: Value, inMixed: Bool = false) -> String {
        func tagged(_ tag: String, _ json: String) -> String { inMixed ? "{\"$\(tag)\": \(json)}" : json }
        switch value {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .int(let int): return "\(int)"
        case .float(let float): return tagged("float", float.isFinite ? "\(float)" : quote(ValueText.nonFinite(Double(float))))
        case .double(let double):
            return double.isFinite ? "\(double)" : tagged("double", quote(ValueText.nonFinite(double)))
        case .string(let string): return quote(string)
        case .binary(let bytes): return tagged("data", quote(Data(bytes).base64EncodedString()))
        case .timestamp(let seconds):
            let text = ValueText.date(seconds).map(quote) ?? (seconds.isFinite ? "\(seconds)" : quote(ValueText.nonFinite(seconds)))
            return tagged("date", text)
        case .decimal128:
            return tagged("decimal128", quote(Decimal128(storedValue: value)?.description ?? "NaN"))
        case .objectId: return tagged("objectId", quote(ObjectId(storedValue: value)?.stringValue ?? ""))
        case .uuid: return tagged("uuid", quote(UUID(storedValue: value)?.uuidString ?? ""))
        case .link(let key): return "\(key)"
        case .typedLink(let table, let key): return "{\"_class\": \(quote(table)), \"key\": \(key)}"
        case .list(let values): return "[" + values.map { json($0, inMixed: true) }.joined(separator: ", ") + "]"
        case .dictionary(let entries):
            return "{" + entries.map { "\(quote($0.key)): \(json($0.value, inMixed: true))" }.joined(separator: ", ") + "}"
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
