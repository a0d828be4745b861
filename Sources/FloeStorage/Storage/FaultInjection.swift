import Synchronization

/// The seam every file operation passes through, so that tests can make any of them fail.
///
/// Disabled (the normal case) it costs one atomic load per system call. Enabled, it counts the
/// operations on files whose path contains ``Plan/pathContains`` and makes the chosen one fail
/// the way a full or failing disk does: an errno, or a write that stops halfway.
///
/// ```swift
/// FaultInjection.install(.init(pathContains: "faults", failing: 3, with: .error(ENOSPC)))
/// defer { FaultInjection.remove(pathContains: "faults") }
/// ```
@_spi(Testing) public enum FaultInjection {
    /// The kinds of operation a plan can count and fail.
    public enum Operation: String, Sendable, CaseIterable {
        case open, read, map, write, sync, truncate, rename, syncDirectory
    }

    /// How the chosen operation fails.
    public enum Failure: Sendable, Equatable {
        /// The call fails with this errno (ENOSPC, EIO…).
        case error(Int32)
        /// A write stores its first half, then fails with ENOSPC.
        case shortWrite
        /// The call succeeds after this many microseconds (a slow disk); with `failing: .max`
        /// in a plan made by ``slowDown(_:by:pathContains:)``, every matching call is slow.
        case delay(microseconds: UInt32)
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

    /// One plan and what it counted. Plans for different paths run side by side (tests in
    /// parallel each fault their own files).
    private struct Installed {
        var plan: Plan
        var seen = 0
        var log: [Operation] = []
    }

    private static let enabled = Atomic<Bool>(false)
    private static let installed = Locked<[String: Installed]>([:])

    /// Installs `plan` for its paths (replacing any plan for the same `pathContains`), counting from 0.
    public static func install(_ plan: Plan) {
        installed.withLock { $0[plan.pathContains] = Installed(plan: plan) }
        enabled.store(true, ordering: .releasing)
    }

    /// Counts operations on matching paths without failing any (to learn how many a scenario makes).
    public static func count(pathContains: String) {
        install(Plan(pathContains: pathContains, failing: .max, with: .error(0)))
    }

    /// Makes every `operation` on matching paths take `microseconds` longer, as a slow disk does.
    public static func slowDown(_ operation: Operation, by microseconds: UInt32, pathContains: String) {
        install(Plan(pathContains: pathContains, failing: .max, with: .delay(microseconds: microseconds), kinds: [operation]))
    }

    /// The operations counted on `pathContains`'s paths since its plan was installed, in order.
    public static func operations(pathContains: String) -> [Operation] {
        installed.withLock { $0[pathContains]?.log ?? [] }
    }

    /// Removes the plan for `pathContains`: its paths' operations behave normally again.
    public static func remove(pathContains: String) {
        installed.withLock { plans in
            plans[pathContains] = nil
            if plans.isEmpty { enabled.store(false, ordering: .releasing) }
        }
    }

    /// The failure planned for this operation, if it is the chosen one.
    package static func failure(for operation: Operation, path: String) -> Failure? {
        guard enabled.load(ordering: .acquiring) else { return nil }
        return installed.withLock { plans in
            guard let key = plans.keys.first(where: { path.contains($0) }), var entry = plans[key],
                  entry.plan.kinds.contains(operation) else { return nil }
            defer { plans[key] = entry }
            defer { entry.seen += 1 }
            entry.log.append(operation)
            if case .delay = entry.plan.failure { return entry.plan.failure }
            return entry.seen == entry.plan.failing ? entry.plan.failure : nil
        }
    }

    /// Throws the planned errno for `operation`, if any (short writes are handled by the writer).
    package static func check(_ operation: Operation, path: String, naming name: String) throws(FloeError) {
        guard let failure = failure(for: operation, path: path) else { return }
        switch failure {
        case .error(let code): throw .io(path: name, operation: operation.systemCall, errno: code)
        case .shortWrite: throw .io(path: name, operation: operation.systemCall, errno: ENOSPC)
        case .delay(let microseconds): usleep(microseconds)
        }
    }
}

extension FaultInjection.Operation {
    /// The name errors give the operation (the system call's).
    package var systemCall: String {
        switch self {
        case .open: return "open"
        case .read: return "pread"
        case .map: return "mmap"
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
