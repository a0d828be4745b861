import Foundation
import Testing
@_spi(Engine) @testable import Floe
@_spi(Engine) @testable import FloeEngine
@_spi(Engine) @testable import FloeStorage

/// Map and mixed subscripts in string predicates (Realm's dialect): `prices['a']`,
/// `prices[%@]`, `prices.@keys`, `prices.@values`, `companion[0]`, `companion['kind']`,
/// `companion[*]`, `[FIRST]`, `[LAST]`, `[SIZE]`, `companion.@type`. The parser makes the
/// builder's tree; random predicates are checked against Swift's own evaluation.
@Suite struct PredicateSubscriptTests {
    typealias Hound = QueryBuilderTests.Hound

    @Test func subscriptsParseToTheBuildersTree() throws {
        let pairs: [(String, [Any], (Query<Hound>) -> Query<Bool>)] = [
            ("prices['a'] > 3", [], { $0.prices["a"] > 3 }),
            ("prices[\"b\"] == 5", [], { $0.prices["b"] == 5 }),
            ("prices[%@] <= %@", ["c", 7], { $0.prices["c"] <= 7 }),
            ("prices.@keys == 'a'", [], { $0.prices.keys == "a" }),
            ("ANY prices.@keys == 'a'", [], { $0.prices.keys == "a" }),
            ("prices.@keys BEGINSWITH[c] 'A'", [], { $0.prices.keys.starts(with: "A", options: .caseInsensitive) }),
            ("prices.@values > 3", [], { $0.prices.values > 3 }),
            ("companion[0] == 3", [], { $0.companion[0] == .int(3) }),
            ("companion[FIRST] == 3", [], { $0.companion[0] == .int(3) }),
            ("companion[%@] == 3", [1], { $0.companion[1] == .int(3) }),
            ("companion['kind'] == 'Rex'", [], { $0.companion["kind"] == .string("Rex") }),
            ("companion[%@] == %@", ["kind", "Rex"], { $0.companion["kind"] == .string("Rex") }),
            ("companion[*] == 3", [], { $0.companion.any == .int(3) }),
            ("prices['a'] > 3 AND companion[0] == 3", [], { $0.prices["a"] > 3 && $0.companion[0] == .int(3) }),
        ]
        for (format, arguments, build) in pairs {
            let parsed = try PredicateParser.parse(format, arguments: arguments)
            let built = try Query<Bool>.predicate(for: Hound.self, build)
            #expect(parsed == built, "\(format)")
        }
        // `@type` compares with type names; a group stands for its members.
        #expect(try PredicateParser.parse("companion.@type == 'String'", arguments: [])
                == .comparison(QueryComparison(lhs: .keyPath(QueryKeyPath([.property("companion"), .type])), op: .in, rhs: .constant(.list([.string("string")])))))
        #expect(try PredicateParser.parse("companion['n'].@type != 'numeric'", arguments: [])
                == .not(.comparison(QueryComparison(lhs: .keyPath(QueryKeyPath([.property("companion"), .mapKey("n"), .type])), op: .in,
                                                    rhs: .constant(.list(["int", "float", "double", "decimal"].map { .string($0) }))))))
        #expect(try PredicateParser.parse("companion[LAST] == 1", arguments: [])
                == .comparison(QueryComparison(lhs: .keyPath(QueryKeyPath([.property("companion"), .index(-1)])), op: .equal, rhs: .constant(.int(1)))))
        #expect(try PredicateParser.parse("companion[SIZE] == 2 OR companion.@size == 2", arguments: [])
                == .or([.comparison(QueryComparison(lhs: .keyPath(QueryKeyPath([.property("companion"), .size])), op: .equal, rhs: .constant(.int(2)))),
                        .comparison(QueryComparison(lhs: .keyPath(QueryKeyPath([.property("companion"), .size])), op: .equal, rhs: .constant(.int(2))))]))
    }

    typealias Case = (text: String, arguments: [Any], expected: (Hound) -> Bool)

    static func typeName(_ value: AnyRealmValue) -> String {
        switch value {
        case .none: return "null"
        case .int: return "int"
        case .bool: return "bool"
        case .string: return "string"
        case .double: return "double"
        case .float: return "float"
        default:
            if value.listValue != nil { return "list" }
            if value.dictionaryValue != nil { return "dictionary" }
            return "other"
        }
    }

    /// One random subscript comparison in the string dialect and Swift's own test.
    static let formCount = 14

    static func randomAtom(_ random: inout SeededGenerator, form: Int? = nil) -> Case {
        let k = Int.random(in: -2...12, using: &random)
        let key = ["a", "b", "c", "d"].randomElement(using: &random)!
        let name = QueryBuilderTests.names.randomElement(using: &random)!
        let list: (Hound) -> [AnyRealmValue] = { $0.companion.listValue.map { Array($0) } ?? [] }
        let dictionary: (Hound) -> [String: AnyRealmValue] = { $0.companion.dictionaryValue.map { Dictionary(uniqueKeysWithValues: $0.map { ($0.key, $0.value) }) } ?? [:] }
        switch form ?? Int.random(in: 0..<formCount, using: &random) {
        case 0: return ("prices['\(key)'] > \(k)", [], { $0.prices[key].map { $0 > k } ?? false })
        case 1: return ("prices[%@] == %@", [key, k], { $0.prices[key] == k })
        case 2: return ("prices['\(key)'] == nil", [], { $0.prices[key] == nil })
        case 3: return ("prices.@keys == %@", [key], { $0.prices.keys.contains(key) })
        case 4: return ("NONE prices.@keys == '\(key)'", [], { !$0.prices.keys.contains(key) })
        case 5: return ("prices.@values < \(k)", [], { $0.prices.values.contains { $0 < k } })
        case 6: return ("ALL prices.@values >= \(k)", [], { $0.prices.values.allSatisfy { $0 >= k } })
        case 7: return ("companion[0] == \(k % 6)", [], { list($0).first?.intValue == k % 6 })
        case 8: return ("companion[LAST] == %@", [name], { list($0).last?.stringValue == name })
        case 9: return ("companion['kind'] == %@", [name], { dictionary($0)["kind"]?.stringValue == name })
        case 10: return ("companion[*] == \(k % 6)", [], { hound in (list(hound) + Array(dictionary(hound).values)).contains { $0.intValue == k % 6 } })
        case 11: return ("companion[SIZE] == 2", [], { hound in hound.companion.listValue?.count == 2 || hound.companion.dictionaryValue?.count == 2 })
        case 12:
            let type = ["string", "int", "bool", "null", "list", "dictionary"].randomElement(using: &random)!
            return ("companion.@type == '\(type.uppercased())'", [], { typeName($0.companion) == type })
        default:
            return ("companion[*].@type == 'numeric'", [], { hound in (list(hound) + Array(dictionary(hound).values)).contains { $0.intValue != nil } })
        }
    }

    static func randomCase(_ random: inout SeededGenerator, depth: Int) -> Case {
        guard depth > 0, Bool.random(using: &random) else { return randomAtom(&random) }
        let left = randomCase(&random, depth: depth - 1), right = randomCase(&random, depth: depth - 1)
        switch Int.random(in: 0...2, using: &random) {
        case 0: return ("(\(left.text)) AND (\(right.text))", left.arguments + right.arguments, { left.expected($0) && right.expected($0) })
        case 1: return ("(\(left.text)) OR (\(right.text))", left.arguments + right.arguments, { left.expected($0) || right.expected($0) })
        default: return ("NOT (\(left.text))", left.arguments, { !left.expected($0) })
        }
    }

    @Test func randomSubscriptPredicatesSelectWhatSwiftWould() async throws {
        let realm = try await QueryBuilderTests.makeRealm(seed: 5, count: 200)
        let (nonTrivial, mismatches) = try await realm.read { realm -> (Int, [String]) in
            let all = realm.objects(Hound.self)
            let objects = Array(all)
            var random = SeededGenerator(seed: 909)
            var mismatches: [String] = []
            var nonTrivial = 0
            for _ in 0..<1500 {
                let test = Self.randomCase(&random, depth: 2)
                let found = try all.filtered(by: PredicateParser.parse(test.text, arguments: test.arguments)).map(\.id)
                let wanted = objects.filter(test.expected).map(\.id)
                if found != wanted { mismatches.append("\(test.text) \(test.arguments): \(found.count) found, \(wanted.count) wanted") }
                if !wanted.isEmpty && wanted.count < objects.count { nonTrivial += 1 }
            }
            return (nonTrivial, mismatches)
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
        #expect(nonTrivial > 1000)
    }

    @Test func everySubscriptFormSelectsSomeButNotAll() async throws {
        let realm = try await QueryBuilderTests.makeRealm(seed: 5, count: 200)
        let unselective = try await realm.read { realm -> [Int] in
            let total = realm.objects(Hound.self).count
            var random = SeededGenerator(seed: 4)
            var unselective: [Int] = []
            for form in 0..<Self.formCount {
                // Some draw of each form selects some objects but not all: a form that always
                // selected nothing or everything would not tell a wrong evaluation apart.
                var selective = false
                for _ in 0..<8 {
                    let test = Self.randomAtom(&random, form: form)
                    let count = try realm.objects(Hound.self).filtered(by: PredicateParser.parse(test.text, arguments: test.arguments)).count
                    if count > 0 && count < total { selective = true }
                }
                if !selective { unselective.append(form) }
            }
            return unselective
        }
        #expect(unselective.isEmpty, "\(unselective)")
    }

    static var badPredicates: [(String, [Any], position: Int, token: String, message: String)] { [
        ("prices['a' > 3", [], 6, "['a'", "expected ']' to close the subscript"),
        ("prices[", [], 6, "[", "unterminated subscript"),
        ("prices[%@] > 3", [2.5], 7, "%@]", "must be a String key or an Int index"),
        ("prices[%@] > 3", [], 7, "%@]", "more %@ than arguments"),
        ("companion[BOGUS] == 1", [], 10, "BOGUS]", "a subscript takes a quoted key, %@, an index, *, FIRST, LAST or SIZE"),
        ("companion.@type == 'strung'", [], 19, "'strung'", "'strung' is not a type name"),
        ("companion.@type > 'string'", [], 16, ">", "@type takes ==, != or IN"),
        ("companion.@type == 3", [], 19, "3", "@type is compared with type names"),
        ("prices.@nope == 1", [], 0, "", "unknown collection operator '@nope'"),
    ] }

    @Test func malformedSubscriptsAreTypedErrorsNamingPositionAndToken() {
        for (format, arguments, position, token, message) in Self.badPredicates {
            let error = #expect(throws: FloeError.self, "\(format)") { try PredicateParser.parse(format, arguments: arguments) }
            guard case .invalidPredicate(let predicate, let at, let found, let reason)? = error else {
                Issue.record("\(format): \(String(describing: error))")
                continue
            }
            #expect(predicate == format)
            #expect(reason.contains(message), "\(format): \(reason)")
            if !token.isEmpty {
                #expect(at == position && found == token, "\(format): at \(at), token '\(found)'")
            }
        }
    }

    @Test func subscriptsOnTheWrongPropertyAreTypedErrors() async throws {
        let realm = try await QueryBuilderTests.makeRealm(count: 5)
        let wrong: [(String, String)] = [
            ("age['a'] > 3", "'age' (Int) takes no ['a']"),
            ("name[0] == 'x'", "'name' (String) takes no [0]"),
            ("age.@type == 'int'", "'age' (Int) takes no @type"),
            ("prices[0] == 1", "'prices'"),
            ("nope['a'] == 1", "Hound has no property 'nope'"),
        ]
        for (format, message) in wrong {
            let error = await #expect(throws: FloeError.self, "\(format)") {
                try await realm.read { realm in try realm.objects(Hound.self).filter(format).count }
            }
            #expect(error?.description.contains(message) == true, "\(format): \(String(describing: error))")
            #expect(error?.description.contains("Hound") == true, "\(format): \(String(describing: error))")
        }
    }
}
