import Foundation
import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

/// Aggregates, filtering, sorting and distinct on every collection: each result checked
/// against Swift's own computation over the same random objects.
@Suite struct CollectionQueryTests {
    final class Walker: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var dogs: List<Hound>
        @Persisted var favorites: MutableSet<Hound>
        @Persisted var scores: List<Int>
        @Persisted var weights: List<Double?>
        @Persisted var lucky: MutableSet<Int>
        @Persisted var byName: Map<String, Hound?>
        @Persisted(originProperty: "walker") var walked: LinkingObjects<Hound>
    }

    final class Hound: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var age = 0
        @Persisted var weight: Double?
        @Persisted var height: Float = 0
        @Persisted var price = Decimal128(0)
        @Persisted var born = Date(timeIntervalSince1970: 0)
        @Persisted var walker: Walker?
        @Persisted(originProperty: "dogs") var walkers: LinkingObjects<Walker>
    }

    static let names = ["Rex", "Bella", "Ωmega", "Élan", "b"]

    static func makeRealm(seed: UInt64 = 3, hounds: Int = 150) async throws -> Realm {
        let realm = try await inMemoryRealm("collection-query")
        try await realm.asyncWrite { realm in
            var random = SeededGenerator(seed: seed)
            let walkers = try (0..<4).map { (id: Int) throws -> Walker in try realm.create(Walker.self, value: ["id": id, "name": names[id]]) }
            for id in 0..<hounds {
                let hound = Hound()
                hound.id = id
                hound.name = names.randomElement(using: &random)!
                hound.age = Int.random(in: -5...20, using: &random)
                hound.weight = Bool.random(using: &random) ? Double(Int.random(in: 1...400, using: &random)) / 4 : nil
                hound.height = Float(Int.random(in: 0...200, using: &random)) / 2
                hound.price = Decimal128(Int.random(in: -1000...1000, using: &random))
                hound.born = Date(timeIntervalSince1970: Double(Int.random(in: 0...2_000_000_000, using: &random)))
                hound.walker = Bool.random(using: &random) ? walkers.randomElement(using: &random) : nil
                try realm.add(hound)
                for walker in walkers where Int.random(in: 0..<3, using: &random) == 0 {
                    walker.dogs.append(hound)
                    if Bool.random(using: &random) { walker.dogs.append(hound) }   // a list may hold an object twice
                    if Bool.random(using: &random) { walker.favorites.insert(hound) }
                    if Int.random(in: 0..<3, using: &random) == 0 { walker.byName["k\(id % 40)"] = Bool.random(using: &random) ? hound : nil }
                }
            }
            for walker in walkers.dropLast() {
                for _ in 0..<Int.random(in: 1...9, using: &random) {
                    walker.scores.append(Int.random(in: -50...50, using: &random))
                    walker.weights.append(Bool.random(using: &random) ? Double(Int.random(in: 0...40, using: &random)) / 8 : nil)
                    walker.lucky.insert(Int.random(in: 0...9, using: &random))
                }
            }
        }
        return realm
    }

    /// Every aggregate of a collection, next to the same aggregates computed by Swift over its objects.
    struct Aggregates: Equatable, CustomStringConvertible {
        var ageMin: Int?, ageMax: Int?, ageSum: Int, ageAverage: Double?
        var weightMin: Double?, weightMax: Double?, weightSum: Double, weightAverage: Double?
        var heightSum: Float, heightMax: Float?
        var priceSum: Decimal128, priceMin: Decimal128?, priceAverage: Decimal128?
        var bornMin: Date?, bornMax: Date?

        var description: String {
            "age \(String(describing: ageMin))...\(String(describing: ageMax)) Σ\(ageSum) ~\(String(describing: ageAverage)); weight Σ\(weightSum) ~\(String(describing: weightAverage)); price Σ\(priceSum)"
        }

        init<C: _AggregatableObjects>(of collection: C) throws where C._AggregatedObject == Hound {
            ageMin = try collection.min(ofProperty: "age")
            ageMax = try collection.max(of: \.age)
            ageSum = try collection.sum(ofProperty: "age")
            ageAverage = try collection.average(ofProperty: "age")
            weightMin = try collection.min(ofProperty: "weight")
            weightMax = try collection.max(ofProperty: "weight")
            weightSum = try collection.sum(ofProperty: "weight")
            weightAverage = try collection.average(ofProperty: "weight")
            heightSum = try collection.sum(of: \.height)
            heightMax = try collection.max(ofProperty: "height")
            priceSum = try collection.sum(of: \.price)
            priceMin = try collection.min(ofProperty: "price")
            priceAverage = try collection.average(of: \.price)
            bornMin = try collection.min(of: \.born)
            bornMax = try collection.max(ofProperty: "born")
        }

        init(expected hounds: [Hound]) {
            let ages = hounds.map(\.age), weights = hounds.compactMap(\.weight), prices = hounds.map(\.price)
            ageMin = ages.min()
            ageMax = ages.max()
            ageSum = ages.reduce(0, +)
            ageAverage = ages.isEmpty ? nil : Double(ages.reduce(0, +)) / Double(ages.count)
            weightMin = weights.min()
            weightMax = weights.max()
            weightSum = weights.reduce(0, +)
            weightAverage = weights.isEmpty ? nil : weights.reduce(0, +) / Double(weights.count)
            heightSum = Float(hounds.map { Double($0.height) }.reduce(0, +))
            heightMax = hounds.map(\.height).max()
            priceSum = prices.reduce(Decimal128(0), +)
            priceMin = prices.min()
            priceAverage = prices.isEmpty ? nil : prices.reduce(Decimal128(0), +) / Decimal128(prices.count)
            bornMin = hounds.map(\.born).min()
            bornMax = hounds.map(\.born).max()
        }
    }

    @Test func aggregatesOnEveryCollectionMatchSwift() async throws {
        let realm = try await Self.makeRealm()
        let mismatches = try await realm.read { realm -> [String] in
            var mismatches: [String] = []
            func check<C: _AggregatableObjects>(_ label: String, _ collection: C, _ objects: [Hound]) throws where C._AggregatedObject == Hound {
                let found = try Aggregates(of: collection), wanted = Aggregates(expected: objects)
                if found != wanted { mismatches.append("\(label): \(found) ≠ \(wanted)") }
            }
            let all = realm.objects(Hound.self)
            try check("all", all, Array(all))
            let old = try all.filter("age > 10")
            try check("filtered", old, Array(all).filter { $0.age > 10 })
            try check("sorted", try all.sorted(byKeyPath: "name"), Array(all))
            try check("none", try all.filter("age > 100"), [])
            try check("any collection", AnyRealmCollection(old), Array(all).filter { $0.age > 10 })
            for walker in realm.objects(Walker.self) {
                try check("list \(walker.id)", walker.dogs, Array(walker.dogs))
                try check("set \(walker.id)", walker.favorites, Array(walker.favorites))
                try check("any list \(walker.id)", AnyRealmCollection(walker.dogs), Array(walker.dogs))
                let unmanaged = List<Hound>()
                unmanaged.append(objectsIn: try walker.dogs.map { try Hound(value: $0) })
                try check("unmanaged list \(walker.id)", unmanaged, Array(unmanaged))
            }
            for walker in realm.objects(Walker.self) {
                try check("walked by \(walker.id)", walker.walked, Array(all).filter { $0.walker?.id == walker.id })
            }
            return mismatches
        }
        #expect(mismatches.isEmpty, "\(mismatches)")

        // Frozen results and lists give the same answers from another task.
        let (frozen, frozenList) = try await realm.read { realm in
            (try realm.objects(Hound.self).filter("weight != nil").freeze(), try realm.objects(Walker.self)[0].dogs.freeze())
        }
        let (wantedFrozen, wantedList) = try await realm.read { realm in
            (Aggregates(expected: Array(try realm.objects(Hound.self).filter("weight != nil"))),
             Aggregates(expected: Array(realm.objects(Walker.self)[0].dogs)))
        }
        let (foundFrozen, foundList) = try await Task.detached { (try Aggregates(of: frozen), try Aggregates(of: frozenList)) }.value
        #expect(foundFrozen == wantedFrozen)
        #expect(foundList == wantedList)
    }

    @Test func aggregatesOfNothingAndOfAClassWithoutObjects() async throws {
        let realm = try await inMemoryRealm("empty-aggregates")
        let (sum, min, average, listSum, listMin) = try await realm.read { realm in
            let hounds = realm.objects(Hound.self)
            let sum: Int = try hounds.sum(ofProperty: "age")
            let min: Date? = try hounds.min(ofProperty: "born")
            let average: Double? = try hounds.average(of: \.weight) ?? nil
            let scores = List<Int>()
            return (sum, min, average, scores.sum(), scores.min())
        }
        #expect(sum == 0 && min == nil && average == nil && listSum == 0 && listMin == nil)
    }

    @Test func aggregatesOfValueCollectionsMatchSwift() async throws {
        let realm = try await Self.makeRealm()
        let rows = try await realm.read { realm in
            realm.objects(Walker.self).map { walker -> [Double?] in
                var row: [Double?] = [walker.scores.min().map(Double.init), walker.scores.max().map(Double.init)]
                row.append(Double(walker.scores.sum()))
                row.append(walker.scores.average())
                row.append(walker.weights.min() ?? nil)
                row.append(walker.weights.max() ?? nil)
                row.append(walker.weights.sum())
                row.append(walker.weights.average())
                row.append(walker.lucky.min().map(Double.init))
                row.append(Double(walker.lucky.sum()))
                row.append(walker.lucky.average())
                return row
            }
        }
        let expected = try await realm.read { realm in
            realm.objects(Walker.self).map { walker -> [Double?] in
                let scores = Array(walker.scores), weights = walker.weights.compactMap { $0 }, lucky = Array(walker.lucky)
                let scoreSum = scores.reduce(0, +), weightSum = weights.reduce(0, +), luckySum = lucky.reduce(0, +)
                var row: [Double?] = [scores.min().map(Double.init), scores.max().map(Double.init), Double(scoreSum)]
                row.append(scores.isEmpty ? nil : Double(scoreSum) / Double(scores.count))
                row.append(contentsOf: [weights.min(), weights.max(), weightSum])
                row.append(weights.isEmpty ? nil : weightSum / Double(weights.count))
                row.append(contentsOf: [lucky.min().map(Double.init), Double(luckySum)])
                row.append(lucky.isEmpty ? nil : Double(luckySum) / Double(lucky.count))
                return row
            }
        }
        #expect(rows == expected)
        #expect(rows.last?[0] == nil, "the last walker has no scores: min of nothing is nil")
        #expect(rows.last?[2] == 0, "and their sum is 0")
        let unmanaged = List<Int>()
        unmanaged.append(objectsIn: [3, -1, 7])
        #expect(unmanaged.min() == -1 && unmanaged.max() == 7 && unmanaged.sum() == 9 && unmanaged.average() == 3.0)
    }

    @Test func badAggregatesAreTypedErrors() async throws {
        let realm = try await Self.makeRealm(hounds: 5)
        let cases: [(String, @Sendable (Results<Hound>) throws -> Void, String)] = [
            ("unknown", { let _: Int? = try $0.min(ofProperty: "agee") }, "Hound has no property 'agee'"),
            ("string", { let _: Int = try $0.sum(ofProperty: "name") }, "sum needs an Int, Float, Double or Decimal128 property, and 'name' is String"),
            ("date sum", { let _: Date = try $0.sum(ofProperty: "born") }, "'born' is Date"),
            ("link", { let _: Int? = try $0.max(ofProperty: "walker") }, "max needs an Int, Float, Double, Decimal128 or Date property"),
            ("computed key path", { _ = try $0.sum(of: \.doubleAge) }, "reads no @Persisted property"),
            ("key path computed from a property", { _ = try $0.sum(of: \.ageInMonths) }, "is computed from 'age'"),
        ]
        for (label, body, message) in cases {
            let error = await #expect(throws: FloeError.self, "\(label)") {
                try await realm.read { realm in try body(realm.objects(Hound.self)) }
            }
            #expect(error?.description.contains(message) == true, "\(label): \(String(describing: error))")
        }
    }
}

extension CollectionQueryTests {
    @Test func filterAndSortOnEveryCollectionMatchSwiftAndStayLive() async throws {
        let realm = try await Self.makeRealm()
        let mismatches = try await realm.read { realm -> [String] in
            var mismatches: [String] = []
            func expect(_ label: String, _ found: [Int], _ wanted: [Int]) {
                if found != wanted { mismatches.append("\(label): \(found) ≠ \(wanted)") }
            }
            let all = Array(realm.objects(Hound.self))
            for walker in realm.objects(Walker.self) {
                let dogs = Array(walker.dogs), favorites = Array(walker.favorites)
                let walked = all.filter { $0.walker?.id == walker.id }
                expect("list filter", try walker.dogs.filter("age > %@ AND name != %@", 5, "Rex").map(\.id),
                       dogs.filter { $0.age > 5 && $0.name != "Rex" }.map(\.id))
                expect("set filter", try walker.favorites.filter("weight == nil").map(\.id), favorites.filter { $0.weight == nil }.map(\.id))
                expect("backlinks filter", try walker.walked.filter("name BEGINSWITH[c] 'b'").map(\.id),
                       walked.filter { $0.name.lowercased().hasPrefix("b") }.map(\.id))
                expect("any filter", try AnyRealmCollection(walker.dogs).filter("age < 0").map(\.id), dogs.filter { $0.age < 0 }.map(\.id))
                // Stable sorts: equal ages keep the collection's order.
                let byAge = dogs.enumerated().sorted { $0.element.age != $1.element.age ? $0.element.age > $1.element.age : $0.offset < $1.offset }
                expect("list sorted", try walker.dogs.sorted(byKeyPath: "age", ascending: false).map(\.id), byAge.map(\.element.id))
                expect("list sorted by key path", try walker.dogs.sorted(by: \.age, ascending: false).map(\.id), byAge.map(\.element.id))
                expect("set sorted", try walker.favorites.sorted(by: [SortDescriptor(keyPath: "name"), "id"]).map(\.id),
                       favorites.sorted { ($0.name, $0.id) < ($1.name, $1.id) }.map(\.id))
                expect("backlinks sorted", try walker.walked.sorted(by: \.id, ascending: false).map(\.id), walked.map(\.id).reversed())
                expect("any sorted", try AnyRealmCollection(walker.favorites).sorted(byKeyPath: "id").map(\.id), favorites.map(\.id).sorted())
                expect("chained", try walker.dogs.filter("age > 0").sorted(byKeyPath: "id").filter("age < 10").map(\.id),
                       dogs.filter { $0.age > 0 && $0.age < 10 }.sorted { $0.id < $1.id }.map(\.id))
            }
            return mismatches
        }
        #expect(mismatches.isEmpty, "\(mismatches)")

        // Live: a filtered list shows the list's later changes.
        let (before, after) = try await realm.write { realm in
            let walker = realm.objects(Walker.self)[0]
            let heavy = try walker.dogs.filter("age == 99")
            let before = heavy.count
            let newcomer = try realm.create(Hound.self, value: ["id": 5000, "name": "New", "age": 99])
            walker.dogs.append(newcomer)
            walker.dogs.append(newcomer)
            return (before, heavy.map(\.id))
        }
        #expect(before == 0 && after == [5000, 5000], "a list's results hold an object as often as the list does")

        // Frozen: the filtered list freezes with its base and predicate.
        let frozen = try await realm.read { realm in try realm.objects(Walker.self)[0].dogs.filter("age == 99").freeze() }
        try await realm.write { realm in realm.objects(Walker.self)[0].dogs.removeAll() }
        #expect(await Task.detached { frozen.map(\.id) }.value == [5000, 5000])
        #expect(try await realm.read { realm in try realm.objects(Walker.self)[0].dogs.filter("age == 99").count } == 0)

        // A deleted owner's list has nothing to query.
        let gone = try await realm.write { realm in
            let walker = realm.objects(Walker.self)[1]
            let results = try walker.favorites.filter("TRUEPREDICATE")
            try realm.delete(walker)
            return results.count
        }
        #expect(gone == 0)
    }

    @Test func unmanagedAndBadCollectionQueriesAreTypedErrors() async throws {
        let unmanaged = List<Hound>()
        #expect(throws: FloeError.self) { try unmanaged.filter("age > 1") }
        let realm = try await Self.makeRealm(hounds: 10)
        let error = await #expect(throws: FloeError.self) {
            try await realm.read { realm in try realm.objects(Walker.self)[0].dogs.filter("agee > 1").count }
        }
        #expect(error?.description.contains("Hound has no property 'agee'") == true)
    }

    @Test func distinctKeepsTheFirstOfEachGroup() async throws {
        let realm = try await Self.makeRealm()
        let (names, wantedNames, pairs, wantedPairs, sortedFirst, wantedSortedFirst) = try await realm.read { realm in
            let all = realm.objects(Hound.self)
            let hounds = Array(all)
            func firsts<Key: Hashable>(_ objects: [Hound], _ key: (Hound) -> Key) -> [Int] {
                var seen = Set<Key>()
                return objects.filter { seen.insert(key($0)).inserted }.map(\.id)
            }
            let names = try all.distinct(by: ["name"]).map(\.id)
            let pairs = try all.filter("age > 3").distinct(by: ["name", "walker.name"]).map(\.id)
            let wantedPairs = firsts(hounds.filter { $0.age > 3 }) { [$0.name, $0.walker?.name ?? "∅"] }
            // After a sort, the first in sorted order stays.
            let sortedFirst = try all.sorted(byKeyPath: "age", ascending: false).distinct(by: ["name"]).map(\.id)
            let byAge = hounds.enumerated().sorted { $0.element.age != $1.element.age ? $0.element.age > $1.element.age : $0.offset < $1.offset }.map(\.element)
            return (names, firsts(hounds, \.name), pairs, wantedPairs, sortedFirst, firsts(byAge, \.name))
        }
        #expect(names == wantedNames && names.count == Self.names.count)
        #expect(pairs == wantedPairs)
        #expect(sortedFirst == wantedSortedFirst)
        let error = await #expect(throws: FloeError.self) {
            try await realm.read { realm in try realm.objects(Hound.self).distinct(by: ["nmae"]).count }
        }
        #expect(error?.description.contains("Hound has no property 'nmae'") == true)
    }

    @Test func sortingByACollectionsCountAndByABacklinksCount() async throws {
        let realm = try await Self.makeRealm()
        let (byDogs, wantedByDogs, byWalked, wantedByWalked, houndsByWalkerDogs, wanted) = try await realm.read { realm in
            let walkers = Array(realm.objects(Walker.self))
            let byDogs = try realm.objects(Walker.self).sorted(byKeyPath: "dogs.@count", ascending: false).map(\.id)
            let wantedByDogs = walkers.enumerated().sorted { $0.element.dogs.count != $1.element.dogs.count ? $0.element.dogs.count > $1.element.dogs.count : $0.offset < $1.offset }.map(\.element.id)
            let byWalked = try realm.objects(Walker.self).sorted(by: [SortDescriptor(keyPath: "walked.@count"), "id"]).map(\.id)
            let wantedByWalked = walkers.sorted { ($0.walked.count, $0.id) < ($1.walked.count, $1.id) }.map(\.id)
            // Through a to-one link, nulls first.
            let hounds = Array(realm.objects(Hound.self))
            let houndsByWalkerDogs = try realm.objects(Hound.self).sorted(by: ["walker.scores.@count", "id"]).map(\.id)
            let wanted = hounds.sorted { ($0.walker.map { $0.scores.count } ?? -1, $0.id) < ($1.walker.map { $0.scores.count } ?? -1, $1.id) }.map(\.id)
            return (byDogs, wantedByDogs, byWalked, wantedByWalked, houndsByWalkerDogs, wanted)
        }
        #expect(byDogs == wantedByDogs)
        #expect(byWalked == wantedByWalked)
        #expect(houndsByWalkerDogs == wanted)
        let error = await #expect(throws: FloeError.self) {
            try await realm.read { realm in try realm.objects(Hound.self).sorted(byKeyPath: "name.@count").count }
        }
        #expect(error?.description.contains("@count needs a list, set, map or linking objects") == true)
    }
}

extension CollectionQueryTests {
    @Test func mapValuesFilterSortAndAggregateTheirObjects() async throws {
        let realm = try await Self.makeRealm()
        let (mismatches, checkedNulls) = try await realm.read { realm -> ([String], Bool) in
            var mismatches: [String] = []
            var checkedNulls = false
            for walker in realm.objects(Walker.self) {
                let values = walker.byName.values
                let objects = values.compactMap { $0 }
                checkedNulls = checkedNulls || objects.count < values.count
                let found = try values.filter("age >= %@", 5).map(\.id), wanted = objects.filter { $0.age >= 5 }.map(\.id)
                if found != wanted { mismatches.append("filter \(walker.id): \(found) ≠ \(wanted)") }
                let sorted = try values.sorted(byKeyPath: "id").map(\.id)
                if sorted != objects.map(\.id).sorted() { mismatches.append("sorted \(walker.id)") }
                if try Aggregates(of: values) != Aggregates(expected: objects) { mismatches.append("aggregates \(walker.id)") }
            }
            return (mismatches, checkedNulls)
        }
        #expect(mismatches.isEmpty, "\(mismatches)")
        #expect(checkedNulls, "some maps hold null values, which queries leave out")
        let frozen = try await realm.read { realm in try realm.objects(Walker.self)[0].byName.freeze() }
        let wanted = try await realm.read { realm in Aggregates(expected: realm.objects(Walker.self)[0].byName.values.compactMap { $0 }) }
        #expect(try await Task.detached { try Aggregates(of: frozen.values) }.value == wanted)
    }
}

extension CollectionQueryTests.Hound {
    /// Not persisted: aggregates cannot use it.
    var doubleAge: Int { 2 }
    var ageInMonths: Int { age * 12 }
}
