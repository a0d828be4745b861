import Foundation
import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

/// The query semantics and signatures the queries issue pins, each on a small data set built
/// for it: nulls in comparisons, quantifiers over empty collections, aggregates of nothing,
/// stable sorting, `SortDescriptor`'s forms, and bad predicates as typed errors that name the
/// predicate, the position and the token.
@Suite struct QuerySemanticsTests {
    typealias Pup = QueryTests.Pup

    /// Pups 0…5: weights nil, 5, nil, 12.5, 5, nil; ages 3, 1, 3, 2, 1, 3; pups 0 and 3 have tags.
    static func makeRealm() async throws -> Realm {
        let realm = try await inMemoryRealm("semantics")
        try await realm.asyncWrite { realm in
            let weights: [Double?] = [nil, 5, nil, 12.5, 5, nil]
            let ages = [3, 1, 3, 2, 1, 3]
            for id in 0..<6 {
                let pup = Pup()
                pup.id = id
                pup.name = "pup\(id)"
                pup.age = ages[id]
                pup.weight = weights[id]
                if id == 0 { pup.tags.append(objectsIn: ["x", "y"]) }
                if id == 3 { pup.tags.append("x") }
                try realm.add(pup)
            }
        }
        return realm
    }

    func ids(_ realm: Realm, _ format: String) async throws -> [Int] {
        try await realm.read { realm in try realm.objects(Pup.self).filter(format).map(\.id) }
    }

    @Test func nullIsNeverOrderedAndAlwaysUnequal() async throws {
        let realm = try await Self.makeRealm()
        #expect(try await ids(realm, "weight < 100") == [1, 3, 4])
        #expect(try await ids(realm, "weight > -1") == [1, 3, 4])
        #expect(try await ids(realm, "weight <= 5 OR weight >= 5") == [1, 3, 4])
        #expect(try await ids(realm, "weight != 5") == [0, 2, 3, 5])
        #expect(try await ids(realm, "weight == nil") == [0, 2, 5])
        let built = try await realm.read { realm in try realm.objects(Pup.self).where { $0.weight < 100 || $0.weight != 12.5 }.map(\.id) }
        #expect(built == [0, 1, 2, 3, 4, 5])
    }

    @Test func allAndNoneHoldOverEmptyCollections() async throws {
        let realm = try await Self.makeRealm()
        // Pup 3's one tag is "x"; pups without tags hold for ALL and NONE alike.
        #expect(try await ids(realm, "ALL tags == 'x'") == [1, 2, 3, 4, 5])
        #expect(try await ids(realm, "NONE tags == 'x'") == [1, 2, 4, 5])
        #expect(try await ids(realm, "ANY tags == 'x'") == [0, 3])
    }

    @Test func aggregatesOfNothing() async throws {
        let realm = try await Self.makeRealm()
        let (sum, doubleSum, least, most, mean, count) = try await realm.read { realm in
            let none = try realm.objects(Pup.self).filter("age > 100")
            let sum: Int = try none.sum(ofProperty: "age")
            let doubleSum: Double = try none.sum(ofProperty: "weight")
            let least: Int? = try none.min(ofProperty: "age")
            let most: Double? = try none.max(ofProperty: "weight")
            let mean: Double? = try none.average(ofProperty: "age")
            return (sum, doubleSum, least, most, mean, none.count)
        }
        #expect(count == 0 && sum == 0 && doubleSum == 0)
        #expect(least == nil && most == nil && mean == nil)
        // Nulls are skipped: the mean of 5, 12.5 and 5, not of six values.
        let weightMean: Double? = try await realm.read { realm in try realm.objects(Pup.self).average(ofProperty: "weight") }
        #expect(weightMean == 22.5 / 3)
    }

    @Test func sortingIsStableAndDescriptorsTakeEveryForm() async throws {
        let realm = try await Self.makeRealm()
        let orders = try await realm.read { realm -> [[Int]] in
            let pups = realm.objects(Pup.self)
            return [
                try pups.sorted(byKeyPath: "age").map(\.id),
                try pups.sorted(byKeyPath: "age", ascending: false).map(\.id),
                try pups.sorted(by: \.age).map(\.id),
                try pups.sorted(by: [SortDescriptor(keyPath: "age")]).map(\.id),
                try pups.sorted(by: ["age"]).map(\.id),
                try pups.sorted(by: [SortDescriptor(keyPath: \Pup.age), SortDescriptor(keyPath: \Pup.name, ascending: false)]).map(\.id),
                try pups.sorted(by: [Floe.SortDescriptor(keyPath: "weight", ascending: false)]).map(\.id),
            ]
        }
        // Equal ages keep key order, ascending and descending alike.
        #expect(orders[0] == [1, 4, 3, 0, 2, 5])
        #expect(orders[1] == [0, 2, 5, 3, 1, 4])
        #expect(orders[2] == orders[0] && orders[3] == orders[0] && orders[4] == orders[0])
        #expect(orders[5] == [4, 1, 3, 5, 2, 0])
        // Nulls come first ascending, so last descending.
        #expect(orders[6] == [3, 1, 4, 0, 2, 5])
        #expect(SortDescriptor(keyPath: "age").ascending)
        #expect(SortDescriptor(stringLiteral: "age") == SortDescriptor(keyPath: "age", ascending: true))
        #expect(try SortDescriptor(keyPath: \Pup.weight, ascending: false) == SortDescriptor(keyPath: "weight", ascending: false))
        for keyPath in [\QueryBuilderTests.Hound.scratch, \QueryBuilderTests.Hound.doubledAge] {
            let error = #expect(throws: FloeError.self) { try SortDescriptor(keyPath: keyPath) }
            #expect(error?.description.contains("Hound") == true, "\(String(describing: error))")
        }
    }

    /// Malformed predicates: (format, arguments, position, token, what the reason says).
    static var malformed: [(String, [Any], Int, String, String)] { [
        ("(age > 3", [], 8, "", "expected ')'"),
        ("age > 3)", [], 7, ")", "unexpected text after the predicate"),
        ("age > 3 AND", [], 11, "", "the predicate ends where a value or key path should be"),
        ("age > > 3", [], 6, ">", "expected a value or a key path"),
        ("age 3", [], 4, "3", "expected an operator"),
        ("name == 'Rex", [], 8, "'Rex", "unterminated string"),
        ("age > %@", [], 6, "%@", "more %@ than arguments (0 given)"),
        ("age > %@", [1, 2], 8, "", "2 arguments given but the predicate uses 1"),
        ("name BEGINSWITH[x] 'a'", [], 16, "x]", "unknown option"),
        ("age > %@", [NSObject()], 6, "%@", "is not a value Floe stores"),
    ] }

    @Test func malformedPredicatesNameThePredicatePositionAndToken() async throws {
        let realm = try await Self.makeRealm()
        for (format, arguments, position, token, reason) in Self.malformed {
            let error = #expect(throws: FloeError.self, "\(format)") { try PredicateParser.parse(format, arguments: arguments) }
            guard case .invalidPredicate(let predicate, let at, let found, let why)? = error else {
                Issue.record("\(format): \(String(describing: error))")
                continue
            }
            #expect(predicate == format && at == position && found == token, "\(format): at \(at), token '\(found)'")
            #expect(why.contains(reason), "\(format): \(why)")
            #expect(error?.description.contains(format) == true)
        }
        // Through the public API the same error reaches the caller, and the realm goes on.
        let error = await #expect(throws: FloeError.self) {
            try await realm.read { realm in try realm.objects(Pup.self).filter("age > > 3").count }
        }
        #expect(error?.description.contains("age > > 3") == true)
        #expect(try await ids(realm, "age == 2") == [3])
    }

    /// Predicates that parse but do not fit the model: the class, the key path and why, at
    /// the key path's position and token.
    static let misfits: [(String, Int, String, String)] = [
        ("agee > 3", 0, "agee", "Pup has no property 'agee'"),
        ("age > 1 AND nmae == 'x'", 12, "nmae", "Pup has no property 'nmae'"),
        ("age BEGINSWITH 'a'", 0, "age", "BEGINSWITH applies to strings"),
        ("age > 1 OR good < true", 11, "good", "does not order Bool"),
        ("name > 3", 0, "name", "expected String (to compare with name)"),
        ("owner.nmae == 'x'", 0, "owner.nmae", "Owner has no property 'nmae'"),
        ("age == 2 AND tags.@sum > 1", 13, "tags.@sum", "@sum takes numbers: 'tags' holds List<String>"),
        ("tags.@max == 'x'", 0, "tags.@max", "@max takes numbers or dates: 'tags' holds List<String>"),
        ("%K == 1", 0, "%K", "Pup has no property 'weigth'"),
    ]

    @Test func predicatesThatDoNotFitTheModelAreTypedErrors() async throws {
        let realm = try await Self.makeRealm()
        for (format, position, token, reason) in Self.misfits {
            let error = await #expect(throws: FloeError.self, "\(format)") {
                try await realm.read { realm in try realm.objects(Pup.self).filter(format, argumentList: format.contains("%K") ? ["weigth"] : []).count }
            }
            guard case .invalidPredicate(let predicate, let at, let found, let why)? = error else {
                Issue.record("\(format): \(String(describing: error))")
                continue
            }
            #expect(predicate == format && at == position && found == token, "\(format): at \(at), token '\(found)'")
            #expect(why.contains(reason) && why.contains("Pup"), "\(format): \(why)")
            #expect(!why.contains("table") && !why.contains("column"))
        }
        // Frozen results locate them too.
        let frozen = await #expect(throws: FloeError.self) {
            try await realm.read { realm in _ = try realm.objects(Pup.self).freeze().filter("age > 1 AND agee > 3") }
        }
        #expect(frozen?.description.contains("at position 12 ('agee')") == true, "\(String(describing: frozen))")
        #expect(try await ids(realm, "age == 1") == [1, 4])
    }
}
