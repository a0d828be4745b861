import Foundation
import Testing
@_spi(Engine) @_spi(Testing) @testable import Floe
@_spi(Engine) @_spi(Testing) @testable import FloeEngine
@_spi(Engine) @_spi(Testing) @testable import FloeStorage
@testable import FloeCrashChild

/// `Store.recover` (behind `floe recover`) on the corruption tests' damaged files: the copy it
/// makes always opens read-write, verifies, and holds exactly some committed version — the
/// newest whose every node is intact, which is never older than what opening would give.
@Suite struct RecoveryTests {
    @Test func damagedFilesRecoverToAnIntactCommittedVersion() throws {
        let fixture = try CorruptionTests.Fixture.shared.get()
        let directory = TemporaryDirectory("recover")
        var random = WorkloadRandom(seed: 0x4EC0)
        var recoveredNewest = 0, recoveredOlder = 0, refused = 0
        for trial in 0..<60 {
            var bytes = fixture.bytes
            let offset = FileHeader.size + random.below(bytes.count - FileHeader.size)
            if trial % 2 == 0 {
                bytes[offset] ^= UInt8(1) << UInt8(random.below(8))
            } else {
                for index in offset..<min(offset + 16, bytes.count) { bytes[index] = UInt8(random.below(256)) }
            }
            let damaged = directory.file("damaged-\(trial).floe")
            let recovered = directory.file("recovered-\(trial).floe")
            try Data(bytes).write(to: URL(fileURLWithPath: damaged))
            let context = "trial \(trial), damage at \(offset)"
            let opened = Result { () throws(FloeError) -> UInt64 in
                let store = try Store.open(path: damaged, options: StoreOptions(readOnly: true, compactsAutomatically: false))
                defer { store.close() }
                return store.currentVersion
            }
            let outcome: RecoveryOutcome
            do {
                outcome = try Store.recover(path: damaged, to: recovered)
            } catch {
                refused += 1
                #expect(!FileManager.default.fileExists(atPath: recovered), "\(context): a failed recovery left a file")
                continue
            }
            #expect(outcome.version <= UInt64(CorruptionTests.Fixture.versions), "\(context)")
            if case .success(let version) = opened, outcome.version < version {
                // Older than what opening finds: only because that version's tree is damaged.
                let store = try Store.open(path: damaged, options: StoreOptions(readOnly: true, compactsAutomatically: false))
                let report = try store.verify()
                store.close()
                #expect(!report.isValid, "\(context): recovered \(outcome) but version \(version) opens and verifies")
            }
            if outcome.version == UInt64(CorruptionTests.Fixture.versions) { recoveredNewest += 1 } else { recoveredOlder += 1 }
            // The recovered file is sound and holds exactly the recovered version's content.
            let store = try Store.open(path: recovered, options: StoreOptions(compactsAutomatically: false))
            let report = try store.verify()
            #expect(report.isValid && report.version == outcome.version, "\(context): \(report)")
            let snapshot = try store.snapshot()
            let reads = CorruptionTests.ReadComparison(snapshot, expected: fixture.states[Int(outcome.version)])
            #expect(reads.failures == 0 && reads.mismatches.isEmpty, "\(context): \(reads.mismatches.prefix(3))")
            store.close()
        }
        #expect(recoveredNewest > 0 && recoveredOlder > 0, "newest \(recoveredNewest), older \(recoveredOlder), refused \(refused)")
        #expect(refused < 6, "\(refused) of 60 damaged files could not be recovered at all")
    }

    @Test func anIntactFileRecoversToItsNewestVersionAndTheDestinationIsNeverOverwritten() throws {
        let fixture = try CorruptionTests.Fixture.shared.get()
        let directory = TemporaryDirectory("recover-intact")
        let path = directory.file("intact.floe")
        try Data(fixture.bytes).write(to: URL(fileURLWithPath: path))
        let outcome = try Store.recover(path: path, to: directory.file("copy.floe"))
        #expect(outcome == RecoveryOutcome(version: UInt64(CorruptionTests.Fixture.versions), newestVersion: UInt64(CorruptionTests.Fixture.versions), skipped: []))
        #expect(outcome.description == "recovered version 40 of 40 (the newest)")
        #expect(throws: FloeError.self) { try Store.recover(path: path, to: directory.file("copy.floe")) }
    }

    /// Recovery reads the damaged file with positional reads, never through a mapping: a file
    /// to salvage may lie on a disk that cannot read some blocks, and a positional read reports
    /// that as an error (the candidate is skipped) where a mapped page would stop the process.
    /// A mapping that could not be made would have cost the newest version here.
    @Test func recoveryReadsPositionallyNotThroughAMapping() throws {
        let fixture = try CorruptionTests.Fixture.shared.get()
        let directory = TemporaryDirectory("recover-positional")
        // The fault plan's key is in the file names (the directory's name is filtered).
        let path = directory.file("positional-recovery-intact.floe")
        try Data(fixture.bytes).write(to: URL(fileURLWithPath: path))
        FaultInjection.install(.init(pathContains: "positional-recovery-", failing: 0, with: .error(EIO), kinds: [.map]))
        defer { FaultInjection.remove(pathContains: "positional-recovery-") }
        let outcome = try Store.recover(path: path, to: directory.file("positional-recovery-copy.floe"))
        #expect(outcome.version == UInt64(CorruptionTests.Fixture.versions) && outcome.skipped.isEmpty, "\(outcome)")
        #expect(FaultInjection.operations(pathContains: "positional-recovery-").isEmpty)
    }

    @Test func floeRecoverAsAUserRunsIt() throws {
        let fixture = try CorruptionTests.Fixture.shared.get()
        let directory = TemporaryDirectory("recover-cli")
        var bytes = fixture.bytes
        // Damage inside the newest commit's nodes: the file still opens, but that version is lost.
        let start = Int(fixture.chunkStarts.last!) + ChunkHeader.size + 40
        for index in start..<start + 16 { bytes[index] ^= 0x5A }
        try Data(bytes).write(to: directory.url("app.floe"))
        let run = try CommandLineToolTests.floe(["recover", "app.floe", "saved.floe"], in: directory.path)
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.hasPrefix("recovered version 39 of 40 (1 newer version was damaged) into saved.floe"), "\(run.output)")
        let verify = try CommandLineToolTests.floe(["verify", "saved.floe"], in: directory.path)
        #expect(verify.status == 0, "\(verify.output)")
        // The output exists now: refused, and left as it is.
        let again = try CommandLineToolTests.floe(["recover", "app.floe", "saved.floe"], in: directory.path)
        #expect(again.status == 1 && again.output.contains("saved.floe"), "\(again.output)")
        // Not a Floe file at all.
        try Data("not a database".utf8).write(to: directory.url("foreign.floe"))
        let foreign = try CommandLineToolTests.floe(["recover", "foreign.floe", "out.floe"], in: directory.path)
        #expect(foreign.status == 1 && foreign.output.contains("is not a Floe file"), "\(foreign.output)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("out.floe")))
    }
}
