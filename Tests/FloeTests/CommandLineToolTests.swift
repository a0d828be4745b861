import Foundation
import Testing

/// The `floe` tool as a user runs it: the README's `floe demo`, then inspect, dump, verify and compact.
@Suite struct CommandLineToolTests {
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
        let second = try Self.floe(["demo"], in: directory.path)
        #expect(second.output.contains("the realm now holds 11"), "\(second.output)")

        let inspect = try Self.floe(["inspect", "default.floe"], in: directory.path)
        #expect(inspect.status == 0 && inspect.output.contains("table Dog (topLevel): 12 objects"), "\(inspect.output)")
        let dump = try Self.floe(["dump", "default.floe", "Dog"], in: directory.path)
        let json = try JSONSerialization.jsonObject(with: Data(dump.output.utf8)) as? [String: Any]
        #expect((json?["Dog"] as? [Any])?.count == 12)
        let verify = try Self.floe(["verify", "default.floe"], in: directory.path)
        #expect(verify.status == 0 && verify.output.hasSuffix("ok\n"), "\(verify.output)")
        let compact = try Self.floe(["compact", "default.floe"], in: directory.path)
        #expect(compact.status == 0 && compact.output.hasPrefix("compacted default.floe"), "\(compact.output)")
        #expect(try Self.floe(["verify", "default.floe"], in: directory.path).status == 0)

        // Bad input: a foreign file, and an unknown command.
        try Data("not a database".utf8).write(to: URL(fileURLWithPath: directory.file("foreign.floe")))
        let foreign = try Self.floe(["verify", "foreign.floe"], in: directory.path)
        #expect(foreign.status == 1 && foreign.output.contains("is not a Floe file"), "\(foreign.output)")
        #expect(try Self.floe(["frobnicate"], in: directory.path).status == 2)
    }
}
