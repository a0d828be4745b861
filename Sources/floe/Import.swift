import Foundation
@_spi(Engine) import Floe
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// Why `floe import` refused its input: each names the line and, where there is one, the
/// property (a path such as `Person.address.city` inside embedded objects) and the value.
enum ImportError: Error, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case notAnObject(line: Int, reason: String)
    case invalidJSON(line: Int, reason: String)
    case unknownProperty(line: Int, className: String, property: String)
    case wrongType(line: Int, className: String, property: String, expected: String, found: String)
    case missingPrimaryKey(line: Int, className: String, property: String)
    case noLinkedObject(line: Int, className: String, property: String, target: String, primaryKey: String)
    case embeddedClass(className: String, owners: [String])
    case refused(line: Int, className: String, reason: String)

    var description: String {
        switch self {
        case .unreadable(let path, let reason): return "cannot read \(path): \(reason)"
        case .notAnObject(let line, let reason): return "line \(line): not a JSON object (\(reason))"
        case .invalidJSON(let line, let reason): return "line \(line): not a JSON object (invalid JSON): \(reason)"
        case .unknownProperty(let line, let className, let property): return "line \(line): \(className) has no property '\(property)'"
        case .wrongType(let line, let className, let property, let expected, let found):
            return "line \(line): \(className).\(property) takes \(expected), not \(found)"
        case .missingPrimaryKey(let line, let className, let property): return "line \(line): \(className).\(property) (the primary key) is missing"
        case .noLinkedObject(let line, let className, let property, let target, let primaryKey):
            return "line \(line): \(className).\(property) links to \(target) \(primaryKey), which does not exist"
        case .embeddedClass(let className, let owners):
            return "\(className) is an embedded class: each of its objects belongs to one owner and is imported inside it"
                + (owners.isEmpty ? "" : ", as a JSON object in \(owners.joined(separator: " or "))") + ", never on a line of its own"
        case .refused(let line, let className, let reason): return "line \(line): \(className): \(reason)"
        }
    }
}

/// `floe import`: one object per JSON line, in one write transaction. Each line is converted
/// against the stored schema and inserted in turn (so a link may name an object an earlier line
/// imported); any error rolls the transaction back, so the file is left exactly as it was.
enum Import {
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
        let converter = Converter(reader: transaction)
        let spec = try converter.spec(of: table)
        if spec.kind == .embedded {
            throw ImportError.embeddedClass(className: className, owners: try ObjectRenderer(snapshot: transaction).ownerProperties(of: className))
        }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let progress = Progress("importing \(className)")
        var imported = 0
        for (index, line) in lines.enumerated() where !line.allSatisfy(\.isWhitespace) {
            let plan = try converter.object(String(line), table: table, line: index + 1)
            do {
                _ = try insert(plan, into: transaction)
            } catch {
                throw ImportError.refused(line: index + 1, className: className, reason: "\(error)")
            }
            imported += 1
            progress.update(index + 1, of: lines.count)
        }
        progress.finish()
        let version = try transaction.commit()
        committed = true
        print("imported \(imported) \(className) objects into \(path) (version \(version))")
    }

    /// An object to insert: its stored values, and the embedded objects it owns, to be
    /// created with it.
    struct ObjectPlan {
        let table: TableHandle
        let spec: TableSpec
        /// One per column; `.stored(.null)` for collection columns.
        var values: [PlannedValue]
        var elements: [Int: [PlannedValue]] = [:]
        var entries: [Int: [(key: String, value: PlannedValue)]] = [:]
    }

    /// A value as the file will store it, or an embedded object to create and link to.
    indirect enum PlannedValue {
        case stored(Value)
        case embedded(ObjectPlan)
    }

    /// Inserts the object and, after it, each embedded object it owns, linked from it alone.
    static func insert(_ plan: ObjectPlan, into transaction: WriteTransaction) throws -> Int64 {
        let row: [Value] = plan.values.map {
            if case .stored(let value) = $0 { return value }
            return .null
        }
        let key = try transaction.insertObject(into: plan.table, values: row)
        func stored(_ planned: PlannedValue) throws -> Value {
            switch planned {
            case .stored(let value): return value
            case .embedded(let owned): return .link(try insert(owned, into: transaction))
            }
        }
        for (column, planned) in plan.values.enumerated() {
            if case .embedded = planned { try transaction.setValue(try stored(planned), in: plan.table, key: key, column: column) }
        }
        for (column, elements) in plan.elements.sorted(by: { $0.key < $1.key }) {
            let values = try elements.map(stored)
            if plan.spec.columns[column].collection == .set {
                for value in values { _ = try transaction.setInsert(value, in: plan.table, key: key, column: column) }
            } else {
                try transaction.listAppend(contentsOf: values, in: plan.table, key: key, column: column)
            }
        }
        for (column, entries) in plan.entries.sorted(by: { $0.key < $1.key }) {
            for entry in entries { try transaction.mapSet(try stored(entry.value), forKey: entry.key, in: plan.table, key: key, column: column) }
        }
        return key
    }

    /// Turns JSON into objects to insert, by the stored schema.
    final class Converter {
        let reader: any VersionReading
        private var specs: [String: TableSpec] = [:]

        init(reader: any VersionReading) { self.reader = reader }

        func spec(of table: TableHandle) throws -> TableSpec {
            if let known = specs[table.name] { return known }
            let spec = try reader.spec(of: table)
            specs[table.name] = spec
            return spec
        }

        /// One line: a JSON object of `table`'s properties.
        func object(_ text: String, table: TableHandle, line: Int) throws -> ObjectPlan {
            let json: JSON
            do { json = try JSON.parse(text) } catch {
                throw ImportError.invalidJSON(line: line, reason: error.description)
            }
            guard case .object(let members) = json else {
                throw ImportError.notAnObject(line: line, reason: "a JSON value but not an object")
            }
            return try object(members, table: table, path: table.name, line: line)
        }

        /// An object's properties; `path` names it in messages (`Person`, `Person.address`).
        func object(_ members: [JSON.Member], table: TableHandle, path: String, line: Int) throws -> ObjectPlan {
            let spec = try spec(of: table)
            let given = Dictionary(uniqueKeysWithValues: members.map { ($0.key, $0.value) })
            for member in members where member.key != "_key" && member.key != "_class" && spec.columnIndex(named: member.key) == nil {
                throw ImportError.unknownProperty(line: line, className: path, property: member.key)
            }
            if let named = given["_class"], named != .string(spec.name) {
                let saying: String
                if case .string(let name) = named { saying = name } else { saying = named.summary }
                throw ImportError.refused(line: line, className: path, reason: "the line says it is a \(saying), not a \(spec.name)")
            }
            var plan = ObjectPlan(table: table, spec: spec, values: [])
            for (index, column) in spec.columns.enumerated() {
                let raw = given[column.name]
                switch column.collection {
                case .single:
                    if raw == nil || raw == .null {
                        if column.isPrimaryKey, raw == nil { throw ImportError.missingPrimaryKey(line: line, className: path, property: column.name) }
                        let takesNull = column.isNullable || column.type == .mixed || column.type == .link
                        guard takesNull || raw == nil else {
                            throw ImportError.wrongType(line: line, className: path, property: column.name, expected: try typeName(column), found: "null")
                        }
                        plan.values.append(.stored(takesNull ? .null : Value.defaultValue(for: column.type)))
                    } else {
                        plan.values.append(try value(raw!, column, path: path, line: line))
                    }
                case .list, .set:
                    plan.values.append(.stored(.null))
                    guard let raw, raw != .null else { continue }
                    guard case .array(let array) = raw else {
                        throw ImportError.wrongType(line: line, className: path, property: column.name, expected: "an array", found: raw.summary)
                    }
                    plan.elements[index] = try array.enumerated().map { position, element in
                        try element == .null && column.isNullable ? .stored(.null)
                            : value(element, column, path: path, line: line, place: "[\(position)]")
                    }
                case .map:
                    plan.values.append(.stored(.null))
                    guard let raw, raw != .null else { continue }
                    guard case .object(let dictionary) = raw else {
                        throw ImportError.wrongType(line: line, className: path, property: column.name, expected: "an object", found: raw.summary)
                    }
                    plan.entries[index] = try dictionary.sorted { $0.key < $1.key }.map { entry in
                        (entry.key, try entry.value == .null && column.isNullable ? .stored(.null)
                            : value(entry.value, column, path: path, line: line, place: "[\(Dump.quote(entry.key))]"))
                    }
                }
            }
            return plan
        }

        /// One value of `column` (an element of it when `place` names a position or map key).
        func value(_ raw: JSON, _ column: ColumnSpec, path: String, line: Int, place: String = "") throws -> PlannedValue {
            func wrong() throws -> ImportError {
                .wrongType(line: line, className: path, property: column.name + place, expected: try typeName(column), found: raw.summary)
            }
            switch column.type {
            case .link:
                // Null reaches here only as an element of a collection that takes none.
                if raw == .null { throw try wrong() }
                guard let targetName = column.linkTarget, let target = try reader.tableIfPresent(named: targetName) else {
                    throw ImportError.noLinkedObject(line: line, className: path, property: column.name + place,
                                                     target: column.linkTarget ?? "?", primaryKey: raw.summary)
                }
                if try spec(of: target).kind == .embedded {
                    // An embedded object has exactly one owner: it is created here, never shared by key.
                    guard case .object(let members) = raw else { throw try wrong() }
                    return .embedded(try object(members, table: target, path: "\(path).\(column.name)\(place)", line: line))
                }
                return .stored(.link(try linkedKey(raw, in: target, path: path, property: column.name + place, line: line)))
            case .mixed:
                return .stored(try mixed(raw, path: path, property: column.name + place, line: line))
            default:
                guard let value = try scalar(raw, column) else { throw try wrong() }
                return .stored(value)
            }
        }

        /// A value of a column of a scalar type; nil when `raw` is not one.
        func scalar(_ raw: JSON, _ column: ColumnSpec) throws -> Value? {
            switch (column.type, raw) {
            case (.bool, .bool(let flag)):
                return .bool(flag)
            case (.int, .number(let text)):
                guard let int = Self.integer(text) else { return nil }
                if column.integerBits < 64 {
                    let limit = Int64(1) << (column.integerBits - 1)
                    guard int >= -limit, int < limit else { return nil }
                }
                return .int(int)
            case (.float, .number(let text)):
                guard let float = Float(text), float.isFinite else { return nil }
                return .float(float)
            case (.float, .string(let text)):
                return ValueText.nonFinite(named: text).map { .float(Float($0)) }
            case (.double, .number(let text)):
                guard let double = Double(text), double.isFinite else { return nil }
                return .double(double)
            case (.double, .string(let text)):
                return ValueText.nonFinite(named: text).map { .double($0) }
            case (.string, .string(let string)):
                return .string(string)
            case (.binary, .string(let text)):
                return Data(base64Encoded: text).map { .binary(Array($0)) }
            case (.timestamp, .string(let text)):
                return (ValueText.seconds(fromDate: text) ?? ValueText.nonFinite(named: text)).map { .timestamp($0) }
            case (.timestamp, .number(let text)):
                // What dump writes for a date beyond the calendar: seconds since 2001-01-01 UTC.
                return Double(text).map { .timestamp($0) }
            case (.objectId, .string(let text)):
                return (try? ObjectId(string: text))?.storedValue
            case (.uuid, .string(let text)):
                return Self.uuid(text)?.storedValue
            case (.decimal128, .number(let text)):
                return (try? Decimal128(string: text))?.storedValue
            case (.decimal128, .string(let text)):
                return Self.decimal128Bits(text) ?? (try? Decimal128(string: text.trimmingCharacters(in: .whitespaces)))?.storedValue
            default:
                return nil
            }
        }

        /// A mixed value: JSON's own types as themselves (a number with a fraction or an
        /// exponent as a Double, one without as an Int), arrays and objects as nested lists and
        /// dictionaries, `{"_class": C, "key": K}` as a link, and a one-key object such as
        /// `{"$date": …}` as the type it names (what `dump` writes for those JSON has no type for).
        func mixed(_ raw: JSON, path: String, property: String, line: Int) throws -> Value {
            func wrong(_ expected: String) -> ImportError {
                .wrongType(line: line, className: path, property: property, expected: expected, found: raw.summary)
            }
            switch raw {
            case .null: return .null
            case .bool(let flag): return .bool(flag)
            case .string(let string): return .string(string)
            case .number(let text):
                if text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) {
                    guard let double = Double(text), double.isFinite else { throw wrong("a number a Double holds") }
                    return .double(double)
                }
                guard let int = Int64(text) else { throw wrong("an integer of 64 bits (or a number with a fraction, read as a Double)") }
                return .int(int)
            case .array(let elements):
                return .list(try elements.enumerated().map { try mixed($1, path: path, property: "\(property)[\($0)]", line: line) })
            case .object(let members):
                if members.count == 1, let tag = members.first, tag.key.hasPrefix("$") {
                    let type: ColumnType
                    switch tag.key {
                    case "$date": type = .timestamp
                    case "$decimal128": type = .decimal128
                    case "$objectId": type = .objectId
                    case "$uuid": type = .uuid
                    case "$data": type = .binary
                    case "$float": type = .float
                    case "$double": type = .double
                    default: throw wrong("a mixed value; its type tags are $date, $decimal128, $objectId, $uuid, $data, $float and $double")
                    }
                    let column = ColumnSpec(name: property, type: type)
                    guard let value = try scalar(tag.value, column) else {
                        throw ImportError.wrongType(line: line, className: path, property: "\(property).\(tag.key)",
                                                    expected: try typeName(column), found: tag.value.summary)
                    }
                    return value
                }
                if members.count == 2, let named = members.first(where: { $0.key == "_class" })?.value,
                   let key = members.first(where: { $0.key == "key" })?.value {
                    guard case .string(let className) = named, let target = try reader.tableIfPresent(named: className) else {
                        throw wrong("a link {\"_class\": …, \"key\": …} to a class of the file")
                    }
                    guard try spec(of: target).kind != .embedded else {
                        throw wrong("a link to an object of a top-level class (\(className) is embedded: its objects belong to their owner alone)")
                    }
                    return .typedLink(table: className, key: try linkedKey(key, in: target, path: path, property: property, line: line))
                }
                return .dictionary(try members.map {
                    Value.MapEntry(key: $0.key, value: try mixed($0.value, path: path, property: "\(property)[\(Dump.quote($0.key))]", line: line))
                })
            }
        }

        /// The key of the object of `target` a link names by its primary key (by its object key
        /// when its class has none).
        func linkedKey(_ raw: JSON, in target: TableHandle, path: String, property: String, line: Int) throws -> Int64 {
            let targetSpec = try spec(of: target)
            var key: Int64?
            if let primaryKey = targetSpec.columns.firstIndex(where: \.isPrimaryKey) {
                if let stored = try scalar(raw, targetSpec.columns[primaryKey]) {
                    key = try reader.findObjects(in: target, column: primaryKey, equalTo: stored, limit: 1).first
                } else if raw != .null {
                    throw ImportError.wrongType(line: line, className: path, property: property,
                                                expected: "the primary key of a \(target.name) (\(try typeName(targetSpec.columns[primaryKey])))", found: raw.summary)
                }
            } else if case .number(let text) = raw, let number = Int64(text), try reader.contains(number, in: target) {
                key = number
            }
            guard let key else {
                throw ImportError.noLinkedObject(line: line, className: path, property: property, target: target.name, primaryKey: raw.summary)
            }
            return key
        }

        /// An integer written as one, or as a number with a zero fraction that a Double holds exactly.
        static func integer(_ text: String) -> Int64? {
            if let int = Int64(text) { return int }
            guard let double = Double(text), double.rounded() == double, abs(double) <= 9_007_199_254_740_992 else { return nil }
            return Int64(double)
        }

        /// A UUID string, with or without its dashes, in either case.
        static func uuid(_ text: String) -> UUID? {
            if let uuid = UUID(uuidString: text) { return uuid }
            let hex = Array(text)
            guard hex.count == 32, hex.allSatisfy(\.isHexDigit) else { return nil }
            let groups = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(hex[$0]) }
            return UUID(uuidString: groups.joined(separator: "-"))
        }

        /// Decimal128's raw bits as `0x` and 32 hexadecimal digits, as earlier versions of `dump` wrote them.
        static func decimal128Bits(_ text: String) -> Value? {
            guard text.hasPrefix("0x"), text.count == 34, text.dropFirst(2).allSatisfy(\.isHexDigit),
                  let high = UInt64(text.dropFirst(2).prefix(16), radix: 16), let low = UInt64(text.suffix(16), radix: 16) else { return nil }
            return .decimal128(Word128(high: high, low: low))
        }

        func typeName(_ column: ColumnSpec) throws -> String {
            switch column.type {
            case .bool: return "true or false"
            case .int: return column.integerBits == 64 ? "an integer" : "an integer of \(column.integerBits) bits"
            case .float: return "a number a Float holds (or \"NaN\", \"Infinity\", \"-Infinity\")"
            case .double: return "a number (or \"NaN\", \"Infinity\", \"-Infinity\")"
            case .string: return "a string"
            case .binary: return "a base64 string"
            case .timestamp: return "an ISO 8601 date string such as \"2024-05-01T12:30:00.5Z\""
            case .objectId: return "a 24-digit hex ObjectId string"
            case .uuid: return "a UUID string"
            case .decimal128: return "a decimal number such as 12.5 or \"12.5\""
            case .link:
                let target = column.linkTarget ?? "linked object"
                if let table = try reader.tableIfPresent(named: target), try spec(of: table).kind == .embedded {
                    return "the \(target) it owns, as a JSON object of its properties (an embedded object is written in full, never named by its key)"
                }
                return "the primary key of a \(target)"
            case .mixed: return "a mixed value"
            }
        }
    }
}
