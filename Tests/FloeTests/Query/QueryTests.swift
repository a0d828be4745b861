import Foundation
import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

/// String predicates and sorting on results: every operator checked against Swift's own
/// evaluation over the same objects (randomized), typed errors for bad input, live and frozen.
@Suite struct QueryTests {
    final class Owner: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
    }

    final class Pup: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var age = 0
        @Persisted var weight: Double?
        @Persisted var nickname: String?
        @Persisted var good = false
        @Persisted var owner: Owner?
        @Persisted var tags: List<String>
    }

    static let names = ["Rex", "rover", "Élan", "Ärger", "Straße", "Ilık", "Ωmega", "Bella", "b", ""]

    static func makeRealm(seed: UInt64 = 7) async throws -> Realm {
        let realm = try await inMemoryRealm("query")
        try await realm.asyncWrite { realm in
            var random = SeededGenerator(seed: seed)
            let owners = try (0..<3).map { (index: Int) throws -> Owner in try realm.create(Owner.self, value: ["id": index, "name": ["Ada", "ada", "Bo"][index]]) }
            for id in 0..<120 {
                let pup = Pup()
                pup.id = id
                pup.name = names.randomElement(using: &random)!
                pup.age = Int.random(in: 0...15, using: &random)
                pup.weight = Bool.random(using: &random) ? Double(Int.random(in: 10...400, using: &random)) / 10 : nil
                pup.nickname = Bool.random(using: &random) ? names.randomElement(using: &random) : nil
                pup.good = Bool.random(using: &random)
                pup.owner = Bool.random(using: &random) ? owners.randomElement(using: &random) : nil
                for _ in 0..<Int.random(in: 0...3, using: &random) { pup.tags.append(names.randomElement(using: &random)!) }
                try realm.add(pup)
            }
        }
        return realm
    }

    /// Each predicate with the Swift closure that must select the same objects.
    static var cases: [(String, [Any], (Pup) -> Bool)] { [
        ("age > %@", [5], { $0.age > 5 }),
        ("age >= 5 AND age <= 9", [], { $0.age >= 5 && $0.age <= 9 }),
        ("3 < age", [], { $0.age > 3 }),
        ("age == 4 OR NOT (good == true)", [], { $0.age == 4 || !$0.good }),
        ("age BETWEEN {2, 6}", [], { (2...6).contains($0.age) }),
        ("age IN %@", [[1, 3, 5]], { [1, 3, 5].contains($0.age) }),
        ("age IN {1, 3}", [], { [1, 3].contains($0.age) }),
        ("weight > 20.5", [], { ($0.weight ?? -1) > 20.5 }),
        ("weight == nil", [], { $0.weight == nil }),
        ("weight != nil && weight < 10", [], { $0.weight != nil && $0.weight! < 10 }),
        ("age > 2.5", [], { Double($0.age) > 2.5 }),
        ("name == 'Rex'", [], { $0.name == "Rex" }),
        ("name ==[c] 'rex'", [], { $0.name.lowercased() == "rex" }),
        ("name BEGINSWITH %@", ["R"], { $0.name.hasPrefix("R") }),
        ("name BEGINSWITH[c] %@", ["r"], { $0.name.lowercased().hasPrefix("r") }),
        ("name ENDSWITH 'a'", [], { $0.name.hasSuffix("a") }),
        ("name CONTAINS[cd] 'e'", [], { $0.name.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).contains("e") }),
        ("name ==[cd] 'elan'", [], { $0.name == "Élan" }),
        ("name ==[c] 'STRASSE'", [], { $0.name.compare("STRASSE", options: .caseInsensitive) == .orderedSame }),
        ("name ==[c] 'ΩMEGA'", [], { $0.name == "Ωmega" }),
        ("name LIKE 'R?x'", [], { $0.name == "Rex" }),
        ("name LIKE[c] '*e*'", [], { $0.name.lowercased().contains("e") }),
        ("nickname == nil OR nickname BEGINSWITH 'B'", [], { $0.nickname == nil || $0.nickname!.hasPrefix("B") }),
        ("nickname != 'Rex'", [], { $0.nickname != "Rex" }),
        ("nickname < 'M'", [], { $0.nickname.map { $0 < "M" } ?? false }),
        ("owner.name == 'Ada'", [], { $0.owner?.name == "Ada" }),
        ("owner.name ==[c] 'ada'", [], { $0.owner?.name.lowercased() == "ada" }),
        ("owner == nil", [], { $0.owner == nil }),
        ("ANY tags == 'Rex'", [], { $0.tags.contains("Rex") }),
        ("tags == 'Rex'", [], { $0.tags.contains("Rex") }),
        ("ALL tags BEGINSWITH 'R'", [], { $0.tags.allSatisfy { $0.hasPrefix("R") } }),
        ("NONE tags == 'b'", [], { !$0.tags.contains("b") }),
        ("tags.@count > 1", [], { $0.tags.count > 1 }),
        ("tags.@count == 0 AND good == false", [], { $0.tags.isEmpty && !$0.good }),
        ("TRUEPREDICATE", [], { _ in true }),
        ("FALSEPREDICATE || age == 1", [], { $0.age == 1 }),
        ("%K > %@", ["age", 10], { $0.age > 10 }),
    ] }

    @Test func everyOperatorSelectsWhatSwiftWould() async throws {
        let realm = try await Self.makeRealm()
        let mismatches = try await realm.read { realm -> [String] in
            let all = realm.objects(Pup.self)
            var mismatches: [String] = []
            for (format, arguments, expected) in Self.cases {
                let found = try all.filter(format, argumentList: arguments).map(\.id)
                let wanted = all.filter(expected).map(\.id)
                if found != wanted { mismatches.append("\(format): \(found.count) found, \(wanted.count) wanted") }
            }
            return mismatches
        }
        #expect(mismatches.isEmpty, "\(mismatches)")
        #expect(Self.cases.count > 30)
    }

    @Test func ownerArgumentsChainsAndLiveness() async throws {
        let realm = try await Self.makeRealm()
        let (byOwner, chained) = try await realm.read { realm in
            let ada = realm.object(ofType: Owner.self, forPrimaryKey: 0)!
            let mine = try realm.objects(Pup.self).filter("owner == %@", ada)
            let chained = try realm.objects(Pup.self).filter("age > 3").sorted(byKeyPath: "age").filter("good == true")
            return (mine.map { $0.owner?.id }, chained.map(\.age))
        }
        #expect(!byOwner.isEmpty && byOwner.allSatisfy { $0 == 0 })
        #expect(chained == chained.sorted() && chained.allSatisfy { $0 > 3 })
        // Live: a later write shows in the same results.
        let counts = try await realm.write { realm in
            let old = try realm.objects(Pup.self).filter("age == 99")
            let before = old.count
            try realm.create(Pup.self, value: ["id": 1000, "name": "new", "age": 99])
            return (before, old.count)
        }
        #expect(counts == (0, 1))
        // Frozen with its predicate and order.
        let frozen = try await realm.read { realm in try realm.objects(Pup.self).filter("age >= 14").sorted(byKeyPath: "name").freeze() }
        let names = await Task.detached { frozen.map(\.name) }.value
        #expect(names == names.sorted() && frozen.count == names.count)
    }

    @Test func sortingIsStableMultiKeyAndThroughLinks() async throws {
        let realm = try await Self.makeRealm()
        let (sorted, expected, byOwner) = try await realm.read { realm in
            let all = realm.objects(Pup.self)
            let sorted = try all.sorted(by: [SortDescriptor(keyPath: "age", ascending: false), "name"]).map(\.id)
            let expected = all.map { $0 }.enumerated().sorted { a, b in
                if a.element.age != b.element.age { return a.element.age > b.element.age }
                if a.element.name != b.element.name { return a.element.name < b.element.name }
                return a.offset < b.offset
            }.map(\.element.id)
            let byOwner = try all.sorted(byKeyPath: "owner.name").map { $0.owner?.name }
            return (sorted, expected, byOwner)
        }
        #expect(sorted == expected)
        // Nulls first, then Swift's string order.
        let present = byOwner.compactMap { $0 }
        #expect(byOwner.prefix(byOwner.count - present.count).allSatisfy { $0 == nil })
        #expect(present == present.sorted())
    }

    static var badCases: [(String, [Any], String)] { [
            ("agee > 3", [], "Pup has no property 'agee'"),
            ("age > %@", [], "more %@ than arguments"),
            ("age > %@", [1, 2], "2 arguments given but the predicate uses 1"),
            ("(age > 3", [], "expected ')'"),
            ("age >", [], "the predicate ends where a value or key path should be"),
            ("name == 'Rex", [], "unterminated string"),
            ("age BEGINSWITH 3", [], "BEGINSWITH applies to strings"),
            ("good < true", [], "does not order Bool"),
            ("age == 'three'", [], "expected Int (to compare with age)"),
            ("owner.nam == 'x'", [], "Owner has no property 'nam'"),
            ("age > 3 garbage", [], "unexpected text"),
            ("%K == 1", [42], "must be a String key path"),
    ] }

    @Test func badPredicatesAreTypedErrorsNamingTheProblem() async throws {
        let realm = try await Self.makeRealm()
        let bad = Self.badCases
        for (index, (format, _, message)) in bad.enumerated() {
            let error = await #expect(throws: FloeError.self, "\(format)") {
                try await realm.read { realm in try realm.objects(Pup.self).filter(Self.badCases[index].0, Self.badCases[index].1).count }
            }
            #expect(error?.description.contains(message) == true, "\(format): \(String(describing: error))")
            #expect(error?.description.contains("table") == false && error?.description.contains("column") == false)
        }
        let sortError = await #expect(throws: FloeError.self) {
            try await realm.read { realm in try realm.objects(Pup.self).sorted(byKeyPath: "tags").count }
        }
        #expect(sortError?.description.contains("'tags' is a collection") == true)
        // The realm goes on.
        #expect(try await realm.read { realm in try realm.objects(Pup.self).filter("age >= 0").count } == 120)
    }
}

extension Results {
    /// `filter` with the arguments as an array (the tests' table of cases). Named apart from
    /// `filter(_:_:)`, which takes an array literal as one argument (`"id IN %@", [1, 2]`).
    func filter(_ format: String, argumentList arguments: [Any]) throws -> Results<Element> {
        switch arguments.count {
        case 0: return try filter(format)
        case 1: return try filter(format, arguments[0])
        default: return try filter(format, arguments[0], arguments[1])
        }
    }
}
