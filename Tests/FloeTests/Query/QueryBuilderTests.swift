import Foundation
import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

/// The type-safe builder, `where { … }`: every operator checked against Swift's own evaluation
/// of the same condition over random objects (thousands of random builder predicates, seeded),
/// the same predicate tree as the string parser's, subqueries, and typed errors.
@Suite struct QueryBuilderTests {
    enum Mood: String, PersistableEnum {
        case calm, playful, grumpy
    }

    final class Walker: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var age = 0
        @Persisted(originProperty: "owner") var hounds: LinkingObjects<Hound>
    }

    final class Toy: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var price = 0.0
        @Persisted(originProperty: "toys") var holders: LinkingObjects<Hound>
    }

    final class Hound: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var age = 0
        @Persisted var weight: Double?
        @Persisted var nickname: String?
        @Persisted var good = false
        @Persisted var mood = Mood.calm
        @Persisted var born = Date(timeIntervalSinceReferenceDate: 0)
        @Persisted var owner: Walker?
        @Persisted var tags: List<String>
        @Persisted var scores: List<Int>
        @Persisted var toys: List<Toy>
        @Persisted var companion: AnyRealmValue
        @Persisted var prices: Map<String, Int>
        /// Not persisted: a query cannot name it.
        var scratch = 0
        /// Computed from persisted properties: a query cannot name them either.
        var shoutedName: String { name.uppercased() }
        var doubledAge: Int { age * 2 }
        var isOld: Bool { age > 12 }
    }

    static let names = ["Rex", "rover", "Élan", "Ärger", "Straße", "Ilık", "Ωmega", "Bella", "b", "", "REX", "élan"]
    static let needles = ["R", "r", "e", "E", "é", "x", "a", "ß", "ss", "Ω", "ω", "", "rex", "Elan", "b", "la"]
    static let patterns = ["R?x", "*e*", "?", "*", "r*", "*a", "E*n", "b", "??", "*ß*", "Ω*"]

    static func makeRealm(seed: UInt64 = 11, count: Int = 150) async throws -> Realm {
        let realm = try await inMemoryRealm("builder")
        try await realm.asyncWrite { realm in
            var random = SeededGenerator(seed: seed)
            let walkers = try (0..<4).map { (index: Int) throws -> Walker in
                try realm.create(Walker.self, value: ["id": index, "name": ["Ada", "ada", "Bo", "Élan"][index], "age": index * 10])
            }
            let toys = try (0..<8).map { (index: Int) throws -> Toy in
                try realm.create(Toy.self, value: ["id": index, "name": ["ball", "bone", "Rope", "rat", "bell", "", "Ball", "box"][index],
                                                   "price": Double(index) * 1.5])
            }
            for id in 0..<count {
                let hound = Hound()
                hound.id = id
                hound.name = names.randomElement(using: &random)!
                hound.age = Int.random(in: 0...15, using: &random)
                hound.weight = Bool.random(using: &random) ? Double(Int.random(in: 10...400, using: &random)) / 10 : nil
                hound.nickname = Bool.random(using: &random) ? names.randomElement(using: &random) : nil
                hound.good = Bool.random(using: &random)
                hound.mood = Mood.allCases.randomElement(using: &random)!
                hound.born = Date(timeIntervalSinceReferenceDate: Double(Int.random(in: 0...100, using: &random)) * 86_400)
                hound.owner = Int.random(in: 0...4, using: &random) == 0 ? nil : walkers.randomElement(using: &random)
                for _ in 0..<Int.random(in: 0...3, using: &random) { hound.tags.append(names.randomElement(using: &random)!) }
                for _ in 0..<Int.random(in: 0...4, using: &random) { hound.scores.append(Int.random(in: -5...20, using: &random)) }
                for _ in 0..<Int.random(in: 0...4, using: &random) { hound.toys.append(toys.randomElement(using: &random)!) }
                switch Int.random(in: 0...5, using: &random) {
                case 0: hound.companion = .string(names.randomElement(using: &random)!)
                case 1: hound.companion = .int(Int.random(in: 0...5, using: &random))
                case 2: hound.companion = .bool(Bool.random(using: &random))
                case 3: hound.companion = .fromArray([.int(Int.random(in: 0...5, using: &random)), .string(names.randomElement(using: &random)!)])
                case 4: hound.companion = .fromDictionary(["kind": .string(names.randomElement(using: &random)!), "n": .int(Int.random(in: 0...5, using: &random))])
                default: hound.companion = .none
                }
                for key in ["a", "b", "c"] where Bool.random(using: &random) { hound.prices[key] = Int.random(in: -2...12, using: &random) }
                try realm.add(hound)
            }
        }
        return realm
    }

    // MARK: Brute-force reference

    static func foundationOptions(_ options: StringOptions) -> String.CompareOptions {
        var result: String.CompareOptions = []
        if options.contains(.caseInsensitive) { result.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { result.insert(.diacriticInsensitive) }
        return result
    }

    /// Swift's answer for a string operator, written independently of the evaluator.
    static func stringMatches(_ text: String, _ op: String, _ needle: String, _ options: StringOptions) -> Bool {
        let foundation = foundationOptions(options)
        switch op {
        case "contains": return needle.isEmpty || text.range(of: needle, options: foundation) != nil
        case "starts": return needle.isEmpty || text.range(of: needle, options: foundation.union(.anchored)) != nil
        case "ends": return needle.isEmpty || text.range(of: needle, options: foundation.union([.anchored, .backwards])) != nil
        case "equals": return foundation.isEmpty ? text == needle : text.compare(needle, options: foundation) == .orderedSame
        default: return foundation.isEmpty ? text != needle : text.compare(needle, options: foundation) != .orderedSame
        }
    }

    /// `?` one character, `*` any run: a plain recursive matcher over Characters.
    static func wildcard(_ text: Substring, _ pattern: Substring) -> Bool {
        guard let first = pattern.first else { return text.isEmpty }
        if first == "*" { return wildcard(text, pattern.dropFirst()) || (!text.isEmpty && wildcard(text.dropFirst(), pattern)) }
        guard let head = text.first, first == "?" || first == head else { return false }
        return wildcard(text.dropFirst(), pattern.dropFirst())
    }

    typealias Condition = (text: String, build: (Query<Hound>) -> Query<Bool>, expected: (Hound) -> Bool)

    /// One random comparison: the builder form and Swift's own test.
    static func randomAtom(_ random: inout SeededGenerator) -> Condition {
        let k = Int.random(in: -1...16, using: &random)
        let d = Double(Int.random(in: 0...400, using: &random)) / 10
        let name = names.randomElement(using: &random)!
        let needle = needles.randomElement(using: &random)!
        let options = [StringOptions(), .caseInsensitive, .diacriticInsensitive, [.caseInsensitive, .diacriticInsensitive]].randomElement(using: &random)!
        let mood = Mood.allCases.randomElement(using: &random)!
        let day = Date(timeIntervalSinceReferenceDate: Double(Int.random(in: 0...100, using: &random)) * 86_400)
        let set = (0..<Int.random(in: 0...4, using: &random)).map { _ in Int.random(in: 0...15, using: &random) }
        let low = Int.random(in: 0...10, using: &random), high = low + Int.random(in: 0...6, using: &random)
        switch Int.random(in: 0...45, using: &random) {
        case 0: return ("age == \(k)", { $0.age == k }, { $0.age == k })
        case 1: return ("age != \(k)", { $0.age != k }, { $0.age != k })
        case 2: return ("age < \(k)", { $0.age < k }, { $0.age < k })
        case 3: return ("age <= \(k)", { $0.age <= k }, { $0.age <= k })
        case 4: return ("age > \(k)", { $0.age > k }, { $0.age > k })
        case 5: return ("age >= \(k)", { $0.age >= k }, { $0.age >= k })
        case 6: return ("age in \(set)", { $0.age.in(set) }, { set.contains($0.age) })
        case 7: return ("age in \(low)...\(high)", { $0.age.contains(low...high) }, { (low...high).contains($0.age) })
        case 8: return ("age in \(low)..<\(high)", { $0.age.contains(low..<high) }, { (low..<high).contains($0.age) })
        case 9: return ("weight > \(d)", { $0.weight > d }, { $0.weight.map { $0 > d } ?? false })
        case 10: return ("weight <= \(d)", { $0.weight <= d }, { $0.weight.map { $0 <= d } ?? false })
        case 11: return ("weight == nil", { $0.weight == nil }, { $0.weight == nil })
        case 12: return ("weight != nil", { $0.weight != nil }, { $0.weight != nil })
        case 13: return ("weight != \(d)", { $0.weight != d }, { $0.weight != d })
        case 14: return ("name == \(name)", { $0.name == name }, { $0.name == name })
        case 15: return ("name != \(name)", { $0.name != name }, { $0.name != name })
        case 16, 17, 18, 19, 20:
            let op = ["contains", "starts", "ends", "equals", "notEquals"].randomElement(using: &random)!
            return ("name \(op) \(needle) \(options.rawValue)", { query in
                switch op {
                case "contains": return query.name.contains(needle, options: options)
                case "starts": return query.name.starts(with: needle, options: options)
                case "ends": return query.name.ends(with: needle, options: options)
                case "equals": return query.name.equals(needle, options: options)
                default: return query.name.notEquals(needle, options: options)
                }
            }, { stringMatches($0.name, op, needle, options) })
        case 21:
            let pattern = patterns.randomElement(using: &random)!
            let folded = Bool.random(using: &random)
            return ("name like \(pattern) \(folded)", { $0.name.like(pattern, caseInsensitive: folded) }, { hound in
                folded ? wildcard(Substring(hound.name.lowercased()), Substring(pattern.lowercased())) : wildcard(Substring(hound.name), Substring(pattern))
            })
        case 22: return ("nickname == nil", { $0.nickname == nil }, { $0.nickname == nil })
        case 23: return ("nickname starts \(needle)", { $0.nickname.starts(with: needle, options: options) },
                         { $0.nickname.map { stringMatches($0, "starts", needle, options) } ?? false })
        case 24: return ("nickname == \(name)", { $0.nickname == name }, { $0.nickname == name })
        case 25: return ("good", { $0.good }, { $0.good })
        case 26: return ("mood == \(mood)", { $0.mood == mood }, { $0.mood == mood })
        case 27: return ("mood in [\(mood), calm]", { $0.mood.in([mood, .calm]) }, { [mood, .calm].contains($0.mood) })
        case 28: return ("born > \(day)", { $0.born > day }, { $0.born > day })
        case 29: return ("owner.name == \(name)", { $0.owner.name == name }, { $0.owner?.name == name })
        case 30: return ("owner == nil", { $0.owner == nil }, { $0.owner == nil })
        case 31:
            switch Int.random(in: 0...4, using: &random) {
            case 0: return ("owner.age >= \(k * 2)", { $0.owner.age >= k * 2 }, { ($0.owner?.age).map { $0 >= k * 2 } ?? false })
            case 1: return ("age > owner.age", { $0.age > $0.owner.age }, { hound in hound.owner.map { hound.age > $0.age } ?? false })
            case 2: return ("age <= owner.age", { $0.age <= $0.owner.age }, { hound in hound.owner.map { hound.age <= $0.age } ?? false })
            case 3: return ("name == owner.name", { $0.name == $0.owner.name }, { hound in hound.owner.map { hound.name == $0.name } ?? false })
            default: return ("name != owner.name", { $0.name != $0.owner.name }, { hound in hound.owner.map { hound.name != $0.name } ?? true })
            }
        case 32: return ("tags.contains \(name)", { $0.tags.contains(name) }, { $0.tags.contains(name) })
        case 33: return ("tags.containsAny", { $0.tags.containsAny(in: [name, "Rex"]) }, { $0.tags.contains(name) || $0.tags.contains("Rex") })
        case 34: return ("tags.count > \(k % 4)", { $0.tags.count > k % 4 }, { $0.tags.count > k % 4 })
        case 35:
            switch Int.random(in: 0...3, using: &random) {
            case 0: return ("scores.min >= \(k)", { $0.scores.min >= k }, { $0.scores.min().map { $0 >= k } ?? false })
            case 1: return ("scores.max < \(k)", { $0.scores.max < k }, { $0.scores.max().map { $0 < k } ?? false })
            case 2: return ("scores.sum > \(k * 2)", { $0.scores.sum > k * 2 }, { $0.scores.reduce(0, +) > k * 2 })
            default: return ("scores.avg > \(d / 4)", { $0.scores.avg > d / 4 },
                             { $0.scores.isEmpty ? false : Double($0.scores.reduce(0, +)) / Double($0.scores.count) > d / 4 })
            }
        case 36:
            let price = Double(Int.random(in: 0...12, using: &random))
            switch Int.random(in: 0...4, using: &random) {
            case 0: return ("toys.price > \(price)", { $0.toys.price > price }, { $0.toys.contains { $0.price > price } })
            case 1: return ("toys.name starts \(needle)", { $0.toys.name.starts(with: needle, options: options) },
                            { $0.toys.contains { stringMatches($0.name, "starts", needle, options) } })
            case 2: return ("toys.price.sum > \(price * 2)", { $0.toys.price.sum > price * 2 }, { $0.toys.reduce(0) { $0 + $1.price } > price * 2 })
            case 3: return ("toys.price.max <= \(price)", { $0.toys.price.max <= price }, { $0.toys.map(\.price).max().map { $0 <= price } ?? false })
            default: return ("toys.count == \(k % 5)", { $0.toys.count == k % 5 }, { $0.toys.count == k % 5 })
            }
        case 37:
            let price = Double(Int.random(in: 0...10, using: &random))
            let least = Int.random(in: 0...2, using: &random)
            return ("(toys.price > \(price) && toys.name starts \(needle)).count >= \(least)",
                    { ($0.toys.price > price && $0.toys.name.starts(with: needle, options: options)).count >= least },
                    { $0.toys.filter { $0.price > price && stringMatches($0.name, "starts", needle, options) }.count >= least })
        case 38: return ("prices[a] > \(k)", { $0.prices["a"] > k }, { $0.prices["a"].map { $0 > k } ?? false })
        case 39: return ("prices[b] <= \(k)", { $0.prices["b"] <= k }, { $0.prices["b"].map { $0 <= k } ?? false })
        case 40:
            let key = ["a", "b", "c", "d"].randomElement(using: &random)!
            return ("prices.keys == \(key)", { $0.prices.keys == key }, { $0.prices.keys.contains(key) })
        case 41: return ("prices.values > \(k)", { $0.prices.values > k }, { $0.prices.values.contains { $0 > k } })
        case 42:
            let values: (Hound) -> [Int] = { Array($0.prices.values) }
            switch Int.random(in: 0...5, using: &random) {
            case 0: return ("prices.count > \(k % 4)", { $0.prices.count > k % 4 }, { $0.prices.count > k % 4 })
            case 1: return ("prices.contains \(k)", { $0.prices.contains(k) }, { values($0).contains(k) })
            case 2: return ("prices.min >= \(k)", { $0.prices.min >= k }, { values($0).min().map { $0 >= k } ?? false })
            case 3: return ("prices.max < \(k)", { $0.prices.max < k }, { values($0).max().map { $0 < k } ?? false })
            case 4: return ("prices.sum > \(k)", { $0.prices.sum > k }, { values($0).reduce(0, +) > k })
            default: return ("prices.avg > \(d / 4)", { $0.prices.avg > d / 4 },
                             { values($0).isEmpty ? false : Double(values($0).reduce(0, +)) / Double(values($0).count) > d / 4 })
            }
        case 43:
            return ("companion[0] == \(k % 6)", { $0.companion[0] == .int(k % 6) },
                    { hound in hound.companion.listValue.map { !$0.isEmpty && $0[0].intValue == k % 6 } ?? false })
        case 44:
            return ("companion[kind] == \(name)", { $0.companion["kind"] == .string(name) },
                    { $0.companion.dictionaryValue?["kind"]?.stringValue == name })
        default:
            return ("companion.any == \(k % 6)", { $0.companion.any == .int(k % 6) }, { hound in
                let elements = hound.companion.listValue.map { Array($0) } ?? hound.companion.dictionaryValue.map { Array($0.values) } ?? []
                return elements.contains { $0.intValue == k % 6 }
            })
        }
    }

    /// A random condition: comparisons joined by `&&`, `||` and `!` up to `depth` levels.
    static func randomCondition(_ random: inout SeededGenerator, depth: Int) -> Condition {
        guard depth > 0, Int.random(in: 0...2, using: &random) > 0 else { return randomAtom(&random) }
        let left = randomCondition(&random, depth: depth - 1)
        switch Int.random(in: 0...2, using: &random) {
        case 0:
            let right = randomCondition(&random, depth: depth - 1)
            return ("(\(left.text) && \(right.text))", { left.build($0) && right.build($0) }, { left.expected($0) && right.expected($0) })
        case 1:
            let right = randomCondition(&random, depth: depth - 1)
            return ("(\(left.text) || \(right.text))", { left.build($0) || right.build($0) }, { left.expected($0) || right.expected($0) })
        default:
            return ("!\(left.text)", { !left.build($0) }, { !left.expected($0) })
        }
    }

    // MARK: Tests

    @Test func thousandsOfRandomBuilderPredicatesSelectWhatSwiftWould() async throws {
        let realm = try await Self.makeRealm()
        let (checked, mismatches) = try await realm.read { realm -> (Int, [String]) in
            let all = realm.objects(Hound.self)
            let objects = Array(all)
            var random = SeededGenerator(seed: 2026)
            var mismatches: [String] = []
            var nonTrivial = 0
            for _ in 0..<3000 {
                let condition = Self.randomCondition(&random, depth: 3)
                let found = try all.where(condition.build).map(\.id)
                let wanted = objects.filter(condition.expected).map(\.id)
                if found != wanted { mismatches.append("\(condition.text): \(found.count) found, \(wanted.count) wanted") }
                if !wanted.isEmpty && wanted.count < objects.count { nonTrivial += 1 }
            }
            return (nonTrivial, mismatches)
        }
        #expect(mismatches.count == 0, "\(mismatches.prefix(10))")
        // Most conditions select some objects but not all, so they tell the operators apart.
        #expect(checked > 1500)
    }

    @Test func everyAtomFormIsCoveredByTheRandomDraw() {
        var random = SeededGenerator(seed: 2026)
        var prefixes = Set<String>()
        for _ in 0..<3000 { prefixes.insert(String(Self.randomAtom(&random).text.prefix(9))) }
        #expect(prefixes.count >= 38, "\(prefixes.sorted())")
    }

    @Test func builderAndParserMakeTheSamePredicateTree() throws {
        let pairs: [(String, [Any], (Query<Hound>) -> Query<Bool>)] = [
            ("age > 3 AND name BEGINSWITH 'R'", [], { $0.age > 3 && $0.name.starts(with: "R") }),
            ("age == 1 OR age == 2 OR age == 3", [], { $0.age == 1 || $0.age == 2 || $0.age == 3 }),
            ("NOT (age < 4)", [], { !($0.age < 4) }),
            ("name CONTAINS[cd] 'e'", [], { $0.name.contains("e", options: [.caseInsensitive, .diacriticInsensitive]) }),
            ("name ENDSWITH[c] 'x'", [], { $0.name.ends(with: "x", options: .caseInsensitive) }),
            ("name ==[d] 'elan'", [], { $0.name.equals("elan", options: .diacriticInsensitive) }),
            ("name !=[c] 'rex'", [], { $0.name.notEquals("rex", options: .caseInsensitive) }),
            ("name LIKE[c] 'r?x*'", [], { $0.name.like("r?x*", caseInsensitive: true) }),
            ("weight == nil", [], { $0.weight == nil }),
            ("weight >= 2.5", [], { $0.weight >= 2.5 }),
            ("age IN {1, 3}", [], { $0.age.in([1, 3]) }),
            ("age BETWEEN {2, 6}", [], { $0.age.contains(2...6) }),
            ("mood == 'playful'", [], { $0.mood == .playful }),
            ("owner.name == 'Ada'", [], { $0.owner.name == "Ada" }),
            ("age < owner.age", [], { $0.age < $0.owner.age }),
            ("toys.price > 2.5", [], { $0.toys.price > 2.5 }),
            ("toys.@count > 1", [], { $0.toys.count > 1 }),
            ("scores.@max < 10", [], { $0.scores.max < 10 }),
            ("toys.@sum.price > 3.5", [], { $0.toys.price.sum > 3.5 }),
            ("tags == 'Rex'", [], { $0.tags.contains("Rex") }),
            ("SUBQUERY(toys, $element, $element.price > 1.5 AND $element.name BEGINSWITH 'b').@count > 1", [],
             { ($0.toys.price > 1.5 && $0.toys.name.starts(with: "b")).count > 1 }),
        ]
        for (format, arguments, build) in pairs {
            let parsed = try PredicateParser.parse(format, arguments: arguments)
            let built = try Query<Bool>.predicate(for: Hound.self, build)
            #expect(parsed == built, "\(format)")
        }
    }

    @Test func subqueriesCountElementsMeetingEveryTermTogether() async throws {
        let realm = try await Self.makeRealm()
        let (built, parsed, wanted, anyTerms) = try await realm.read { realm in
            let all = realm.objects(Hound.self)
            let built = try all.where { ($0.toys.price > 3.0 && $0.toys.name.starts(with: "b")).count >= 1 }.map(\.id)
            let parsed = try all.filter("SUBQUERY(toys, $toy, $toy.price > 3 && $toy.name BEGINSWITH 'b').@count >= 1").map(\.id)
            let wanted = all.filter { $0.toys.contains { $0.price > 3 && $0.name.hasPrefix("b") } }.map(\.id)
            // Without the subquery each term may hold for a different toy.
            let anyTerms = try all.where { $0.toys.price > 3.0 && $0.toys.name.starts(with: "b") }.map(\.id)
            return (built, parsed, wanted, anyTerms)
        }
        #expect(built == wanted && parsed == wanted && !wanted.isEmpty)
        #expect(anyTerms.count > wanted.count)
    }

    @Test func linkingObjectsAreToManyRelationships() async throws {
        let realm = try await Self.makeRealm()
        let (found, wanted) = try await realm.read { realm -> ([[Int]], [[Int]]) in
            let walkers = realm.objects(Walker.self), toys = realm.objects(Toy.self)
            let threshold = walkers.map(\.hounds.count).sorted()[1]
            let built: [[Int]] = [
                try walkers.where { $0.hounds.age > 14 }.map(\.id),
                try walkers.where { $0.hounds.count > threshold }.map(\.id),
                try walkers.where { ($0.hounds.age > 12 && $0.hounds.good).count >= 4 }.map(\.id),
                try walkers.where { $0.hounds.age.avg > 7.5 }.map(\.id),
                try toys.where { $0.holders.name == "Rex" && $0.holders.count > 30 }.map(\.id),
                try toys.where { $0.holders.count == 0 }.map(\.id),
            ]
            let expected: [[Int]] = [
                walkers.filter { $0.hounds.contains { $0.age > 14 } }.map(\.id),
                walkers.filter { $0.hounds.count > threshold }.map(\.id),
                walkers.filter { $0.hounds.filter { $0.age > 12 && $0.good }.count >= 4 }.map(\.id),
                walkers.filter { $0.hounds.isEmpty ? false : Double($0.hounds.reduce(0) { $0 + $1.age }) / Double($0.hounds.count) > 7.5 }.map(\.id),
                toys.filter { $0.holders.contains { $0.name == "Rex" } && $0.holders.count > 30 }.map(\.id),
                toys.filter { $0.holders.isEmpty }.map(\.id),
            ]
            return (built, expected)
        }
        #expect(found == wanted)
        // Each case selects some but not all, so the comparison means something.
        #expect(wanted.prefix(4).allSatisfy { !$0.isEmpty && $0.count < 4 }, "\(wanted)")
        #expect(!wanted[4].isEmpty && wanted[4].count < 8, "\(wanted)")
    }

    @Test func mixedValuesCompareByValue() async throws {
        let realm = try await Self.makeRealm()
        let (strings, wantedStrings, ints, wantedInts) = try await realm.read { realm in
            let all = realm.objects(Hound.self)
            let strings = try all.where { $0.companion == .string("Rex") }.map(\.id)
            let wantedStrings = all.filter { $0.companion == .string("Rex") }.map(\.id)
            let ints = try all.where { $0.companion == .int(3) || $0.companion == .none }.map(\.id)
            let wantedInts = all.filter { $0.companion == .int(3) || $0.companion == .none }.map(\.id)
            return (strings, wantedStrings, ints, wantedInts)
        }
        #expect(strings == wantedStrings && !strings.isEmpty)
        #expect(ints == wantedInts && !ints.isEmpty)
    }

    @Test func objectsCompareByIdentityAndResultsChainLiveAndFreeze() async throws {
        let realm = try await Self.makeRealm()
        let (mine, chained, withToy) = try await realm.read { realm in
            let ada = realm.object(ofType: Walker.self, forPrimaryKey: 0)!
            let rope = realm.object(ofType: Toy.self, forPrimaryKey: 2)!
            let mine = try realm.objects(Hound.self).where { $0.owner == ada }.map { $0.owner?.id }
            let chained = try realm.objects(Hound.self).filter("age > 3").sorted(byKeyPath: "age").where { $0.good }.map(\.age)
            let withToy = try realm.objects(Hound.self).where { $0.toys.contains(rope) }.allSatisfy { $0.toys.contains { $0.id == 2 } }
            return (mine, chained, withToy)
        }
        #expect(!mine.isEmpty && mine.allSatisfy { $0 == 0 })
        #expect(!chained.isEmpty && chained == chained.sorted() && chained.allSatisfy { $0 > 3 })
        #expect(withToy)
        let counts = try await realm.write { realm in
            let old = try realm.objects(Hound.self).where { $0.age == 99 }
            let before = old.count
            try realm.create(Hound.self, value: ["id": 10_000, "name": "new", "age": 99])
            return (before, old.count)
        }
        #expect(counts == (0, 1))
        let frozen = try await realm.read { realm in try realm.objects(Hound.self).where { $0.age >= 14 }.sorted(byKeyPath: "name").freeze() }
        let names = await Task.detached { frozen.map(\.name) }.value
        #expect(!names.isEmpty && names == names.sorted() && frozen.count == names.count)
    }

    @Test func firstWhereFromTheSeedsAndItsBuilderForm() async throws {
        // The seeds' Swift: `realm.objects(Dog.self).first(where: { $0.name == "Wolfie" })`.
        let realm = try await inMemoryRealm("builder-seed")
        try await realm.asyncWrite { realm in
            let dog = Hound()
            dog.name = "Wolfie"
            dog.age = 1
            try realm.add(dog)
        }
        let (closure, builder) = try await realm.read { realm in
            (realm.objects(Hound.self).first(where: { $0.name == "Wolfie" })?.age, try realm.objects(Hound.self).where { $0.name == "Wolfie" }.first?.age)
        }
        #expect(closure == 1 && builder == 1)
    }

    static var mistakes: [(String, (Query<Hound>) -> Query<Bool>)] { [
        ("it reads no @Persisted property", { $0.scratch > 1 }),
        ("a counted condition goes through one list or set", { ($0.toys.price > 1.0 && $0.tags.contains("Rex")).count > 0 }),
        ("count a condition on a list, set or linking objects", { ($0.age > 1).count > 0 }),
        ("a counted condition compares only properties of toys's elements", { ($0.toys.price > 1.0 && $0.age > 1).count > 0 }),
        ("needs a property of a list's or a set's objects", { $0.age.sum > 3 }),
        ("not managed by a realm", { $0.owner == Walker() }),
        ("it is computed from 'name': query 'name' itself", { $0.shoutedName == "REX" }),
        ("it is computed from 'age': query 'age' itself", { $0.doubledAge > 4 }),
        ("it is computed from 'age': query 'age' itself", { $0.isOld == true }),
        ("@sum takes a plain property of a list's or a set's objects", { $0.toys.holders.prices["a"].sum > 1 }),
    ] }

    static let badStringPredicates: [(String, String)] = [
        ("SUBQUERY(", "SUBQUERY takes a list or set key path first"),
        ("SUBQUERY(toys", "expected ',' after the subquery's collection"),
        ("SUBQUERY(toys, t, t.price > 1).@count > 0", "expected the subquery's $variable"),
        ("SUBQUERY(toys, $t, $t.price > 1", "expected ')' to close SUBQUERY"),
        ("SUBQUERY(age, $t, $t.price > 1).@count > 0", "a subquery runs over a list or a set of objects"),
        ("SUBQUERY(tags, $t, $t == 'x').@count > 0", "a subquery runs over a list or a set of objects"),
        ("SUBQUERY(toys, $t, $t.nope > 1).@count > 0", "Toy has no property 'nope'"),
        ("SUBQUERY(toys, $t, $t.name BEGINSWITH 1).@count > 0", "expected String (to compare with"),
        ("companion.name == 'x'", "'Hound.companion' (AnyRealmValue) has no properties"),
    ]

    @Test func mistakesAreTypedErrorsNamingTheClassAndProperty() async throws {
        let realm = try await Self.makeRealm(count: 10)
        for (index, (message, _)) in Self.mistakes.enumerated() {
            let error = await #expect(throws: FloeError.self, "\(message)") {
                try await realm.read { realm in try realm.objects(Hound.self).where(Self.mistakes[index].1).count }
            }
            #expect(error?.description.contains(message) == true, "\(message): \(String(describing: error))")
            #expect(error?.description.contains("Hound") == true)
            #expect(error?.description.contains("table") == false && error?.description.contains("column") == false)
        }
        let parseError = await #expect(throws: FloeError.self) {
            try await realm.read { realm in try realm.objects(Hound.self).filter("SUBQUERY(toys, $t, $x.price > 1).@count > 0").count }
        }
        #expect(parseError?.description.contains("key paths start with $t") == true, "\(String(describing: parseError))")
        let unCounted = await #expect(throws: FloeError.self) {
            try await realm.read { realm in try realm.objects(Hound.self).filter("SUBQUERY(toys, $t, $t.price > 1) > 0").count }
        }
        #expect(unCounted?.description.contains("SUBQUERY(…).@count") == true, "\(String(describing: unCounted))")
        for (format, message) in Self.badStringPredicates {
            let error = await #expect(throws: FloeError.self, "\(format)") {
                try await realm.read { realm in try realm.objects(Hound.self).filter(format).count }
            }
            #expect(error?.description.contains(message) == true, "\(format): \(String(describing: error))")
        }
        // The realm goes on.
        #expect(try await realm.read { realm in try realm.objects(Hound.self).where { $0.age >= 0 }.count } == 10)
    }
}
