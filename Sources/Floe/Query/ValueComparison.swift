import Foundation
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// How a query compares stored values, by the engine's one rule (`Value.compare`): numbers
/// compare by value across integer, floating and decimal kinds, exactly; `null` equals only
/// `null`, and is neither less nor greater than anything; NaN equals NaN and matches no ordered
/// comparison (`<`, `<=`, `>`, `>=`, `BETWEEN`), as IEEE 754 has it; strings compare with Swift's
/// Unicode-correct comparison, folded for `[c]` (case) and `[d]` (diacritics) by Foundation's
/// `String.compare(_:options:)`.
///
/// ```swift
/// ValueComparison.compare(.int(3), .less, .double(3.5), options: [])          // true
/// ValueComparison.compare(.double(.nan), .greater, .int(0), options: [])      // false
/// ValueComparison.compare(.string("Été"), .equal, .string("ete"), options: [.caseInsensitive, .diacriticInsensitive])  // true
/// ```
enum ValueComparison {
    static func compare(_ lhs: Value, _ op: QueryOperator, _ rhs: Value, options: QueryStringOptions) -> Bool {
        if lhs == .null || rhs == .null {
            switch op {
            case .equal, .in: return lhs == rhs
            case .notEqual: return lhs != rhs
            default: return false
            }
        }
        if case .string(let left) = lhs, case .string(let right) = rhs {
            return compare(left, op, right, options: options)
        }
        guard lhs.rank == rhs.rank else { return op == .notEqual }
        switch op {
        case .equal, .in: return Value.compare(lhs, rhs) == 0
        case .notEqual: return Value.compare(lhs, rhs) != 0
        case .beginsWith, .endsWith, .contains, .like: return false
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            if lhs.isNaN || rhs.isNaN { return false }
            let order = Value.compare(lhs, rhs)
            switch op {
            case .less: return order < 0
            case .lessOrEqual: return order <= 0
            case .greater: return order > 0
            default: return order >= 0
            }
        }
    }

    static func compare(_ left: String, _ op: QueryOperator, _ right: String, options: QueryStringOptions) -> Bool {
        var foundation: String.CompareOptions = []
        if options.contains(.caseInsensitive) { foundation.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { foundation.insert(.diacriticInsensitive) }
        switch op {
        // Without options, Swift's own prefix test (Characters, canonical equivalence), as the column scan uses.
        case .beginsWith where foundation.isEmpty: return left.hasPrefix(right)
        case .beginsWith: return right.isEmpty || left.range(of: right, options: foundation.union(.anchored)) != nil
        case .endsWith: return right.isEmpty || left.range(of: right, options: foundation.union([.anchored, .backwards])) != nil
        case .contains: return right.isEmpty || left.range(of: right, options: foundation) != nil
        case .like: return like(fold(left, options), fold(right, options))
        default: break
        }
        let order: ComparisonResult = foundation.isEmpty ? (left == right ? .orderedSame : (left < right ? .orderedAscending : .orderedDescending))
                                                         : left.compare(right, options: foundation)
        switch op {
        case .equal, .in: return order == .orderedSame
        case .notEqual: return order != .orderedSame
        case .less: return order == .orderedAscending
        case .lessOrEqual: return order != .orderedDescending
        case .greater: return order == .orderedDescending
        case .greaterOrEqual: return order != .orderedAscending
        default: return false
        }
    }

    /// The string folded as `[c]`/`[d]` ask, for LIKE's own matching.
    private static func fold(_ string: String, _ options: QueryStringOptions) -> String {
        var folding: String.CompareOptions = []
        if options.contains(.caseInsensitive) { folding.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { folding.insert(.diacriticInsensitive) }
        return folding.isEmpty ? string : string.folding(options: folding, locale: nil)
    }

    /// LIKE: `?` matches one character, `*` any run of characters (Characters: a letter with
    /// combining marks, or an emoji, counts as one).
    static func like(_ text: String, _ pattern: String) -> Bool {
        let text = Array(text), pattern = Array(pattern)
        var t = 0, p = 0, star = -1, mark = 0
        while t < text.count {
            if p < pattern.count && (pattern[p] == "?" || pattern[p] == text[t]) {
                t += 1
                p += 1
            } else if p < pattern.count && pattern[p] == "*" {
                star = p
                mark = t
                p += 1
            } else if star >= 0 {
                p = star + 1
                mark += 1
                t = mark
            } else {
                return false
            }
        }
        while p < pattern.count && pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }

    /// -1, 0 or 1 for values of comparable kinds (numbers across kinds), nil otherwise.
    static func order(_ lhs: Value, _ rhs: Value) -> Int? {
        lhs.rank == rhs.rank ? Value.compare(lhs, rhs) : nil
    }

    /// `@count`, `@min`, `@max`, `@sum`, `@avg` over a collection's values (nulls and, for
    /// `@min` and `@max`, NaNs skipped). Sums are exact: integers that overflow an Int64 sum to
    /// a Decimal128, and any Decimal128 makes the sum and mean decimal.
    static func aggregate(_ aggregate: QueryAggregate, _ values: [Value]) -> Value {
        let present = values.filter { $0 != .null }
        switch aggregate {
        case .count: return .int(Int64(values.count))
        case .min: return present.filter { !$0.isNaN }.min { (order($0, $1) ?? 0) < 0 } ?? .null
        case .max: return present.filter { !$0.isNaN }.max { (order($0, $1) ?? 0) < 0 } ?? .null
        case .sum: return sum(present) ?? .int(0)
        case .average:
            let numbers = present.filter(\.isNumber)
            guard !numbers.isEmpty, let total = sum(numbers) else { return .null }
            switch total {
            case .decimal128(let word):
                return Aggregation.decimal(Decimal128(high: word.high, low: word.low) / Decimal128(numbers.count))
            case .int(let int): return .double(Double(int) / Double(numbers.count))
            case .double(let double): return .double(double / Double(numbers.count))
            default: return .null
            }
        }
    }

    /// The exact sum of numbers: an Int64 when every one is an integer and the total fits,
    /// a Decimal128 when a decimal is among them or integers overflow, else a Double.
    private static func sum(_ values: [Value]) -> Value? {
        let numbers = values.filter(\.isNumber)
        if numbers.contains(where: { if case .decimal128 = $0 { return true } else { return false } }) {
            var total = Decimal128(0)
            for number in numbers {
                switch number {
                case .int(let int): total += Decimal128(Int(int))
                case .float(let float): total += Decimal128(Double(float))
                case .double(let double): total += Decimal128(double)
                case .decimal128(let word): total += Decimal128(high: word.high, low: word.low)
                default: break
                }
            }
            return Aggregation.decimal(total)
        }
        if numbers.allSatisfy({ if case .int = $0 { return true } else { return false } }) {
            var total: Int128 = 0
            for case .int(let int) in numbers { total += Int128(int) }
            if let fits = Int64(exactly: total) { return .int(fits) }
            return (try? Decimal128(string: String(total))).map(Aggregation.decimal)
        }
        var total = 0.0
        for number in numbers {
            switch number {
            case .int(let int): total += Double(int)
            case .float(let float): total += Double(float)
            case .double(let double): total += double
            default: break
            }
        }
        return .double(total)
    }
}
