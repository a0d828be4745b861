import Foundation
@_spi(Engine) import Floe

/// Why `floe import` refused its input: each names the line and, where there is one, the property.
enum ImportError: Error, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case notAnObject(line: Int, reason: String)
    case unknownProperty(line: Int, className: String, property: String)
    case wrongType(line: Int, className: String, property: String, expected: String, found: String)
    case missingPrimaryKey(line: Int, className: String, property: String)
    case noLinkedObject(line: Int, className: String, property: String, target: String, primaryKey: String)
    case refused(line: Int, className: String, reason: String)

    var description: String {
        switch self {
        case .unreadable(let path, let reason): return "cannot read \(path): \(reason)"
        case .notAnObject(let line, let reason): return "line \(line): not a JSON object (\(reason))"
        case .unknownProperty(let line, let className, let property): return "line \(line): \(className) has no property '\(property)'"
        case .wrongType(let line, let className, let property, let expected, let found):
            return "line \(line): \(className).\(property) takes \(expected), not \(found)"
        case .missingPrimaryKey(let line, let className, let property): return "line \(line): \(className).\(property) (the primary key) is missing"
        case .noLinkedObject(let line, let className, let property, let target, let primaryKey):
            return "line \(line): \(className).\(property) links to \(target) \(primaryKey), which does not exist"
        case .refused(let line, let className, let reason): return "line \(line): \(className): \(reason)"
        }
    }
}

/// `floe import`: one object per JSON line, in one write transaction: every line is converted
/// against the stored schema first, then inserted; any error rolls the transaction back, so
/// the file is unchanged.
enum Import {
    /// One object's stored values: a value per single column, elements per collection column.
    struct Row {
        let line: Int
        var values: [Value]
        var elements: [Int: [Value]] = [:]
        var entries: [Int: [(String, Value)]] = [:]
    }

    static func run(path: String, className: String, dataPath: String) throws {
        let text: String
        do { text = try String(contentsOfFile: dataPath, encoding: .utf8) } catch {
            throw ImportError.unreadable(path: dataPath, reason: "\(error.localizedDescription)")
        }
        let store = try Store.open(path: path)
        defer { store.close() }
        let transaction = try store.beginWrite()
        var committed = false
        defer { if !committed { transaction.rollback() } }
        guard let table = try transaction.tableIfPresent(named: className) else {
            let names = try transaction.tableNames()
            throw Dump.DumpError("\(path) has no class named '\(className)' (it has \(names.isEmpty ? "none" : names.joined(separator: ", ")))")
        }
        let spec = try transaction.spec(of: table)
        let converter = Converter(className: className, spec: spec, reader: transaction)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let progress = Progress("importing \(className)")
        var rows: [Row] = []
        for (index, line) in lines.enumerated() where !line.allSatisfy(\.isWhitespace) {
            rows.append(try converter.row(String(line), line: index + 1))
            progress.update(index + 1, of: lines.count)
        }
        for row in rows {
            let key: Int64
            do {
                key = try transaction.insertObject(into: table, values: row.values)
                for (column, values) in row.elements {
                    if spec.columns[column].collection == .set {
                        for value in values { _ = try transaction.setInsert(value, in: table, key: key, column: column) }
                    } else {
                        try transaction.listAppend(contentsOf: values, in: table, key: key, column: column)
                    }
                }
                for (column, entries) in row.entries {
                    for (mapKey, value) in entries { try transaction.mapSet(value, forKey: mapKey, in: table, key: key, column: column) }
                }
            } catch {
                throw ImportError.refused(line: row.line, className: className, reason: "\(error)")
            }
        }
        progress.finish()
        let version = try transaction.commit()
        committed = true
        print("imported \(rows.count) \(className) objects into \(path) (version \(version))")
    }

    /// Turns JSON values into stored values by the stored schema.
    struct Converter {
        let className: String
        let spec: TableSpec
        let reader: any VersionReading

        func row(_ text: String, line: Int) throws -> Row {
            let object: [String: Any]
            do {
                guard let parsed = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) as? [String: Any] else {
                    throw ImportError.notAnObject(line: line, reason: "a JSON value but not an object")
                }
                object = parsed
            } catch let error as ImportError {
                throw error
            } catch {
                throw ImportError.notAnObject(line: line, reason: "invalid JSON")
            }
            for name in object.keys where name != "_key" && name != "_class" && spec.columnIndex(named: name) == nil {
                throw ImportError.unknownProperty(line: line, className: className, property: name)
            }
            if let named = object["_class"] as? String, named != className {
                throw ImportError.refused(line: line, className: className, reason: "the line says it is a \(named)")
            }
            var row = Row(line: line, values: [])
            for (index, column) in spec.columns.enumerated() {
                let raw = object[column.name]
                switch column.collection {
                case .single:
                    if raw == nil || raw is NSNull {
                        if column.isPrimaryKey, raw == nil { throw ImportError.missingPrimaryKey(line: line, className: className, property: column.name) }
                        guard column.isNullable || raw == nil || column.type == .mixed else {
                            throw ImportError.wrongType(line: line, className: className, property: column.name, expected: typeName(column), found: "null")
                        }
                        row.values.append(column.isNullable || column.type == .mixed ? .null : Value.defaultValue(for: column.type))
                    } else {
                        row.values.append(try value(raw!, column, line: line))
                    }
                case .list, .set:
                    row.values.append(.null)
                    guard let raw, !(raw is NSNull) else { continue }
                    guard let array = raw as? [Any] else {
                        throw ImportError.wrongType(line: line, className: className, property: column.name, expected: "an array", found: describe(raw))
                    }
                    row.elements[index] = try array.map { try $0 is NSNull && column.isNullable ? .null : value($0, column, line: line) }
                case .map:
                    row.values.append(.null)
                    guard let raw, !(raw is NSNull) else { continue }
                    guard let dictionary = raw as? [String: Any] else {
                        throw ImportError.wrongType(line: line, className: className, property: column.name, expected: "an object", found: describe(raw))
                    }
                    row.entries[index] = try dictionary.sorted { $0.key < $1.key }.map {
                        ($0.key, try $0.value is NSNull && column.isNullable ? .null : value($0.value, column, line: line))
                    }
                }
            }
            return row
        }

        func value(_ raw: Any, _ column: ColumnSpec, line: Int) throws -> Value {
            func wrong() -> ImportError {
                .wrongType(line: line, className: className, property: column.name, expected: typeName(column), found: describe(raw))
            }
            let number = raw as? NSNumber
            let isBool = number.map(Self.isBoolean) ?? false
            switch column.type {
            case .bool:
                guard isBool, let flag = raw as? Bool else { throw wrong() }
                return .bool(flag)
            case .int:
                guard let number, !isBool, number.doubleValue.rounded() == number.doubleValue, abs(number.doubleValue) < 9.3e18 else { throw wrong() }
                let int = number.int64Value
                if column.integerBits < 64 {
                    let limit = Int64(1) << (column.integerBits - 1)
                    guard int >= -limit, int < limit else { throw wrong() }
                }
                return .int(int)
            case .float:
                guard let number, !isBool else { throw wrong() }
                return .float(number.floatValue)
            case .double:
                guard let number, !isBool else { throw wrong() }
                return .double(number.doubleValue)
            case .string:
                guard let string = raw as? String else { throw wrong() }
                return .string(string)
            case .binary:
                guard let string = raw as? String, let data = Data(base64Encoded: string) else { throw wrong() }
                return .binary(Array(data))
            case .timestamp:
                guard let string = raw as? String, let date = ISO8601DateFormatter().date(from: string) else { throw wrong() }
                return .timestamp(date.timeIntervalSinceReferenceDate)
            case .objectId:
                guard let string = raw as? String, string.count == 24, let high = UInt64(string.prefix(16), radix: 16),
                      let low = UInt64(string.suffix(8), radix: 16) else { throw wrong() }
                return .objectId(Word128(high: high, low: low << 32))
            case .uuid:
                guard let string = raw as? String else { throw wrong() }
                let hex = string.replacingOccurrences(of: "-", with: "")
                guard hex.count == 32, let high = UInt64(hex.prefix(16), radix: 16), let low = UInt64(hex.suffix(16), radix: 16) else { throw wrong() }
                return .uuid(Word128(high: high, low: low))
            case .decimal128:
                guard let string = raw as? String, string.hasPrefix("0x"), string.count == 34,
                      let high = UInt64(string.dropFirst(2).prefix(16), radix: 16), let low = UInt64(string.suffix(16), radix: 16) else { throw wrong() }
                return .decimal128(Word128(high: high, low: low))
            case .link:
                return try link(raw, column, line: line)
            case .mixed:
                if isBool, let flag = raw as? Bool { return .bool(flag) }
                if let number { return number.doubleValue.rounded() == number.doubleValue && abs(number.doubleValue) < 9.3e18 ? .int(number.int64Value) : .double(number.doubleValue) }
                if let string = raw as? String { return .string(string) }
                throw wrong()
            }
        }

        /// A link given as the linked object's primary key (its object key when its class has none).
        func link(_ raw: Any, _ column: ColumnSpec, line: Int) throws -> Value {
            guard let targetName = column.linkTarget, let target = try reader.tableIfPresent(named: targetName) else {
                throw ImportError.noLinkedObject(line: line, className: className, property: column.name,
                                                 target: column.linkTarget ?? "?", primaryKey: describe(raw))
            }
            let targetSpec = try reader.spec(of: target)
            let key: Int64?
            if let primaryKey = targetSpec.columns.firstIndex(where: \.isPrimaryKey) {
                let converter = Converter(className: targetName, spec: targetSpec, reader: reader)
                let stored = try converter.value(raw, targetSpec.columns[primaryKey], line: line)
                key = try reader.findObjects(in: target, column: primaryKey, equalTo: stored, limit: 1).first
            } else if let number = raw as? NSNumber, try reader.contains(number.int64Value, in: target) {
                key = number.int64Value
            } else {
                key = nil
            }
            guard let key else {
                throw ImportError.noLinkedObject(line: line, className: className, property: column.name, target: targetName, primaryKey: describe(raw))
            }
            return .link(key)
        }

        /// JSON's true and false come back as Foundation's boolean number class; 1 and 0 do not
        /// (though both answer `is Bool`).
        static func isBoolean(_ number: NSNumber) -> Bool {
            type(of: number) == type(of: NSNumber(value: true))
        }

        func typeName(_ column: ColumnSpec) -> String {
            switch column.type {
            case .bool: return "true or false"
            case .int: return column.integerBits == 64 ? "an integer" : "an integer of \(column.integerBits) bits"
            case .float, .double: return "a number"
            case .string: return "a string"
            case .binary: return "a base64 string"
            case .timestamp: return "an ISO 8601 date string"
            case .objectId: return "a 24-digit hex ObjectId string"
            case .uuid: return "a UUID string"
            case .decimal128: return "a 0x-prefixed 32-digit hex string"
            case .link: return "the primary key of a \(column.linkTarget ?? "linked object")"
            case .mixed: return "a boolean, number or string"
            }
        }

        func describe(_ raw: Any) -> String {
            if raw is NSNull { return "null" }
            if let string = raw as? String { return "\"\(string)\"" }
            if let number = raw as? NSNumber { return Self.isBoolean(number) ? (number.boolValue ? "true" : "false") : "\(number)" }
            if raw is [Any] { return "an array" }
            if raw is [String: Any] { return "an object" }
            return "\(raw)"
        }
    }
}
