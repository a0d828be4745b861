/// Whether a measured figure reaches its target.
enum Verdict: String {
    case met
    case missed
    /// A figure reported for context, with no target of its own.
    case info = "—"
}

/// One line of the benchmark's output: a workload's figure for Floe, the peer's figure
/// where there is one, their ratio, and the target.
struct ReportLine {
    var workload: String
    var floe: String
    var peer: String = "—"
    var ratio: String = "—"
    var target: String = "—"
    var verdict: Verdict = .info
    /// The figure the performance gate (`floe-bench gate`) compares with its threshold.
    var gate: GateFigure? = nil
}

/// A ratio the performance gate can check: how many times faster Floe was than the peer in
/// the same run, under a short key (`W1`) that `Benchmarks/gate-thresholds.txt` names.
struct GateFigure {
    var key: String
    /// The medians, in nanoseconds.
    var floe: Double
    var peer: Double

    /// Greater than 1 when Floe was faster.
    var speedup: Double { peer / floe }
}

/// Prints each line as soon as it is measured (a long run shows progress) and keeps them
/// all for the summary table at the end.
final class Reporter {
    private(set) var lines: [ReportLine] = []
    /// Keeps the lines without printing them (the gate prints its own table).
    var quiet = false

    private static let widths = [62, 24, 22, 10, 30]

    func printHeader() {
        print(Self.row(["workload", "Floe", "GRDB", "ratio", "target", "verdict"]))
        print(String(repeating: "-", count: Self.widths.reduce(0, +) + 3 * Self.widths.count + 7))
    }

    func add(_ line: ReportLine) {
        lines.append(line)
        if quiet { return }
        print(Self.row([line.workload, line.floe, line.peer, line.ratio, line.target, line.verdict.rawValue]))
    }

    /// Progress and context that is not a measured figure.
    func note(_ text: String) {
        if quiet { return }
        print("  · \(text)")
    }

    /// The lines as a Markdown table, ready for `Docs/Performance.md`.
    func markdownTable() -> String {
        var text = "| workload | Floe | GRDB | ratio | target | verdict |\n| --- | --- | --- | --- | --- | --- |\n"
        for line in lines {
            text += "| \(line.workload) | \(line.floe) | \(line.peer) | \(line.ratio) | \(line.target) | \(line.verdict.rawValue) |\n"
        }
        return text
    }

    private static func row(_ cells: [String]) -> String {
        var text = ""
        for (index, cell) in cells.enumerated() {
            if index < widths.count {
                text += cell.padding(toLength: widths[index]) + " | "
            } else {
                text += cell
            }
        }
        return text
    }
}

extension String {
    fileprivate func padding(toLength length: Int) -> String {
        count >= length ? self : self + String(repeating: " ", count: length - count)
    }
}

/// Human-readable renderings of the measured quantities.
enum Format {
    static func duration(nanoseconds: Double) -> String {
        switch nanoseconds {
        case ..<1_000: return "\(decimal(nanoseconds, digits: 0)) ns"
        case ..<1_000_000: return "\(decimal(nanoseconds / 1_000, digits: 1)) µs"
        case ..<1_000_000_000: return "\(decimal(nanoseconds / 1_000_000, digits: 2)) ms"
        default: return "\(decimal(nanoseconds / 1_000_000_000, digits: 2)) s"
        }
    }

    static func bytes(_ bytes: Double) -> String {
        switch bytes {
        case ..<10_240: return "\(decimal(bytes, digits: 0)) B"
        case ..<10_485_760: return "\(decimal(bytes / 1_024, digits: 1)) KiB"
        default: return "\(decimal(bytes / 1_048_576, digits: 1)) MiB"
        }
    }

    /// A throughput in millions per second.
    static func millionsPerSecond(count: Double, nanoseconds: Double) -> String {
        "\(decimal(count / nanoseconds * 1_000, digits: 0)) M/s"
    }

    /// How many times faster Floe is than the peer (> 1: Floe faster).
    static func speedup(floe: Double, peer: Double) -> String {
        "\(decimal(peer / floe, digits: peer / floe < 10 ? 2 : 1))×"
    }

    /// `value` with `digits` decimals and grouped thousands (Double's own description
    /// drops trailing zeros and switches to exponents).
    static func decimal(_ value: Double, digits: Int) -> String {
        guard value.isFinite else { return "\(value)" }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = Int64((value.magnitude * scale).rounded())
        let whole = scaled / Int64(scale)
        let fraction = scaled % Int64(scale)
        var text = (value < 0 && scaled != 0 ? "-" : "") + grouped(whole)
        if digits > 0 {
            let fractionText = String(fraction)
            text += "." + String(repeating: "0", count: digits - fractionText.count) + fractionText
        }
        return text
    }

    /// Thousands separated by commas, so that large byte counts read at a glance.
    static func grouped(_ value: Int64) -> String {
        let digits = Array(String(value))
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { text += "," }
            text.append(digit)
        }
        return text
    }
}
