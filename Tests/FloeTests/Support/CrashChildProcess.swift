import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The `FloeCrashChild` executable (Tests/FloeCrashChild) running as a separate process,
/// with its standard output read line by line.
final class CrashChildProcess {
    struct NotFound: Error, CustomStringConvertible {
        let searched: [String]
        var description: String { "FloeCrashChild was not found; looked in \(searched.joined(separator: ", "))" }
    }

    /// How the child ended.
    enum Ending: Equatable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)

        var description: String {
            switch self {
            case .exited(let status): return "exited with status \(status)"
            case .signalled(let signal): return "was killed by signal \(signal)"
            }
        }
    }

    let process = Process()
    private let output = Pipe()
    private let errorOutput = Pipe()
    private var pending: [UInt8] = []
    private var outputEnded = false

    init(_ arguments: [String]) throws {
        process.executableURL = try Self.executable()
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = errorOutput
        try process.run()
    }

    /// The next whole line of standard output, waiting for it; nil once the child closed its
    /// output (a line cut short by a kill is not a line).
    func readLine() -> String? {
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                return line
            }
            if outputEnded { return nil }
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { outputEnded = true } else { pending.append(contentsOf: data) }
        }
    }

    /// Like ``readLine()``, but kills the child when no line arrived within `seconds`, so
    /// that a child stuck before its first line fails the test instead of hanging it.
    func readLine(killingAfter seconds: Double) -> String? {
        let identifier = process.processIdentifier
        let watchdog = DispatchWorkItem { sendKill(identifier) }
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: watchdog)
        defer { watchdog.cancel() }
        return readLine()
    }

    /// Every remaining whole line, until the child's output ends.
    func remainingLines() -> [String] {
        var lines: [String] = []
        while let line = readLine() { lines.append(line) }
        return lines
    }

    /// Sends SIGKILL and waits for the child to end.
    @discardableResult
    func kill() -> Ending {
        sendKill(process.processIdentifier)
        return waitForExit()
    }

    func waitForExit() -> Ending {
        process.waitUntilExit()
        return process.terminationReason == .uncaughtSignal ? .signalled(process.terminationStatus) : .exited(process.terminationStatus)
    }

    /// What the child wrote to standard error (call after it ended).
    func errorText() -> String {
        String(decoding: errorOutput.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    private static let located: Result<URL, NotFound> = {
        var directories: [URL] = []
        // The test runner is built into the same products folder as the child.
        if let runner = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            directories.append(URL(fileURLWithPath: runner).deletingLastPathComponent())
        }
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            directories.append(bundle.bundleURL.deletingLastPathComponent())
        }
        directories.append(Bundle.main.bundleURL)
        directories.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        // Last resort: the package's build folders, found from this source file.
        var root = URL(fileURLWithPath: #filePath)
        while root.pathComponents.count > 1 && !FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path) {
            root.deleteLastPathComponent()
        }
        let builds = (try? FileManager.default.contentsOfDirectory(atPath: root.path))?.filter { $0.hasPrefix(".build") }.sorted() ?? []
        for build in builds { directories.append(root.appendingPathComponent(build).appendingPathComponent("debug")) }

        for directory in directories {
            let candidate = directory.appendingPathComponent("FloeCrashChild")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return .success(candidate) }
        }
        return .failure(NotFound(searched: directories.map(\.path)))
    }()

    static func executable() throws -> URL { try located.get() }
}

private func sendKill(_ process: pid_t) {
    _ = kill(process, SIGKILL)
}
