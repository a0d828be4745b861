import Foundation

/// A value guarded by a lock.
///
/// Built on `NSLock` (a pthread mutex) rather than `Synchronization.Mutex`: on Linux the
/// latter waits on futexes the thread sanitizer cannot see, so every access it guards would
/// be reported as a race and CI's sanitizer run would prove nothing.
package final class Locked<Value>: @unchecked Sendable {
    // @unchecked: `value` is only touched with `lock` held.
    private var value: Value
    private let lock = NSLock()

    package init(_ value: Value) {
        self.value = value
    }

    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
