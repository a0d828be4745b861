import Foundation
import Testing
import FloeSync

/// Every comparison a sync rule can make, between values of every kind a property or a claim
/// can hold, against a model written apart from the evaluator: exact integers (`Int128`),
/// Foundation's `Decimal` for decimals, Swift's own string comparison. A rule is a security
/// boundary, so a wrong answer here lets a token read or write what it must not (two 64-bit ids
/// that round to one double were equal before comparisons were exact).
@Suite struct RuleComparisonModelTests {
    static let schema = SyncSchema(version: 1, classes: [
        SyncClass(name: "Item", primaryKey: "id", properties: [
            SyncProperty(name: "id", kind: .int),
            SyncProperty(name: "v", kind: .mixed, isOptional: true),
        ]),
    ])

    static let identifier = UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF")!

    /// Edge values of every kind: integers around 2^53 and at Int64's ends, doubles that are and
    /// are not integers (NaN, ±infinity, -0), decimals written several ways, dates, strings
    /// that are canonically equivalent, identifiers spelled in either case, data, null, a link.
    static let pool: [SyncValue] = [
        .int(0), .int(1), .int(-1), .int(5), .int(9_007_199_254_740_992), .int(9_007_199_254_740_993),
        .int(Int64.max), .int(Int64.max - 1), .int(Int64.min), .int(Int64.min + 1),
        .double(0), .double(-0.0), .double(0.5), .double(5), .double(4.999999999999999), .double(0.1),
        .double(9_007_199_254_740_992), .double(0x1p63), .double(-0x1p63), .double(0x1p64), .double(-1.5),
        .double(.nan), .double(.infinity), .double(-.infinity), .double(1e-5),
        .date(0), .date(5), .date(1.5),
        .decimal("5"), .decimal("5.00"), .decimal("0.1"), .decimal("-0"), .decimal("1E+3"), .decimal("1000.0"),
        .decimal("9007199254740993"), .decimal("9223372036854775807"), .decimal("9223372036854775808"),
        .decimal("0.10000000000000001"), .decimal("4.9999999999999990"), .decimal("-1.5"),
        .string("a"), .string("A"), .string("abc"), .string(""), .string("5"), .string("\u{E9}"), .string("e\u{301}"),
        .string("5f1a2b3c4d5e6f7a8b9c0d1e"), .string("5F1A2B3C4D5E6F7A8B9C0D1E"), .objectId("5f1a2b3c4d5e6f7a8b9c0d1e"),
        .uuid(identifier), .string(identifier.uuidString.lowercased()), .string(identifier.uuidString),
        .bool(true), .bool(false),
        .data(Data([1, 2])), .data(Data()),
        .null,
        .link(className: "Item", key: .int(5)), .link(className: "Item", key: .string("a")),
    ]

    static let operators = ["==", "!=", "<", "<=", ">", ">=", "BEGINSWITH", "ENDSWITH", "CONTAINS"]

    @Test func everyComparisonOfEveryKindAgreesWithTheModel() throws {
        var mismatches: [String] = []
        var checked = 0
        for op in Self.operators {
            for caseInsensitive in [false, true] {
                let rule = "v \(op)\(caseInsensitive ? "[c]" : "") $jwt.v"
                let rules = try SyncRules(["Item": [.read: rule]], schema: Self.schema)
                for left in Self.pool {
                    for right in Self.pool {
                        let actual = rules.allows(.read, className: "Item", object: ["id": .int(1), "v": left], claims: ["v": right])
                        let expected = Self.holds(left, op, right, caseInsensitive: caseInsensitive)
                        checked += 1
                        if actual != expected { mismatches.append("\(left) \(op)\(caseInsensitive ? "[c]" : "") \(right): rule says \(actual), model \(expected)") }
                    }
                }
            }
        }
        #expect(checked == Self.operators.count * 2 * Self.pool.count * Self.pool.count)
        #expect(mismatches.isEmpty, "\(mismatches.count) of \(checked) comparisons differ, first: \(mismatches.prefix(12).joined(separator: "; "))")
    }

    /// The report as written: a token whose id is one more than the owner's, both above 2^53,
    /// does not pass `ownerId == $jwt.uid`.
    @Test func neighbouringLargeIdsAreDifferentOwners() throws {
        let rules = try SyncRules(["Item": [.read: "id == $jwt.uid"]], schema: Self.schema)
        #expect(rules.allows(.read, className: "Item", object: ["id": .int(9_007_199_254_740_993)], claims: ["uid": .int(9_007_199_254_740_993)]))
        #expect(!rules.allows(.read, className: "Item", object: ["id": .int(9_007_199_254_740_993)], claims: ["uid": .int(9_007_199_254_740_992)]))
        #expect(!rules.allows(.read, className: "Item", object: ["id": .int(Int64.max)], claims: ["uid": .int(Int64.max - 1)]))
        #expect(!rules.allows(.read, className: "Item", object: ["id": .int(9_007_199_254_740_993)], claims: ["uid": .double(9_007_199_254_740_992)]))
    }

    // MARK: The model

    static func holds(_ left: SyncValue, _ op: String, _ right: SyncValue, caseInsensitive: Bool) -> Bool {
        let left = unlinked(left), right = unlinked(right)
        switch op {
        case "==": return equal(left, right, caseInsensitive)
        case "!=": return !equal(left, right, caseInsensitive)
        case "<": return order(left, right, caseInsensitive) == .orderedAscending
        case "<=": return [.orderedAscending, .orderedSame].contains(order(left, right, caseInsensitive))
        case ">": return order(left, right, caseInsensitive) == .orderedDescending
        case ">=": return [.orderedDescending, .orderedSame].contains(order(left, right, caseInsensitive))
        default:
            guard case .string(var a) = left, case .string(var b) = right else { return false }
            if caseInsensitive { (a, b) = (a.lowercased(), b.lowercased()) }
            switch op {
            case "BEGINSWITH": return a.hasPrefix(b)
            case "ENDSWITH": return a.hasSuffix(b)
            default: return a.contains(b)
            }
        }
    }

    static func unlinked(_ value: SyncValue) -> SyncValue {
        if case .link(_, let key) = value { return unlinked(key) }
        return value
    }

    static func equal(_ left: SyncValue, _ right: SyncValue, _ caseInsensitive: Bool) -> Bool {
        switch (left, right) {
        case (.null, .null): return true
        case (.null, _), (_, .null): return false
        case (.data(let a), .data(let b)): return a == b
        case (.bool(let a), .bool(let b)): return a == b
        default: return order(left, right, caseInsensitive) == .orderedSame
        }
    }

    static func order(_ left: SyncValue, _ right: SyncValue, _ caseInsensitive: Bool) -> ComparisonResult? {
        if isNumber(left), isNumber(right) { return numberOrder(left, right) }
        if case .bool(let a) = left, case .bool(let b) = right { return compare(a ? 1 : 0, b ? 1 : 0) }
        guard var a = text(left), var b = text(right) else { return nil }
        if caseInsensitive || isIdentifier(left) || isIdentifier(right) { (a, b) = (a.lowercased(), b.lowercased()) }
        return a == b ? .orderedSame : a < b ? .orderedAscending : .orderedDescending
    }

    static func isNumber(_ value: SyncValue) -> Bool {
        switch value {
        case .int, .double, .date, .decimal: true
        default: false
        }
    }

    static func isIdentifier(_ value: SyncValue) -> Bool {
        switch value {
        case .objectId, .uuid: true
        default: false
        }
    }

    static func text(_ value: SyncValue) -> String? {
        switch value {
        case .string(let text), .objectId(let text): text
        case .uuid(let uuid): uuid.uuidString
        default: nil
        }
    }

    static func double(_ value: SyncValue) -> Double? {
        switch value {
        case .double(let double), .date(let double): double
        default: nil
        }
    }

    static func numberOrder(_ left: SyncValue, _ right: SyncValue) -> ComparisonResult? {
        if case .decimal = left { return decimalOrder(left, right) }
        if case .decimal = right { return decimalOrder(left, right) }
        switch (left, right) {
        case (.int(let a), .int(let b)): return compare(Int128(a), Int128(b))
        case (.int(let a), _): return integerOrder(a, double(right)!)
        case (_, .int(let b)): return integerOrder(b, double(left)!).map(flipped)
        default:
            let a = double(left)!, b = double(right)!
            if a.isNaN || b.isNaN { return nil }
            return a == b ? .orderedSame : a < b ? .orderedAscending : .orderedDescending
        }
    }

    /// An integer against a double by the double's floor, in 128-bit integers.
    static func integerOrder(_ int: Int64, _ double: Double) -> ComparisonResult? {
        if double.isNaN { return nil }
        if double == .infinity || double >= 0x1p100 { return .orderedAscending }
        if double == -.infinity || double <= -0x1p100 { return .orderedDescending }
        let floor = Int128(double.rounded(.down))
        if double == double.rounded(.down) { return compare(Int128(int), floor) }
        return Int128(int) <= floor ? .orderedAscending : .orderedDescending
    }

    /// Decimals by Foundation's `Decimal`; a double as the decimal it prints as (an integral
    /// one below 2^64 with every digit).
    static func decimalOrder(_ left: SyncValue, _ right: SyncValue) -> ComparisonResult? {
        guard let a = foundationDecimal(left), let b = foundationDecimal(right) else {
            // Infinities against finite decimals; NaN against anything.
            let x = double(left) ?? 0, y = double(right) ?? 0
            if x.isNaN || y.isNaN { return nil }
            return x == y ? .orderedSame : x < y ? .orderedAscending : .orderedDescending
        }
        return a == b ? .orderedSame : a < b ? .orderedAscending : .orderedDescending
    }

    static func foundationDecimal(_ value: SyncValue) -> Decimal? {
        switch value {
        case .int(let int): return Decimal(string: String(int))
        case .decimal(let text): return Decimal(string: text)
        default:
            let double = double(value)!
            if !double.isFinite { return nil }
            if double == double.rounded(), double.magnitude < 0x1p64 {
                return Decimal(string: (double < 0 ? "-" : "") + String(UInt64(double.magnitude)))
            }
            return Decimal(string: "\(double)")
        }
    }

    static func compare<T: Comparable>(_ a: T, _ b: T) -> ComparisonResult {
        a == b ? .orderedSame : a < b ? .orderedAscending : .orderedDescending
    }

    static func flipped(_ result: ComparisonResult) -> ComparisonResult {
        switch result {
        case .orderedAscending: .orderedDescending
        case .orderedDescending: .orderedAscending
        case .orderedSame: .orderedSame
        }
    }
}
