import Foundation
@_spi(Engine) import Floe

/// `floe dump`: objects as JSON, one object per line inside a JSON object keyed by class, or
/// (`--jsonl`) one JSON object per line.
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
        let selected = requested.map { [$0] } ?? names
        let renderer = ObjectRenderer(snapshot: snapshot)
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
