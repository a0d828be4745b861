/// How hard a commit works to survive a power loss.
///
/// ```swift
/// let store = try Store.open(path: "app.floe", options: .init(durability: .none))
/// ```
@_spi(Engine) public enum Durability: Sendable, Hashable {
    /// Each commit is synced to the disk before it is reported: a crash loses nothing reported.
    case full
    /// Commits are written but not synced: a crash keeps the file consistent but may lose
    /// the newest commits.
    case none
}
