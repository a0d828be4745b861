import Foundation
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// Parses Realm's string predicates (the NSPredicate dialect) into a ``QueryPredicate``: a
/// hand-written recursive descent over the predicate's Unicode scalars (compared as numbers,
/// not as grapheme clusters: the parser tries many symbols at each position).
///
/// Supported: comparisons (`==`, `=`, `!=`, `<>`, `<`, `<=`, `>`, `>=`), `BEGINSWITH`,
/// `ENDSWITH`, `CONTAINS`, `LIKE` with `[c]`, `[d]`, `[cd]`; `IN {…}` and `IN %@`;
/// `BETWEEN {a, b}`; `GEOWITHIN %@` and `IN %@` with a geospatial shape, and `GEOWITHIN` with a written
/// `geoCircle(…)`, `geoBox(…)` or `geoPolygon(…)`; `ANY`/`SOME`/`ALL`/`NONE`; `@count`, `@min`, `@max`, `@sum`, `@avg` after a
/// to-many key path; `AND`/`&&`, `OR`/`||`, `NOT`/`!` and parentheses; `TRUEPREDICATE`,
/// `FALSEPREDICATE`; literals (numbers, quoted strings, `true`/`false`/`YES`/`NO`, `nil`/`NULL`);
/// `%@` (values) and `%K` (key paths) from the arguments in order.
///
/// ```swift
/// let predicate = try PredicateParser.parse("age > %@ AND name BEGINSWITH[c] %@", arguments: [3, "r"])
/// ```
enum PredicateParser {
    static func parse(_ format: String, arguments: [Any], className: String? = nil) throws(FloeError) -> QueryPredicate {
        var parser = Parser(text: format, arguments: arguments)
        parser.className = className
        let predicate = try parser.parseOr()
        parser.skipSpaces()
        guard parser.position == parser.characters.count else { throw parser.failure("unexpected text after the predicate") }
        guard parser.nextArgument == arguments.count else {
            throw FloeError.invalidPredicate(predicate: format, position: format.count, token: "",
                                             reason: "\(arguments.count) arguments given but the predicate uses \(parser.nextArgument)")
        }
        return predicate
    }

    /// `error`, from checking a parsed predicate against the model (a property the class does
    /// not have, an operator or a value its type does not take), restated as an invalid
    /// predicate naming where in `format` its key path stands; other errors unchanged.
    static func locating(_ error: FloeError, in format: String, arguments: [Any]) -> FloeError {
        let keyPath: String, restated: String
        switch error {
        case .invalidKeyPath(let className, let path, let reason):
            (keyPath, restated) = (path, "key path '\(path)' on \(className): \(reason)")
        case .typeMismatch(let className, let path, let expected, let value):
            (keyPath, restated) = (path, "value \(value) for '\(className).\(path)': expected \(expected)")
        default:
            return error
        }
        var parser = Parser(text: format, arguments: arguments)
        _ = try? parser.parseOr()
        // The key path as written, or (for an error about part of it, or a longer form of it)
        // the first that shares its start.
        guard let spot = parser.keyPaths.first(where: { $0.path == keyPath })
                ?? parser.keyPaths.first(where: { keyPath.hasPrefix($0.path) || $0.path.hasPrefix(keyPath) }) else { return error }
        return .invalidPredicate(predicate: format, position: spot.position, token: spot.token, reason: restated)
    }

    /// `body`'s answer; a key-path error it throws (it checks a predicate parsed from
    /// `format` against the model) is restated with its place in `format` (``locating(_:in:arguments:)``).
    static func locatingErrors<T>(in format: String, arguments: [Any], _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as FloeError {
            throw locating(error, in: format, arguments: arguments)
        }
    }

    private struct Parser {
        let text: String
        let characters: [Unicode.Scalar]
        let arguments: [Any]
        var position = 0
        var nextArgument = 0
        /// The class the predicate is for (named by errors about geospatial literals), when known.
        var className: String?
        /// The key paths read so far: as the predicate tree names them, where they start, as written.
        var keyPaths: [(path: String, position: Int, token: String)] = []

        /// Notes where `expression`, a key path or an aggregate over one, was written.
        mutating func record(_ expression: QueryExpression, from start: Int) {
            let path: QueryKeyPath
            switch expression {
            case .keyPath(let keyPath): path = keyPath
            case .aggregate(let keyPath, _, _): path = keyPath
            default: return
            }
            keyPaths.append((path.description, start, Self.string(characters[start..<position])))
        }

        init(text: String, arguments: [Any]) {
            self.text = text
            characters = Array(text.unicodeScalars)
            self.arguments = arguments
        }

        // MARK: Grammar

        mutating func parseOr() throws(FloeError) -> QueryPredicate {
            var terms = [try parseAnd()]
            while takeWord("OR") || take("||") { terms.append(try parseAnd()) }
            return terms.count == 1 ? terms[0] : .or(terms)
        }

        mutating func parseAnd() throws(FloeError) -> QueryPredicate {
            var terms = [try parseNot()]
            while takeWord("AND") || take("&&") { terms.append(try parseNot()) }
            return terms.count == 1 ? terms[0] : .and(terms)
        }

        mutating func parseNot() throws(FloeError) -> QueryPredicate {
            if takeWord("NOT") || (peek("!") && !peek("!=") && take("!")) { return .not(try parseNot()) }
            return try parsePrimary()
        }

        mutating func parsePrimary() throws(FloeError) -> QueryPredicate {
            skipSpaces()
            if take("(") {
                let inner = try parseOr()
                guard take(")") else { throw failure("expected ')'") }
                return inner
            }
            if takeWord("TRUEPREDICATE") { return .constant(true) }
            if takeWord("FALSEPREDICATE") { return .constant(false) }
            return try parseComparison()
        }

        mutating func parseComparison() throws(FloeError) -> QueryPredicate {
            var quantifier = QueryQuantifier.any
            if takeWord("ANY") || takeWord("SOME") { quantifier = .any }
            else if takeWord("ALL") { quantifier = .all }
            else if takeWord("NONE") { quantifier = .none }
            let lhs = try parseExpression()
            skipSpaces()
            let operatorStart = position
            if takeWord("BETWEEN") {
                switch try parseExpression() {
                case .list(let bounds) where bounds.count == 2:
                    return .between(lhs, low: bounds[0], high: bounds[1], quantifier: quantifier)
                case .constant(.list(let bounds)) where bounds.count == 2:
                    // `age BETWEEN %@` with a two-element array, as Realm takes it.
                    return .between(lhs, low: .constant(bounds[0]), high: .constant(bounds[1]), quantifier: quantifier)
                default:
                    throw failure("BETWEEN takes {lower, upper} or a %@ array of two values", at: operatorStart)
                }
            }
            if takeWord("GEOWITHIN") {
                // `location GEOWITHIN %@` with a GeoCircle, GeoBox or GeoPolygon argument.
                guard case .keyPath(let path) = lhs else { throw failure("GEOWITHIN follows a property", at: operatorStart) }
                skipSpaces()
                if !peek("%@") { return .geoWithin(path, try parseGeoLiteral(for: path)) }
                guard take("%@") else { throw failure("GEOWITHIN takes a %@ argument: a GeoCircle, GeoBox or GeoPolygon") }
                guard nextArgument < arguments.count, let shape = GeoShape(arguments[nextArgument]) else {
                    throw failure("GEOWITHIN's argument must be a GeoCircle, GeoBox or GeoPolygon", at: position - 2)
                }
                nextArgument += 1
                return .geoWithin(path, shape)
            }
            let op = try parseOperator()
            if op == .in, case .keyPath(let path) = lhs, let shape = takeGeoShapeArgument() {
                // `location IN %@` with a GeoCircle, GeoBox or GeoPolygon: Realm's other spelling of GEOWITHIN.
                return .geoWithin(path, shape)
            }
            let options = try parseOptions()
            let rhsStart = position
            let rhs = try parseExpression()
            if case .keyPath(let path) = lhs, path.components.last == .type {
                return try typeComparison(path, op, rhs, quantifier: quantifier, at: operatorStart, rhsStart: rhsStart)
            }
            return .comparison(QueryComparison(lhs: lhs, op: op, rhs: rhs, options: options, quantifier: quantifier))
        }

        /// `mixed.@type == 'string'`: the type names Realm takes (any case), a group
        /// (`'numeric'`) standing for its members; `==`, `!=` and `IN` only.
        mutating func typeComparison(_ path: QueryKeyPath, _ op: QueryOperator, _ rhs: QueryExpression, quantifier: QueryQuantifier,
                                     at operatorStart: Int, rhsStart: Int) throws(FloeError) -> QueryPredicate {
            let refusal = "@type is compared with type names: 'string', 'int', 'numeric'…"
            let elements: [QueryExpression]
            switch rhs {
            case .constant(.string): elements = [rhs]
            case .list(let list) where op == .in: elements = list
            case .constant(.list(let values)) where op == .in: elements = values.map { .constant($0) }
            default: throw failure(refusal, at: rhsStart)
            }
            var written: [String] = []
            for element in elements {
                guard case .constant(.string(let name)) = element else { throw failure(refusal, at: rhsStart) }
                written.append(name)
            }
            var names: [Value] = []
            for name in written {
                guard let members = QueryTypeNames.members(of: name) else {
                    throw failure("'\(name)' is not a type name (\(QueryTypeNames.known))", at: rhsStart)
                }
                names += members.map { .string($0) }
            }
            let membership = QueryPredicate.comparison(QueryComparison(lhs: .keyPath(path), op: .in, rhs: .constant(.list(names)), quantifier: quantifier))
            switch op {
            case .equal, .in: return membership
            case .notEqual: return .not(membership)
            default: throw failure("@type takes ==, != or IN", at: operatorStart)
            }
        }

        /// A geospatial shape written in the predicate, as Realm Query Language writes them
        /// (points are `[longitude, latitude]`, an altitude may follow): `geoCircle([lng, lat],
        /// radiusInRadians)`, `geoBox([lng, lat], [lng, lat])` (bottom-left, top-right) and
        /// `geoPolygon({[lng, lat], …}, {…})` (the outer ring, then any holes, each closed).
        mutating func parseGeoLiteral(for path: QueryKeyPath) throws(FloeError) -> GeoShape {
            skipSpaces()
            let start = position
            var end = start
            while end < characters.count, characters[end] != ")" { end += 1 }
            let literal = Self.string(characters[start..<min(end + 1, characters.count)])
            let subject = className.map { "\($0).\(path)" } ?? "'\(path)'"
            let predicate = text
            let bad: (String) -> FloeError = { reason in
                .invalidPredicate(predicate: predicate, position: start, token: literal,
                                  reason: "GEOWITHIN for \(subject): \(reason) in '\(literal)'")
            }
            let kind: String
            if takeWord("GEOCIRCLE") { kind = "circle" }
            else if takeWord("GEOBOX") { kind = "box" }
            else if takeWord("GEOPOLYGON") { kind = "polygon" }
            else { throw bad("expected %@, geoCircle(…), geoBox(…) or geoPolygon(…)") }
            guard take("(") else { throw bad("expected '(' after geo\(kind == "circle" ? "Circle" : kind == "box" ? "Box" : "Polygon")") }
            let shape: GeoShape
            switch kind {
            case "circle":
                let center = try geoPoint(bad)
                guard take(",") else { throw bad("expected ',' then the radius in radians") }
                let radius = try geoNumber(bad, what: "the radius in radians")
                guard let circle = GeoCircle(center: center, radiusInRadians: radius) else { throw bad("the radius must be zero or more radians") }
                shape = .circle(circle)
            case "box":
                let bottomLeft = try geoPoint(bad)
                guard take(",") else { throw bad("expected ',' then the top-right point") }
                let topRight = try geoPoint(bad)
                shape = .box(GeoBox(bottomLeft: bottomLeft, topRight: topRight))
            default:
                var rings: [[GeoPoint]] = []
                repeat {
                    guard take("{") else { throw bad("expected '{' to open a ring of points") }
                    var ring: [GeoPoint] = []
                    repeat { ring.append(try geoPoint(bad)) } while take(",")
                    guard take("}") else { throw bad("expected '}' to close a ring of points") }
                    rings.append(ring)
                } while take(",")
                guard let polygon = GeoPolygon(outerRing: rings[0], holes: rings.count > 1 ? Array(rings.dropFirst()) : nil) else {
                    throw bad("each ring needs at least four points, its last equal to its first")
                }
                shape = .polygon(polygon)
            }
            guard take(")") else { throw bad("expected ')'") }
            return shape
        }

        /// `[longitude, latitude]` or `[longitude, latitude, altitude]`.
        mutating func geoPoint(_ bad: (String) -> FloeError) throws(FloeError) -> GeoPoint {
            guard take("[") else { throw bad("expected a point [longitude, latitude]") }
            let longitude = try geoNumber(bad, what: "a longitude")
            guard take(",") else { throw bad("expected ',' then a latitude") }
            let latitude = try geoNumber(bad, what: "a latitude")
            let altitude = take(",") ? try geoNumber(bad, what: "an altitude") : 0
            guard take("]") else { throw bad("expected ']' to close a point") }
            guard let point = GeoPoint(latitude: latitude, longitude: longitude, altitude: altitude) else {
                throw bad("[\(longitude), \(latitude)] is not a point (longitude −180…180, latitude −90…90, altitude not negative)")
            }
            return point
        }

        mutating func geoNumber(_ bad: (String) -> FloeError, what: String) throws(FloeError) -> Double {
            skipSpaces()
            guard position < characters.count else { throw bad("expected \(what)") }
            let character = characters[position]
            guard Self.isDigit(character) || ((character == "-" || character == "+") && position + 1 < characters.count && Self.isDigit(characters[position + 1])) else {
                throw bad("expected \(what)")
            }
            switch try parseNumber() {
            case .int(let int): return Double(int)
            case .double(let double): return double
            default: throw bad("expected \(what)")
            }
        }

        /// Takes `%@` when its argument is a GeoCircle, GeoBox or GeoPolygon; takes nothing otherwise.
        mutating func takeGeoShapeArgument() -> GeoShape? {
            skipSpaces()
            guard peek("%@"), nextArgument < arguments.count, let shape = GeoShape(arguments[nextArgument]) else { return nil }
            _ = take("%@")
            nextArgument += 1
            return shape
        }

        mutating func parseOperator() throws(FloeError) -> QueryOperator {
            skipSpaces()
            for (symbol, op) in [("==", QueryOperator.equal), ("!=", .notEqual), ("<>", .notEqual), ("<=", .lessOrEqual), ("=<", .lessOrEqual),
                                 (">=", .greaterOrEqual), ("=>", .greaterOrEqual), ("=", .equal), ("<", .less), (">", .greater)]
            where take(symbol) { return op }
            for (word, op) in [("BEGINSWITH", QueryOperator.beginsWith), ("ENDSWITH", .endsWith), ("CONTAINS", .contains),
                               ("LIKE", .like), ("IN", .in)] where takeWord(word) { return op }
            throw failure(position < characters.count ? "expected an operator" : "the predicate ends where an operator should be")
        }

        mutating func parseOptions() throws(FloeError) -> QueryStringOptions {
            guard take("[") else { return [] }
            var options: QueryStringOptions = []
            while position < characters.count, characters[position] != "]" {
                switch characters[position] {
                case "c", "C": options.insert(.caseInsensitive)
                case "d", "D": options.insert(.diacriticInsensitive)
                default: throw failure("unknown option (only c and d)")
                }
                position += 1
            }
            guard take("]") else { throw failure("unterminated [options]") }
            return options
        }

        mutating func parseExpression() throws(FloeError) -> QueryExpression {
            skipSpaces()
            guard position < characters.count else { throw failure("the predicate ends where a value or key path should be") }
            let character = characters[position]
            if take("{") {
                var elements: [QueryExpression] = []
                if !take("}") {
                    repeat { elements.append(try parseExpression()) } while take(",")
                    guard take("}") else { throw failure("expected '}'") }
                }
                return .list(elements)
            }
            if take("%@") { return .constant(try argumentValue()) }
            if take("%K") {
                let start = position - 2
                let expression = try keyPathExpression(start: argumentKeyPath())
                record(expression, from: start)
                return expression
            }
            if character == "\"" || character == "'" { return .constant(.string(try parseString())) }
            if Self.isDigit(character) || ((character == "-" || character == "+") && position + 1 < characters.count && Self.isDigit(characters[position + 1])) {
                return .constant(try parseNumber())
            }
            if Self.isWordCharacter(character) || character == "_" || character == "@" || character == "$" {
                let start = position
                let word = readIdentifierPath()
                switch word.uppercased() {
                case "TRUE", "YES": return .constant(.bool(true))
                case "FALSE", "NO": return .constant(.bool(false))
                case "NIL", "NULL": return .constant(.null)
                case "SUBQUERY" where peek("("): return try parseSubquery(start: start)
                default:
                    guard !word.isEmpty else { throw failure("expected a key path", at: start) }
                    let expression = try keyPathExpression(start: word)
                    record(expression, from: start)
                    return expression
                }
            }
            throw failure("expected a value or a key path")
        }

        /// A key path, possibly with subscripts (`prices['a']`, `prices[%@]`, `mixed[0]`,
        /// `mixed[*]`, `mixed[FIRST]`, `mixed[LAST]`, `mixed[SIZE]`) and ending in a collection
        /// operator: `dogs.@count`, `dogs.@max.age`.
        mutating func keyPathExpression(start path: String) throws(FloeError) -> QueryExpression {
            var components: [QueryKeyPathComponent] = []
            var text = path
            while true {
                if let aggregate = try appendParts(of: text, to: &components) { return aggregate }
                // A subscript follows the key path directly (`[c]` after an operator is an option).
                guard position < characters.count, characters[position] == "[", !components.isEmpty else { break }
                repeat { components.append(try parseSubscript()) } while position < characters.count && characters[position] == "["
                guard position < characters.count, characters[position] == "." else { break }
                position += 1
                let partStart = position
                text = readIdentifierPath()
                guard !text.isEmpty else { throw failure("expected a property or an operator after '.'", at: partStart) }
            }
            return .keyPath(QueryKeyPath(components))
        }

        /// `[…]` after a key path, at the `[`.
        mutating func parseSubscript() throws(FloeError) -> QueryKeyPathComponent {
            let start = position
            position += 1
            skipSpaces()
            guard position < characters.count else { throw failure("unterminated subscript", at: start) }
            let component: QueryKeyPathComponent
            let character = characters[position]
            if character == "\"" || character == "'" {
                component = .mapKey(try parseString())
            } else if take("%@") {
                let argumentStart = position - 2
                guard nextArgument < arguments.count else { throw failure("more %@ than arguments (\(arguments.count) given)", at: argumentStart) }
                let argument = arguments[nextArgument]
                nextArgument += 1
                if let key = argument as? String { component = .mapKey(key) }
                else if let index = argument as? Int { component = .index(index) }
                else { throw failure("argument \(nextArgument) for a subscript must be a String key or an Int index", at: argumentStart) }
            } else if take("*") {
                component = .anyElement
            } else if Self.isDigit(character) {
                guard case .int(let index) = try parseNumber(), let position = Int(exactly: index) else {
                    throw failure("a subscript's index is a whole number", at: start + 1)
                }
                component = .index(position)
            } else {
                let wordStart = position
                let word = readIdentifierPath()
                switch word.uppercased() {
                case "FIRST": component = .index(0)
                case "LAST": component = .index(-1)
                case "SIZE": component = .size
                default: throw failure("a subscript takes a quoted key, %@, an index, *, FIRST, LAST or SIZE", at: wordStart)
                }
            }
            guard take("]") else { throw failure("expected ']' to close the subscript", at: start) }
            return component
        }

        /// Adds the dotted parts of `path` to `components`; answers the whole expression when
        /// the parts end in a collection operator (`@count`, `@max.age`).
        mutating func appendParts(of path: String, to components: inout [QueryKeyPathComponent]) throws(FloeError) -> QueryExpression? {
            let parts = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard !parts.contains(where: \.isEmpty) else { throw failure("empty key path component in '\(path)'") }
            var index = 0
            while index < parts.count {
                let part = parts[index]
                if part.lowercased() == "@links" {
                    // `@links.Person.dogs`: the Person objects whose `dogs` link here.
                    guard index + 2 < parts.count, !parts[index + 1].hasPrefix("@"), !parts[index + 2].hasPrefix("@") else {
                        throw failure("@links names a class and its property: @links.Person.dogs")
                    }
                    components.append(.links(className: parts[index + 1], property: parts[index + 2]))
                    index += 3
                    continue
                }
                if part.hasPrefix("@") {
                    if !components.isEmpty, let step = Self.keyPathOperators[part.lowercased()] {
                        // `map.@keys`, `map.@values`, `mixed.@type`, `mixed.@size`: a step of the path.
                        components.append(step)
                        index += 1
                        continue
                    }
                    guard let aggregate = QueryAggregate(rawValue: part.lowercased()), !components.isEmpty else {
                        throw failure("unknown collection operator '\(part)'")
                    }
                    let of = Array(parts[(index + 1)...])
                    if aggregate == .count && !of.isEmpty { throw failure("@count takes no property after it") }
                    return .aggregate(QueryKeyPath(components), aggregate, of: of)
                }
                components.append(Self.component(part))
                index += 1
            }
            return nil
        }

        static let keyPathOperators: [String: QueryKeyPathComponent] = ["@keys": .allKeys, "@values": .allValues, "@allkeys": .allKeys, "@allvalues": .allValues,
                                                                       "@type": .type, "@size": .size]

        /// `$name` is a subquery's variable; anything else a property.
        static func component(_ part: String) -> QueryKeyPathComponent {
            part.hasPrefix("$") ? .variable(String(part.dropFirst())) : .property(part)
        }

        /// `SUBQUERY(collection, $variable, predicate).@count`, after the word `SUBQUERY`.
        mutating func parseSubquery(start: Int) throws(FloeError) -> QueryExpression {
            _ = take("(")
            skipSpaces()
            let collection = readIdentifierPath()
            guard !collection.isEmpty, !collection.contains("@") else { throw failure("SUBQUERY takes a list or set key path first") }
            guard take(",") else { throw failure("expected ',' after the subquery's collection") }
            skipSpaces()
            let variable = readIdentifierPath()
            guard variable.hasPrefix("$"), variable.count > 1, !variable.contains(".") else { throw failure("expected the subquery's $variable") }
            guard take(",") else { throw failure("expected ',' after the subquery's variable") }
            let predicate = try parseOr()
            guard take(")") else { throw failure("expected ')' to close SUBQUERY") }
            guard take(".@count") else { throw failure("a SUBQUERY is counted: SUBQUERY(…).@count", at: start) }
            return .subqueryCount(collection: QueryKeyPath(collection.split(separator: ".").map { Self.component(String($0)) }),
                                  variable: String(variable.dropFirst()), predicate: predicate)
        }

        // MARK: Tokens

        mutating func readIdentifierPath() -> String {
            let start = position
            while position < characters.count,
                  Self.isWordCharacter(characters[position]) || "_.@$".unicodeScalars.contains(characters[position]) {
                position += 1
            }
            return Self.string(characters[start..<position])
        }

        mutating func parseString() throws(FloeError) -> String {
            let quote = characters[position]
            let start = position
            position += 1
            var result = ""
            while position < characters.count, characters[position] != quote {
                if characters[position] == "\\", position + 1 < characters.count {
                    position += 1
                    switch characters[position] {
                    case "n": result.unicodeScalars.append("\n")
                    case "t": result.unicodeScalars.append("\t")
                    case "r": result.unicodeScalars.append("\r")
                    default: result.unicodeScalars.append(characters[position])
                    }
                } else {
                    result.unicodeScalars.append(characters[position])
                }
                position += 1
            }
            guard position < characters.count else { throw failure("unterminated string", at: start) }
            position += 1
            return result
        }

        mutating func parseNumber() throws(FloeError) -> Value {
            let start = position
            position += 1
            while position < characters.count, Self.isDigit(characters[position]) || ".eE".unicodeScalars.contains(characters[position])
                    || ((characters[position] == "-" || characters[position] == "+") && "eE".unicodeScalars.contains(characters[position - 1])) {
                position += 1
            }
            let literal = Self.string(characters[start..<position])
            if let int = Int64(literal) { return .int(int) }
            if let double = Double(literal) { return .double(double) }
            throw failure("'\(literal)' is not a number", at: start)
        }

        mutating func argumentValue() throws(FloeError) -> Value {
            let start = position - 2
            guard nextArgument < arguments.count else { throw failure("more %@ than arguments (\(arguments.count) given)", at: start) }
            defer { nextArgument += 1 }
            guard let value = QueryArgument.value(of: arguments[nextArgument]) else {
                throw failure("argument \(nextArgument + 1) (\(type(of: arguments[nextArgument]))) is not a value Floe stores", at: start)
            }
            return value
        }

        mutating func argumentKeyPath() throws(FloeError) -> String {
            let start = position - 2
            guard nextArgument < arguments.count else { throw failure("more %K than arguments (\(arguments.count) given)", at: start) }
            defer { nextArgument += 1 }
            guard let path = arguments[nextArgument] as? String else {
                throw failure("argument \(nextArgument + 1) for %K must be a String key path", at: start)
            }
            return path
        }

        /// White space, without a Unicode property lookup for ASCII.
        @inline(__always)
        static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
            if scalar.isASCII { return scalar.value == 32 || (scalar.value >= 9 && scalar.value <= 13) }
            return scalar.properties.isWhitespace
        }

        /// A letter, a digit or `_`, without a Unicode property lookup for ASCII.
        @inline(__always)
        static func isWordCharacter(_ scalar: Unicode.Scalar) -> Bool {
            if scalar.isASCII {
                let ascii = scalar.value
                return (ascii >= 65 && ascii <= 90) || (ascii >= 97 && ascii <= 122) || (ascii >= 48 && ascii <= 57) || ascii == 95
            }
            return scalar.properties.isAlphabetic || scalar.properties.numericType != nil
        }

        /// An ASCII digit (numbers in predicates are written in ASCII).
        @inline(__always)
        static func isDigit(_ scalar: Unicode.Scalar) -> Bool {
            scalar.value >= 48 && scalar.value <= 57
        }

        /// The text of a run of scalars.
        static func string(_ scalars: ArraySlice<Unicode.Scalar>) -> String {
            var view = String.UnicodeScalarView()
            view.append(contentsOf: scalars)
            return String(view)
        }

        mutating func skipSpaces() {
            while position < characters.count, Self.isSpace(characters[position]) { position += 1 }
        }

        func peek(_ symbol: String) -> Bool {
            var index = position
            while index < characters.count, Self.isSpace(characters[index]) { index += 1 }
            // Compared in place: the parser tries many symbols at each position.
            for character in symbol.unicodeScalars {
                guard index < characters.count, characters[index] == character else { return false }
                index += 1
            }
            return true
        }

        mutating func take(_ symbol: String) -> Bool {
            skipSpaces()
            guard peek(symbol) else { return false }
            position += symbol.unicodeScalars.count
            return true
        }

        /// A keyword, case-insensitive, not followed by more identifier characters.
        mutating func takeWord(_ word: String) -> Bool {
            skipSpaces()
            // Keywords are ASCII: compared letter by letter, upper-cased in place.
            var end = position
            for letter in word.utf8 {
                guard end < characters.count, characters[end].isASCII, case let ascii = UInt8(characters[end].value),
                      (ascii >= 97 && ascii <= 122 ? ascii - 32 : ascii) == letter else { return false }
                end += 1
            }
            if end < characters.count, Self.isWordCharacter(characters[end]) { return false }
            position = end
            return true
        }

        func failure(_ reason: String, at where_: Int? = nil) -> FloeError {
            let at = min(where_ ?? position, characters.count)
            var end = at
            while end < characters.count, !Self.isSpace(characters[end]) { end += 1 }
            return .invalidPredicate(predicate: text, position: at, token: Self.string(characters[at..<end]), reason: reason)
        }
    }
}

/// `%@` arguments in stored form: every type a `@Persisted` property holds (and optionals,
/// enums, managed objects), `NSNumber`, and sequences of them for `IN`.
enum QueryArgument {
    static func value(of argument: Any) -> Value? {
        if ValueCoercion.isNull(argument) { return .null }
        if let object = argument as? ObjectBase {
            guard let binding = object._floeBinding else { return nil }
            return .link(binding.key)
        }
        // A frozen object stands for the object it was frozen from, as in Realm.
        if let frozen = argument as? any FrozenObjectSource { return value(of: frozen.makeObject()) }
        if let mixed = argument as? AnyRealmValue { return mixed._floeEncoded.value }
        if let persistable = argument as? any _Persistable {
            let encoded = persistable._floeEncoded
            if encoded.elements == nil { return encoded.value }
        }
        if let number = argument as? NSNumber {
            if String(cString: number.objCType) == "c" { return .bool(number.boolValue) }
            if let int = Int64(exactly: number.doubleValue) { return .int(int) }
            return .double(number.doubleValue)
        }
        if let string = argument as? NSString { return .string(string as String) }
        if let sequence = argument as? any Sequence {
            var values: [Value] = []
            for element in sequence {
                guard let value = value(of: element) else { return nil }
                values.append(value)
            }
            return .list(values)
        }
        return nil
    }
}

/// The names `@type` compares with (Realm's, in any case), and the groups they stand for.
enum QueryTypeNames {
    /// The name of a stored value's type, as `mixed.@type` reads it.
    static func name(of value: Value) -> String {
        switch value {
        case .null: return "null"
        case .bool: return "bool"
        case .int: return "int"
        case .float: return "float"
        case .double: return "double"
        case .string: return "string"
        case .binary: return "binary"
        case .timestamp: return "date"
        case .decimal128: return "decimal"
        case .objectId: return "objectid"
        case .uuid: return "uuid"
        case .link, .typedLink: return "object"
        case .list: return "list"
        case .dictionary: return "dictionary"
        }
    }

    private static let groups: [String: [String]] = [
        "null": ["null"], "bool": ["bool"], "int": ["int"], "integer": ["int"], "float": ["float"], "double": ["double"],
        "string": ["string"], "binary": ["binary"], "date": ["date"], "timestamp": ["date"], "decimal": ["decimal"],
        "decimal128": ["decimal"], "objectid": ["objectid"], "uuid": ["uuid"], "object": ["object"], "link": ["object"],
        "list": ["list"], "array": ["list"], "dictionary": ["dictionary"],
        "numeric": ["int", "float", "double", "decimal"],
    ]

    /// The names a written type name stands for, or nil for an unknown name.
    static func members(of written: String) -> [String]? { groups[written.lowercased()] }

    /// The names accepted, for messages.
    static var known: String { groups.keys.sorted().joined(separator: ", ") }
}
