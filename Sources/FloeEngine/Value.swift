@_spi(Engine) import FloeStorage

/// A 128-bit value: the storage of `Decimal128`, `ObjectId` (12 bytes, in the high 96 bits) and `UUID`.
@_spi(Engine) public struct Word128: Sendable, Hashable, Comparable {
    public var high: UInt64
    public var low: UInt64

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    public static func < (lhs: Word128, rhs: Word128) -> Bool {
        (lhs.high, lhs.low) < (rhs.high, rhs.low)
    }
}

/// One cell's value as the engine stores it.
///
/// ```swift
/// try transaction.setValue(.string("Rex"), table: dogs, key: key, column: name)
/// ```
@_spi(Engine) public enum Value: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case float(Float)
    case double(Double)
    case string(String)
    case binary([UInt8])
    /// Seconds since 2001-01-01 00:00:00 UTC (`Date.timeIntervalSinceReferenceDate`), stored exactly.
    case timestamp(Double)
    case decimal128(Word128)
    case objectId(Word128)
    case uuid(Word128)
    /// The key of an object in the column's target table.
    case link(Int64)
    /// An object in any table (mixed columns only).
    case typedLink(table: String, key: Int64)
    /// A list of values nested in a mixed cell (stored inline, with the cell).
    case list([Value])
    /// A dictionary of values nested in a mixed cell, keys ascending (stored inline, with the cell).
    case dictionary([MapEntry])

    /// One entry of a nested dictionary.
    public struct MapEntry: Sendable, Hashable {
        public var key: String
        public var value: Value
        public init(key: String, value: Value) {
            self.key = key
            self.value = value
        }
    }

    /// How many levels of nested lists and dictionaries a mixed value may hold.
    public static let maximumNesting = 100

    /// The depth of nested collections in this value (0 for a scalar).
    public var nestingDepth: Int {
        switch self {
        case .list(let values): return 1 + (values.map(\.nestingDepth).max() ?? 0)
        case .dictionary(let entries): return 1 + (entries.map(\.value.nestingDepth).max() ?? 0)
        default: return 0
        }
    }

    /// The column type a value of this case belongs to (nil for `.null`).
    public var naturalType: ColumnType? {
        switch self {
        case .null: return nil
        case .bool: return .bool
        case .int: return .int
        case .float: return .float
        case .double: return .double
        case .string: return .string
        case .binary: return .binary
        case .timestamp: return .timestamp
        case .decimal128: return .decimal128
        case .objectId: return .objectId
        case .uuid: return .uuid
        case .link: return .link
        case .typedLink, .list, .dictionary: return .mixed
        }
    }

    /// The value a required column holds when nothing else was given.
    public static func defaultValue(for type: ColumnType) -> Value {
        switch type {
        case .bool: return .bool(false)
        case .int: return .int(0)
        case .float: return .float(0)
        case .double: return .double(0)
        case .string: return .string("")
        case .binary: return .binary([])
        case .timestamp: return .timestamp(0)
        case .decimal128: return .decimal128(Word128(high: 0x3040_0000_0000_0000, low: 0))
        case .objectId: return .objectId(Word128(high: 0, low: 0))
        case .uuid: return .uuid(Word128(high: 0, low: 0))
        case .link, .mixed: return .null
        }
    }

    /// A short rendering for error messages.
    public var debugText: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return "\(value)"
        case .int(let value): return "\(value)"
        case .float(let value): return "\(value)"
        case .double(let value): return "\(value)"
        case .string(let value):
            return value.utf8.count > 64 ? "\"\(value.prefix(61))...\" (\(value.utf8.count) bytes)" : "\"\(value)\""
        case .binary(let value): return "<\(value.count) bytes>"
        case .timestamp(let value): return "timestamp(\(value))"
        case .decimal128(let value): return DecimalParts(value).text
        case .objectId(let value): return "objectId(\(value.high), \(value.low))"
        case .uuid(let value): return "uuid(\(value.high), \(value.low))"
        case .link(let key): return "link(\(key))"
        case .typedLink(let table, let key): return "link(\(table), \(key))"
        case .list(let values): return "[" + values.prefix(8).map(\.debugText).joined(separator: ", ") + (values.count > 8 ? ", …]" : "]")
        case .dictionary(let entries):
            return "[" + entries.prefix(8).map { "\"\($0.key)\": \($0.value.debugText)" }.joined(separator: ", ") + (entries.count > 8 ? ", …]" : "]")
        }
    }
}
