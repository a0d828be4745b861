#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the disk itself costs, so that durable figures can be read against it: no engine
/// can commit durably faster than the disk appends a block and syncs it.
enum DiskProbe {
    /// Wall nanoseconds of each of `count` appends of `blockSize` bytes, each followed by
    /// `fdatasync`, to a new file at `path` (deleted afterwards).
    static func appendAndSyncLatencies(path: String, blockSize: Int = 8_192, count: Int = 100) -> Samples {
        let descriptor = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else { return Samples() }
        defer {
            close(descriptor)
            unlink(path)
        }
        let block = [UInt8](repeating: 0xA5, count: blockSize)
        var samples = Samples()
        var offset: off_t = 0
        for _ in 0..<count {
            let start = Clocks.wallNanoseconds()
            _ = block.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, blockSize, offset) }
            fdatasync(descriptor)
            samples.append(Double(Clocks.wallNanoseconds() - start))
            offset += off_t(blockSize)
        }
        return samples
    }
}
