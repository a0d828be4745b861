/// How a ``Store`` opens its file and behaves.
///
/// ```swift
/// var options = StoreOptions()
/// options.durability = .none
/// options.maximumNumberOfActiveVersions = 8
/// let store = try Store.open(path: "app.floe", options: options)
/// ```
@_spi(Engine) public struct StoreOptions: Sendable {
    /// Whether each commit is synced before it is reported.
    public var durability: Durability = .full
    /// Open without the right to write (a shared lock: other read-only processes may open it too).
    public var readOnly = false
    /// When set, a write that would leave more versions active than this fails.
    public var maximumNumberOfActiveVersions: Int?
    /// Compact after a commit once dead bytes exceed twice the live bytes (and the file 1 MiB).
    public var compactsAutomatically = true
    /// Asked on open with the file size and the live bytes; `true` compacts before use.
    public var shouldCompactOnOpen: (@Sendable (_ totalBytes: UInt64, _ usedBytes: UInt64) -> Bool)?

    public init(durability: Durability = .full, readOnly: Bool = false, maximumNumberOfActiveVersions: Int? = nil,
                compactsAutomatically: Bool = true,
                shouldCompactOnOpen: (@Sendable (_ totalBytes: UInt64, _ usedBytes: UInt64) -> Bool)? = nil) {
        self.durability = durability
        self.readOnly = readOnly
        self.maximumNumberOfActiveVersions = maximumNumberOfActiveVersions
        self.compactsAutomatically = compactsAutomatically
        self.shouldCompactOnOpen = shouldCompactOnOpen
    }
}
