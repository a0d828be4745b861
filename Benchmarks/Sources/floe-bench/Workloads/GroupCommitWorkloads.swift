@_spi(Engine) import Floe
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage
import Foundation
import GRDB

/// W8: 100 tasks each awaiting 1,000 durable one-dog writes, all at once. Floe's awaited writes
/// queue on the realm's actor and share `fdatasync`s (group commit); SQLite (GRDB, WAL,
/// `synchronous = FULL`) serialises its writers and syncs once per commit, so its side runs
/// 100 tasks × 20 writes and the figure compared is commits per second.
enum GroupCommitWorkloads {
    static let tasks = 100
    static let floeWritesPerTask = 1_000
    static let peerWritesPerTask = 20

    static func run(fixtures: Fixtures, reporter: Reporter) async throws {
        let scratch = fixtures.scratch
        var floeRates = Samples()
        var peerRates = Samples()
        var appended = Samples()
        for _ in 0..<3 {
            let (rate, bytes) = try await floeRound(scratch: scratch)
            floeRates.append(rate)
            appended.append(bytes)
            peerRates.append(try await peerRound(scratch: scratch))
        }
        reporter.note("W8 Floe: a commit appended \(Format.bytes(appended.median)) on average (commits that compacted the file left out)")
        reporter.add(ReportLine(
            workload: "W8 100 tasks × durable one-dog writes, commits/s",
            floe: "\(Int(floeRates.median.rounded())) /s",
            peer: "\(Int(peerRates.median.rounded())) /s",
            ratio: String(format: "%.1f×", floeRates.median / peerRates.median),
            target: "≥ 50,000 commits/s",
            verdict: floeRates.median >= 50_000 ? .met : .missed))
    }

    /// Commits per second over `tasks × floeWritesPerTask` awaited writes.
    /// The committed size of the file as each write begins (writes run one at a time, so in
    /// commit order): consecutive sizes differ by what a commit appended.
    private final class CommittedSizes: @unchecked Sendable {
        private let lock = NSLock()
        private var sizes: [UInt64] = []
        func record(_ size: UInt64) {
            lock.lock()
            sizes.append(size)
            lock.unlock()
        }
        /// The mean of the growths, leaving out commits that compacted (the file shrank).
        var meanAppended: Double {
            lock.lock()
            defer { lock.unlock() }
            let growths = zip(sizes, sizes.dropFirst()).compactMap { $1 > $0 ? Double($1 - $0) : nil }
            return growths.isEmpty ? 0 : growths.reduce(0, +) / Double(growths.count)
        }
    }

    /// Commits per second over `tasks × floeWritesPerTask` awaited writes, and the mean bytes a commit appended.
    private static func floeRound(scratch: ScratchDirectory) async throws -> (Double, Double) {
        let name = "group.floe"
        scratch.remove(name)
        defer { scratch.remove(name) }
        let realm = try await RealmDogs.open(at: scratch.file(name), durability: .full)
        // The committed bytes (the store the realm shares): a `.full` file also holds zeros
        // written ahead of its commits, which the file's size on disk would count.
        let store = try Store.open(path: scratch.file(name))
        let sizes = CommittedSizes()
        let elapsed = try await Clocks.wallTime {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for task in 0..<tasks {
                    group.addTask {
                        for index in 0..<floeWritesPerTask {
                            let dog = RealmDog(index: task * floeWritesPerTask + index)
                            try await realm.asyncWrite { realm in
                                sizes.record(store.fileSize)
                                try realm.add(dog)
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        let stored = try await RealmDogs.count(in: realm)
        guard stored == tasks * floeWritesPerTask else { throw BenchmarkFailure("Floe holds \(stored) dogs after W8") }
        return (Double(stored) / (elapsed / 1e9), sizes.meanAppended)
    }

    private static func peerRound(scratch: ScratchDirectory) async throws -> Double {
        let name = "group.sqlite"
        scratch.remove(name)
        defer { scratch.remove(name) }
        let database = try GRDBDogs.openDurable(at: scratch.file(name))
        try GRDBDogs.createTable(in: database)
        let elapsed = try await Clocks.wallTime {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for task in 0..<tasks {
                    group.addTask {
                        for index in 0..<peerWritesPerTask {
                            let record = DogRecord(index: task * peerWritesPerTask + index)
                            try await database.write { db in try record.insert(db) }
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        let stored = try GRDBDogs.count(in: database)
        try database.close()
        guard stored == tasks * peerWritesPerTask else { throw BenchmarkFailure("GRDB holds \(stored) dogs after W8") }
        return Double(stored) / (elapsed / 1e9)
    }
}
