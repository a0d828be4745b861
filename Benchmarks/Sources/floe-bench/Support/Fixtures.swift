import Foundation

/// Data shared by several workload groups, built once per run: the 1,000,000-dog Floe file.
final class Fixtures {
    static let millionDogCount = 1_000_000

    let scratch: ScratchDirectory
    private let reporter: Reporter
    private var millionDogFile: String?

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
}
