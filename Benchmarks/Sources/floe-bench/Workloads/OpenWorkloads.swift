@_spi(Engine) import Floe
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage
import Foundation

/// O1: open a 1,000,000-dog file and read one dog, in a fresh process.
///
/// A fresh process is the only honest setting: in this one the store registry, decoded
/// nodes and warmed allocator would make a second open free. The child measures itself
/// (open + read, and its resident memory before and after) and prints one line.
enum OpenWorkloads {
    /// The hidden subcommand the parent starts the child with.
    static let childCommand = "--open-and-read-child"
    static let rounds = 5
    /// A dog in the middle of the table, so that the read walks a full root-to-leaf path.
    static let readKey = 500_000

    static func run(fixtures: Fixtures, reporter: Reporter) throws {
        let path = try fixtures.millionDogPath()
        var cold: [ChildMeasurement] = []
        var warm: [ChildMeasurement] = []
        var worstResidency = 0.0
        for _ in 0..<rounds {
            worstResidency = max(worstResidency, PageCache.evict(path))
            cold.append(try measureInChild(path: path))
            // The cold child just read the pages an open needs: they are cached now.
            warm.append(try measureInChild(path: path))
        }
        reporter.note("file pages still cached after eviction: \(Format.decimal(worstResidency * 100, digits: 1))% at most")

        for (label, runs, target) in [("warm", warm, 1_000_000.0), ("cold", cold, 5_000_000.0)] {
            let total = Samples(runs.map(\.openAndReadNanoseconds))
            let open = Samples(runs.map(\.openNanoseconds))
            reporter.note("\(label): Store.open alone \(Format.duration(nanoseconds: open.median)), the read after it \(Format.duration(nanoseconds: total.median - open.median)) (medians)")
            reporter.add(ReportLine(
                workload: "O1 open 1M file + read 1 dog, \(label)",
                floe: Format.duration(nanoseconds: total.median),
                target: "≤ \(Format.duration(nanoseconds: target))",
                verdict: total.median <= target ? .met : .missed))
        }
        let growth = Samples((cold + warm).map(\.residentGrowthBytes))
        reporter.add(ReportLine(
            workload: "O1 RSS growth, open + read (max of all runs)",
            floe: Format.bytes(growth.maximum), target: "≤ 20 MiB",
            verdict: growth.maximum <= 20 * 1_048_576 ? .met : .missed))
    }

    /// What one child reported.
    struct ChildMeasurement {
        var openNanoseconds: Double
        var openAndReadNanoseconds: Double
        var residentGrowthBytes: Double
    }

    private static func measureInChild(path: String) throws -> ChildMeasurement {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try executablePath())
        process.arguments = [childCommand, path, String(readKey)]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw BenchmarkFailure("the open-and-read child failed (status \(process.terminationStatus)): \(text)")
        }
        var fields: [String: Double] = [:]
        for field in text.split(whereSeparator: \.isWhitespace) {
            let parts = field.split(separator: "=", maxSplits: 1)
            if parts.count == 2, let value = Double(parts[1]) { fields[String(parts[0])] = value }
        }
        guard let open = fields["open"], let total = fields["openAndRead"], let before = fields["rssBefore"],
              let after = fields["rssAfter"]
        else { throw BenchmarkFailure("the open-and-read child printed '\(text)'") }
        return ChildMeasurement(openNanoseconds: open, openAndReadNanoseconds: total, residentGrowthBytes: after - before)
    }

    /// This executable, resolved here: `/proc/self/exe` itself would name whatever the
    /// spawned process is running.
    private static func executablePath() throws -> String {
        var buffer = [CChar](repeating: 0, count: 4_096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return CommandLine.arguments[0] }
        return String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The child's side: arguments are the file and the key to read.
    static func runChild(arguments: [String]) throws {
        guard arguments.count == 2, let key = Int(arguments[1]) else {
            throw BenchmarkFailure("usage: floe-bench \(childCommand) <file> <key>")
        }
        let path = arguments[0]
        // Read once before measuring: the first read of /proc loads Foundation's file code.
        _ = ProcessMemory.residentBytes()
        let residentBefore = ProcessMemory.residentBytes()
        let start = Clocks.wallNanoseconds()
        let store = try Store.open(path: path)
        let opened = Clocks.wallNanoseconds()
        let snapshot = try store.snapshot()
        let row = try snapshot.row(in: try snapshot.table(named: FloeDogs.tableName), key: Int64(key))
        let finished = Clocks.wallNanoseconds()
        let residentAfter = ProcessMemory.residentBytes()
        guard row == FloeDogs.values(key) else { throw BenchmarkFailure("read \(row) for dog \(key)") }
        print("open=\(opened - start) openAndRead=\(finished - start) rssBefore=\(residentBefore) rssAfter=\(residentAfter)")
        store.close()
    }
}
