import Foundation
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// Keeps a realm's transactions readable by the change feed until they are released: what a
/// sync client holds while its server has not acknowledged them.
///
/// A file keeps its history itself: its commit records hold every version, and compaction keeps
/// them from the oldest version a stored pin names (`Realm.historyPin`), so a file's pin keeps
/// nothing in memory. An in-memory realm has no history to read back: its pin keeps each
/// version committed after the pin was made, in memory, until ``release(before:)`` lets the
/// older ones go. Either way a feed made with `changeFeed(since:pinnedBy:)` reads every
/// transaction after a version the pin holds, however late it comes.
///
/// ```swift
/// let pin = try realm.pinHistory()
/// for try await transaction in try realm.changeFeed(since: acknowledged, pinnedBy: pin) {
///     try await upload(transaction)
///     pin.release(before: transaction.version)
/// }
/// ```
@_spi(Sync) public final class HistoryPin: Sendable {
    private struct State {
        /// The versions kept, oldest first: every version from the oldest on.
        var snapshots: [Snapshot] = []
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter: UInt64 = 0
        var finished = false
    }

    private let store: Store
    /// Nil for a file: its history is read back from the file.
    private let state: Locked<State>?
    private let observer: UInt64?

    init(store: Store) throws(FloeError) {
        self.store = store
        guard store.isInMemory else {
            state = nil
            observer = nil
            return
        }
        let state = Locked(State())
        let registration = try store.observeCommits { commit in Self.absorb(commit, into: state) }
        state.withLock { $0.snapshots = [registration.base] }
        self.state = state
        observer = registration.id
    }

    deinit {
        if let observer { store.stopObserving(observer) }
    }

    /// The oldest version whose later transactions the pin keeps in memory; nil for a file,
    /// whose history is read back from the file (from any version it still holds).
    public var oldestVersion: UInt64? {
        state?.withLock { $0.snapshots.first?.version }
    }

    /// Lets go of the versions older than `version` (the newest version is always kept): a
    /// feed can no longer start before it. Does nothing for a file.
    public func release(before version: UInt64) {
        state?.withLock { state in
            let drop = state.snapshots.prefix { $0.version < version }.count
            state.snapshots.removeFirst(min(drop, state.snapshots.count - 1))
        }
    }

    /// The kept version `version`, for a feed that starts there.
    func snapshot(at version: UInt64) throws(FloeError) -> Snapshot {
        let (found, oldest, newest) = state!.withLock { state in
            (state.snapshots.first { $0.version == version }, state.snapshots.first?.version ?? 0, state.snapshots.last?.version ?? 0)
        }
        guard let found else { throw .versionUnavailable(path: store.path, version: version, oldest: oldest, newest: newest) }
        return found
    }

    private static func absorb(_ commit: CommittedChanges?, into state: Locked<State>) {
        let waiters = state.withLock { state in
            if let commit { state.snapshots.append(commit.snapshot) } else { state.finished = true }
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// The transaction after `previous`, waiting for it when none is kept yet; nil once the
    /// store closes or the task is cancelled.
    func next(after previous: inout Snapshot) async throws(FloeError) -> ChangeFeedTransaction? {
        let state = state!
        let after = previous.version
        while !Task.isCancelled {
            let next: Snapshot?? = state.withLock { state in
                if let next = state.snapshots.first(where: { $0.version > after }) { return .some(next) }
                return state.finished ? .some(nil) : nil
            }
            switch next {
            case .some(let next?):
                let transaction = try ChangeFeedReader.transaction(from: previous, to: next)
                previous = next
                return transaction
            case .some(nil):
                return nil
            case nil:
                let id = state.withLock { state in
                    defer { state.nextWaiter += 1 }
                    return state.nextWaiter
                }
                await withTaskCancellationHandler {
                    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                        let now = state.withLock { state -> Bool in
                            if state.snapshots.contains(where: { $0.version > after }) || state.finished || Task.isCancelled { return true }
                            state.waiters[id] = continuation
                            return false
                        }
                        if now { continuation.resume() }
                    }
                } onCancel: {
                    state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
                }
            }
        }
        return nil
    }
}

@_spi(Sync) extension Realm {
    /// A pin of this realm's history from its newest version on: see ``HistoryPin``. In memory,
    /// every transaction committed after this call is kept until released; a file keeps its
    /// history itself.
    ///
    /// - Throws: ``FloeError/closed(path:)`` when the realm's store is closed.
    public nonisolated func pinHistory() throws(FloeError) -> HistoryPin {
        try HistoryPin(store: store)
    }

    /// Every transaction committed after `version`, as ``changeFeed(since:)`` reads them, from
    /// the history `pin` keeps: for an in-memory realm, from the versions it holds in memory;
    /// for a file, from the file (`pin` keeps nothing there).
    ///
    /// - Throws: ``FloeError/versionUnavailable(path:version:oldest:newest:)`` when neither the
    ///   pin nor the file holds `version`.
    public nonisolated func changeFeed(since version: UInt64, pinnedBy pin: HistoryPin) throws -> ChangeFeed {
        guard pin.oldestVersion != nil else { return try changeFeed(since: version) }
        let start = try pin.snapshot(at: version)
        return ChangeFeed(store: store, since: version, first: VersionHistory(file: nil, records: [(version, 0)]), memory: nil,
                          pinned: (pin, start))
    }
}
