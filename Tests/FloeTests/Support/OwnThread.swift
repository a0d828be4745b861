import Foundation
import Testing

/// Runs each test of a suite on a thread of its own instead of one of the concurrency pool's.
///
/// The pool has as many threads as the machine has cores (two in CI). A test that blocks the
/// thread it runs on (waiting for a child process, reading its pipe, sleeping between kills)
/// holds one of them for as long as it runs; two such tests at once leave every other test of
/// the process, and every sync client and realm actor they started, without a thread for
/// minutes. Tests that block say so with this trait, and block a thread nobody else needs.
///
/// ```swift
/// @Suite(.ownThread) struct CrashRecoveryTests { ... }
/// ```
struct OwnThreadTrait: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        guard !test.isSuite else { return try await function() }
        let executor = OwnThreadExecutor(name: test.name)
        defer { executor.finish() }
        try await withTaskExecutorPreference(executor) { try await function() }
    }
}

extension Trait where Self == OwnThreadTrait {
    /// Each test runs on a thread of its own: for tests that block their thread.
    static var ownThread: Self { Self() }
}

/// A task executor with one thread, started when it is made and ended by ``finish()``. A job
/// that still arrives after that (a continuation resumed late) starts a thread again: a job
/// enqueued is never left unrun.
final class OwnThreadExecutor: TaskExecutor, @unchecked Sendable {
    private static let markKey = "FloeTests.OwnThreadExecutor"
    private let name: String

    /// The name of the test whose own thread runs the caller, or nil on any other thread.
    static func currentTestName() -> String? {
        Thread.current.threadDictionary[markKey] as? String
    }
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var finished = false
    private var threadRunning = false

    init(name: String) {
        self.name = name
        condition.withLock { startThread() }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.withLock {
            jobs.append(job)
            if !threadRunning { startThread() }
            condition.signal()
        }
    }

    /// Called with the condition's lock held.
    private func startThread() {
        threadRunning = true
        let thread = Thread { [self] in run() }
        // Test bodies recurse through deep model graphs now and then: the main thread's size.
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// Lets the thread end once the jobs already enqueued have run.
    func finish() {
        condition.withLock {
            finished = true
            condition.signal()
        }
    }

    private func run() {
        // Linux names a new thread after the one that made it: the mark says whose it is.
        Thread.current.threadDictionary[Self.markKey] = name
        while let job = nextJob() {
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }

    private func nextJob() -> UnownedJob? {
        condition.withLock {
            while jobs.isEmpty && !finished { condition.wait() }
            if jobs.isEmpty {
                threadRunning = false
                return nil
            }
            return jobs.removeFirst()
        }
    }
}
