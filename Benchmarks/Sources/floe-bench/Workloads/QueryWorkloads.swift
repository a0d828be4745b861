import Floe
import Foundation
import GRDB

/// A dog whose name is indexed, with the same text in an unindexed label: the same `==`
/// answered from the index and by a scan.
final class IndexedDog: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted(indexed: true) var name = ""
    @Persisted var label = ""
}

/// A contact whose name starts with any letter, for sectioning by first letter.
final class BenchContact: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""

    var firstLetter: String { name.first.map { String($0) } ?? "" }
}

/// W5 and the query workloads (Q1–Q4).
///
/// W5: `age > 50 AND name BEGINSWITH "dog1"` counted over the 100,000 dogs, 100 times, vs
/// SQLite's `COUNT(*) … WHERE age > 50 AND name GLOB 'dog1*'` through GRDB.
/// Q1: `name == "dog777777"` over 1,000,000 dogs, from the index vs the same value in an
/// unindexed property (a scan). Q2: the 100,000 dogs sorted by weight and read, vs GRDB's
/// `ORDER BY weight` into records. Q3: 80,000 contacts in sections by first letter. Q4: a
/// string predicate parsed and planned (`filter` builds lazy results: nothing is evaluated).
enum QueryWorkloads {
    static let rounds = 5
    static let w5Passes = 100

    static func runW5(fixtures: Fixtures, reporter: Reporter) async throws {
        let paths = try await fixtures.dogFilePaths()
        let realm = try await RealmDogs.open(at: paths.floe)
        let database = try GRDBDogs.open(at: paths.grdb)
        defer { try? database.close() }
        let expected = (0..<Fixtures.dogCount).filter { Dog.age($0) > 50 && Dog.name($0).hasPrefix("dog1") }.count
        let (floe, peer) = try await Runs.alternating(rounds: rounds, floe: {
            var total = 0
            let elapsed = try await Clocks.wallTime {
                total = try await realm.read { realm in
                    var total = 0
                    for _ in 0..<w5Passes {
                        total += try realm.objects(RealmDog.self).filter("age > %@ AND name BEGINSWITH %@", 50, "dog1").count
                    }
                    return total
                }
            }
            guard total == expected * w5Passes else { throw BenchmarkFailure("W5: Floe counted \(total / w5Passes), expected \(expected)") }
            return elapsed
        }, peer: {
            var total = 0
            let elapsed = try Clocks.wallTime {
                total = try database.read { db in
                    var total = 0
                    for _ in 0..<w5Passes {
                        total += try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM dog WHERE age > ? AND name GLOB ?", arguments: [50, "dog1*"]) ?? 0
                    }
                    return total
                }
            }
            guard total == expected * w5Passes else { throw BenchmarkFailure("W5: GRDB counted \(total / w5Passes), expected \(expected)") }
            return elapsed
        })
        reporter.add(ReportLine(
            workload: "W5 count age > 50 && name BEGINSWITH dog1, 100k, ×100",
            floe: Format.duration(nanoseconds: floe.median), peer: Format.duration(nanoseconds: peer.median),
            ratio: Format.speedup(floe: floe.median, peer: peer.median), target: "≥ 10× GRDB",
            verdict: peer.median / floe.median >= 10 ? .met : .missed))
        // The same query written with the type-safe builder: it makes the same predicate tree.
        let builder = try await Runs.interleaved(rounds: rounds, [{
            var total = 0
            let elapsed = try await Clocks.wallTime {
                total = try await realm.read { realm in
                    var total = 0
                    for _ in 0..<w5Passes {
                        total += try realm.objects(RealmDog.self).where { $0.age > 50 && $0.name.starts(with: "dog1") }.count
                    }
                    return total
                }
            }
            guard total == expected * w5Passes else { throw BenchmarkFailure("W5: the builder counted \(total / w5Passes), expected \(expected)") }
            return elapsed
        }])[0]
        reporter.add(ReportLine(
            workload: "W5 same, written with the type-safe builder",
            floe: Format.duration(nanoseconds: builder.median), peer: Format.duration(nanoseconds: peer.median),
            ratio: Format.speedup(floe: builder.median, peer: peer.median), target: "—", verdict: .info))
    }

    static func runQueries(fixtures: Fixtures, reporter: Reporter) async throws {
        try await indexedEquality(fixtures: fixtures, reporter: reporter)
        try await sorting(fixtures: fixtures, reporter: reporter)
        try await sectioning(fixtures: fixtures, reporter: reporter)
        try await parsing(fixtures: fixtures, reporter: reporter)
    }

    static func indexedEquality(fixtures: Fixtures, reporter: Reporter) async throws {
        let count = Fixtures.millionDogCount
        let realm = try await Realm(configuration: Realm.Configuration(
            fileURL: URL(fileURLWithPath: fixtures.scratch.file("indexed-dogs.floe")), objectTypes: [IndexedDog.self], durability: .none))
        let build = try await Clocks.wallTime {
            try await realm.write { realm in
                for index in 0..<count {
                    let dog = IndexedDog()
                    dog.id = index
                    dog.name = Dog.name(index)
                    dog.label = Dog.name(index)
                    try realm.add(dog)
                }
            }
        }
        reporter.note("built 1,000,000 dogs with an indexed name in \(Format.duration(nanoseconds: build))")
        let passes = 1000
        let indexed = try await Runs.repeated(rounds: rounds) {
            var found = 0
            let elapsed = try await Clocks.wallTime {
                found = try await realm.read { realm in
                    var found = 0
                    for pass in 0..<passes { found += try realm.objects(IndexedDog.self).filter("name == %@", Dog.name(777_000 + pass)).count }
                    return found
                }
            }
            guard found == passes else { throw BenchmarkFailure("Q1: the index found \(found) of \(passes)") }
            return elapsed / Double(passes)
        }
        let scan = try await Runs.repeated(rounds: rounds) {
            var found = 0
            let elapsed = try await Clocks.wallTime {
                found = try await realm.read { realm in try realm.objects(IndexedDog.self).filter("label == %@", Dog.name(777_777)).count }
            }
            guard found == 1 else { throw BenchmarkFailure("Q1: the scan found \(found)") }
            return elapsed
        }
        reporter.add(ReportLine(
            workload: "Q1 name == x over 1M: indexed (peer column: full scan)",
            floe: Format.duration(nanoseconds: indexed.median), peer: Format.duration(nanoseconds: scan.median),
            ratio: Format.speedup(floe: indexed.median, peer: scan.median), target: "≥ 100× the scan",
            verdict: scan.median / indexed.median >= 100 ? .met : .missed))
    }

    static func sorting(fixtures: Fixtures, reporter: Reporter) async throws {
        let paths = try await fixtures.dogFilePaths()
        let realm = try await RealmDogs.open(at: paths.floe)
        let database = try GRDBDogs.open(at: paths.grdb)
        defer { try? database.close() }
        let (floe, peer) = try await Runs.alternating(rounds: rounds, floe: {
            var checksum = 0.0, count = 0
            let elapsed = try await Clocks.wallTime {
                (checksum, count) = try await realm.read { realm in
                    var previous = -Double.infinity, checksum = 0.0, count = 0
                    for dog in try realm.objects(RealmDog.self).sorted(byKeyPath: "weight") {
                        guard dog.weight >= previous else { throw BenchmarkFailure("Q2: Floe's order is wrong") }
                        previous = dog.weight
                        checksum += dog.weight
                        count += 1
                    }
                    return (checksum, count)
                }
            }
            guard count == Fixtures.dogCount, checksum > 0 else { throw BenchmarkFailure("Q2: Floe sorted \(count) dogs") }
            return elapsed
        }, peer: {
            var records: [DogRecord] = []
            let elapsed = try Clocks.wallTime {
                records = try database.read { db in try DogRecord.order(Column("weight")).fetchAll(db) }
            }
            guard records.count == Fixtures.dogCount else { throw BenchmarkFailure("Q2: GRDB sorted \(records.count) dogs") }
            return elapsed
        })
        reporter.add(ReportLine(
            workload: "Q2 sort 100k dogs by weight and read them (GRDB: ORDER BY into records)",
            floe: Format.duration(nanoseconds: floe.median), peer: Format.duration(nanoseconds: peer.median),
            ratio: Format.speedup(floe: floe.median, peer: peer.median), target: "≥ 2× GRDB",
            verdict: peer.median / floe.median >= 2 ? .met : .missed))
    }

    static func sectioning(fixtures: Fixtures, reporter: Reporter) async throws {
        let count = 80_000
        let realm = try await Realm(configuration: Realm.Configuration(
            fileURL: URL(fileURLWithPath: fixtures.scratch.file("contacts.floe")), objectTypes: [BenchContact.self], durability: .none))
        var random = SplitMix64(seed: 8087)
        let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZÄÉÖÜ")
        let names = (0..<count).map { index in "\(letters[random.next(below: letters.count)])contact\(index)" }
        try await realm.write { realm in
            for (index, name) in names.enumerated() { try realm.create(BenchContact.self, value: ["id": index, "name": name]) }
        }
        let samples = try await Runs.repeated(rounds: rounds) {
            var sections = 0, objects = 0
            let elapsed = try await Clocks.wallTime {
                (sections, objects) = try await realm.read { realm in
                    let sectioned = try realm.objects(BenchContact.self).sectioned(by: \.firstLetter)
                    return (sectioned.allKeys.count, sectioned.reduce(0) { $0 + $1.count })
                }
            }
            guard sections == letters.count, objects == count else { throw BenchmarkFailure("Q3: \(sections) sections of \(objects) contacts") }
            return elapsed
        }
        reporter.add(ReportLine(
            workload: "Q3 section 80k contacts by first letter",
            floe: Format.duration(nanoseconds: samples.median), target: "≤ 50 ms",
            verdict: samples.median <= 50_000_000 ? .met : .missed))
    }

    static func parsing(fixtures: Fixtures, reporter: Reporter) async throws {
        let paths = try await fixtures.dogFilePaths()
        let realm = try await RealmDogs.open(at: paths.floe)
        let passes = 10_000
        let samples = try await Runs.repeated(rounds: rounds) {
            var built = 0
            let elapsed = try await Clocks.wallTime {
                built = try await realm.read { realm in
                    let dogs = realm.objects(RealmDog.self)
                    var built = 0
                    for pass in 0..<passes {
                        let results = try dogs.filter("age > %@ AND name BEGINSWITH[c] %@ OR (color IN {'black', 'grey'} AND weight <= 10.5)", pass % 100, "dog1")
                        built += results.isFrozen ? 0 : 1
                    }
                    return built
                }
            }
            guard built == passes else { throw BenchmarkFailure("Q4: built \(built) results") }
            return elapsed / Double(passes)
        }
        reporter.add(ReportLine(
            workload: "Q4 parse and plan a 4-term string predicate",
            floe: Format.duration(nanoseconds: samples.median), target: "≤ 20 µs",
            verdict: samples.median <= 20_000 ? .met : .missed))
    }
}

extension Runs {
    /// Measures an awaiting `body` `rounds` times.
    static func repeated(rounds: Int, _ body: () async throws -> Double) async throws -> Samples {
        var samples = Samples()
        for _ in 0..<rounds { samples.append(try await body()) }
        return samples
    }
}
