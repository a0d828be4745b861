import Synchronization

/// The seam every file operation passes through, so that tests can make any of them fail.
///
/// Disabled (the normal case) it costs one atomic load per system call. Enabled, it counts the
/// operations on files whose path contains ``Plan/pathContains`` and makes the chosen one fail
/// the way a full or failing disk does: an errno, or a write that stops halfway.
///
/// ```swift
/// FaultInjection.install(.init(pathContains: "faults", failing: 3, with: .error(ENOSPC)))
/// defer { FaultInjection.remove() }
/// ```
@_spi(Testing) public enum FaultInjection {
    /// The kinds of operation a plan can count and fail.
    public enum Operation: String, Sendable, CaseIterable {
        case open, read, write, sync, truncate, rename, syncDirectory
    }

    /// How the chosen operation fails.
    public enum Failure: Sendable, Equatable {
        /// The call fails with this errno (ENOSPC, EIO…).
        case error(Int32)
        /// A write stores its first half, then fails with ENOSPC.
        case shortWrite
    }

    /// Which operation fails, and how.
    public struct Plan: Sendable {
        public var pathContains: String
        /// Counted over the operations of `kinds` on matching paths, from 0.
        public var failing: Int
        public var failure: Failure
        public var kinds: Set<Operation>

        public init(pathContains: String, failing: Int, with failure: Failure, kinds: Set<Operation> = Set(Operation.allCases)) {
            self.pathContains = pathContains
            self.failing = failing
            self.failure = failure
            self.kinds = kinds
        }
    }

    private struct State {
        var plan: Plan?
        var seen = 0
        var log: [Operation] = []
    }

    private static let enabled = Atomic<Bool>(false)
    private static let state = Locked(State())

    /// Installs `plan` (replacing any other) and starts counting from 0.
    public static func install(_ plan: Plan) {
        state.withLock { $0 = State(plan: plan) }
        enabled.store(true, ordering: .releasing)
    }

    /// Counts operations on matching paths without failing any (to learn how many a scenario makes).
    public static func count(pathContains: String) {
        install(Plan(pathContains: pathContains, failing: .max, with: .error(0)))
    }

    /// The operations counted since the plan was installed, in order.
    public static var operations: [Operation] { state.withLock { $0.log } }

    /// Stops injecting; operations behave normally again.
    public static func remove() {
        enabled.store(false, ordering: .releasing)
        state.withLock { $0 = State() }
    }

    /// The failure planned for this operation, if it is the chosen one.
    static func failure(for operation: Operation, path: String) -> Failure? {
        guard enabled.load(ordering: .acquiring) else { return nil }
        return state.withLock { state in
            guard let plan = state.plan, plan.kinds.contains(operation), path.contains(plan.pathContains) else { return nil }
            defer { state.seen += 1 }
            state.log.append(operation)
            return state.seen == plan.failing ? plan.failure : nil
        }
    }

    /// Throws the planned errno for `operation`, if any (short writes are handled by the writer).
    static func check(_ operation: Operation, path: String, naming name: String) throws(FloeError) {
        guard let failure = failure(for: operation, path: path) else { return }
        switch failure {
        case .error(let code): throw .io(path: name, operation: operation.systemCall, errno: code)
        case .shortWrite: throw .io(path: name, operation: operation.systemCall, errno: ENOSPC)
        }
    }
}

extension FaultInjection.Operation {
    /// The name errors give the operation (the system call's).
    var systemCall: String {
        switch self {
        case .open: return "open"
        case .read: return "pread"
        case .write: return "pwrite"
        case .sync: return "fsync"
        case .truncate: return "ftruncate"
        case .rename: return "rename"
        case .syncDirectory: return "fsync directory"
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
