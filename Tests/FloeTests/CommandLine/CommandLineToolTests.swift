import Foundation
import Testing

/// The `floe` tool as a user runs it: the README's `floe demo`, then inspect, dump, verify and compact.
@Suite(.ownThread) struct CommandLineToolTests {
    struct Run {
        let status: Int32
        let output: String
    }

    static func floe(_ arguments: [String], in directory: String) throws -> Run {
        let process = Process()
        process.executableURL = try CrashChildProcess.executable().deletingLastPathComponent().appendingPathComponent("floe")
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
    }

    @Test func demoInspectDumpVerifyCompact() throws {
        let directory = TemporaryDirectory()
        let first = try Self.floe(["demo"], in: directory.path)
        #expect(first.status == 0, "\(first.output)")
        #expect(first.output.contains("wrote 5 dogs; the realm now holds 5"))
        #expect(first.output.contains("frozen snapshot"))
        #expect(first.output.contains("change stream delivered"))
        #expect(first.output.contains("verified default.floe: ok"), "\(first.output)")
        let second = try Self.floe(["demo"], in: directory.path)
        #expect(second.output.contains("the realm now holds 11"), "\(second.output)")

        let inspect = try Self.floe(["inspect", "default.floe"], in: directory.path)
        #expect(inspect.status == 0 && inspect.output.contains("class Dog (topLevel): 12 objects"), "\(inspect.output)")
        let dump = try Self.floe(["dump", "default.floe", "Dog"], in: directory.path)
        let json = try JSONSerialization.jsonObject(with: Data(dump.output.utf8)) as? [String: Any]
        #expect((json?["Dog"] as? [Any])?.count == 12)
        let verify = try Self.floe(["verify", "default.floe"], in: directory.path)
        #expect(verify.status == 0 && verify.output.hasSuffix("ok\n"), "\(verify.output)")
        let compact = try Self.floe(["compact", "default.floe"], in: directory.path)
        #expect(compact.status == 0 && compact.output.hasPrefix("compacted default.floe"), "\(compact.output)")
        #expect(try Self.floe(["verify", "default.floe"], in: directory.path).status == 0)

        // Bad input: a foreign file, and an unknown command.
        try Data("not a database".utf8).write(to: directory.url("foreign.floe"))
        let foreign = try Self.floe(["verify", "foreign.floe"], in: directory.path)
        #expect(foreign.status == 1 && foreign.output.contains("is not a Floe file"), "\(foreign.output)")
        #expect(try Self.floe(["frobnicate"], in: directory.path).status == 2)
    }

    /// Bad input as a user types it: each says what was wrong, exits 1 (the file) or 2 (usage),
    /// prints nothing on standard output and creates no file.
    @Test func badInputIsExplainedAndCreatesNothing() throws {
        let directory = TemporaryDirectory()
        for command in ["compact", "inspect", "dump", "verify"] {
            let run = try Self.floe([command, "missing.floe"], in: directory.path)
            #expect(run.status == 1 && run.output == "floe: there is no file at missing.floe\n", "\(command): \(run.output)")
        }
        #expect(!FileManager.default.fileExists(atPath: directory.file("missing.floe")), "a command created the missing file")
        let unknown = try Self.floe(["frobnicate"], in: directory.path)
        #expect(unknown.status == 2 && unknown.output.hasPrefix("floe: unknown command 'frobnicate'\n"), "\(unknown.output)")
        let missing = try Self.floe(["dump"], in: directory.path)
        #expect(missing.status == 2 && missing.output.hasPrefix("floe: 'dump' needs a file path"), "\(missing.output)")
        let extra = try Self.floe(["verify", "a.floe", "b.floe"], in: directory.path)
        #expect(extra.status == 2 && extra.output.hasPrefix("floe: 'verify' takes a file path, not 2 arguments"), "\(extra.output)")
        #expect(try Self.floe([], in: directory.path).status == 2)
        #expect(try Self.floe(["--help"], in: directory.path).status == 0)
    }

    /// `dump` never prints part of a document: a file that fails prints nothing on stdout.
    @Test func dumpPrintsAWholeDocumentOrNothing() throws {
        let directory = TemporaryDirectory()
        _ = try Self.floe(["demo"], in: directory.path)
        let process = Process()
        process.executableURL = try CrashChildProcess.executable().deletingLastPathComponent().appendingPathComponent("floe")
        process.arguments = ["dump", "default.floe", "NoSuchClass"]
        process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let stdout = output.fileHandleForReading.readDataToEndOfFile()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 1)
        #expect(stdout.isEmpty, "stdout: \(String(decoding: stdout, as: UTF8.self))")
        #expect(stderr.contains("has no class named 'NoSuchClass' (it has Dog)"), "\(stderr)")
        // Damage in the middle of the objects: an error, and still nothing on stdout.
        let path = directory.file("default.floe")
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        for index in 200..<bytes.count - 200 where index % 50 == 0 { bytes[index] ^= 0xFF }
        try Data(bytes).write(to: directory.url("damaged.floe"))
        let damaged = try Self.floe(["dump", "damaged.floe"], in: directory.path)
        if damaged.status != 0 {
            #expect(!damaged.output.contains("{\n"), "a failed dump printed part of a document: \(damaged.output)")
        } else {
            #expect((try? JSONSerialization.jsonObject(with: Data(damaged.output.utf8))) != nil)
        }
    }

    /// `verify` and `inspect` say when bytes after the last valid commit were ignored.
    @Test func aTornTailIsReported() throws {
        let directory = TemporaryDirectory()
        _ = try Self.floe(["demo"], in: directory.path)
        let handle = try Foundation.FileHandle(forWritingTo: directory.url("default.floe"))
        handle.seekToEndOfFile()
        handle.write(Data(repeating: 0xAB, count: 40))
        handle.closeFile()
        let verify = try Self.floe(["verify", "default.floe"], in: directory.path)
        #expect(verify.status == 0 && verify.output.contains("note: 40 bytes after the last valid commit were ignored"), "\(verify.output)")
        let inspect = try Self.floe(["inspect", "default.floe"], in: directory.path)
        #expect(inspect.output.contains("40 bytes after the last valid commit were ignored"), "\(inspect.output)")
        #expect(inspect.output.contains("bytes committed"), "\(inspect.output)")
    }

    /// A file a killed writer left with zeros reserved ahead of its commits: `verify` and
    /// `inspect` tell the zeros (not data) apart from a commit cut short.
    @Test func zerosAfterTheLastCommitAreDescribed() throws {
        let directory = TemporaryDirectory()
        _ = try Self.floe(["demo"], in: directory.path)
        let handle = try Foundation.FileHandle(forWritingTo: directory.url("default.floe"))
        handle.seekToEndOfFile()
        handle.write(Data(repeating: 0xAB, count: 24) + Data(repeating: 0, count: 65_536))
        handle.closeFile()
        let verify = try Self.floe(["verify", "default.floe"], in: directory.path)
        #expect(verify.status == 0, "\(verify.output)")
        #expect(verify.output.contains("note: 24 bytes after the last valid commit were ignored"), "\(verify.output)")
        #expect(verify.output.contains("note: 65536 bytes of zeros end the file"), "\(verify.output)")
        let inspect = try Self.floe(["inspect", "default.floe"], in: directory.path)
        #expect(inspect.output.contains("65536 bytes of zeros end the file"), "\(inspect.output)")
        #expect(inspect.output.contains("24 bytes after the last valid commit were ignored"), "\(inspect.output)")
    }
}
