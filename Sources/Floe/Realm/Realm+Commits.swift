@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

extension Realm {
    /// The version number of each commit to this realm's file, by any realm of the process,
    /// as an `AsyncSequence`. A slow consumer gets the newest version (older ones coalesce),
    /// never a growing buffer. The stream ends when the task iterating it is cancelled.
    ///
    /// ```swift
    /// for await version in realm.commits() {
    ///     print("committed version \(version)")
    /// }
    /// ```
    public nonisolated func commits() -> AsyncStream<UInt64> {
        store.versions()
    }
}
