import Foundation

// floe-bench [GROUP ...] [--quick]: runs the workload groups named (all by default) and prints
// one line per figure, then the same lines as a Markdown table for Docs/Performance.md.
// floe-bench gate [THRESHOLDS]: the performance gate CI runs (Support/Gate.swift).
// Build and run in release mode only: debug figures mean nothing.

/// A group of workloads that share their setup.
struct WorkloadGroup {
    var name: String
    var summary: String
    var run: (Fixtures, Reporter) async throws -> Void
}

func workloadGroups() -> [WorkloadGroup] {
    [
        WorkloadGroup(name: "E1", summary: "bulk insert of 100k dogs vs GRDB", run: BulkInsertWorkloads.run),
        WorkloadGroup(name: "E3", summary: "sum(age) over 1M dogs vs GRDB", run: ScanWorkloads.run),
        WorkloadGroup(name: "S1", summary: "one-dog commits into 1M dogs with 10 snapshots held", run: CommitWorkloads.run),
        WorkloadGroup(name: "O1", summary: "open a 1M-dog file and read one dog, in a fresh process", run: OpenWorkloads.run),
        WorkloadGroup(name: "S2", summary: "file size after 100k update commits, compaction", run: FileSizeWorkloads.run),
        WorkloadGroup(name: "W1", summary: "object API: add 100k dogs in one write vs GRDB", run: ObjectAddWorkloads.run),
        WorkloadGroup(name: "W2", summary: "object API: 1,000 durable one-dog writes vs GRDB (synchronous=FULL)", run: DurableWriteWorkloads.run),
        WorkloadGroup(name: "W3", summary: "object API: iterate 100k dogs summing age (W3), sum(ofProperty:) (W3a) vs GRDB", run: ObjectScanWorkloads.run),
        WorkloadGroup(name: "W4", summary: "object API: 100k primary-key lookups vs GRDB", run: LookupWorkloads.run),
        WorkloadGroup(name: "W5", summary: "object API: count age > 50 && name BEGINSWITH dog1 over 100k dogs, 100 times, vs GRDB", run: QueryWorkloads.runW5),
        WorkloadGroup(name: "P", summary: "projections: a projected property (P1), iterating projections (P2), a type-projected URL (P3), each against the object itself", run: ProjectionWorkloads.run),
        WorkloadGroup(name: "Q", summary: "queries: indexed == over 1M vs a scan (Q1), sort 100k vs GRDB ORDER BY (Q2), 80k contacts in sections (Q3), parse and plan (Q4)", run: QueryWorkloads.runQueries),
        WorkloadGroup(name: "M", summary: "memory: allocations of a count (M1) and of filters (M2–M4) over 1M dogs, by a malloc counter", run: MemoryWorkloads.run),
        WorkloadGroup(name: "W6", summary: "object API: age += 1 on 100k dogs in one write vs GRDB", run: ObjectUpdateWorkloads.run),
        WorkloadGroup(name: "W7", summary: "object API: delete all 100k dogs vs GRDB", run: DeleteAllWorkloads.run),
        WorkloadGroup(name: "W8", summary: "object API: 100 tasks of durable one-dog writes at once (group commit) vs GRDB", run: GroupCommitWorkloads.run),
        WorkloadGroup(name: "N", summary: "change streams: commit → change at a consumer for a dog (N1, the design's C1) and 100k-dog results (N2); commit cost with 1,000 streams (N3)", run: ChangeStreamWorkloads.run),
        WorkloadGroup(name: "N2S", summary: "change streams: a filtered and sorted results' update after 10, 100 and 1,000 changed dogs, over 100k and 1M dogs, against evaluating the query afresh", run: ChangeStreamWorkloads.runScaling),
        WorkloadGroup(name: "N2L", summary: "change streams: a 100k-dog List's update after 1% of its positions were replaced, over the commit", run: ListChangeWorkloads.run),
        WorkloadGroup(name: "N4", summary: "change streams: the change feed read back from the file alone", run: ChangeStreamWorkloads.runFeed),
        WorkloadGroup(name: "G", summary: "geospatial: geoWithin a 12-point polygon with a hole (G1) and a 100-point polygon (G2) over 100k points, against a circle", run: GeoWorkloads.run),
        WorkloadGroup(name: "C", summary: "collections and links: append 1M ints to a List (C1), sum them (C2), follow 100k to-one links (C3) vs GRDB", run: CollectionWorkloads.run),
    ]
}

/// Runs the groups named in `arguments` (all by default). Not isolated to the main actor:
/// the workloads await the realm's actor and the fixtures stay in this one task.
func runBenchmark(arguments: [String]) async throws {
    let groups = workloadGroups()
    if arguments.contains("--help") || arguments.contains("-h") {
        print("usage: floe-bench [GROUP ...] [--quick]   (default: all; W alone: every W group; --quick: a fifth of the size)")
        print("       floe-bench gate [THRESHOLDS]      (the performance gate; default thresholds: \(Gate.defaultThresholdsPath))")
        for group in groups { print("  \(group.name)  \(group.summary)") }
        return
    }
    var requested = Set(arguments.filter { $0 != "--quick" }.map { $0.uppercased() })
    if requested.remove("W") != nil {
        requested.formUnion(groups.map(\.name).filter { $0.hasPrefix("W") })
    }
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
    if Scale.isQuick { reporter.note("--quick: every workload runs at a fifth of the size its line names") }
    for group in selected {
        reporter.note("\(group.name): \(group.summary)")
        try await group.run(fixtures, reporter)
    }
    print("\nTotal time \(Format.duration(nanoseconds: Double(Clocks.wallNanoseconds() - start))).\n")
    print(reporter.markdownTable())
}

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    if arguments.first == OpenWorkloads.childCommand {
        try OpenWorkloads.runChild(arguments: Array(arguments.dropFirst()))
        exit(0)
    }
    if arguments.first == Gate.command {
        exit(try await Gate.run(arguments: Array(arguments.dropFirst()), groups: workloadGroups()) ? 0 : 1)
    }
    try await runBenchmark(arguments: arguments)
} catch {
    FileHandle.standardError.write(Data("floe-bench: \(error)\n".utf8))
    exit(1)
}
