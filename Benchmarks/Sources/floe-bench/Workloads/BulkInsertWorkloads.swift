@_spi(Engine) import Floe
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage
import GRDB

/// E1: 100,000 dogs inserted in one durable commit, by the storage engine and by GRDB.
///
/// The engine-level counterpart of W1: the object layer will add work on top, so the
/// engine alone has to clear W1's bar with room to spare.
enum BulkInsertWorkloads {
    static let rowCount = 100_000
    static let rounds = 5

    static func run(fixtures: Fixtures, reporter: Reporter) throws {
        // Both sides get their input ready-made: the figures compare storing, not building values.
        let floeRows = (0..<rowCount).map(FloeDogs.values)
        let records = (0..<rowCount).map(DogRecord.init(index:))
        let scratch = fixtures.scratch

        var floeCommits = Samples()
        let (floe, peer) = try Runs.alternating(rounds: rounds, floe: {
            let (total, commit) = try insertWithFloe(floeRows, scratch: scratch)
            floeCommits.append(commit)
            return total
        }, peer: {
            try insertWithGRDB(records, scratch: scratch)
        })
        let ratio = peer.median / floe.median
        reporter.note("Floe: the insertObject calls took \(Format.duration(nanoseconds: floe.median - floeCommits.median)), the commit (encode, write, fsync) \(Format.duration(nanoseconds: floeCommits.median)) (medians)")
        reporter.add(ReportLine(
            workload: "E1 insert 100k dogs, one commit (.full)",
            floe: Format.duration(nanoseconds: floe.median),
            peer: Format.duration(nanoseconds: peer.median),
            ratio: Format.speedup(floe: floe.median, peer: peer.median),
            target: "≥ 6× GRDB (W1 bar)",
            verdict: ratio >= 6 ? .met : .missed))
    }

    /// Returns the nanoseconds of the whole write transaction and of its commit alone.
    private static func insertWithFloe(_ rows: [[Value]], scratch: ScratchDirectory) throws -> (total: Double, commit: Double) {
        let name = "bulk-insert.floe"
        scratch.remove(name)
        defer { scratch.remove(name) }
        let store = try Store.open(path: scratch.file(name), options: StoreOptions(durability: .full))
        defer { store.close() }
        // The table is created in its own commit, as GRDB's is, so only the insert is timed.
        let setup = try store.beginWrite()
        try setup.createTable(FloeDogs.spec)
        try setup.commit()
        var commit = 0.0
        let elapsed = try Clocks.wallTime {
            let transaction = try store.beginWrite()
            let dogs = try transaction.table(named: FloeDogs.tableName)
            for (index, row) in rows.enumerated() {
                try transaction.insertObject(into: dogs, key: Int64(index), values: row)
            }
            commit = try Clocks.wallTime { try transaction.commit() }
        }
        let snapshot = try store.snapshot()
        let stored = try snapshot.objectCount(in: snapshot.table(named: FloeDogs.tableName))
        guard stored == rows.count else { throw BenchmarkFailure("Floe holds \(stored) dogs after inserting \(rows.count)") }
        return (elapsed, commit)
    }

    private static func insertWithGRDB(_ records: [DogRecord], scratch: ScratchDirectory) throws -> Double {
        let name = "bulk-insert.sqlite"
        scratch.remove(name)
        defer { scratch.remove(name) }
        let database = try GRDBDogs.open(at: scratch.file(name))
        try GRDBDogs.createTable(in: database)
        let elapsed = try Clocks.wallTime { try GRDBDogs.insert(records, into: database) }
        let stored = try database.read { db in try DogRecord.fetchCount(db) }
        guard stored == records.count else { throw BenchmarkFailure("GRDB holds \(stored) dogs after inserting \(records.count)") }
        try database.close()
        return elapsed
    }
}
