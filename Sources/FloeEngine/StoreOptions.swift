@_spi(Engine) import FloeStorage

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
    /// Open without the right to write. Takes no lock: a reader may open a file another
    /// process is writing, and follows it with ``Store/refresh()``.
    public var readOnly = false
    /// When set, a write that would leave more versions active than this fails.
    public var maximumNumberOfActiveVersions: Int?
    /// Compact after a commit once dead bytes exceed twice the live bytes (and the file
    /// ``automaticCompactionMinimumSize``).
    public var compactsAutomatically = true
    /// Below this file size automatic compaction never runs (8 MiB; tests lower it).
    ///
    /// A compaction costs its writer a copy of the live bytes plus a fixed part: creating the
    /// copy, syncing it, renaming it and syncing the directory, milliseconds whatever the size.
    /// With a 1 MiB floor, a file of 0.5 MB of live data was compacted every ~140 one-object
    /// commits and the fixed part dominated. The floor is also the most a file can reach over
    /// three times its live data: at 8 MiB a file of 100,000 small objects (about 3 MiB of
    /// live data) still never grows past three times that.
    public var automaticCompactionMinimumSize: UInt64 = 8 << 20
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
