import Synchronization
@_spi(Engine) import FloeStorage

/// A counter that moves whenever a cached row position may have stopped being the one reads
/// should see: a version published, a write begun or ended, a leaf replaced or rows moved
/// inside a write. A managed object remembers the counter's value when it last confirmed its
/// row, and while the counter still shows that value, a property read is a compare and a load.
///
/// Value writes into a leaf the write transaction already owns do not move it: every row
/// cached in that leaf reads the new values in place.
@usableFromInline package final class ReadEpoch: Sendable {
    @usableFromInline let counter = Atomic<UInt64>(0)

    /// One that never moves, for frozen versions (their rows never change).
    package static let unchanging = ReadEpoch()

    /// The counter now. Loaded before a full check of a cached row: anything that happens
    /// after the load moves the counter past the value the check is stamped with.
    @inlinable @inline(__always)
    package var current: UInt64 { counter.load(ordering: .acquiring) }

    /// Moves the counter, after the change that may leave cached rows stale has taken effect.
    @inlinable @inline(__always)
    package func advance() {
        counter.add(1, ordering: .releasing)
    }
}
