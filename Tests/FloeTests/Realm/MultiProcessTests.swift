import Foundation
import Testing
@_spi(Engine) @testable import Floe
@_spi(Engine) @testable import FloeEngine
@_spi(Engine) @testable import FloeStorage
@testable import FloeCrashChild

/// One process writes a file while another reads it: the reader opens read-only (no lock to
/// wait for), sees a committed version whole, follows new commits with `refresh()`, and
/// follows the file to its compacted copy. Writers stay exclusive.
@Suite(.ownThread) struct MultiProcessTests {
    @Test func aReaderInAnotherProcessFollowsTheWriter() throws {
        let directory = TemporaryDirectory("multiprocess")
        let path = directory.file()
        let seed: UInt64 = 0x5EED
        let writer = try CrashChildProcess(["run", path, "\(seed)"])
        guard writer.readLine(killingAfter: 30) == "READY 0" else {
            let ending = writer.kill()
            Issue.record("the writer \(ending) before it was ready: \(writer.errorText())")
            return
        }
        // Let it commit a few versions first.
        for _ in 0..<3 { _ = writer.readLine(killingAfter: 30) }

        // A second writer is refused while the first holds the file.
        #expect(throws: FloeError.fileLocked(path: FileHandle.canonicalPath(path))) {
            _ = try StorageFile.open(path: FileHandle.canonicalPath(path), readOnly: false, durability: .full)
        }

        let reader = try Store.open(path: path, options: StoreOptions(readOnly: true, compactsAutomatically: false))
        var model = CrashRecoveryTests.TrackedFile(path: path, seed: seed)
        let first = try reader.snapshot()
        try expectMatches(first, &model, context: "first open")
        var versions = [first.version]
        for _ in 0..<20 where versions.count < 4 {
            usleep(20_000)
            if try reader.refresh() {
                let snapshot = try reader.snapshot()
                try expectMatches(snapshot, &model, context: "after refresh")
                versions.append(snapshot.version)
            }
        }
        #expect(versions.count >= 2 && versions == versions.sorted(), "versions seen: \(versions)")
        // A snapshot taken before keeps its version while the reader moves on.
        #expect(first.version == versions[0])
        #expect(writer.kill() == .signalled(SIGKILL))

        // The writer's process compacts the file: the reader follows it to the copy.
        let before = try reader.snapshot()
        let compactor = try CrashChildProcess(["compact", path])
        let compacted = compactor.readLine(killingAfter: 30)
        _ = compactor.waitForExit()
        try #require(compacted?.hasPrefix("COMPACTED") == true, "compaction said \(String(describing: compacted)): \(compactor.errorText())")
        let newest = UInt64(compacted!.dropFirst("COMPACTED ".count))!
        _ = try reader.refresh()
        #expect(reader.currentVersion == newest)
        #expect(reader.fileSize == (try CrashRecoveryTests.size(of: path)))
        let after = try reader.snapshot()
        try expectMatches(after, &model, context: "after the writer compacted")
        // The snapshot from before still reads the old file's bytes.
        #expect(try WorkloadState.load(from: before).tables.count == model.model.tables.count || before.version < after.version)
        reader.close()
    }

    private func expectMatches(_ snapshot: Snapshot, _ model: inout CrashRecoveryTests.TrackedFile, context: String) throws {
        model.advance(to: snapshot.version)
        var loaded = try WorkloadState.load(from: snapshot)
        for index in loaded.tables.indices {
            loaded.tables[index].nextKey = try snapshot.tableNode(snapshot.table(named: loaded.tables[index].spec.name)).nextKey
        }
        let difference = loaded.firstDifference(from: model.model)
        #expect(difference == nil, "version \(snapshot.version) \(context): \(difference ?? "")")
    }

    /// The same through the object API: a read-only realm sees another process's writes at
    /// each `read { }`, and `refresh()` says when there is something new.
    @Test func aReadOnlyRealmFollowsAnotherProcess() async throws {
        let directory = TemporaryDirectory("multiprocess-realm")
        let path = directory.file()
        let writer = try CrashChildProcess(["group", path, "2"])
        guard writer.readLine(killingAfter: 30)?.hasPrefix("READY") == true else {
            let ending = writer.kill()
            Issue.record("the writer \(ending) before it was ready: \(writer.errorText())")
            return
        }
        let viewer = try await Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path), readOnly: true,
                                                                        objectTypes: [GroupCommitEntry.self]))
        let firstIds = Set(try await viewer.read { realm in realm.objects(GroupCommitEntry.self).map(\.id) })
        let first = firstIds.count
        // Acknowledgements queued in the pipe may predate that read: wait for one that does not.
        var newer: Int?
        while newer == nil, let line = writer.readLine(killingAfter: 30) {
            if line.hasPrefix("ACK "), let id = Int(line.dropFirst(4)), !firstIds.contains(id) { newer = id }
        }
        let acknowledged = try #require(newer, "the writer stopped: \(writer.errorText())")
        // Committed and durable in the other process: the viewer must see it now.
        _ = await viewer.refresh()
        let seen = Set(try await viewer.read { realm in realm.objects(GroupCommitEntry.self).map(\.id) })
        #expect(seen.contains(acknowledged), "acknowledged \(acknowledged), not seen among \(seen.count)")
        #expect(firstIds.isSubset(of: seen))
        let second = seen.count
        #expect(second > first, "first \(first), then \(second)")
        #expect(writer.kill() == .signalled(SIGKILL))
        let counts = [first, second]
        let afterKill = try await viewer.read { realm in realm.objects(GroupCommitEntry.self).count }
        #expect(afterKill >= counts.last!)
        await #expect(throws: FloeError.self) {
            try await viewer.asyncWrite { realm in try realm.create(GroupCommitEntry.self, value: ["id": -1]) }
        }
    }

    /// The tool on a file an application is writing: inspect, dump and verify read it.
    @Test func theToolReadsAFileInUse() throws {
        let directory = TemporaryDirectory("multiprocess-tool")
        let writer = try CrashChildProcess(["group", directory.file("app.floe"), "2"])
        guard writer.readLine(killingAfter: 30)?.hasPrefix("READY") == true, writer.readLine(killingAfter: 30) != nil else {
            let ending = writer.kill()
            Issue.record("the writer \(ending) before it was ready: \(writer.errorText())")
            return
        }
        for command in [["inspect", "app.floe"], ["verify", "app.floe"], ["dump", "app.floe", "GroupCommitEntry"]] {
            let run = try CommandLineToolTests.floe(command, in: directory.path)
            #expect(run.status == 0, "floe \(command.joined(separator: " ")): \(run.output)")
            #expect(!run.output.contains("locked"), "\(run.output)")
        }
        #expect(writer.kill() == .signalled(SIGKILL))
    }
}
