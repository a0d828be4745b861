import Foundation
import Floe

// Evaluation of a rule over one object's values and the token's claims. Comparisons follow
// Floe's query semantics: a comparison against a list property holds when any element
// satisfies it; nil equals only nil and has no order; numbers compare exactly across int,
// double, date and decimal (an int above 2^53 is not rounded to a double, a decimal is not
// rounded to one either; a double meets a decimal as the shortest decimal that prints it); a link compares as its target's key; a uuid or an object id compares with a
// string claim by its text (claims arrive as JSON, where both are strings). A claim the token
// does not carry makes its comparison false, whatever the operator: a missing claim grants
// nothing, not even against a nil property (`teamId IN $jwt.teams` holds for no object when
// the token has no teams).

extension RuleExpression {
    func evaluate(object: [String: SyncValue], claims: [String: SyncValue]) -> Bool {
        switch self {
        case .constant(let value): return value
        case .and(let parts): return parts.allSatisfy { $0.evaluate(object: object, claims: claims) }
        case .or(let parts): return parts.contains { $0.evaluate(object: object, claims: claims) }
        case .not(let inner): return !inner.evaluate(object: object, claims: claims)
        case .comparison(let lhs, let op, let rhs, let caseInsensitive):
            guard let left = lhs.value(object: object, claims: claims), let right = rhs.value(object: object, claims: claims) else { return false }
            return RuleComparison(caseInsensitive: caseInsensitive).holds(left, op, right)
        }
    }
}

extension RuleOperand {
    /// The operand's value; nil for a claim the token does not carry (a property that is not
    /// there is `.null`, as an unset property is).
    func value(object: [String: SyncValue], claims: [String: SyncValue]) -> SyncValue? {
        switch self {
        case .property(let path): return Self.descend(object, path) ?? .null
        case .claim(let path): return Self.descend(claims, path)
        case .literal(let value): return value
        case .list(let elements):
            var values: [SyncValue] = []
            for element in elements {
                guard let value = element.value(object: object, claims: claims) else { continue }
                values.append(value)
            }
            return .list(values)
        }
    }

    /// The value at `path`, entering maps (embedded objects, map properties, object claims); nil when absent.
    private static func descend(_ root: [String: SyncValue], _ path: [String]) -> SyncValue? {
        guard let first = path.first, var value = root[first] else { return nil }
        for name in path.dropFirst() {
            guard case .map(let entries) = value, let next = entries[name] else { return nil }
            value = next
        }
        return value
    }
}

/// One comparison's semantics.
struct RuleComparison {
    let caseInsensitive: Bool

    func holds(_ left: SyncValue, _ op: RuleOperator, _ right: SyncValue) -> Bool {
        switch op {
        case .in:
            let candidates: [SyncValue]
            switch right {
            case .list(let elements): candidates = elements
            case .null: return false
            default: candidates = [right]
            }
            if case .list(let elements) = left {
                return elements.contains { element in candidates.contains { equal(element, $0) } }
            }
            return candidates.contains { equal(left, $0) }
        case .contains:
            if case .list(let elements) = left { return elements.contains { equal($0, right) } }
            return strings(left, right) { $0.contains($1) }
        default:
            if case .list(let elements) = left { return elements.contains { single($0, op, right) } }
            return single(left, op, right)
        }
    }

    private func single(_ left: SyncValue, _ op: RuleOperator, _ right: SyncValue) -> Bool {
        switch op {
        case .equal: return equal(left, right)
        case .notEqual: return !equal(left, right)
        case .less: return order(left, right) == .orderedAscending
        case .lessOrEqual: return order(left, right).map { $0 != .orderedDescending } ?? false
        case .greater: return order(left, right) == .orderedDescending
        case .greaterOrEqual: return order(left, right).map { $0 != .orderedAscending } ?? false
        case .beginsWith: return strings(left, right) { $0.hasPrefix($1) }
        case .endsWith: return strings(left, right) { $0.hasSuffix($1) }
        case .contains: return strings(left, right) { $0.contains($1) }
        case .in: return holds(left, .in, right)
        }
    }

    func equal(_ left: SyncValue, _ right: SyncValue) -> Bool {
        switch (Self.scalar(left), Self.scalar(right)) {
        case (.null, .null): return true
        case (.null, _), (_, .null): return false
        case (.list(let a), .list(let b)): return a.count == b.count && zip(a, b).allSatisfy { equal($0, $1) }
        case (.map(let a), .map(let b)): return a.count == b.count && a.allSatisfy { key, value in b[key].map { equal(value, $0) } ?? false }
        case (.data(let a), .data(let b)): return a == b
        case (.bool(let a), .bool(let b)): return a == b
        default: return order(left, right) == .orderedSame
        }
    }

    /// The order of two values of comparable kinds; nil when they do not compare.
    func order(_ left: SyncValue, _ right: SyncValue) -> ComparisonResult? {
        let left = Self.scalar(left), right = Self.scalar(right)
        if let a = RuleNumber(left), let b = RuleNumber(right) { return RuleNumber.order(a, b) }
        if case .bool(let a) = left, case .bool(let b) = right {
            return a == b ? .orderedSame : (!a ? .orderedAscending : .orderedDescending)
        }
        guard var a = Self.text(left), var b = Self.text(right) else { return nil }
        if caseInsensitive || Self.isIdentifier(left) || Self.isIdentifier(right) {
            a = a.lowercased()
            b = b.lowercased()
        }
        return a < b ? .orderedAscending : a > b ? .orderedDescending : .orderedSame
    }

    private func strings(_ left: SyncValue, _ right: SyncValue, _ test: (String, String) -> Bool) -> Bool {
        guard case .string(var a) = Self.scalar(left), case .string(var b) = Self.scalar(right) else { return false }
        if caseInsensitive {
            a = a.lowercased()
            b = b.lowercased()
        }
        return test(a, b)
    }

    /// A link compares as its target's key.
    private static func scalar(_ value: SyncValue) -> SyncValue {
        if case .link(_, let key) = value { return scalar(key) }
        return value
    }

    private static func text(_ value: SyncValue) -> String? {
        switch value {
        case .string(let text), .objectId(let text): text
        case .uuid(let uuid): uuid.uuidString
        default: nil
        }
    }

    /// Uuids and object ids compare by their text in any case (a claim spells them as it likes).
    private static func isIdentifier(_ value: SyncValue) -> Bool {
        switch value {
        case .uuid, .objectId: true
        default: false
        }
    }
}

/// A number as a rule compares it: exactly, whatever its kind. Rounding both sides to `Double`
/// would let `ownerId == $jwt.uid` hold for two different 64-bit ids that round alike (any two
/// neighbours above 2^53), which is a way into another user's objects.
enum RuleNumber {
    case int(Int64)
    /// A double, or a date as seconds since 1970.
    case double(Double)
    case decimal(Decimal128)

    init?(_ value: SyncValue) {
        switch value {
        case .int(let int): self = .int(int)
        case .double(let double), .date(let double): self = .double(double)
        case .decimal(let text):
            guard let decimal = try? Decimal128(string: text) else { return nil }
            self = .decimal(decimal)
        default: return nil
        }
    }

    /// The order of two numbers; nil when either is NaN.
    static func order(_ left: RuleNumber, _ right: RuleNumber) -> ComparisonResult? {
        switch (left, right) {
        case (.int(let a), .int(let b)): return ordered(a, b)
        case (.double(let a), .double(let b)):
            if a.isNaN || b.isNaN { return nil }
            return ordered(a, b)
        case (.int(let a), .double(let b)): return order(a, b)
        case (.double(let a), .int(let b)): return order(b, a).map(reversed)
        case (.decimal(let a), _): return order(a, right.decimal)
        case (_, .decimal(let b)): return order(left.decimal, b)
        }
    }

    /// The number as a decimal: an int exactly, a double as the shortest decimal that prints it.
    private var decimal: Decimal128 {
        switch self {
        case .int(let int): Decimal128(Int(int))
        case .double(let double): Decimal128(double)
        case .decimal(let decimal): decimal
        }
    }

    private static func order(_ a: Decimal128, _ b: Decimal128) -> ComparisonResult? {
        if a.isNaN || b.isNaN { return nil }
        return a < b ? .orderedAscending : b < a ? .orderedDescending : .orderedSame
    }

    /// An int against a double, exactly: the double's integral part is compared first (as an
    /// integer, when it is one Int64 can hold), then its fraction.
    private static func order(_ int: Int64, _ double: Double) -> ComparisonResult? {
        if double.isNaN { return nil }
        if double >= 0x1p63 { return .orderedAscending }
        if double < -0x1p63 { return .orderedDescending }
        let integral = double.rounded(.towardZero)
        if let result = ordered(int, Int64(integral)), result != .orderedSame { return result }
        let fraction = double - integral
        return fraction > 0 ? .orderedAscending : fraction < 0 ? .orderedDescending : .orderedSame
    }

    private static func ordered<T: Comparable>(_ a: T, _ b: T) -> ComparisonResult? {
        a < b ? .orderedAscending : b < a ? .orderedDescending : .orderedSame
    }

    private static func reversed(_ result: ComparisonResult) -> ComparisonResult {
        switch result {
        case .orderedAscending: .orderedDescending
        case .orderedDescending: .orderedAscending
        case .orderedSame: .orderedSame
        }
    }
}
