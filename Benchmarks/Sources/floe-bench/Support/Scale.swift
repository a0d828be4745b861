/// How large the workloads are: the design's sizes, or a fifth of them for the performance
/// gate (`floe-bench gate`, or any run given `--quick`), which must finish in seconds.
///
/// Ratios hold at the smaller size for what the gate checks (both sides do the same work per
/// dog), but the figures of Docs/Performance.md are measured at full size only.
enum Scale {
    static let isQuick: Bool = {
        let arguments = CommandLine.arguments.dropFirst()
        return arguments.first == Gate.command || arguments.contains("--quick")
    }()

    /// `full` at the design's size, `full / 5` in a quick run.
    static func size(_ full: Int) -> Int { isQuick ? full / 5 : full }
}
