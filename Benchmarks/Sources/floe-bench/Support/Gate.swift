import Foundation

/// `floe-bench gate [THRESHOLDS]`: the performance gate CI runs. It runs the workload groups
/// the thresholds file names at a fifth of their size and compares each figure's **ratio**
/// to GRDB in the same run (never an absolute time, which says more about the machine than
/// about Floe) with the ratio recorded in the file; a drop of more than the line's margin
/// fails the run.
///
/// The machine running CI is shared and its load moves one side more than the other, so each
/// group runs three times (each run itself alternating Floe and GRDB over several rounds) and
/// the median ratio counts; a group below its floor runs twice more before it fails, the
/// median of all five counting. A real regression stays slow in every run.
enum Gate {
    static let command = "gate"
    static let defaultThresholdsPath = "gate-thresholds.txt"
    static let repetitions = 3
    static let extraRepetitions = 2

    /// One line of the thresholds file: `key group baseline margin`.
    struct Threshold {
        var key: String
        var group: String
        /// The ratio (Floe faster by this factor) last recorded at quick size.
        var baseline: Double
        /// The fraction of `baseline` a run may lose before the gate fails.
        var margin: Double

        var floor: Double { baseline * (1 - margin) }
    }

    static func run(arguments: [String], groups: [WorkloadGroup]) async throws -> Bool {
        let path = arguments.first { !$0.hasPrefix("-") } ?? defaultThresholdsPath
        let thresholds = try readThresholds(at: path)
        let byName = Dictionary(uniqueKeysWithValues: groups.map { ($0.name, $0) })
        var measured: [String: GateFigure] = [:]
        let start = Clocks.wallNanoseconds()

        let scratch = try ScratchDirectory()
        defer { scratch.delete() }
        let quietReporter = Reporter()
        quietReporter.quiet = true
        let fixtures = Fixtures(scratch: scratch, reporter: quietReporter)
        for groupName in uniqueInOrder(thresholds.map(\.group)) {
            guard let group = byName[groupName] else {
                throw BenchmarkFailure("\(path) names the workload group \(groupName), which floe-bench does not have; see floe-bench --help")
            }
            var runs: [[String: GateFigure]] = []
            for _ in 0..<repetitions { runs.append(try await measure(group, fixtures: fixtures)) }
            let missed = thresholds.filter { $0.group == groupName && (medianFigure($0.key, of: runs)?.speedup ?? 0) < $0.floor }
            if !missed.isEmpty {
                print("  · \(groupName): \(missed.map(\.key).joined(separator: ", ")) below the floor; measuring the group \(extraRepetitions) times more")
                for _ in 0..<extraRepetitions { runs.append(try await measure(group, fixtures: fixtures)) }
            }
            for threshold in thresholds where threshold.group == groupName {
                measured[threshold.key] = medianFigure(threshold.key, of: runs)
            }
        }

        print("\nperformance gate (\(Format.grouped(Int64(Fixtures.dogCount))) dogs, ratios to GRDB in the same run; thresholds: \(path))")
        print(["figure", "Floe", "GRDB", "ratio", "recorded", "floor", "verdict"].map { $0.padded(12) }.joined())
        var passed = true
        for threshold in thresholds {
            guard let figure = measured[threshold.key] else {
                throw BenchmarkFailure("the group \(threshold.group) reported no figure \(threshold.key); fix \(path)")
            }
            let holds = figure.speedup >= threshold.floor
            passed = passed && holds
            print([threshold.key, Format.duration(nanoseconds: figure.floe), Format.duration(nanoseconds: figure.peer),
                   Format.decimal(figure.speedup, digits: 2) + "×", Format.decimal(threshold.baseline, digits: 2) + "×",
                   Format.decimal(threshold.floor, digits: 2) + "×",
                   holds ? "ok" : "REGRESSED (more than \(Format.decimal(threshold.margin * 100, digits: 0)) % below the recorded ratio)"]
                .map { $0.padded(12) }.joined())
        }
        print("gate took \(Format.duration(nanoseconds: Double(Clocks.wallNanoseconds() - start)))")
        if !passed {
            print("A ratio fell by more than its margin. If the drop is intended (and explained in Docs/Performance.md), record the new ratio in \(path).")
        }
        return passed
    }

    /// Runs one group with a reporter that keeps its lines to itself.
    private static func measure(_ group: WorkloadGroup, fixtures: Fixtures) async throws -> [String: GateFigure] {
        let reporter = Reporter()
        reporter.quiet = true
        try await group.run(fixtures, reporter)
        var figures: [String: GateFigure] = [:]
        for line in reporter.lines {
            if let figure = line.gate { figures[figure.key] = figure }
        }
        return figures
    }

    /// The figure of `key` whose ratio is the median of the runs'.
    private static func medianFigure(_ key: String, of runs: [[String: GateFigure]]) -> GateFigure? {
        let figures = runs.compactMap { $0[key] }.sorted { $0.speedup < $1.speedup }
        return figures.isEmpty ? nil : figures[(figures.count - 1) / 2]
    }

    static func readThresholds(at path: String) throws -> [Threshold] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw BenchmarkFailure("cannot read the thresholds file \(path)")
        }
        var thresholds: [Threshold] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let content = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let fields = content.split(whereSeparator: \.isWhitespace).map(String.init)
            if fields.isEmpty { continue }
            guard fields.count == 4, let baseline = Double(fields[2]), let margin = Double(fields[3]),
                  baseline > 0, (0..<1).contains(margin) else {
                throw BenchmarkFailure("\(path):\(number + 1): expected `key group recorded margin` (a ratio above 0, a margin in 0..<1), found `\(line)`")
            }
            thresholds.append(Threshold(key: fields[0], group: fields[1], baseline: baseline, margin: margin))
        }
        guard !thresholds.isEmpty else { throw BenchmarkFailure("\(path) holds no thresholds") }
        return thresholds
    }

    private static func uniqueInOrder(_ names: [String]) -> [String] {
        var seen = Set<String>()
        return names.filter { seen.insert($0).inserted }
    }
}

extension String {
    fileprivate func padded(_ width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
