import Floe
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
        for _ in 0..<3 {
            floeRates.append(try await floeRound(scratch: scratch))
            peerRates.append(try await peerRound(scratch: scratch))
        }
        reporter.add(ReportLine(
            workload: "W8 100 tasks × durable one-dog writes, commits/s",
            floe: "\(Int(floeRates.median.rounded())) /s",
            peer: "\(Int(peerRates.median.rounded())) /s",
            ratio: String(format: "%.1f×", floeRates.median / peerRates.median),
            target: "≥ 50,000 commits/s",
            verdict: floeRates.median >= 50_000 ? .met : .missed))
    }

    /// Commits per second over `tasks × floeWritesPerTask` awaited writes.
    private static func floeRound(scratch: ScratchDirectory) async throws -> Double {
        let name = "group.floe"
        scratch.remove(name)
        defer { scratch.remove(name) }
        let realm = try await RealmDogs.open(at: scratch.file(name), durability: .full)
        let elapsed = try await Clocks.wallTime {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for task in 0..<tasks {
                    group.addTask {
                        for index in 0..<floeWritesPerTask {
                            let dog = RealmDog(index: task * floeWritesPerTask + index)
                            try await realm.asyncWrite { realm in try realm.add(dog) }
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        let stored = try await RealmDogs.count(in: realm)
        guard stored == tasks * floeWritesPerTask else { throw BenchmarkFailure("Floe holds \(stored) dogs after W8") }
        return Double(stored) / (elapsed / 1e9)
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
