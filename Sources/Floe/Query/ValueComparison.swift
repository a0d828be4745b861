import Foundation

/// How a query compares stored values, with Realm's rules: numbers compare across integer and
/// floating types; `null` equals only `null`, and is neither less nor greater than anything;
/// strings compare with Swift's Unicode-correct comparison, folded for `[c]` (case) and `[d]`
/// (diacritics) by Foundation's `String.compare(_:options:)`.
///
/// ```swift
/// ValueComparison.compare(.int(3), .less, .double(3.5), options: [])          // true
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
        guard let order = order(lhs, rhs) else { return op == .notEqual }
        switch op {
        case .equal, .in: return order == 0
        case .notEqual: return order != 0
        case .less: return order < 0
        case .lessOrEqual: return order <= 0
        case .greater: return order > 0
        case .greaterOrEqual: return order >= 0
        case .beginsWith, .endsWith, .contains, .like: return false
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
        if let left = number(lhs), let right = number(rhs) {
            if case .int(let a) = lhs, case .int(let b) = rhs { return a == b ? 0 : (a < b ? -1 : 1) }
            return left == right ? 0 : (left < right ? -1 : 1)
        }
        switch (lhs, rhs) {
        case (.bool, .bool), (.timestamp, .timestamp), (.binary, .binary), (.decimal128, .decimal128),
             (.objectId, .objectId), (.uuid, .uuid), (.link, .link), (.typedLink, .typedLink):
            return Value.compare(lhs, rhs)
        default:
            return lhs == rhs ? 0 : nil
        }
    }

    private static func number(_ value: Value) -> Double? {
        switch value {
        case .int(let int): return Double(int)
        case .float(let float): return Double(float)
        case .double(let double): return double
        default: return nil
        }
    }

    /// `@count`, `@min`, `@max`, `@sum`, `@avg` over a collection's values (nulls skipped).
    static func aggregate(_ aggregate: QueryAggregate, _ values: [Value]) -> Value {
        let present = values.filter { $0 != .null }
        switch aggregate {
        case .count: return .int(Int64(values.count))
        case .min: return present.min { (order($0, $1) ?? 0) < 0 } ?? .null
        case .max: return present.max { (order($0, $1) ?? 0) < 0 } ?? .null
        case .sum:
            if present.allSatisfy({ if case .int = $0 { return true } else { return false } }) {
                return .int(present.reduce(Int64(0)) { total, value in if case .int(let int) = value { return total &+ int } else { return total } })
            }
            return .double(present.compactMap(number).reduce(0, +))
        case .average:
            let numbers = present.compactMap(number)
            return numbers.isEmpty ? .null : .double(numbers.reduce(0, +) / Double(numbers.count))
        }
    }
}
