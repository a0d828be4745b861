#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A bounded wait that keeps its thread: a condition looked at again and again, the core
/// yielded in between, for at most a few hundred microseconds.
///
/// For a thread that expects what it waits for sooner than parking and being woken again
/// would take (a thread wake-up costs tens of microseconds here): the syncer thread watching
/// for a lone writer's next commit, a lone writer watching for its commit's sync. Never for
/// long, and never for something that may not come soon: the thread does nothing else meanwhile.
///
/// ```swift
/// let arrived = BriefWatch.until(nanoseconds: 60_000) { arrivals.load(ordering: .acquiring) != seen }
/// ```
package enum BriefWatch {
    /// A monotonic clock, in nanoseconds.
    package static func now() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
    }

    /// Whether `condition` held within `nanoseconds`, looked at first at once, then after each
    /// `sched_yield()` (which lets whatever else is runnable have the core).
    package static func until(nanoseconds: UInt64, _ condition: () -> Bool) -> Bool {
        let deadline = now() &+ nanoseconds
        repeat {
            if condition() { return true }
            sched_yield()
        } while now() < deadline
        return condition()
    }
}
