import Floe
import Foundation
import MallocCounter

/// M1–M4, the queries issue's memory bars, counted by the benchmark's own malloc counter
/// (every allocation of the process while counting is on: calls and bytes asked for): a count
/// over 1,000,000 dogs allocates nothing per row, and a filter allocates in proportion to its
/// result (its keys), not to the table. Each figure is the median of several passes, counted
/// inside one read on the realm's actor.
enum MemoryWorkloads {
    static let rounds = 5

    /// Allocations made while `body` runs.
    static func allocations<T>(_ body: () throws -> T) rethrows -> (calls: UInt64, bytes: UInt64, result: T) {
        floe_bench_malloc_reset()
        floe_bench_malloc_counting(1)
        let result = try body()
        floe_bench_malloc_counting(0)
        return (floe_bench_malloc_calls(), floe_bench_malloc_bytes(), result)
    }

    static func run(fixtures: Fixtures, reporter: Reporter) async throws {
        let count = Fixtures.millionDogCount
        let realm = try await Realm(configuration: Realm.Configuration(
            fileURL: URL(fileURLWithPath: fixtures.scratch.file("memory-dogs.floe")), objectTypes: [RealmDog.self], durability: .none))
        let build = try await Clocks.wallTime {
            try await realm.write { realm in
                for index in 0..<count { try realm.add(RealmDog(index: index)) }
            }
        }
        reporter.note("built 1,000,000 dogs in \(Format.duration(nanoseconds: build))")

        let measured: [(String, String, Int, @Sendable (Results<RealmDog>) throws -> Int)] = [
            ("M1 count `age > 50 AND name BEGINSWITH 'dog1'` over 1M", "age > 50 AND name BEGINSWITH 'dog1'", 54_439, { $0.count }),
            ("M2 filter `age == 1000` over 1M (no match), its keys", "age == 1000", 0, { $0.last == nil ? $0.count : -1 }),
            ("M3 filter `age == 7` over 1M (10,000 matches), its keys", "age == 7", 10_000, { $0.last?.age == 7 ? $0.count : -1 }),
            ("M4 filter `age < 50` over 1M (500,000 matches), its keys", "age < 50", 500_000, { $0.last?.age == 49 ? $0.count : -1 }),
        ]
        for (workload, predicate, expected, body) in measured {
            var calls = Samples(), bytes = Samples()
            for _ in 0..<rounds {
                let (callCount, byteCount, found) = try await realm.read { realm in
                    let results = try realm.objects(RealmDog.self).filter(predicate)
                    return try allocations { try body(results) }
                }
                guard found == expected else { throw BenchmarkFailure("\(workload): found \(found), expected \(expected)") }
                calls.append(Double(callCount))
                bytes.append(Double(byteCount))
            }
            let medianCalls = calls.median, medianBytes = bytes.median
            let perRow = medianBytes / Double(count)
            let perResult = expected > 0 ? String(format: "%.1f B per match", medianBytes / Double(expected)) : "—"
            let isCount = workload.hasPrefix("M1")
            reporter.add(ReportLine(
                workload: workload,
                floe: "\(Int(medianCalls)) mallocs, \(Format.bytes(medianBytes))",
                ratio: String(format: "%.3f B per object of the table; %@", perRow, perResult),
                target: isCount ? "nothing per row" : "∝ the result, not the table",
                verdict: isCount ? (medianCalls < 1_000 ? .met : .missed)
                                 : (medianBytes <= 64 * 1024 + 24 * Double(expected) ? .met : .missed)))
        }
    }
}
