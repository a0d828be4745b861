#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A read-only mapping of a file's first bytes, unmapped when let go of.
///
/// For walks that read every live node of a file once (compaction, copies, recovery): a
/// node read through a mapping costs no system call and no copy, where a positional read
/// cost both, and most of a compaction's time. Only bytes up to the file's size when it
/// was mapped are mapped; Floe's files only grow while open (another process's writer
/// trims its zeros only when it closes, and a file's lock keeps writers one at a time).
package final class FileMapping {
    package let bytes: UnsafeRawBufferPointer

    package init(address: UnsafeRawPointer, count: Int) {
        bytes = UnsafeRawBufferPointer(start: address, count: count)
    }

    /// A mapping of nothing (an empty file: `mmap` refuses a length of 0).
    package init(empty: Void) {
        bytes = UnsafeRawBufferPointer(start: nil, count: 0)
    }

    deinit {
        if let base = bytes.baseAddress { munmap(UnsafeMutableRawPointer(mutating: base), bytes.count) }
    }
}
