import Foundation

/// Makes deferred commits durable in groups: the writes queued together share one `fdatasync`.
///
/// A commit written with ``WriteTransaction/commit(deferringSync:)`` is appended and published
/// at once, but is not yet on stable storage. Its writer then awaits
/// ``Store/waitUntilDurable(_:)``. The first waiter starts a sync round on a thread of its own;
/// every commit appended before that round's `fdatasync` began is durable when it returns, and
/// all their writers resume together. Waiters that arrive during a round are covered by the
/// next one. PostgreSQL does the same with its WAL; SQLite cannot, as each of its commits syncs.
///
/// ```swift
/// let version = try transaction.commit(deferringSync: true)
/// try await store.waitUntilDurable(version)   // shares a sync with the other queued writers
/// ```
final class GroupCommit: Sendable {
    private struct State {
        var durableVersion: UInt64
        var isSyncing = false
        var waiters: [(version: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
        /// Set by a failed sync: its commits' fate on disk is unknown, so every later wait fails.
        var failure: FloeError?
        /// Sync rounds run so far (for tests and benchmarks: fewer rounds than writes is the point).
        var rounds = 0
    }

    private let state: Locked<State>
    /// What a round syncs: the newest appended version and the file it lives in.
    private let target: @Sendable () -> (version: UInt64, file: StorageFile?)

    init(durableVersion: UInt64, target: @escaping @Sendable () -> (version: UInt64, file: StorageFile?)) {
        state = Locked(State(durableVersion: durableVersion))
        self.target = target
    }

    /// How many `fdatasync` rounds group commits have run.
    var rounds: Int { state.withLock { $0.rounds } }

    /// The first sync failure, if any; the store refuses writes after one.
    var failure: FloeError? { state.withLock { $0.failure } }

    /// Records a failed sync outside a round (a commit that synced itself): its bytes may or may
    /// not be on disk, so from now on every wait and every new write fails.
    func recordFailure(_ error: FloeError) {
        let failed = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.failure = state.failure ?? error
            defer { state.waiters = [] }
            return state.waiters.map(\.continuation)
        }
        for continuation in failed { continuation.resume(throwing: error) }
    }

    /// Records that every version up to `version` is durable already (a synced commit, or a
    /// compaction that wrote and synced a new file).
    func markDurable(upTo version: UInt64) {
        let resumed = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.durableVersion = max(state.durableVersion, version)
            return takeCovered(&state)
        }
        for continuation in resumed { continuation.resume() }
    }

    /// Returns once `version` is durable; throws the sync's error if its round failed.
    func waitUntilDurable(_ version: UInt64) async throws(FloeError) {
        do {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let action = state.withLock { state -> WaitAction in
                    if let failure = state.failure { return .fail(failure) }
                    if version <= state.durableVersion { return .resume }
                    state.waiters.append((version, continuation))
                    if state.isSyncing { return .wait }
                    state.isSyncing = true
                    return .startRound
                }
                switch action {
                case .resume: continuation.resume()
                case .fail(let error): continuation.resume(throwing: error)
                case .wait: break
                case .startRound:
                    // A thread, not the cooperative pool: fdatasync blocks for its whole duration.
                    Thread.detachNewThread { [self] in runRounds() }
                }
            }
        } catch let error as FloeError {
            throw error
        } catch {
            preconditionFailure("a group commit wait failed with \(error)")
        }
    }

    private enum WaitAction {
        case resume, wait, startRound
        case fail(FloeError)
    }

    /// Syncs until no waiter is left uncovered.
    private func runRounds() {
        while true {
            let (version, failure) = syncRound()
            let (resumed, failed, done) = state.withLock { state in
                state.rounds += 1
                if let failure {
                    state.failure = state.failure ?? failure
                    let failed = state.waiters.map(\.continuation)
                    state.waiters = []
                    state.isSyncing = false
                    return ([CheckedContinuation<Void, any Error>](), failed, true)
                }
                state.durableVersion = max(state.durableVersion, version)
                let resumed = takeCovered(&state)
                if state.waiters.isEmpty { state.isSyncing = false }
                return (resumed, [], state.waiters.isEmpty)
            }
            for continuation in resumed { continuation.resume() }
            for continuation in failed { continuation.resume(throwing: failure!) }
            if done { return }
        }
    }

    /// One `fdatasync` of the newest file, covering every version appended before it began.
    /// The file is let go before any waiter resumes: a writer that closes the realm and reopens
    /// the file must not find it still held here.
    private func syncRound() -> (version: UInt64, failure: FloeError?) {
        let (version, file) = target()
        guard let file else { return (version, nil) }
        do throws(FloeError) {
            try file.sync()
        } catch {
            // A file that compaction replaced was synced whole by the compaction.
            if !file.isClosed { return (version, error) }
        }
        return (version, nil)
    }

    private func takeCovered(_ state: inout State) -> [CheckedContinuation<Void, any Error>] {
        var covered: [CheckedContinuation<Void, any Error>] = []
        state.waiters.removeAll { waiter in
            guard waiter.version <= state.durableVersion else { return false }
            covered.append(waiter.continuation)
            return true
        }
        return covered
    }
}
