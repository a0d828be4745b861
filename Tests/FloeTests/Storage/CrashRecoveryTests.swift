import Foundation
import Testing
@_spi(Engine) @testable import Floe
@_spi(Engine) @testable import FloeEngine
@_spi(Engine) @testable import FloeStorage
@testable import FloeCrashChild

/// A writer process (`FloeCrashChild run`) commits a deterministic workload with durability
/// `.full` and acknowledges each commit on its standard output; the test kills it with
/// SIGKILL after a random delay, so kills land anywhere in a commit (building nodes, writing,
/// syncing, writing the hint, compacting, acknowledging). Every reopen must hold exactly the
/// state of some version V with lastAcknowledged <= V <= lastAcknowledged + 1: the same
/// workload replayed in memory (`Workload`, shared with the child) tells what that state is,
/// and `Store.verify()` must find nothing wrong with the file.
///
/// Lanes run in parallel. Two keep one file for all their kills, so that recovery follows
/// recovery; two start fresh files regularly. Verification alternates between read-only
/// opens (which must leave a torn tail in place for the next writer to cut) and read-write opens.
@Suite(.ownThread) struct CrashRecoveryTests {
    struct Lane: Sendable, CustomTestStringConvertible {
        let number: Int
        let kills: Int
        /// Start a new file after this many kills; nil keeps one file.
        let freshFileEvery: Int?
        /// The writer's compaction (`every=N` commits, `auto=BYTES`, or none), so that kills
        /// also land inside explicit and automatic compactions.
        let compaction: String

        var testDescription: String {
            "lane \(number): \(kills) kills, " + (freshFileEvery.map { "a fresh file every \($0)" } ?? "one file") + ", compaction \(compaction)"
        }
    }

    /// 300 kills in all by default; `FLOE_CRASH_KILLS=1000` (or more) for the long opt-in run.
    static let killsPerLane = max(1, (ProcessInfo.processInfo.environment["FLOE_CRASH_KILLS"].flatMap(Int.init) ?? 300) / 4)

    static let lanes = [
        Lane(number: 0, kills: killsPerLane, freshFileEvery: nil, compaction: "auto=49152"),
        Lane(number: 1, kills: killsPerLane, freshFileEvery: nil, compaction: "every=4"),
        Lane(number: 2, kills: killsPerLane, freshFileEvery: 5, compaction: "none"),
        Lane(number: 3, kills: killsPerLane, freshFileEvery: 15, compaction: "every=3"),
    ]

    /// One file and the model of its content.
    struct TrackedFile {
        let path: String
        let seed: UInt64
        private(set) var model = WorkloadState()
        private(set) var version: UInt64 = 0

        init(path: String, seed: UInt64) {
            self.path = path
            self.seed = seed
        }

        mutating func advance(to target: UInt64) {
            while version < target {
                version += 1
                Workload.advance(&model, seed: seed, to: version, profile: .crash)
            }
        }
    }

    @Test(arguments: lanes)
    func killedWriterReopensAtAnAcknowledgedPrefix(lane: Lane) throws {
        let directory = TemporaryDirectory("crash\(lane.number)")
        var random = SystemRandomNumberGenerator()
        var file = TrackedFile(path: directory.file("lane\(lane.number)-0.floe"), seed: random.next())
        var files = 1
        var acknowledged: UInt64 = 0
        var compactedFiles = 0
        // On a machine busy with other work the child may not reach its first commit within
        // the delay; the window widens after each run that acknowledged nothing, so the lane
        // still tests recovery after commits rather than only after opens.
        var longestDelay: UInt32 = 45_000
        for kill in 0..<lane.kills {
            if let every = lane.freshFileEvery, kill > 0, kill % every == 0 {
                file = TrackedFile(path: directory.file("lane\(lane.number)-\(files).floe"), seed: random.next())
                files += 1
            }
            let delay = UInt32.random(in: 0...longestDelay, using: &random)
            let context = "lane \(lane.number), kill \(kill), seed \(file.seed), from version \(file.version), after \(delay) µs"

            let child = try CrashChildProcess(["run", file.path, "\(file.seed)", "\(UInt64.max)", lane.compaction])
            guard let ready = child.readLine(killingAfter: 30) else {
                let ending = child.kill()
                Issue.record("the child \(ending) before it was ready (\(context)): \(child.errorText())")
                return
            }
            guard ready == "READY \(file.version)" else {
                child.kill()
                Issue.record("the child opened the file saying '\(ready)' (\(context))")
                return
            }
            usleep(delay)
            let ending = child.kill()
            let lines = child.remainingLines()
            try #require(ending == .signalled(SIGKILL), "the child \(ending) before it was killed (\(context)): \(child.errorText())")

            var lastAcknowledged = file.version
            for line in lines {
                try #require(line == "ACK \(lastAcknowledged + 1)", "unexpected output '\(line)' (\(context))")
                lastAcknowledged += 1
            }
            acknowledged += lastAcknowledged - file.version
            if lastAcknowledged == file.version { longestDelay = min(longestDelay * 2, 1_440_000) }
            if try verifyReopened(&file, lastAcknowledged: lastAcknowledged, readOnly: kill % 2 == 0, context: context) { compactedFiles += 1 }
        }
        // The delays leave time for commits to land (several per run on a local disk): a lane
        // that acknowledged next to nothing did not test recovery at all.
        #expect(acknowledged >= UInt64(lane.kills / 4), "only \(acknowledged) commits were acknowledged in \(lane.kills) runs")
        if lane.compaction != "none" {
            // The writer's compactions ran (a compacted file holds fewer commits than versions).
            #expect(compactedFiles > 0, "no reopened file of this lane had been compacted")
        }
    }

    /// Opens the file the killed writer left, checks the recovered version against the
    /// acknowledgements, runs the store's verification and compares the whole content with the model.
    /// Returns whether the file had been compacted (it holds fewer commits than versions).
    @discardableResult
    private func verifyReopened(_ file: inout TrackedFile, lastAcknowledged: UInt64, readOnly: Bool, context: String) throws -> Bool {
        let sizeBefore = try Self.size(of: file.path)
        let store = try Store.open(path: file.path, options: StoreOptions(readOnly: readOnly, compactsAutomatically: false))
        defer { store.close() }
        let snapshot = try store.snapshot()
        let version = snapshot.version
        try #require(version >= lastAcknowledged && version <= lastAcknowledged + 1,
                     "reopened at version \(version) after the writer acknowledged \(lastAcknowledged) (\(context))")
        try #require(version >= file.version, "reopened at version \(version), older than the \(file.version) seen before (\(context))")
        file.advance(to: version)

        // The recovered tail is exactly what open cut off (or, read-only, ignored).
        #expect(store.fileSize + store.recoveredTailBytes == sizeBefore, "\(context)")
        if readOnly {
            #expect(try Self.size(of: file.path) == sizeBefore, "a read-only open changed the file (\(context))")
        } else {
            #expect(try Self.size(of: file.path) == store.fileSize, "(\(context))")
        }

        // The file verifies: every chunk and checksum, and every tree rule of the recovered version.
        let report = try store.verify()
        #expect(report.isValid && report.version == version, "verification after recovery (\(context)):\n\(report)")

        var loaded = try WorkloadState.load(from: snapshot)
        for index in loaded.tables.indices {
            loaded.tables[index].nextKey = try snapshot.tableNode(snapshot.table(named: loaded.tables[index].spec.name)).nextKey
        }
        // The content is the model's at that version, and nothing else.
        let difference = loaded.firstDifference(from: file.model)
        try #require(difference == nil, "version \(version) differs from the model: \(difference ?? "") (\(context))")
        return report.commits < Int(version)
    }

    static func size(of path: String) throws -> UInt64 {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.size] as? NSNumber)?.uint64Value ?? 0
    }
}
