@_spi(Engine) import Floe
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// S2: the file after 100,000 single-dog update commits on a 100,000-dog table.
///
/// An append-only file grows with every commit; what matters is that compaction brings it
/// back to the live data, and that automatic compaction keeps it within a small multiple
/// of it without anyone calling `compact()`.
enum FileSizeWorkloads {
    static let rowCount = 100_000
    static let updateCount = 100_000
    /// The bar: the file may hold at most this many times its live data.
    static let maximumFileToLiveRatio = 3.0

    struct Outcome {
        var finalSize: UInt64
        var peakSize: UInt64
        /// File size less dead bytes, as the newest commit record accounts for them.
        var liveBytes: UInt64
        var commitNanoseconds: Double
        /// Commits after which the file had shrunk: automatic compactions.
        var compactions: Int
        /// The slowest single commit (one that compacts stalls the writer).
        var longestCommitNanoseconds: Double
    }

    static func run(fixtures: Fixtures, reporter: Reporter) throws {
        let manualName = "updates-manual.floe"
        let manualPath = fixtures.scratch.file(manualName)
        defer { fixtures.scratch.remove(manualName) }
        let manual = try Store.open(path: manualPath, options: StoreOptions(durability: .none, compactsAutomatically: false))
        let grown = try updateEveryCommit(in: manual)
        let compactionTime = try Clocks.wallTime { try manual.compact() }
        let compactedSize = manual.fileSize
        let compactedLive = manual.fileSize - manual.deadBytes
        try checkAges(in: manual)
        manual.close()

        let automaticName = "updates-automatic.floe"
        let automaticPath = fixtures.scratch.file(automaticName)
        defer { fixtures.scratch.remove(automaticName) }
        let automatic = try Store.open(path: automaticPath, options: StoreOptions(durability: .none, compactsAutomatically: true))
        let bounded = try updateEveryCommit(in: automatic)
        try checkAges(in: automatic)
        automatic.close()

        reporter.note("compact() of the grown file took \(Format.duration(nanoseconds: compactionTime))")
        if !isClose(grown.liveBytes, compactedLive) {
            reporter.note("live bytes the commit record counts (\(grown.liveBytes)) differ from the compacted file's (\(compactedLive))")
        }
        reporter.note("with compactsAutomatically: \(bounded.compactions) compactions; the longest commit (one that compacted) took \(Format.duration(nanoseconds: bounded.longestCommitNanoseconds))")
        reporter.add(ReportLine(
            workload: "S2 file after 100k 1-dog commits on 100k dogs",
            floe: "\(Format.bytes(Double(grown.finalSize))) (\(ratio(grown.finalSize, compactedLive)) live)"))
        reporter.add(ReportLine(
            workload: "S2 same file after compact()",
            floe: "\(Format.bytes(Double(compactedSize))) (\(ratio(compactedSize, compactedLive)) live)",
            target: "≤ 3× live data",
            verdict: Double(compactedSize) <= maximumFileToLiveRatio * Double(compactedLive) ? .met : .missed))
        reporter.add(ReportLine(
            workload: "S2 compactsAutomatically: peak file size",
            floe: "\(Format.bytes(Double(bounded.peakSize))) (\(ratio(bounded.peakSize, compactedLive)) live)",
            target: "≤ 3× live data",
            verdict: Double(bounded.peakSize) <= maximumFileToLiveRatio * Double(compactedLive) ? .met : .missed))
        reporter.add(ReportLine(
            workload: "S2 compactsAutomatically: final file size",
            floe: "\(Format.bytes(Double(bounded.finalSize))) (\(ratio(bounded.finalSize, compactedLive)) live)"))
        reporter.add(ReportLine(
            workload: "S2 mean commit, .none, compactsAutomatically off",
            floe: Format.duration(nanoseconds: grown.commitNanoseconds / Double(updateCount))))
        reporter.add(ReportLine(
            workload: "S2 mean commit, .none, compactsAutomatically on",
            floe: Format.duration(nanoseconds: bounded.commitNanoseconds / Double(updateCount))))
    }

    /// Fills the table, then commits `updateCount` single-dog age changes with no snapshot held.
    private static func updateEveryCommit(in store: Store) throws -> Outcome {
        try FloeDogs.insert(count: rowCount, into: store)
        let dogs = try store.snapshot().table(named: FloeDogs.tableName)
        var keys = SplitMix64(seed: 0x52)
        var peak = store.fileSize
        var compactions = 0
        var longest = 0.0
        let elapsed = try Clocks.wallTime {
            for update in 0..<updateCount {
                let key = keys.next(below: rowCount)
                let sizeBefore = store.fileSize
                let commitTime = try Clocks.wallTime {
                    try FloeDogs.commitAgeChange(in: store, table: dogs, key: Int64(key), age: Int64(Dog.age(key) + 1 + update % 2))
                }
                longest = max(longest, commitTime)
                if store.fileSize < sizeBefore { compactions += 1 }
                peak = max(peak, store.fileSize)
            }
        }
        return Outcome(finalSize: store.fileSize, peakSize: peak, liveBytes: store.fileSize - store.deadBytes,
                       commitNanoseconds: elapsed, compactions: compactions, longestCommitNanoseconds: longest)
    }

    /// Every age is its original value plus 0, 1 or 2: a compaction that lost or mixed up
    /// a leaf would show here.
    private static func checkAges(in store: Store) throws {
        let snapshot = try store.snapshot()
        let dogs = try snapshot.table(named: FloeDogs.tableName)
        guard try snapshot.objectCount(in: dogs) == rowCount else { throw BenchmarkFailure("dogs went missing") }
        var wrongAge: (key: Int64, value: Value)?
        try snapshot.forEachValue(in: dogs, column: FloeDogs.ageColumn) { key, value in
            guard case .int(let age) = value, (0...2).contains(age - Int64(Dog.age(Int(key)))) else {
                wrongAge = (key, value)
                return false
            }
            return true
        }
        if let wrongAge { throw BenchmarkFailure("dog \(wrongAge.key) has age \(wrongAge.value) after the updates") }
    }

    private static func ratio(_ size: UInt64, _ live: UInt64) -> String {
        "\(Format.decimal(Double(size) / Double(max(live, 1)), digits: 2))×"
    }

    private static func isClose(_ left: UInt64, _ right: UInt64) -> Bool {
        Double(max(left, right)) <= Double(min(left, right)) * 1.02
    }
}
