@_spi(Engine) import FloeStorage

// What a write transaction checks of every value before storing it: its type against the
// column, its size, and what nested mixed values hold.

extension WriteTransaction {
    /// What a mixed value's nested lists and dictionaries hold, checked as the column would
    /// check it on its own: each string's and binary's size, each key, each object named.
    /// Walked with a worklist: only the nesting limit, checked before, bounds how deep it goes.
    package func checkNestedContents(_ value: Value, table: String, column: String) throws(FloeError) {
        var pending = [value]
        while let next = pending.popLast() {
            switch next {
            case .typedLink(let target, let key):
                guard let handle = try tableIfPresent(named: target), try contains(key, in: handle) else {
                    throw .invalidLink(table: table, column: column, target: target, key: key)
                }
            case .string(let string) where string.utf8.count > Self.maximumValueSize:
                throw .valueTooLarge(table: table, column: column, size: string.utf8.count, limit: Self.maximumValueSize)
            case .binary(let bytes) where bytes.count > Self.maximumValueSize:
                throw .valueTooLarge(table: table, column: column, size: bytes.count, limit: Self.maximumValueSize)
            case .list(let values):
                pending.append(contentsOf: values)
            case .dictionary(let entries):
                for entry in entries {
                    try Self.checkMapKey(entry.key, table: table, column: column)
                    pending.append(entry.value)
                }
            default:
                break
            }
        }
    }

    /// Refuses a key that a map (or a dictionary nested in a mixed value) cannot hold: longer
    /// than a string value may be, starting with `$` or containing `.`. The empty key is
    /// allowed, as in Realm.
    package static func checkMapKey(_ key: String, table: String, column: String) throws(FloeError) {
        let bytes = key.utf8
        guard bytes.count <= maximumValueSize, bytes.first != UInt8(ascii: "$"), !bytes.contains(UInt8(ascii: ".")) else {
            throw .invalidMapKey(table: table, column: column, key: key)
        }
    }

    /// The value as the column stores it, or the typed error that names what is wrong.
    package func checked(_ value: Value, for column: ColumnSpec, in table: String) throws(FloeError) -> Value {
        // Built only on failure: describing an enum goes through reflection, far too slow per value.
        var expected: String { "\(column.isNullable ? "optional " : "")\(column.type)" }
        switch value {
        case .null:
            if column.isNullable || column.type == .mixed || (column.type == .link && column.collection == .single) { return .null }
            throw .nullForRequired(table: table, column: column.name)
        case .string(let string) where string.utf8.count > Self.maximumValueSize:
            throw .valueTooLarge(table: table, column: column.name, size: string.utf8.count, limit: Self.maximumValueSize)
        case .binary(let bytes) where bytes.count > Self.maximumValueSize:
            throw .valueTooLarge(table: table, column: column.name, size: bytes.count, limit: Self.maximumValueSize)
        case .int(let int) where column.type == .int && column.integerBits < 64:
            let limit = Int64(1) << (column.integerBits - 1)
            guard int >= -limit && int < limit else {
                throw .typeMismatch(table: table, column: column.name, expected: "a \(column.integerBits)-bit integer", value: value.debugText)
            }
            return value
        case .link(let key) where column.type == .link:
            let target = column.linkTarget ?? ""
            guard let handle = try tableIfPresent(named: target), try contains(key, in: handle) else {
                throw .invalidLink(table: table, column: column.name, target: target, key: key)
            }
            return value
        case .typedLink(let target, let key) where column.type == .mixed:
            guard let handle = try tableIfPresent(named: target), try contains(key, in: handle) else {
                throw .invalidLink(table: table, column: column.name, target: target, key: key)
            }
            return value
        default:
            break
        }
        if column.type == .mixed {
            switch value {
            case .list, .dictionary:
                if value.nestsDeeper(than: Value.maximumNesting) { throw .mixedNestingTooDeep(table: table, column: column.name) }
                try checkNestedContents(value, table: table, column: column.name)
            default:
                break
            }
            if case .link = value {
                throw .typeMismatch(table: table, column: column.name, expected: "a mixed value (links in mixed columns name their table)", value: value.debugText)
            }
            return value
        }
        guard value.naturalType == column.type else {
            throw .typeMismatch(table: table, column: column.name, expected: expected, value: value.debugText)
        }
        return value
    }
}
