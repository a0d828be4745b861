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
        syncLatencies(path: path, blockSize: blockSize, count: count, preWritten: false)
    }

    /// The same writes and syncs into a file whose blocks were written (and synced) before:
    /// the file's size and block map do not change, so the sync has no metadata to commit.
    /// What a durable commit could cost if the file were extended ahead of its commits.
    static func overwriteAndSyncLatencies(path: String, blockSize: Int = 8_192, count: Int = 100) -> Samples {
        syncLatencies(path: path, blockSize: blockSize, count: count, preWritten: true)
    }

    private static func syncLatencies(path: String, blockSize: Int, count: Int, preWritten: Bool) -> Samples {
        let descriptor = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else { return Samples() }
        defer {
            close(descriptor)
            unlink(path)
        }
        if preWritten {
            let zeros = [UInt8](repeating: 0, count: blockSize * count)
            _ = zeros.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, zeros.count, 0) }
            fsync(descriptor)
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
