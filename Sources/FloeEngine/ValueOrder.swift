@_spi(Engine) import FloeStorage

/// The one rule by which stored values are told apart and ordered. Queries (with or without an
/// index), sorts, `distinct`, sets, map keys, primary keys and change streams all use it, so no
/// path answers differently from another.
///
/// - Kinds in Realm's order: null, Bool, numbers, String, Data, Date, ObjectId, UUID, links,
///   nested lists, nested dictionaries.
/// - Numbers compare by value across widths and kinds, exactly: `Int` against `Double` never
///   goes through a rounding conversion, `Decimal128` compares numerically (`5 == 5.00`), and a
///   `Double` meets a `Decimal128` as its shortest decimal (see ``DecimalParts``).
/// - NaN (Float, Double, Decimal128, or a Date made from one) sorts before every other number
///   and equals NaN; ordered query comparisons never match it (see `ValueComparison`).
/// - Strings compare by Swift's `String` rules: canonically equivalent strings ("é" as one
///   scalar, or "e" plus a combining accent) are the same string, ordered by their Unicode
///   scalars once normalized.
///
/// ```swift
/// Value.compare(.int(5), .decimal128(fivePointZeroZero))   // 0
/// Value.compare(.double(.nan), .int(Int64.min))            // -1
/// ```
extension Value {
    package static func compare(_ lhs: Value, _ rhs: Value) -> Int {
        if case .int(let a) = lhs, case .int(let b) = rhs { return a == b ? 0 : (a < b ? -1 : 1) }
        let leftRank = lhs.rank, rightRank = rhs.rank
        if leftRank != rightRank { return leftRank < rightRank ? -1 : 1 }
        switch (lhs, rhs) {
        case (.null, .null): return 0
        case let (.bool(a), .bool(b)): return a == b ? 0 : (!a ? -1 : 1)
        case let (.string(a), .string(b)): return a == b ? 0 : (a < b ? -1 : 1)
        case let (.binary(a), .binary(b)): return a == b ? 0 : (a.lexicographicallyPrecedes(b) ? -1 : 1)
        case let (.timestamp(a), .timestamp(b)): return NumberOrder.compare(a, b)
        case let (.objectId(a), .objectId(b)), let (.uuid(a), .uuid(b)):
            return a == b ? 0 : (a < b ? -1 : 1)
        case let (.link(a), .link(b)): return a == b ? 0 : (a < b ? -1 : 1)
        case let (.typedLink(t1, k1), .typedLink(t2, k2)):
            if t1 != t2 { return t1 < t2 ? -1 : 1 }
            return k1 == k2 ? 0 : (k1 < k2 ? -1 : 1)
        case let (.list(a), .list(b)):
            for (x, y) in zip(a, b) {
                let order = compare(x, y)
                if order != 0 { return order }
            }
            return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
        case let (.dictionary(a), .dictionary(b)):
            for (x, y) in zip(a, b) {
                if x.key != y.key { return x.key < y.key ? -1 : 1 }
                let order = compare(x.value, y.value)
                if order != 0 { return order }
            }
            return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
        default:
            return NumberOrder.compare(lhs, rhs)
        }
    }

    /// Whether two values are the same under ``compare(_:_:)``.
    package static func same(_ lhs: Value, _ rhs: Value) -> Bool { compare(lhs, rhs) == 0 }

    /// Whether the value is a NaN: of a Float, Double or Decimal128, or a Date made from one.
    package var isNaN: Bool {
        switch self {
        case .double(let double), .timestamp(let double): return double.isNaN
        case .float(let float): return float.isNaN
        case .decimal128(let word): return DecimalParts(word).kind == .nan
        default: return false
        }
    }

    /// Whether the value is an Int, Float, Double or Decimal128.
    package var isNumber: Bool { rank == 2 }

    /// Kinds that compare with each other share a rank; numbers of every kind share one.
    package var rank: Int {
        switch self {
        case .null: return 0
        case .bool: return 1
        case .int, .float, .double, .decimal128: return 2
        case .string: return 5
        case .binary: return 6
        case .timestamp: return 7
        case .objectId: return 9
        case .uuid: return 10
        case .link: return 11
        case .typedLink: return 12
        case .list: return 13
        case .dictionary: return 14
        }
    }
}

/// Numbers of any kind, in the order of ``Value/compare(_:_:)``.
package enum NumberOrder {
    /// Two numbers (`.int`, `.float`, `.double`, `.decimal128`): -1, 0 or 1.
    package static func compare(_ lhs: Value, _ rhs: Value) -> Int {
        switch (lhs, rhs) {
        case let (.int(a), .int(b)): return a == b ? 0 : (a < b ? -1 : 1)
        case (.decimal128, _), (_, .decimal128):
            guard let left = decimalParts(lhs), let right = decimalParts(rhs) else { return 0 }
            return DecimalParts.compare(left, right)
        case let (.int(a), _):
            guard let b = binary(rhs) else { return 0 }
            return compare(a, b)
        case let (_, .int(b)):
            guard let a = binary(lhs) else { return 0 }
            return -compare(b, a)
        default:
            guard let a = binary(lhs), let b = binary(rhs) else { return 0 }
            return compare(a, b)
        }
    }

    /// Floating-point numbers, NaN first.
    package static func compare(_ a: Double, _ b: Double) -> Int {
        if a.isNaN || b.isNaN { return a.isNaN == b.isNaN ? 0 : (a.isNaN ? -1 : 1) }
        return a == b ? 0 : (a < b ? -1 : 1)
    }

    /// An integer against a floating-point number, exactly (NaN first).
    package static func compare(_ a: Int64, _ b: Double) -> Int {
        if b.isNaN { return 1 }
        if b >= 0x1p63 { return -1 }
        if b < -0x1p63 { return 1 }
        let whole = b.rounded(.towardZero)
        let wholeInt = Int64(whole)
        if a != wholeInt { return a < wholeInt ? -1 : 1 }
        let fraction = b - whole
        return fraction == 0 ? 0 : (fraction > 0 ? -1 : 1)
    }

    private static func binary(_ value: Value) -> Double? {
        switch value {
        case .double(let double): return double
        case .float(let float): return Double(float)
        default: return nil
        }
    }

    package static func decimalParts(_ value: Value) -> DecimalParts? {
        switch value {
        case .int(let int): return DecimalParts(int: int)
        case .float(let float): return DecimalParts(double: Double(float))
        case .double(let double): return DecimalParts(double: double)
        case .decimal128(let word): return DecimalParts(word)
        default: return nil
        }
    }

    /// The whole number an Int64 holds that `value` equals, if any.
    package static func exactInt64(_ value: Value) -> Int64? {
        switch value {
        case .int(let int): return int
        case .float, .double:
            guard let double = binary(value), double.rounded(.towardZero) == double, double >= -0x1p63, double < 0x1p63 else { return nil }
            return Int64(double)
        case .decimal128(let word): return DecimalParts(word).exactInt64
        default: return nil
        }
    }
}

/// A value that is `Hashable` by ``Value/compare(_:_:)``: equal values (`5`, `5.0` and
/// `5.00`; two NaNs; canonically equivalent strings) are equal and hash alike. `distinct`
/// and `IN` lists key on it.
///
/// ```swift
/// Set([ValueIdentity(.int(5)), ValueIdentity(.double(5))]).count   // 1
/// ```
package struct ValueIdentity: Hashable {
    package let value: Value

    package init(_ value: Value) {
        self.value = value
    }

    package static func == (lhs: ValueIdentity, rhs: ValueIdentity) -> Bool {
        Value.compare(lhs.value, rhs.value) == 0
    }

    package func hash(into hasher: inout Hasher) {
        Self.hash(value, into: &hasher)
    }

    private static func hash(_ value: Value, into hasher: inout Hasher) {
        hasher.combine(value.rank)
        switch value {
        case .int, .float, .double, .decimal128:
            if let int = NumberOrder.exactInt64(value) {
                hasher.combine(int)
            } else if let parts = NumberOrder.decimalParts(value)?.normalized {
                hasher.combine(parts.kind == .nan ? 0 : (parts.kind == .infinity ? 1 : 2))
                hasher.combine(parts.negative)
                hasher.combine(parts.coefficient)
                hasher.combine(parts.exponent)
            }
        case .timestamp(let seconds):
            hasher.combine(seconds.isNaN ? Double.nan.bitPattern : (seconds == 0 ? 0 : seconds.bitPattern))
        case .list(let values):
            hasher.combine(values.count)
            for element in values { hash(element, into: &hasher) }
        case .dictionary(let entries):
            hasher.combine(entries.count)
            for entry in entries {
                hasher.combine(entry.key)
                hash(entry.value, into: &hasher)
            }
        default:
            // Strings hash by Swift's canonical equivalence, as they compare.
            hasher.combine(value)
        }
    }
}
