#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Which file a path or descriptor names.
package struct FileIdentity: Equatable {
    package var device: UInt64
    package var inode: UInt64
}

/// A thin owner of one POSIX file descriptor: positional reads and writes, sync,
/// truncation and the advisory lock. Every failure becomes a ``FloeError`` naming the file.
package final class FileHandle: @unchecked Sendable {
    // @unchecked: the descriptor is immutable after init; pread/pwrite are thread-safe.
    package let path: String
    private let descriptor: Int32

    package enum Mode { case readWrite, readOnly }

    /// Opens `openPath`; errors and messages name `path` (which differs while a compacted
    /// copy is built under a temporary name).
    package init(path: String, openPath: String? = nil, mode: Mode, create: Bool) throws(FloeError) {
        self.path = path
        let openPath = openPath ?? path
        var flags: Int32 = mode == .readOnly ? O_RDONLY : O_RDWR
        if create && mode == .readWrite { flags |= O_CREAT }
        flags |= O_CLOEXEC
        try FaultInjection.check(.open, path: openPath, naming: path)
        let fd = open(openPath, flags, 0o644)
        if fd < 0 { throw .io(path: path, operation: "open", errno: errno) }
        descriptor = fd
    }

    deinit { close(descriptor) }

    /// Takes the process-wide advisory lock: exclusive for writers, shared for read-only opens.
    package func lock(exclusive: Bool) throws(FloeError) {
        if flock(descriptor, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) != 0 {
            let code = errno
            if code == EWOULDBLOCK || code == EAGAIN { throw .fileLocked(path: path) }
            throw .io(path: path, operation: "flock", errno: code)
        }
    }

    /// Gives up the advisory lock (the descriptor stays open for snapshots still reading).
    package func unlock() {
        flock(descriptor, LOCK_UN)
    }

    /// The device and inode of the open file.
    package var identity: FileIdentity? {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        return FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// The device and inode `path` names now, or nil if nothing is there.
    package static func identity(ofPath path: String) -> FileIdentity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    package func size() throws(FloeError) -> UInt64 {
        var info = stat()
        if fstat(descriptor, &info) != 0 { throw .io(path: path, operation: "fstat", errno: errno) }
        return UInt64(info.st_size)
    }

    /// Reads exactly `count` bytes at `offset`; a short read (end of file) is an error.
    package func read(count: Int, at offset: UInt64) throws(FloeError) -> [UInt8] {
        guard let bytes = try read(count: count, at: offset, stoppingAtEnd: false) else {
            preconditionFailure("a read that does not stop at the end returned nothing")
        }
        return bytes
    }

    /// Reads exactly `count` bytes at `offset`, or returns nil when the file ends before them:
    /// for the scans of a file's tail, which another process's writer may shorten meanwhile
    /// (it trims the zeros written ahead of its commits when it closes).
    package func readIfPresent(count: Int, at offset: UInt64) throws(FloeError) -> [UInt8]? {
        try read(count: count, at: offset, stoppingAtEnd: true)
    }

    private func read(count: Int, at offset: UInt64, stoppingAtEnd: Bool) throws(FloeError) -> [UInt8]? {
        if count == 0 { return [] }  // see ByteReader.readWords: no zero-capacity uninitialized arrays
        try FaultInjection.check(.read, path: path, naming: path)
        var failure: FloeError?
        var ended = false
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var done = 0
            while done < count {
                let result = pread(descriptor, buffer.baseAddress! + done, count - done, off_t(offset) + off_t(done))
                if result < 0 {
                    if errno == EINTR { continue }
                    failure = .io(path: path, operation: "pread", errno: errno)
                    break
                }
                if result == 0 {
                    ended = true
                    if !stoppingAtEnd {
                        failure = .corruptFile(path: path, offset: offset, detail: "expected \(count) bytes but the file ends after \(done)")
                    }
                    break
                }
                done += result
            }
            initialized = failure == nil && !ended ? count : 0
        }
        if let failure { throw failure }
        return ended ? nil : bytes
    }

    /// Maps the file's first `length` bytes (at most its size) for reading: see ``FileMapping``.
    package func mapForReading(length: UInt64) throws(FloeError) -> FileMapping {
        try FaultInjection.check(.map, path: path, naming: path)
        // Never past the file's end: touching a mapped page there stops the process.
        let mapped = Int(min(length, try size()))
        guard mapped > 0 else { return FileMapping(empty: ()) }
        let address = mmap(nil, mapped, PROT_READ, MAP_SHARED, descriptor, 0)
        guard let address, address != UnsafeMutableRawPointer(bitPattern: -1) else {
            throw .io(path: path, operation: "mmap", errno: errno)
        }
        return FileMapping(address: UnsafeRawPointer(address), count: mapped)
    }

    package func write(_ bytes: [UInt8], at offset: UInt64) throws(FloeError) {
        var failure: FloeError?
        var limit = bytes.count
        switch FaultInjection.failure(for: .write, path: path) {
        case .error(let code)?: throw .io(path: path, operation: "pwrite", errno: code)
        case .shortWrite?:
            // The disk fills halfway through: the first half lands, then ENOSPC.
            limit = bytes.count / 2
            failure = .io(path: path, operation: "pwrite", errno: ENOSPC)
        case .delay(let microseconds)?: usleep(microseconds)
        case nil: break
        }
        bytes.withUnsafeBytes { raw in
            var done = 0
            while done < limit {
                let result = pwrite(descriptor, raw.baseAddress! + done, limit - done, off_t(offset) + off_t(done))
                if result < 0 {
                    if errno == EINTR { continue }
                    failure = .io(path: path, operation: "pwrite", errno: errno)
                    return
                }
                done += result
            }
        }
        if let failure { throw failure }
    }

    /// Writes `count` zero bytes at `offset`, in writes of at most 1 MiB (each one a write for
    /// fault injection).
    package func writeZeros(count: UInt64, at offset: UInt64) throws(FloeError) {
        let piece = Self.zeros.count
        var done: UInt64 = 0
        while done < count {
            let length = Int(min(UInt64(piece), count - done))
            try write(length == piece ? Self.zeros : Array(Self.zeros[0..<length]), at: offset + done)
            done += UInt64(length)
        }
    }

    private static let zeros = [UInt8](repeating: 0, count: 1 << 20)

    package func sync() throws(FloeError) {
        try FaultInjection.check(.sync, path: path, naming: path)
        #if canImport(Darwin)
        let result = fcntl(descriptor, F_FULLFSYNC)
        #else
        let result = fdatasync(descriptor)
        #endif
        if result != 0 { throw .io(path: path, operation: "fsync", errno: errno) }
    }

    package func truncate(to length: UInt64) throws(FloeError) {
        try FaultInjection.check(.truncate, path: path, naming: path)
        if ftruncate(descriptor, off_t(length)) != 0 {
            throw .io(path: path, operation: "ftruncate", errno: errno)
        }
    }

    /// Makes a rename in `directory` durable.
    package static func syncDirectory(of path: String) throws(FloeError) {
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        try FaultInjection.check(.syncDirectory, path: path, naming: directory)
        let fd = open(directory.isEmpty ? "/" : directory, O_RDONLY | O_CLOEXEC)
        if fd < 0 { throw .io(path: directory, operation: "open directory", errno: errno) }
        defer { close(fd) }
        if fsync(fd) != 0 { throw .io(path: directory, operation: "fsync directory", errno: errno) }
    }

    package static func move(_ source: String, to destination: String) throws(FloeError) {
        try FaultInjection.check(.rename, path: destination, naming: destination)
        let result = rename(source, destination)
        if result != 0 { throw .io(path: destination, operation: "rename from \(source)", errno: errno) }
    }

    package static func remove(_ path: String) {
        unlink(path)
    }

    package static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    /// An absolute, symlink-free spelling of `path`, so one file maps to one store.
    package static func canonicalPath(_ path: String) -> String {
        if let resolved = realpath(path, nil) {
            defer { free(resolved) }
            return String(cString: resolved)
        }
        // The file does not exist yet: resolve its directory instead.
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        if let resolved = realpath(directory.isEmpty ? "/" : directory, nil) {
            defer { free(resolved) }
            let base = String(cString: resolved)
            return base == "/" ? "/" + name : base + "/" + name
        }
        return path
    }
}
