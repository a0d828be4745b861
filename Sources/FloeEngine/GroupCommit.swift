import Foundation
import Synchronization
@_spi(Engine) import FloeStorage

/// Makes deferred commits durable in groups: the writes queued together share one `fdatasync`.
///
/// A commit written with ``WriteTransaction/commit(deferringSync:)`` is appended and published
/// at once, but is not yet on stable storage. Its writer then awaits
/// ``Store/waitUntilDurable(_:)``. A syncer thread (started on demand, ended when idle) runs a round;
/// every commit appended before that round's `fdatasync` began is durable when it returns, and
/// all their writers resume together. Waiters that arrive during a round are covered by the
/// next one. PostgreSQL does the same with its WAL; SQLite cannot, as each of its commits syncs.
///
/// ```swift
/// let version = try transaction.commit(deferringSync: true)
/// try await store.waitUntilDurable(version)   // shares a sync with the other queued writers
/// ```
package final class GroupCommit: @unchecked Sendable {
    // @unchecked: every stored property but the immutable ones is guarded by `condition`.
    private var durableVersion: UInt64
    /// Whether the syncer thread exists (running a round, or parked waiting for writers).
    private var hasSyncer = false
    private var waiters: [(version: UInt64, waiter: Waiter)] = []
    /// Set by a failed sync: its commits' fate on disk is unknown, so every later wait fails.
    private var failureRecorded: FloeError?
    /// Sync rounds run so far (for tests and benchmarks: fewer rounds than writes is the point).
    private var roundCount = 0
    /// NSCondition rather than Mutex: the thread sanitizer cannot see futex waits.
    private let condition = NSCondition()
    /// What a round syncs: the newest appended version and the file it lives in.
    private let target: @Sendable () -> (version: UInt64, file: StorageFile?)
    /// How long the syncer thread waits for new writers before it ends (a writer that comes
    /// back within it pays no thread start).
    package static let idleTimeout: TimeInterval = 0.2
    /// How long the syncer thread watches for the next writer, without parking, after a round
    /// that served exactly one (a lone writer, one awaited write after another): its next
    /// commit comes within tens of microseconds, and a parked syncer costs that writer a thread
    /// wake-up on every write. Rounds that served several writers never watch: their writers
    /// keep the syncer busy anyway.
    package static let loneWriterWatch: UInt64 = 60_000
    /// How long a lone writer watches for its outcome (``outcomeWatchForLoneWriter``).
    package static let loneWriterOutcomeWatch: UInt64 = 200_000
    /// Waiters added so far, readable without the lock (the syncer's watch reads it).
    private let arrivals = Atomic<UInt64>(0)
    /// How long the last round's `fdatasync` took, in nanoseconds (0 before the first).
    private let lastRoundDuration = Atomic<UInt64>(0)

    /// Who waits for a version: called with nil once it is durable, or with the failed sync's
    /// error. A suspended task waits through one (``waitUntilDurable(_:)``).
    private typealias Waiter = @Sendable (FloeError?) -> Void

    package init(durableVersion: UInt64, target: @escaping @Sendable () -> (version: UInt64, file: StorageFile?)) {
        self.durableVersion = durableVersion
        self.target = target
    }

    private func locked<T>(_ body: () -> T) -> T {
        condition.lock()
        defer { condition.unlock() }
        return body()
    }

    /// How many `fdatasync` rounds group commits have run.
    package var rounds: Int { locked { roundCount } }

    /// How long a writer alone with its commit may watch for the round that covers it
    /// (``BriefWatch``) before it suspends; 0: it suspends at once. Only while the last round
    /// took under half of ``loneWriterOutcomeWatch`` (a quick disk) and nobody else waits for
    /// a round: writers waiting together need the threads to run again once their round ends.
    /// Suspended, a writer is resumed on a thread that went idle meanwhile and must be woken.
    package var outcomeWatchForLoneWriter: UInt64 {
        let lastRound = lastRoundDuration.load(ordering: .relaxed)
        guard lastRound != 0, lastRound <= Self.loneWriterOutcomeWatch / 2, locked({ waiters.isEmpty }) else { return 0 }
        return Self.loneWriterOutcomeWatch
    }

    /// How long the last round's `fdatasync` took (nil before the first round; for tests, as
    /// ``rounds``).
    package var lastRoundNanoseconds: UInt64? {
        let duration = lastRoundDuration.load(ordering: .relaxed)
        return duration == 0 ? nil : duration
    }

    /// The first sync failure, if any; the store refuses writes after one.
    package var failure: FloeError? { locked { failureRecorded } }

    /// Records a failed sync outside a round (a commit that synced itself): its bytes may or may
    /// not be on disk, so from now on every wait and every new write fails.
    package func recordFailure(_ error: FloeError) {
        let failed = locked { () -> [Waiter] in
            failureRecorded = failureRecorded ?? error
            defer { waiters = [] }
            return waiters.map(\.waiter)
        }
        for waiter in failed { waiter(error) }
    }

    /// Records that every version up to `version` is durable already (a synced commit, or a
    /// compaction that wrote and synced a new file).
    package func markDurable(upTo version: UInt64) {
        let resumed = locked { () -> [Waiter] in
            durableVersion = max(durableVersion, version)
            return takeCovered()
        }
        for waiter in resumed { waiter(nil) }
    }

    /// Calls `completion` once `version` is durable (with nil) or its sync failed (with the
    /// error): at once when that is already known, otherwise from the syncer thread right after
    /// the round that covers it. It must return quickly (it runs on the syncer's thread).
    package func whenDurable(_ version: UInt64, _ completion: @escaping @Sendable (FloeError?) -> Void) {
        enum Action { case call(FloeError?), wait, startSyncer }
        let action = locked { () -> Action in
            if let failureRecorded { return .call(failureRecorded) }
            if version <= durableVersion { return .call(nil) }
            waiters.append((version, completion))
            arrivals.add(1, ordering: .releasing)
            if hasSyncer {
                condition.signal()
                return .wait
            }
            hasSyncer = true
            return .startSyncer
        }
        switch action {
        case .call(let error): completion(error)
        case .wait: break
        case .startSyncer:
            // A thread, not the cooperative pool: fdatasync blocks for its whole duration.
            Thread.detachNewThread { [self] in runSyncer() }
        }
    }

    /// Returns once `version` is durable; throws the sync's error if its round failed.
    package func waitUntilDurable(_ version: UInt64) async throws(FloeError) {
        let settled = locked { () -> Result<Void, FloeError>? in
            if let failureRecorded { return .failure(failureRecorded) }
            return version <= durableVersion ? .success(()) : nil
        }
        if let settled { return try settled.get() }
        do {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                whenDurable(version) { error in
                    if let error { continuation.resume(throwing: error) } else { continuation.resume() }
                }
            }
        } catch let error as FloeError {
            throw error
        } catch {
            preconditionFailure("a group commit wait failed with \(error)")
        }
    }

    /// The syncer thread: a round whenever writers wait, parked in between, gone when idle.
    private func runSyncer() {
        var servedOne = false
        while true {
            if servedOne {
                // The lone writer's next commit comes soon: watched for, not parked for.
                let seen = arrivals.load(ordering: .acquiring)
                _ = BriefWatch.until(nanoseconds: Self.loneWriterWatch) { arrivals.load(ordering: .acquiring) != seen }
            }
            let proceed = locked { () -> Bool in
                while waiters.isEmpty {
                    if !condition.wait(until: Date(timeIntervalSinceNow: Self.idleTimeout)) && waiters.isEmpty {
                        hasSyncer = false
                        return false
                    }
                }
                return true
            }
            guard proceed else { return }
            let started = BriefWatch.now()
            let (version, failure) = syncRound()
            lastRoundDuration.store(BriefWatch.now() - started, ordering: .relaxed)
            let (resumed, failed, alone) = locked { () -> ([Waiter], [Waiter], Bool) in
                roundCount += 1
                if let failure {
                    failureRecorded = failureRecorded ?? failure
                    defer { waiters = [] }
                    return ([], waiters.map(\.waiter), false)
                }
                durableVersion = max(durableVersion, version)
                let resumed = takeCovered()
                return (resumed, [], resumed.count == 1 && waiters.isEmpty)
            }
            servedOne = alone
            for waiter in resumed { waiter(nil) }
            if let failure { for waiter in failed { waiter(failure) } }
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
            if !file.isClosed && !file.isRetired { return (version, error) }
        }
        return (version, nil)
    }

    /// Removes and returns the waiters whose versions are durable now (call with the lock held).
    private func takeCovered() -> [Waiter] {
        var covered: [Waiter] = []
        waiters.removeAll { waiter in
            guard waiter.version <= durableVersion else { return false }
            covered.append(waiter.waiter)
            return true
        }
        return covered
    }
}
