@_spi(Engine) import Floe
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// S1: commits that each change one dog's age in a 1,000,000-dog table while 10 older
/// versions are pinned by snapshots. What a commit costs must not grow with the table or
/// with the snapshots held: it copies one leaf and its path, and appends only those.
enum CommitWorkloads {
    static let heldSnapshotCount = 10
    static let commitsPerPass = 1_000
    static let durableCommits = 200

    /// One commit's cost.
    struct CommitCost {
        var cpuNanoseconds: Double
        var wallNanoseconds: Double
        var appendedBytes: Double
    }

    static func run(fixtures: Fixtures, reporter: Reporter) throws {
        let path = try fixtures.copyOfMillionDogFile(named: "commits.floe")
        defer { fixtures.scratch.remove("commits.floe") }
        var keys = SplitMix64(seed: 0x51)

        let unsynced = try Store.open(path: path, options: StoreOptions(durability: .none, compactsAutomatically: false))
        var onDemand: [CommitCost] = []
        var resident: [CommitCost] = []
        try withHeldSnapshots(in: unsynced) { dogs in
            // Right after open, each commit first reads its leaf from the file, as an app's
            // first writes do.
            onDemand = try commitAgeChanges(count: commitsPerPass, in: unsynced, table: dogs, keys: &keys)
            // With every leaf decoded (a scan loads them all), what is left is the commit itself.
            _ = try unsynced.snapshot().sumOfIntegers(in: dogs, column: FloeDogs.ageColumn)
            resident = try commitAgeChanges(count: commitsPerPass, in: unsynced, table: dogs, keys: &keys)
        }
        unsynced.close()

        let durable = try Store.open(path: path, options: StoreOptions(durability: .full, compactsAutomatically: false))
        var synced: [CommitCost] = []
        try withHeldSnapshots(in: durable) { dogs in
            _ = try durable.snapshot().sumOfIntegers(in: dogs, column: FloeDogs.ageColumn)
            synced = try commitAgeChanges(count: durableCommits, in: durable, table: dogs, keys: &keys)
        }
        durable.close()

        report(onDemand, resident: resident, synced: synced, to: reporter)
        let disk = DiskProbe.appendAndSyncLatencies(path: fixtures.scratch.file("disk-probe"))
        reporter.add(ReportLine(
            workload: "disk alone: 8 KiB append + fdatasync, p50",
            floe: Format.duration(nanoseconds: disk.median)))
    }

    /// Takes `heldSnapshotCount` snapshots, each of a different version, runs `body`, then
    /// checks that the oldest snapshot still shows the value it was taken with, although
    /// every later version changed it.
    private static func withHeldSnapshots(in store: Store, _ body: (TableHandle) throws -> Void) throws {
        let dogs = try store.snapshot().table(named: FloeDogs.tableName)
        let watchedKey: Int64 = 424_242
        let oldestValue = try store.snapshot().value(in: dogs, key: watchedKey, column: FloeDogs.ageColumn)
        guard case .int(let oldestAge) = oldestValue else { throw BenchmarkFailure("dog \(watchedKey) has age \(oldestValue)") }
        var snapshots: [Snapshot] = []
        for version in 0..<heldSnapshotCount {
            snapshots.append(try store.snapshot())
            try FloeDogs.commitAgeChange(in: store, table: dogs, key: watchedKey, age: oldestAge + 1 + Int64(version))
        }
        guard store.activeVersionCount == heldSnapshotCount + 1 else {
            throw BenchmarkFailure("\(store.activeVersionCount) active versions with \(heldSnapshotCount) snapshots held")
        }
        try body(dogs)
        let laterValue = try snapshots[0].value(in: dogs, key: watchedKey, column: FloeDogs.ageColumn)
        let currentValue = try store.snapshot().value(in: dogs, key: watchedKey, column: FloeDogs.ageColumn)
        guard laterValue == oldestValue, currentValue != oldestValue else {
            throw BenchmarkFailure("the oldest snapshot shows \(laterValue), taken with \(oldestValue); the store shows \(currentValue)")
        }
    }

    private static func commitAgeChanges(count: Int, in store: Store, table: TableHandle,
                                         keys: inout SplitMix64) throws -> [CommitCost] {
        var costs: [CommitCost] = []
        costs.reserveCapacity(count)
        for _ in 0..<count {
            let key = Int64(keys.next(below: Fixtures.millionDogCount))
            let sizeBefore = store.fileSize
            let cpuStart = Clocks.threadCPUNanoseconds()
            let wallStart = Clocks.wallNanoseconds()
            try FloeDogs.commitAgeChange(in: store, table: table, key: key, age: 100 + key % 100)
            let wallEnd = Clocks.wallNanoseconds()
            let cpuEnd = Clocks.threadCPUNanoseconds()
            costs.append(CommitCost(cpuNanoseconds: Double(cpuEnd - cpuStart), wallNanoseconds: Double(wallEnd - wallStart),
                                    appendedBytes: Double(store.fileSize - sizeBefore)))
        }
        return costs
    }

    private static func report(_ onDemand: [CommitCost], resident: [CommitCost], synced: [CommitCost], to reporter: Reporter) {
        let cpuTarget = 20_000.0
        let bytesTarget = 16_384.0
        for (label, costs) in [("leaves on demand", onDemand), ("tree resident", resident)] {
            let cpu = Samples(costs.map(\.cpuNanoseconds))
            reporter.add(ReportLine(
                workload: "S1 commit CPU p50 (1M dogs, 10 snapshots, \(label))",
                floe: Format.duration(nanoseconds: cpu.median), target: "≤ 20 µs",
                verdict: cpu.median <= cpuTarget ? .met : .missed))
            reporter.add(ReportLine(
                workload: "S1 commit CPU p90 (1M dogs, 10 snapshots, \(label))",
                floe: Format.duration(nanoseconds: cpu.percentile(90)), target: "≤ 20 µs",
                verdict: cpu.percentile(90) <= cpuTarget ? .met : .missed))
        }
        let bytes = Samples((onDemand + resident).map(\.appendedBytes))
        reporter.add(ReportLine(
            workload: "S1 bytes appended per commit, p50",
            floe: Format.bytes(bytes.median), target: "≤ 16 KiB",
            verdict: bytes.median <= bytesTarget ? .met : .missed))
        reporter.add(ReportLine(
            workload: "S1 bytes appended per commit, max",
            floe: Format.bytes(bytes.maximum), target: "≤ 16 KiB",
            verdict: bytes.maximum <= bytesTarget ? .met : .missed))
        let wall = Samples(resident.map(\.wallNanoseconds))
        reporter.add(ReportLine(
            workload: "S1 commit wall time p50, .none",
            floe: Format.duration(nanoseconds: wall.median)))
        let syncedWall = Samples(synced.map(\.wallNanoseconds))
        reporter.add(ReportLine(
            workload: "S1 commit wall time p50, .full (fsync)",
            floe: Format.duration(nanoseconds: syncedWall.median), target: "≤ 150 µs (W2 bar, for scale)",
            verdict: syncedWall.median <= 150_000 ? .met : .missed))
        reporter.add(ReportLine(
            workload: "S1 commit wall time p90, .full (fsync)",
            floe: Format.duration(nanoseconds: syncedWall.percentile(90))))
    }
}
