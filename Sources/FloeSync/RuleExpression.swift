import Foundation

// A rule is a predicate in Floe's string dialect (`filter("age > 3 AND name BEGINSWITH 'a'")`)
// whose operands may also be the token's claims (`$jwt.sub`). Floe's own parser resolves key
// paths against a realm's stored columns; a rule is checked against the server's schema and
// evaluated over sync values (the server has no realm), so it has this small tree of its own,
// with the dialect's operators, keywords and literals.

/// One side of a comparison in a rule.
indirect enum RuleOperand: Sendable, Hashable {
    /// A property of the object, dotted into an embedded object or a map (`address.city`).
    case property([String])
    /// A claim of the token, dotted into an object claim (`$jwt.org.id`).
    case claim([String])
    /// A literal (a string, a number, `true`, `nil`) or a list of them (`{1, 2}`).
    case literal(SyncValue)
    /// `{a, b}` whose elements are operands (`{$jwt.sub, 'admin'}`).
    case list([RuleOperand])
}

/// The comparison operators of Floe's dialect.
enum RuleOperator: String, Sendable, Hashable {
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    case beginsWith = "BEGINSWITH"
    case endsWith = "ENDSWITH"
    case contains = "CONTAINS"
    case `in` = "IN"
}

/// A parsed rule.
indirect enum RuleExpression: Sendable, Hashable {
    case constant(Bool)
    case and([RuleExpression])
    case or([RuleExpression])
    case not(RuleExpression)
    case comparison(RuleOperand, RuleOperator, RuleOperand, caseInsensitive: Bool)

    /// Every property path the rule reads.
    var propertyPaths: [[String]] {
        switch self {
        case .constant: return []
        case .and(let parts), .or(let parts): return parts.flatMap(\.propertyPaths)
        case .not(let inner): return inner.propertyPaths
        case .comparison(let lhs, _, let rhs, _): return lhs.propertyPaths + rhs.propertyPaths
        }
    }
}

extension RuleOperand {
    var propertyPaths: [[String]] {
        switch self {
        case .property(let path): return [path]
        case .claim, .literal: return []
        case .list(let elements): return elements.flatMap(\.propertyPaths)
        }
    }
}

/// Reads a rule's text into a ``RuleExpression``; a failure says what was expected and where.
struct RuleParser {
    private let scalars: [Unicode.Scalar]
    private var position = 0

    /// Parses `text` whole. The error's text is the reason, with the position it refers to.
    static func parse(_ text: String) throws(RuleParseFailure) -> RuleExpression {
        var parser = RuleParser(scalars: Array(text.unicodeScalars))
        let expression = try parser.parseOr(depth: 0)
        parser.skipSpaces()
        guard parser.position == parser.scalars.count else { throw parser.failure("unexpected text") }
        return expression
    }

    private init(scalars: [Unicode.Scalar]) { self.scalars = scalars }

    /// Nesting deeper than this is refused rather than risking the stack.
    private static let maximumDepth = 64

    private mutating func parseOr(depth: Int) throws(RuleParseFailure) -> RuleExpression {
        guard depth < Self.maximumDepth else { throw failure("the rule nests more than \(Self.maximumDepth) deep") }
        var parts = [try parseAnd(depth: depth)]
        while takeWord("OR") || take("||") { parts.append(try parseAnd(depth: depth)) }
        return parts.count == 1 ? parts[0] : .or(parts)
    }

    private mutating func parseAnd(depth: Int) throws(RuleParseFailure) -> RuleExpression {
        var parts = [try parseNot(depth: depth)]
        while takeWord("AND") || take("&&") { parts.append(try parseNot(depth: depth)) }
        return parts.count == 1 ? parts[0] : .and(parts)
    }

    private mutating func parseNot(depth: Int) throws(RuleParseFailure) -> RuleExpression {
        if takeWord("NOT") || (peek("!") && !peek("!=") && take("!")) {
            guard depth + 1 < Self.maximumDepth else { throw failure("the rule nests more than \(Self.maximumDepth) deep") }
            return .not(try parseNot(depth: depth + 1))
        }
        if take("(") {
            let inner = try parseOr(depth: depth + 1)
            guard take(")") else { throw failure("expected ')'") }
            return inner
        }
        if takeWord("TRUEPREDICATE") { return .constant(true) }
        if takeWord("FALSEPREDICATE") { return .constant(false) }
        let lhs = try parseOperand(depth: depth)
        let op = try parseOperator()
        let caseInsensitive = take("[c]") || take("[C]")
        let rhs = try parseOperand(depth: depth)
        return .comparison(lhs, op, rhs, caseInsensitive: caseInsensitive)
    }

    private mutating func parseOperator() throws(RuleParseFailure) -> RuleOperator {
        for (symbol, op) in [("==", RuleOperator.equal), ("!=", .notEqual), ("<>", .notEqual), ("<=", .lessOrEqual),
                             (">=", .greaterOrEqual), ("=<", .lessOrEqual), ("=>", .greaterOrEqual), ("<", .less),
                             (">", .greater), ("=", .equal)] where take(symbol) {
            return op
        }
        for op in [RuleOperator.beginsWith, .endsWith, .contains, .in] where takeWord(op.rawValue) { return op }
        throw failure("expected an operator (==, !=, <, <=, >, >=, BEGINSWITH, ENDSWITH, CONTAINS, IN)")
    }

    private mutating func parseOperand(depth: Int) throws(RuleParseFailure) -> RuleOperand {
        skipSpaces()
        guard position < scalars.count else { throw failure("expected a value, a property or a claim") }
        let first = scalars[position]
        if first == "'" || first == "\"" { return .literal(.string(try parseString())) }
        if first == "-" || Self.isDigit(first) { return .literal(try parseNumber()) }
        if first == "{" {
            position += 1
            var elements: [RuleOperand] = []
            if !take("}") {
                repeat {
                    guard depth + 1 < Self.maximumDepth else { throw failure("the rule nests more than \(Self.maximumDepth) deep") }
                    elements.append(try parseOperand(depth: depth + 1))
                } while take(",")
                guard take("}") else { throw failure("expected '}'") }
            }
            if elements.allSatisfy({ if case .literal = $0 { true } else { false } }) {
                return .literal(.list(elements.map { if case .literal(let value) = $0 { value } else { .null } }))
            }
            return .list(elements)
        }
        if first == "$" {
            position += 1
            let path = readPath()
            guard path.first == "jwt", path.count >= 2 else {
                throw failure("a variable is $jwt.<claim> (the token's claims), not $\(path.joined(separator: "."))")
            }
            return .claim(Array(path.dropFirst()))
        }
        guard Self.isWordStart(first) else { throw failure("expected a value, a property or a claim") }
        let start = position
        let path = readPath()
        if path.count == 1 {
            switch path[0].uppercased() {
            case "TRUE", "YES": return .literal(.bool(true))
            case "FALSE", "NO": return .literal(.bool(false))
            case "NIL", "NULL": return .literal(.null)
            default: break
            }
        }
        guard !path.contains(where: \.isEmpty) else { throw failure("an empty name in a key path", at: start) }
        return .property(path)
    }

    private mutating func readPath() -> [String] {
        var parts: [String] = []
        var current = ""
        while position < scalars.count {
            let scalar = scalars[position]
            if Self.isWordCharacter(scalar) {
                current.unicodeScalars.append(scalar)
            } else if scalar == "." {
                parts.append(current)
                current = ""
            } else {
                break
            }
            position += 1
        }
        parts.append(current)
        return parts
    }

    private mutating func parseString() throws(RuleParseFailure) -> String {
        let quote = scalars[position]
        let start = position
        position += 1
        var result = ""
        while position < scalars.count {
            let scalar = scalars[position]
            position += 1
            if scalar == quote { return result }
            if scalar == "\\", position < scalars.count {
                let escaped = scalars[position]
                position += 1
                switch escaped {
                case "n": result.unicodeScalars.append("\n")
                case "t": result.unicodeScalars.append("\t")
                case "r": result.unicodeScalars.append("\r")
                default: result.unicodeScalars.append(escaped)
                }
                continue
            }
            result.unicodeScalars.append(scalar)
        }
        throw failure("a string is not closed", at: start)
    }

    private mutating func parseNumber() throws(RuleParseFailure) -> SyncValue {
        let start = position
        if scalars[position] == "-" { position += 1 }
        while position < scalars.count, Self.isDigit(scalars[position]) || scalars[position] == "." || scalars[position] == "e"
                || scalars[position] == "E" || ((scalars[position] == "+" || scalars[position] == "-") && (scalars[position - 1] == "e" || scalars[position - 1] == "E")) {
            position += 1
        }
        var text = ""
        text.unicodeScalars.append(contentsOf: scalars[start..<position])
        if let int = Int64(text) { return .int(int) }
        if let double = Double(text), double.isFinite { return .double(double) }
        throw failure("'\(text)' is not a number", at: start)
    }

    // MARK: Characters

    private static func isDigit(_ scalar: Unicode.Scalar) -> Bool { ("0"..."9").contains(scalar) }
    private static func isWordStart(_ scalar: Unicode.Scalar) -> Bool { isWordCharacter(scalar) && !isDigit(scalar) }
    private static func isWordCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "_" || scalar.properties.isAlphabetic || isDigit(scalar)
    }

    private mutating func skipSpaces() {
        while position < scalars.count, scalars[position].properties.isWhitespace { position += 1 }
    }

    private func peek(_ symbol: String) -> Bool {
        var index = position
        while index < scalars.count, scalars[index].properties.isWhitespace { index += 1 }
        for scalar in symbol.unicodeScalars {
            guard index < scalars.count, scalars[index] == scalar else { return false }
            index += 1
        }
        return true
    }

    private mutating func take(_ symbol: String) -> Bool {
        guard peek(symbol) else { return false }
        skipSpaces()
        position += symbol.unicodeScalars.count
        return true
    }

    /// Takes `word` (any case) when a whole word follows.
    private mutating func takeWord(_ word: String) -> Bool {
        skipSpaces()
        let length = word.unicodeScalars.count
        guard position + length <= scalars.count else { return false }
        var text = ""
        text.unicodeScalars.append(contentsOf: scalars[position..<position + length])
        guard text.uppercased() == word else { return false }
        if position + length < scalars.count, Self.isWordCharacter(scalars[position + length]) { return false }
        position += length
        return true
    }

    private func failure(_ reason: String, at index: Int? = nil) -> RuleParseFailure {
        RuleParseFailure(reason: "\(reason) at character \((index ?? position) + 1)")
    }
}

/// Why a rule's text did not parse.
struct RuleParseFailure: Error {
    let reason: String
}
