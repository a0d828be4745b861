import Foundation

// A read rule, with one token's claims filled in, reduced to a condition a database can test
// before the rule itself runs: the server asks PostgreSQL for the logged changes whose objects
// may be readable instead of loading every change of a catch-up and testing it here.
//
// The condition is a superset: every object the rule lets the token read satisfies it (the
// differential tests hold it to that over every kind of value). It is exact only when it is
// `.everything` or `.nothing`; otherwise the server still runs the rule on what comes back.
// What it can test is deliberately small, the forms whose meaning a database shares with
// Floe's: a top-level property that holds a string, equal to ASCII text. Floe compares strings
// by canonical equivalence; a string equivalent to an ASCII text is that text itself or holds a
// scalar outside ASCII (U+212A KELVIN SIGN is "K"), so "equal, or not ASCII" keeps every
// equivalent without the database knowing Unicode's tables.

/// What a database may test of an object before a read rule runs, for one token.
///
/// ```swift
/// switch rules.readCondition(className: "Todo", claims: claims) {
/// case .everything: sendAll()          // the token reads every object of the class
/// case .nothing: break                 // it reads none
/// case let condition: query(where: condition); thenCheck(rules)
/// }
/// ```
public indirect enum ReadCondition: Sendable, Hashable {
    /// Every object is readable (exact).
    case everything
    /// No object is readable (exact).
    case nothing
    /// Any object may be readable: the rule decides.
    case unknown
    /// Every part holds.
    case all([ReadCondition])
    /// Some part holds.
    case any([ReadCondition])
    /// The property does not hold a string, or holds one outside ASCII, or holds one of
    /// `texts` (each ASCII), byte for byte.
    case text(property: String, isOneOf: [String])

    /// Whether an object with `values` satisfies the condition, as a database tests it
    /// (`.unknown` holds for every object).
    ///
    /// ```swift
    /// ReadCondition.text(property: "ownerId", isOneOf: ["ann"]).mayHold(for: ["ownerId": .string("bob")])  // false
    /// ```
    public func mayHold(for values: [String: SyncValue]) -> Bool {
        switch self {
        case .everything, .unknown: return true
        case .nothing: return false
        case .all(let parts): return parts.allSatisfy { $0.mayHold(for: values) }
        case .any(let parts): return parts.contains { $0.mayHold(for: values) }
        case .text(let property, let texts):
            guard case .string(let string) = values[property] else { return true }
            return !Self.isASCII(string) || texts.contains { $0.utf8.elementsEqual(string.utf8) }
        }
    }

    static func isASCII(_ text: String) -> Bool { text.utf8.allSatisfy { $0 < 0x80 } }

    /// Every part holds, simplified: a `.nothing` decides, `.everything` and `.unknown` add nothing.
    static func allOf(_ parts: [ReadCondition]) -> ReadCondition {
        if parts.contains(.nothing) { return .nothing }
        let parts = parts.filter { $0 != .everything }
        if parts.isEmpty { return .everything }
        let tested = parts.filter { $0 != .unknown }
        if tested.isEmpty { return .unknown }
        return tested.count == 1 ? tested[0] : .all(tested)
    }

    /// Some part holds, simplified: an `.everything` decides, an `.unknown` makes the whole unknown.
    static func anyOf(_ parts: [ReadCondition]) -> ReadCondition {
        if parts.contains(.everything) { return .everything }
        let parts = parts.filter { $0 != .nothing }
        if parts.isEmpty { return .nothing }
        if parts.contains(.unknown) { return .unknown }
        return parts.count == 1 ? parts[0] : .any(parts)
    }
}

extension RuleExpression {
    /// The condition every object this rule holds for satisfies, given the token's claims.
    func readCondition(claims: [String: SyncValue]) -> ReadCondition {
        if propertyPaths.isEmpty {
            // Only claims and literals: the rule's answer is the same for every object.
            return evaluate(object: [:], claims: claims) ? .everything : .nothing
        }
        switch self {
        case .constant(let value): return value ? .everything : .nothing
        case .and(let parts): return ReadCondition.allOf(parts.map { $0.readCondition(claims: claims) })
        case .or(let parts): return ReadCondition.anyOf(parts.map { $0.readCondition(claims: claims) })
        case .not: return .unknown
        case .comparison(let lhs, let op, let rhs, let caseInsensitive):
            guard !caseInsensitive else { return .unknown }
            switch (lhs, op, rhs) {
            case (.property(let path), .equal, let other), (let other, .equal, .property(let path)):
                return Self.textCondition(path, other, claims: claims, list: false)
            case (.property(let path), .in, let other):
                return Self.textCondition(path, other, claims: claims, list: true)
            default:
                return .unknown
            }
        }
    }

    /// `property == value` (or `property IN values`) as a text condition, when the value side
    /// is only claims and literals and its strings are ASCII.
    private static func textCondition(_ path: [String], _ other: RuleOperand, claims: [String: SyncValue], list: Bool) -> ReadCondition {
        guard path.count == 1, other.propertyPaths.isEmpty else { return .unknown }
        // A claim the token does not carry makes the comparison false, for every object.
        guard let value = other.value(object: [:], claims: claims) else { return .nothing }
        var candidates: [SyncValue]
        if list {
            switch value {
            case .list(let elements): candidates = elements
            case .null: return .nothing
            default: candidates = [value]
            }
        } else {
            candidates = [value]
        }
        // A string property equals only strings among these (a number, a bool or nil never
        // equals one); the other kinds a property may hold are let through to the rule.
        var texts: [String] = []
        for candidate in candidates {
            switch candidate {
            case .string(let text):
                guard ReadCondition.isASCII(text) else { return .unknown }
                texts.append(text)
            case .null, .bool, .int, .double, .date, .decimal:
                continue
            default:
                // An identifier or a link compares by other rules (case, key): leave it to the rule.
                return .unknown
            }
        }
        return .text(property: path[0], isOneOf: texts)
    }
}

extension SyncRules {
    /// What a database may test before the read rule of `className` runs for a token with
    /// `claims`: `.everything` or `.nothing` when the rule's answer does not depend on the
    /// object, else a condition every readable object satisfies (the rule still decides).
    /// A class without a read rule is `.nothing`.
    ///
    /// ```swift
    /// let condition = rules.readCondition(className: "Todo", claims: ["sub": .string("ann")])
    /// // "ownerId == $jwt.sub" → .text(property: "ownerId", isOneOf: ["ann"])
    /// ```
    public func readCondition(className: String, claims: [String: SyncValue]) -> ReadCondition {
        guard let expression = expression(.read, className: className) else { return .nothing }
        return expression.readCondition(claims: claims)
    }
}
