#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The two clocks the benchmark reads, in nanoseconds.
///
/// Wall time is what a user waits for; thread CPU time is what a commit costs the
/// machine, and it stays meaningful on a noisy 2-core box where the wall clock also
/// counts time spent descheduled.
enum Clocks {
    /// A monotonic wall clock.
    static func wallNanoseconds() -> UInt64 {
        read(CLOCK_MONOTONIC)
    }

    /// CPU time (user and system) consumed by the calling thread only.
    static func threadCPUNanoseconds() -> UInt64 {
        read(CLOCK_THREAD_CPUTIME_ID)
    }

    private static func read(_ clock: clockid_t) -> UInt64 {
        var time = timespec()
        clock_gettime(clock, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// Wall nanoseconds `body` took.
    static func wallTime(_ body: () throws -> Void) rethrows -> Double {
        let start = wallNanoseconds()
        try body()
        return Double(wallNanoseconds() - start)
    }
}

extension Clocks {
    /// Wall nanoseconds `body` took, for bodies that await.
    static func wallTime(_ body: () async throws -> Void) async rethrows -> Double {
        let start = wallNanoseconds()
        try await body()
        return Double(wallNanoseconds() - start)
    }
}
