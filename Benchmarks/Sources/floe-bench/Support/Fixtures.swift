import Foundation

/// Data shared by several workload groups, built once per run: the 1,000,000-dog Floe file,
/// and the design's N = 100,000 dogs in a realm and in a GRDB database.
final class Fixtures {
    static let millionDogCount = 1_000_000
    /// N of the W workloads.
    static let dogCount = Scale.size(100_000)

    let scratch: ScratchDirectory
    private let reporter: Reporter
    private var millionDogFile: String?
    private var dogFiles: (floe: String, grdb: String)?

    init(scratch: ScratchDirectory, reporter: Reporter) {
        self.scratch = scratch
        self.reporter = reporter
    }

    /// A Floe file holding 1,000,000 dogs in one commit. Workloads that write must work on
    /// a copy (``copyOfMillionDogFile(named:)``) so that the others see it untouched.
    func millionDogPath() throws -> String {
        if let millionDogFile { return millionDogFile }
        let path = scratch.file("million-dogs.floe")
        let elapsed = try Clocks.wallTime { try FloeDogs.createFile(at: path, count: Self.millionDogCount) }
        reporter.note("built the 1,000,000-dog Floe file in \(Format.duration(nanoseconds: elapsed)) (one commit, durability .none), \(Format.bytes(Double(FileSizes.size(of: path))))")
        millionDogFile = path
        return path
    }

    func copyOfMillionDogFile(named name: String) throws -> String {
        let source = try millionDogPath()
        let destination = scratch.file(name)
        scratch.remove(name)
        try FileManager.default.copyItem(atPath: source, toPath: destination)
        return destination
    }

    /// A realm file holding `dogCount` RealmDogs (added through the object API in one write)
    /// and a GRDB database holding the same dogs (checkpointed, closed). Workloads that write
    /// must work on copies (``copyOfDogFiles(suffix:)``).
    func dogFilePaths() async throws -> (floe: String, grdb: String) {
        if let dogFiles { return dogFiles }
        let floePath = scratch.file("dogs.floe")
        let grdbPath = scratch.file("dogs.sqlite")
        let floeTime = try await Clocks.wallTime {
            let realm = try await RealmDogs.open(at: floePath)
            try await RealmDogs.add(count: Self.dogCount, to: realm)
        }
        let grdbTime = try Clocks.wallTime {
            try GRDBDogs.createFilledDatabase(at: grdbPath, count: Self.dogCount).close()
        }
        reporter.note("built the \(Format.grouped(Int64(Self.dogCount)))-dog realm in \(Format.duration(nanoseconds: floeTime)) (\(Format.bytes(Double(FileSizes.size(of: floePath))))) and the GRDB database in \(Format.duration(nanoseconds: grdbTime)) (\(Format.bytes(Double(FileSizes.size(of: grdbPath)))))")
        dogFiles = (floePath, grdbPath)
        return (floePath, grdbPath)
    }

    /// Fresh copies of both dog files, named `dogs-<suffix>.floe` and `dogs-<suffix>.sqlite`.
    func copyOfDogFiles(suffix: String) async throws -> (floe: String, grdb: String) {
        let sources = try await dogFilePaths()
        var copies: [String] = []
        for (source, ext) in [(sources.floe, "floe"), (sources.grdb, "sqlite")] {
            let name = "dogs-\(suffix).\(ext)"
            scratch.remove(name)
            try FileManager.default.copyItem(atPath: source, toPath: scratch.file(name))
            // A fresh copy sits dirty in the page cache: the first commit that syncs would
            // write the whole file. Synced here, so that no measurement pays for the copy.
            let descriptor = open(scratch.file(name), O_RDWR)
            let synced = descriptor >= 0 && fsync(descriptor) == 0
            if descriptor >= 0 { close(descriptor) }
            guard synced else { throw BenchmarkFailure("could not sync the copy \(name)") }
            copies.append(scratch.file(name))
        }
        return (copies[0], copies[1])
    }
}
