import Foundation

// floe-bench [GROUP ...]: runs the workload groups named (all by default) and prints one
// line per figure, then the same lines as a Markdown table for Docs/Performance.md.
// Build and run in release mode only: debug figures mean nothing.

/// A group of workloads that share their setup.
struct WorkloadGroup {
    var name: String
    var summary: String
    var run: (Fixtures, Reporter) throws -> Void
}

let groups = [
    WorkloadGroup(name: "E1", summary: "bulk insert of 100k dogs vs GRDB", run: BulkInsertWorkloads.run),
    WorkloadGroup(name: "E3", summary: "sum(age) over 1M dogs vs GRDB", run: ScanWorkloads.run),
    WorkloadGroup(name: "S1", summary: "one-dog commits into 1M dogs with 10 snapshots held", run: CommitWorkloads.run),
    WorkloadGroup(name: "O1", summary: "open a 1M-dog file and read one dog, in a fresh process", run: OpenWorkloads.run),
    WorkloadGroup(name: "S2", summary: "file size after 100k update commits, compaction", run: FileSizeWorkloads.run),
]

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    if arguments.first == OpenWorkloads.childCommand {
        try OpenWorkloads.runChild(arguments: Array(arguments.dropFirst()))
        exit(0)
    }
    if arguments.contains("--help") || arguments.contains("-h") {
        print("usage: floe-bench [GROUP ...]   (default: all)")
        for group in groups { print("  \(group.name)  \(group.summary)") }
        exit(0)
    }
    let requested = Set(arguments.map { $0.uppercased() })
    let unknown = requested.subtracting(groups.map(\.name))
    guard unknown.isEmpty else {
        throw BenchmarkFailure("unknown workload group(s) \(unknown.sorted().joined(separator: ", ")); see --help")
    }
    let selected = requested.isEmpty ? groups : groups.filter { requested.contains($0.name) }

    let reporter = Reporter()
    let scratch = try ScratchDirectory()
    defer { scratch.delete() }
    let fixtures = Fixtures(scratch: scratch, reporter: reporter)
    let start = Clocks.wallNanoseconds()
    reporter.printHeader()
    for group in selected {
        reporter.note("\(group.name): \(group.summary)")
        try group.run(fixtures, reporter)
    }
    print("\nTotal time \(Format.duration(nanoseconds: Double(Clocks.wallNanoseconds() - start))).\n")
    print(reporter.markdownTable())
} catch {
    FileHandle.standardError.write(Data("floe-bench: \(error)\n".utf8))
    exit(1)
}
