import Floe
import Foundation

/// A dog seen through a class projection: its age, and its name under another name.
final class DogProjection: Projection<RealmDog> {
    @Projected(\RealmDog.age) var age
    @Projected(\RealmDog.name) var title
}

/// A link stored as its string and read as a `URL` (a type projection).
final class Bookmark: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var text = ""
    // A required URL needs an initial value: "" (String's default) is no URL.
    @Persisted var url = URL(string: "https://floe.dev")!
}

extension URL: @retroactive FailableCustomPersistable {
    public typealias PersistedType = String
    public init?(persistedValue: String) { self.init(string: persistedValue) }
    public var persistableValue: String { absoluteString }
}

/// P1–P3, the projection issue's cost bars: a projected property against the root's own
/// property, iterating 100k projections against iterating the objects, and a type-projected
/// property against its persisted type plus the mapping's own cost. No peer: each compares
/// Floe with itself, inside one read on the realm's actor.
enum ProjectionWorkloads {
    static let rounds = 5
    static let reads = 1_000_000
    static let bookmarks = 100_000

    static func run(fixtures: Fixtures, reporter: Reporter) async throws {
        let paths = try await fixtures.dogFilePaths()
        let realm = try await RealmDogs.open(at: paths.floe)
        let expectedSum = Dog.ageSum(count: Fixtures.dogCount)

        // P1: one object's property read again and again, directly and through a projection.
        let single = try await Runs.interleaved(rounds: rounds, [{
            try await realm.read { realm in
                let dog = realm.object(ofType: RealmDog.self, forPrimaryKey: 7)!
                var total = 0
                let elapsed = Clocks.wallTime { for _ in 0..<reads { total &+= dog.age } }
                guard total == Dog.age(7) * reads else { throw BenchmarkFailure("P1: the object read a wrong age") }
                return elapsed
            }
        }, {
            try await realm.read { realm in
                let dog = realm.object(ofType: DogProjection.self, forPrimaryKey: 7)!
                var total = 0
                let elapsed = Clocks.wallTime { for _ in 0..<reads { total &+= dog.age } }
                guard total == Dog.age(7) * reads else { throw BenchmarkFailure("P1: the projection read a wrong age") }
                return elapsed
            }
        }])
        reporter.add(ReportLine(
            workload: "P1 read one projected property 1M times (peer column: the root object's own property)",
            floe: Format.duration(nanoseconds: single[1].median), peer: Format.duration(nanoseconds: single[0].median),
            ratio: String(format: "%.2f× the object", single[1].median / single[0].median), target: "≤ 1.2× the object",
            verdict: single[1].median <= 1.2 * single[0].median ? .met : .missed))

        // P2: iterate every dog, summing ages, as objects and as projections.
        let iteration = try await Runs.interleaved(rounds: rounds, [{
            var sum: Int64 = 0
            let elapsed = try await Clocks.wallTime {
                sum = try await realm.read { realm in realm.objects(RealmDog.self).reduce(Int64(0)) { $0 + Int64($1.age) } }
            }
            guard sum == expectedSum else { throw BenchmarkFailure("P2: the objects summed \(sum)") }
            return elapsed
        }, {
            var sum: Int64 = 0
            let elapsed = try await Clocks.wallTime {
                sum = try await realm.read { realm in realm.objects(DogProjection.self).reduce(Int64(0)) { $0 + Int64($1.age) } }
            }
            guard sum == expectedSum else { throw BenchmarkFailure("P2: the projections summed \(sum)") }
            return elapsed
        }])
        reporter.add(ReportLine(
            workload: "P2 iterate 100k projections summing a projected property (peer column: iterating the objects)",
            floe: Format.duration(nanoseconds: iteration[1].median), peer: Format.duration(nanoseconds: iteration[0].median),
            ratio: String(format: "%.2f× the objects", iteration[1].median / iteration[0].median), target: "≤ 1.2× the objects",
            verdict: iteration[1].median <= 1.2 * iteration[0].median ? .met : .missed))

        // P3: a URL stored as a string: read as URL, against reading the string plus URL(string:).
        let marks = try await Realm(configuration: Realm.Configuration(
            fileURL: URL(fileURLWithPath: fixtures.scratch.file("bookmarks.floe")), objectTypes: [Bookmark.self], durability: .none))
        try await marks.asyncWrite { realm in
            for id in 0..<bookmarks {
                let mark = Bookmark()
                mark.id = id
                mark.text = "https://example.com/dogs/\(id)"
                mark.url = URL(string: mark.text)!
                try realm.add(mark)
            }
        }
        let mapped = try await Runs.interleaved(rounds: rounds, [{
            try await marks.read { realm in
                var length = 0
                let elapsed = Clocks.wallTime { for mark in realm.objects(Bookmark.self) { length &+= mark.url.path.count } }
                guard length > 0 else { throw BenchmarkFailure("P3: no paths read") }
                return elapsed
            }
        }, {
            try await marks.read { realm in
                var length = 0
                let elapsed = Clocks.wallTime {
                    for mark in realm.objects(Bookmark.self) { length &+= (URL(string: mark.text)?.path.count ?? 0) }
                }
                guard length > 0 else { throw BenchmarkFailure("P3: no paths read") }
                return elapsed
            }
        }])
        reporter.add(ReportLine(
            workload: "P3 read 100k type-projected URLs (peer column: the stored strings plus URL(string:))",
            floe: Format.duration(nanoseconds: mapped[0].median), peer: Format.duration(nanoseconds: mapped[1].median),
            ratio: String(format: "%.2f× string + mapping", mapped[0].median / mapped[1].median), target: "≤ the mapping's own cost above the string",
            verdict: mapped[0].median <= 1.1 * mapped[1].median ? .met : .missed))
    }
}
