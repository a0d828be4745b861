import Foundation
import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

/// The wrong answers found on less travelled paths, each as it was reported: Decimal128 compared
/// by its bits, NaN matching ordered comparisons, canonically equivalent strings told apart by an
/// index but not by a scan, integer sums that wrapped and means that trapped.
@Suite struct ValueRuleRegressionTests {
    final class Account: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var balance: Decimal128 = 0
        @Persisted var d = 0.0
        @Persisted var f: Float = 0
        @Persisted var i = 0
        @Persisted var small: Int8 = 0
        @Persisted var s = ""
        @Persisted(indexed: true) var indexed = ""
        @Persisted(indexed: true) var mixed: AnyRealmValue
        @Persisted var scores: List<Int>
        @Persisted var smalls: List<Int8>
        @Persisted var decimals: MutableSet<Decimal128>
        @Persisted var names: MutableSet<String>
        @Persisted var labels: Map<String, Int>
    }

    final class Keyed: Object {
        @Persisted(primaryKey: true) var key = ""
    }

    static func realm() async throws -> Realm {
        try await inMemoryRealm("value-rule-regressions", objectTypes: [Account.self, Keyed.self])
    }

    static func accounts(_ realm: Realm, balances: [Decimal128]) async throws {
        try await realm.write { realm in
            for (id, balance) in balances.enumerated() { try realm.create(Account.self, value: ["id": id, "balance": balance]) }
        }
    }

    func ids(_ realm: Realm, _ format: String, _ args: [Decimal128] = []) async throws -> [Int] {
        let args = args
        return try await realm.read { realm in
            try realm.objects(Account.self).filter(format, arguments: args).map(\.id)
        }
    }

    @Test func decimalsCompareByValueInFiltersSortsAndDistinct() async throws {
        let realm = try await Self.realm()
        // 12.34, 0, 5, 100, -3.5, 5.00
        try await Self.accounts(realm, balances: ["12.34", "0", "5", "100", "-3.5", "5.00"])
        #expect(try await ids(realm, "balance > %@", [Decimal128(10)]) == [0, 3])
        #expect(try await ids(realm, "balance > 10") == [0, 3])
        #expect(try await ids(realm, "balance > 10.5") == [0, 3])
        #expect(try await ids(realm, "balance == 5") == [2, 5])
        #expect(try await ids(realm, "balance == 5.0") == [2, 5])
        #expect(try await ids(realm, "balance < 0") == [4])
        #expect(try await ids(realm, "balance BETWEEN {0, 5}") == [1, 2, 5])
        let listed = try await realm.read { realm in
            let wanted: [Decimal128] = [5, "100.0"]
            return try realm.objects(Account.self).filter("balance IN %@", wanted).map(\.id)
        }
        #expect(listed == [2, 3, 5])
        let built = try await realm.read { realm in try realm.objects(Account.self).where { $0.balance > 10 }.map(\.id) }
        #expect(built == [0, 3])
        let sorted = try await realm.read { realm in try realm.objects(Account.self).sorted(byKeyPath: "balance").map(\.balance.description) }
        #expect(sorted == ["-3.5", "0", "5", "5.00", "12.34", "100"])
        let distinct = try await realm.read { realm in try realm.objects(Account.self).distinct(by: ["balance"]).map(\.id) }
        #expect(distinct == [0, 1, 2, 3, 4])
        let sections = try await realm.read { realm in
            try realm.objects(Account.self).sectioned(by: \.balance, ascending: true).map { $0.map(\.id) }
        }
        #expect(sections == [[4], [1], [2, 5], [0], [3]])
    }

    @Test func decimalsInSetsAndMixedIndexesAreNumbers() async throws {
        let realm = try await Self.realm()
        try await realm.write { realm in
            let account = try realm.create(Account.self, value: ["id": 1, "mixed": AnyRealmValue.decimal128("5.00")])
            account.decimals.insert(Decimal128(5))
            account.decimals.insert("5.00")
            account.decimals.insert("5.0")
            try realm.create(Account.self, value: ["id": 2, "mixed": AnyRealmValue.double(5)])
            try realm.create(Account.self, value: ["id": 3, "mixed": AnyRealmValue.int(5)])
            try realm.create(Account.self, value: ["id": 4, "mixed": AnyRealmValue.string("5")])
        }
        let count = try await realm.read { realm in realm.object(ofType: Account.self, forPrimaryKey: 1)!.decimals.count }
        #expect(count == 1)
        // The mixed property is indexed: the index answers, and files 5, 5.0 and 5.00 alike.
        let five = try await realm.read { realm in try realm.objects(Account.self).filter("mixed == 5").map(\.id) }
        #expect(five == [1, 2, 3])
        let built = try await realm.read { realm in try realm.objects(Account.self).where { $0.mixed == .double(5) }.map(\.id) }
        #expect(built == [1, 2, 3])
    }

    @Test func nanMatchesNoOrderedComparisonAndSortsFirst() async throws {
        let realm = try await Self.realm()
        let doubles: [Double] = [.nan, 1, -1, .infinity, .nan, 0]
        try await realm.write { realm in
            for (id, d) in doubles.enumerated() { try realm.create(Account.self, value: ["id": id, "d": d, "f": Float(d), "i": id]) }
        }
        for property in ["d", "f"] {
            #expect(try await ids(realm, "\(property) > 0") == [1, 3])
            #expect(try await ids(realm, "\(property) >= 0") == [1, 3, 5])
            #expect(try await ids(realm, "\(property) <= 1") == [1, 2, 5])
            #expect(try await ids(realm, "\(property) BETWEEN {-10, 10}") == [1, 2, 5])
            #expect(try await ids(realm, "NOT (\(property) > 0)") == [0, 2, 4, 5])
            #expect(try await ids(realm, "\(property) != 1") == [0, 2, 3, 4, 5])
            let sorted = try await realm.read { realm in try realm.objects(Account.self).sorted(byKeyPath: property).map(\.id) }
            #expect(sorted == [0, 4, 2, 5, 1, 3])
            let descending = try await realm.read { realm in try realm.objects(Account.self).sorted(byKeyPath: property, ascending: false).map(\.id) }
            #expect(descending == [3, 1, 5, 2, 0, 4])
            let distinct = try await realm.read { realm in try realm.objects(Account.self).distinct(by: [property]).map(\.id) }
            #expect(distinct == [0, 1, 2, 3, 5])
        }
        let infinite = try await realm.read { realm in try realm.objects(Account.self).where { $0.d >= .infinity }.map(\.id) }
        #expect(infinite == [3])
        let nanArgument = try await realm.read { realm in try realm.objects(Account.self).filter("i > %@", Double.nan).map(\.id) }
        #expect(nanArgument == [])
        let nanEqual = try await realm.read { realm in try realm.objects(Account.self).filter("d == %@", Double.nan).map(\.id) }
        #expect(nanEqual == [0, 4])
    }

    @Test func canonicallyEquivalentStringsAreOneStringOnEveryPath() async throws {
        let realm = try await Self.realm()
        let composed = "\u{E9}", decomposed = "e\u{301}"
        try await realm.write { realm in
            try realm.create(Account.self, value: ["id": 1, "s": composed, "indexed": composed])
            try realm.create(Account.self, value: ["id": 2, "s": decomposed, "indexed": decomposed])
            let account = try realm.create(Account.self, value: ["id": 3, "s": "e", "indexed": "e"])
            account.names.insert(composed)
            account.names.insert(decomposed)
            account.labels[composed] = 1
            account.labels[decomposed] = 2
        }
        for property in ["s", "indexed"] {
            let equal = try await realm.read { realm in try realm.objects(Account.self).filter("\(property) == %@", composed).map(\.id) }
            #expect(equal == [1, 2], "\(property)")
            let listed = try await realm.read { realm in try realm.objects(Account.self).filter("\(property) IN %@", [decomposed]).map(\.id) }
            #expect(listed == [1, 2], "\(property)")
            let distinct = try await realm.read { realm in try realm.objects(Account.self).distinct(by: [property]).map(\.id) }
            #expect(distinct == [1, 3], "\(property)")
        }
        let (names, labels) = try await realm.read { realm in
            let account = realm.object(ofType: Account.self, forPrimaryKey: 3)!
            return (account.names.count, account.labels.count)
        }
        #expect(names == 1 && labels == 1)
        // Primary keys follow the same rule: the second spelling is the same key.
        try await realm.write { realm in _ = try realm.create(Keyed.self, value: ["key": composed]) }
        await #expect(throws: FloeError.self) {
            try await realm.write { realm in _ = try realm.create(Keyed.self, value: ["key": decomposed]) }
        }
        let found = try await realm.read { realm in realm.object(ofType: Keyed.self, forPrimaryKey: decomposed) != nil }
        #expect(found)
    }

    @Test func integerSumsNeverWrap() async throws {
        let realm = try await Self.realm()
        try await realm.write { realm in
            try realm.create(Account.self, value: ["id": 1, "i": Int.max, "small": 100, "scores": [Int.max, 1], "smalls": [Int8(100), Int8(100)]])
            try realm.create(Account.self, value: ["id": 2, "i": 1, "small": 100])
        }
        do {
            _ = try await realm.read { realm in try realm.objects(Account.self).sum(ofProperty: "i") as Int }
            Issue.record("the sum of Int.max and 1 must not be answered")
        } catch let error as FloeError {
            #expect("\(error)".contains("'i'") && "\(error)".contains("Account"))
        }
        await #expect(throws: FloeError.self) { _ = try await realm.read { realm in try realm.objects(Account.self).sum(ofProperty: "small") as Int8 } }
        await #expect(throws: FloeError.self) { _ = try await realm.read { realm in realm.object(ofType: Account.self, forPrimaryKey: 1)!.scores.sum() } }
        await #expect(throws: FloeError.self) { _ = try await realm.read { realm in realm.object(ofType: Account.self, forPrimaryKey: 1)!.smalls.sum() } }
        // In a predicate, @sum is exact and compares by value.
        let over = try await realm.read { realm in try realm.objects(Account.self).filter("scores.@sum > %@", Int.max).map(\.id) }
        #expect(over == [1])
        // The same realm still answers afterwards: the failed reads changed nothing.
        let small: Int = try await realm.read { realm in try realm.objects(Account.self).filter("id == 2").sum(ofProperty: "i") }
        #expect(small == 1)
    }

    @Test func integerMeansAreExactAndNeverTrap() async throws {
        let realm = try await Self.realm()
        try await realm.write { realm in
            try realm.create(Account.self, value: ["id": 1, "i": Int.max, "d": Double.infinity])
            try realm.create(Account.self, value: ["id": 2, "i": Int.max - 1, "d": -Double.infinity])
        }
        let one: Int? = try await realm.read { realm in try realm.objects(Account.self).filter("id == 1").average(ofProperty: "i") }
        #expect(one == Int.max)
        let two: Int? = try await realm.read { realm in try realm.objects(Account.self).average(ofProperty: "i") }
        #expect(two == Int.max - 1)
        let asDouble: Double? = try await realm.read { realm in try realm.objects(Account.self).average(ofProperty: "i") }
        #expect(asDouble == 9_223_372_036_854_775_806.5)
        // The mean of infinity and -infinity is NaN, which no Int holds.
        await #expect(throws: FloeError.self) { _ = try await realm.read { realm in try realm.objects(Account.self).average(ofProperty: "d") as Int? } }
    }

    @Test func integersAndDoublesCompareExactly() async throws {
        let realm = try await Self.realm()
        try await realm.write { realm in
            try realm.create(Account.self, value: ["id": 1, "i": 9_007_199_254_740_993])
            try realm.create(Account.self, value: ["id": 2, "i": Int.max])
        }
        let equal = try await realm.read { realm in try realm.objects(Account.self).filter("i == %@", 9_007_199_254_740_992.0).map(\.id) }
        #expect(equal == [])
        let greater = try await realm.read { realm in try realm.objects(Account.self).filter("i > %@", 9_007_199_254_740_992.0).map(\.id) }
        #expect(greater == [1, 2])
        // Int.max is below 2⁶³, the Double it rounds to.
        let below = try await realm.read { realm in try realm.objects(Account.self).filter("i < %@", 9_223_372_036_854_775_808.0).map(\.id) }
        #expect(below == [1, 2])
    }
}

extension ValueRuleRegressionTests {
    @Test func arrayLiteralArgumentsAreOneArgument() async throws {
        let realm = try await Self.realm()
        try await Self.accounts(realm, balances: ["1", "2", "3"])
        let ints = try await realm.read { realm in try realm.objects(Account.self).filter("id IN %@", [0, 2]).map(\.id) }
        #expect(ints == [0, 2])
        let decimals = try await realm.read { realm in
            try realm.objects(Account.self).filter("balance IN %@", [Decimal128(1), Decimal128("3.0")]).map(\.id)
        }
        #expect(decimals == [0, 2])
    }
}
