@_spi(Engine) import Floe
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage
import GRDB

/// W3 and W3a: sum `age` over the 100,000 dogs.
///
/// W3 iterates the realm's objects (`objects(RealmDog.self).reduce`) inside a read. W3a is
/// the aggregate `objects(RealmDog.self).sum(ofProperty: "age")`, each call awaited from
/// outside the actor; for scale, the engine's own aggregate (`Snapshot.sumOfIntegers` on
/// the realm's store) is measured beside it. GRDB: `fetchAll` + sum.
enum ObjectScanWorkloads {
    static let rounds = 5
    /// The aggregate takes a fraction of a millisecond; several passes per sample keep
    /// timer and scheduler noise out of it.
    static let aggregatePassesPerSample = 20

    static func run(fixtures: Fixtures, reporter: Reporter) async throws {
        let count = Fixtures.dogCount
        let expectedSum = Dog.ageSum(count: count)
        let paths = try await fixtures.dogFilePaths()
        let realm = try await RealmDogs.open(at: paths.floe)
        // The realm's own store: opening its path again returns the store the realm has open.
        let store = try Store.open(path: paths.floe)
        let database = try GRDBDogs.open(at: paths.grdb)
        defer { try? database.close() }

        // The first iteration after open decodes every leaf from the file.
        var firstSum: Int64 = 0
        let firstPass = try await Clocks.wallTime { firstSum = try await RealmDogs.ageSum(in: realm) }
        guard firstSum == expectedSum else { throw BenchmarkFailure("Floe's objects summed \(firstSum), expected \(expectedSum)") }

        let samples = try await Runs.interleaved(rounds: rounds, [{
            var sum: Int64 = 0
            let elapsed = try await Clocks.wallTime {
                sum = try await realm.read { realm in
                    realm.objects(RealmDog.self).reduce(Int64(0)) { $0 + Int64($1.age) }
                }
            }
            guard sum == expectedSum else { throw BenchmarkFailure("Floe's objects summed \(sum), expected \(expectedSum)") }
            return elapsed
        }, {
            var sum = 0
            let elapsed = try await Clocks.wallTime {
                for _ in 0..<aggregatePassesPerSample {
                    sum &+= try await realm.read { realm in
                        try realm.objects(RealmDog.self).sum(ofProperty: "age") as Int
                    }
                }
            }
            guard Int64(sum) == expectedSum &* Int64(aggregatePassesPerSample) else { throw BenchmarkFailure("sum(ofProperty:) gave a wrong total") }
            return elapsed / Double(aggregatePassesPerSample)
        }, {
            var sum: Int64 = 0
            let elapsed = try Clocks.wallTime {
                for _ in 0..<aggregatePassesPerSample {
                    // What an aggregate has to do: take the newest version, find the table
                    // and the column, then run over the column.
                    let snapshot = try store.snapshot()
                    let dogs = try snapshot.table(named: RealmDog.className())
                    guard let age = try snapshot.spec(of: dogs).columnIndex(named: "age") else {
                        throw BenchmarkFailure("the RealmDog table has no age column")
                    }
                    sum &+= try snapshot.sumOfIntegers(in: dogs, column: age)
                }
            }
            guard sum == expectedSum &* Int64(aggregatePassesPerSample) else { throw BenchmarkFailure("sumOfIntegers gave a wrong total") }
            return elapsed / Double(aggregatePassesPerSample)
        }, {
            var sum: Int64 = 0
            let elapsed = try Clocks.wallTime { sum = try GRDBDogs.fetchRecordsAndSumAges(in: database) }
            guard sum == expectedSum else { throw BenchmarkFailure("GRDB records summed \(sum), expected \(expectedSum)") }
            return elapsed
        }])
        let (iteration, objectAggregate, aggregate, peer) = (samples[0], samples[1], samples[2], samples[3])

        reporter.note("Floe's first iteration after open (leaves decoded from the file): \(Format.duration(nanoseconds: firstPass))")
        reporter.add(ReportLine(
            workload: "W3 iterate 100k objects, sum age (GRDB: fetchAll)",
            floe: Format.duration(nanoseconds: iteration.median),
            peer: Format.duration(nanoseconds: peer.median),
            ratio: Format.speedup(floe: iteration.median, peer: peer.median),
            target: "≥ 20× GRDB",
            verdict: peer.median / iteration.median >= 20 ? .met : .missed,
            gate: GateFigure(key: "W3", floe: iteration.median, peer: peer.median)))
        reporter.add(ReportLine(
            workload: "W3a sum(ofProperty: \"age\") (GRDB: fetchAll)",
            floe: Format.duration(nanoseconds: objectAggregate.median),
            peer: Format.duration(nanoseconds: peer.median),
            ratio: Format.speedup(floe: objectAggregate.median, peer: peer.median),
            target: "≥ 50× GRDB",
            verdict: peer.median / objectAggregate.median >= 50 ? .met : .missed,
            gate: GateFigure(key: "W3a", floe: objectAggregate.median, peer: peer.median)))
        reporter.add(ReportLine(
            workload: "W3a same, the engine's sumOfIntegers alone",
            floe: Format.duration(nanoseconds: aggregate.median),
            peer: Format.duration(nanoseconds: peer.median),
            ratio: Format.speedup(floe: aggregate.median, peer: peer.median)))
    }
}
