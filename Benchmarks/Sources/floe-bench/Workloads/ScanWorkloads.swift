@_spi(Engine) import Floe
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage
import GRDB

/// E3 and E3a: sum `age` over 1,000,000 dogs, through the engine's aggregate
/// (`sumOfIntegers`), through its per-value iteration (`forEachValue`), and through GRDB
/// twice: fetching the one column (`SELECT age`, the strictest peer) and fetching whole
/// records (`fetchAll`, the peer W3 and W3a name).
enum ScanWorkloads {
    static let rounds = 5
    /// The aggregate takes about a millisecond; several passes per sample keep timer and
    /// scheduler noise out of it.
    static let aggregatePassesPerSample = 10

    static func run(fixtures: Fixtures, reporter: Reporter) throws {
        let rowCount = Fixtures.millionDogCount
        let expectedSum = Dog.ageSum(count: rowCount)
        let store = try Store.open(path: try fixtures.millionDogPath(), options: StoreOptions(readOnly: true))
        defer { store.close() }
        let snapshot = try store.snapshot()
        let dogs = try snapshot.table(named: FloeDogs.tableName)
        let ageColumn = FloeDogs.ageColumn

        // The first pass decodes every leaf from the file; later passes find them resident.
        var firstSum: Int64 = 0
        let firstPass = try Clocks.wallTime { firstSum = try snapshot.sumOfIntegers(in: dogs, column: ageColumn) }
        guard firstSum == expectedSum else { throw BenchmarkFailure("sumOfIntegers gave \(firstSum), expected \(expectedSum)") }

        let peerPath = fixtures.scratch.file("scan.sqlite")
        let database = try GRDBDogs.createFilledDatabase(at: peerPath, count: rowCount)
        defer {
            try? database.close()
            fixtures.scratch.remove("scan.sqlite")
        }

        let samples = try Runs.interleaved(rounds: rounds, [{
            var sum: Int64 = 0
            let elapsed = try Clocks.wallTime {
                for _ in 0..<aggregatePassesPerSample { sum &+= try snapshot.sumOfIntegers(in: dogs, column: ageColumn) }
            }
            guard sum == expectedSum &* Int64(aggregatePassesPerSample) else { throw BenchmarkFailure("sumOfIntegers gave a wrong total") }
            return elapsed / Double(aggregatePassesPerSample)
        }, {
            var sum: Int64 = 0
            let elapsed = try Clocks.wallTime {
                try snapshot.forEachValue(in: dogs, column: ageColumn) { _, value in
                    if case .int(let age) = value { sum &+= age }
                    return true
                }
            }
            guard sum == expectedSum else { throw BenchmarkFailure("forEachValue summed \(sum), expected \(expectedSum)") }
            return elapsed
        }, {
            var sum: Int64 = 0
            let elapsed = try Clocks.wallTime { sum = try GRDBDogs.fetchAndSumAges(in: database) }
            guard sum == expectedSum else { throw BenchmarkFailure("GRDB summed \(sum), expected \(expectedSum)") }
            return elapsed
        }, {
            var sum: Int64 = 0
            let elapsed = try Clocks.wallTime { sum = try GRDBDogs.fetchRecordsAndSumAges(in: database) }
            guard sum == expectedSum else { throw BenchmarkFailure("GRDB records summed \(sum), expected \(expectedSum)") }
            return elapsed
        }])
        let (aggregate, iteration, columnPeer, recordPeer) = (samples[0], samples[1], samples[2], samples[3])

        let values = Double(rowCount)
        let aggregateRate = values / aggregate.median * 1_000
        reporter.add(ReportLine(
            workload: "E3a sumOfIntegers(age), 1M dogs (GRDB: SELECT age)",
            floe: "\(Format.duration(nanoseconds: aggregate.median)), \(Format.millionsPerSecond(count: values, nanoseconds: aggregate.median))",
            peer: "\(Format.duration(nanoseconds: columnPeer.median)), \(Format.millionsPerSecond(count: values, nanoseconds: columnPeer.median))",
            ratio: Format.speedup(floe: aggregate.median, peer: columnPeer.median),
            target: "≥ 200 M values/s",
            verdict: aggregateRate >= 200 ? .met : .missed))
        reporter.add(ReportLine(
            workload: "E3a sumOfIntegers(age), 1M dogs (GRDB: fetchAll)",
            floe: Format.duration(nanoseconds: aggregate.median),
            peer: Format.duration(nanoseconds: recordPeer.median),
            ratio: Format.speedup(floe: aggregate.median, peer: recordPeer.median),
            target: "≥ 50× GRDB (W3a bar)",
            verdict: recordPeer.median / aggregate.median >= 50 ? .met : .missed))
        reporter.add(ReportLine(
            workload: "E3a first pass, leaves decoded from the file",
            floe: Format.duration(nanoseconds: firstPass),
            peer: Format.duration(nanoseconds: columnPeer.median),
            ratio: Format.speedup(floe: firstPass, peer: columnPeer.median)))
        reporter.add(ReportLine(
            workload: "E3 forEachValue(age) sum, 1M dogs (GRDB: SELECT age)",
            floe: Format.duration(nanoseconds: iteration.median),
            peer: Format.duration(nanoseconds: columnPeer.median),
            ratio: Format.speedup(floe: iteration.median, peer: columnPeer.median)))
        reporter.add(ReportLine(
            workload: "E3 forEachValue(age) sum, 1M dogs (GRDB: fetchAll)",
            floe: Format.duration(nanoseconds: iteration.median),
            peer: Format.duration(nanoseconds: recordPeer.median),
            ratio: Format.speedup(floe: iteration.median, peer: recordPeer.median),
            target: "≥ 20× GRDB (W3 bar)",
            verdict: recordPeer.median / iteration.median >= 20 ? .met : .missed))
    }
}
