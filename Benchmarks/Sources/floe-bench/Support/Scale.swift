/// How large the workloads are: the design's sizes, or a fifth of them for the performance
/// gate (`floe-bench gate`, or any run given `--quick`), which must finish in seconds.
///
/// Ratios at the smaller size are not those at full size (W4's is about twice its full-size
/// ratio, W3's about the same), so the gate records its own, and the figures of
/// Docs/Performance.md are measured at full size only.
enum Scale {
    static let isQuick: Bool = {
        let arguments = CommandLine.arguments.dropFirst()
        return arguments.first == Gate.command || arguments.contains("--quick")
    }()

    /// `full` at the design's size, `full / 5` in a quick run.
    static func size(_ full: Int) -> Int { isQuick ? full / 5 : full }
}
