import Floe
import GRDB

/// W5: count the dogs with `age > 50` whose name starts with "dog1", over 100,000 dogs.
///
/// Floe runs the query written with the type-safe builder and, for comparison, the same
/// query as a string predicate (both make one predicate tree); each `count` evaluates it
/// again on the current version. GRDB: `SELECT COUNT(*) … WHERE age > 50 AND name LIKE
/// 'dog1%'` (every name is lower case, so LIKE's case folding changes nothing).
enum QueryWorkloads {
    static let rounds = 3
    /// Queries per sample; the design's workload runs the query 100 times.
    static let queriesPerSample = 10

    static func run(fixtures: Fixtures, reporter: Reporter) async throws {
        let count = Fixtures.dogCount
        let expected = (0..<count).filter { Dog.age($0) > 50 && Dog.name($0).hasPrefix("dog1") }.count
        let paths = try await fixtures.dogFilePaths()
        let realm = try await RealmDogs.open(at: paths.floe)
        let database = try GRDBDogs.open(at: paths.grdb)
        defer { try? database.close() }

        let samples = try await Runs.interleaved(rounds: rounds, [{
            try await perQuery(expected: expected, engine: "Floe's builder") {
                try await realm.read { realm in
                    try realm.objects(RealmDog.self).where { $0.age > 50 && $0.name.starts(with: "dog1") }.count
                }
            }
        }, {
            try await perQuery(expected: expected, engine: "Floe's string predicate") {
                try await realm.read { realm in
                    try realm.objects(RealmDog.self).filter("age > 50 AND name BEGINSWITH 'dog1'").count
                }
            }
        }, {
            try await perQuery(expected: expected, engine: "GRDB") {
                try database.read { db in
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM dog WHERE age > 50 AND name LIKE 'dog1%'") ?? 0
                }
            }
        }])
        let (builder, string, peer) = (samples[0], samples[1], samples[2])
        reporter.add(ReportLine(
            workload: "W5 where { age > 50 && name.starts(with: \"dog1\") }.count",
            floe: Format.duration(nanoseconds: builder.median),
            peer: Format.duration(nanoseconds: peer.median),
            ratio: Format.speedup(floe: builder.median, peer: peer.median),
            target: "≥ 10× GRDB",
            verdict: peer.median / builder.median >= 10 ? .met : .missed))
        reporter.add(ReportLine(
            workload: "W5 same, filter(\"age > 50 AND name BEGINSWITH 'dog1'\")",
            floe: Format.duration(nanoseconds: string.median),
            peer: Format.duration(nanoseconds: peer.median),
            ratio: Format.speedup(floe: string.median, peer: peer.median)))
    }

    /// The time of one query, averaged over `queriesPerSample`, each checked.
    private static func perQuery(expected: Int, engine: String, _ query: () async throws -> Int) async throws -> Double {
        var counts: [Int] = []
        let elapsed = try await Clocks.wallTime {
            for _ in 0..<queriesPerSample { counts.append(try await query()) }
        }
        guard counts.allSatisfy({ $0 == expected }) else { throw BenchmarkFailure("\(engine) counted \(counts), expected \(expected)") }
        return elapsed / Double(queriesPerSample)
    }
}
