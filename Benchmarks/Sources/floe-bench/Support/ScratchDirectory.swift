import Foundation

/// A private temporary directory for one benchmark run, deleted when the run ends.
final class ScratchDirectory {
    let path: String

    init() throws {
        let base = FileManager.default.temporaryDirectory.path
        path = "\(base)/floe-bench-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// A path inside the directory (the file is not created).
    func file(_ name: String) -> String {
        "\(path)/\(name)"
    }

    /// Deletes a file and whatever a database keeps beside it (SQLite's -wal and -shm,
    /// Floe's lock file), so that each run starts from nothing.
    func remove(_ name: String) {
        for suffix in ["", "-wal", "-shm", "-journal", ".lock", ".compacting"] {
            try? FileManager.default.removeItem(atPath: file(name) + suffix)
        }
    }

    func delete() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// File sizes on disk, for the size workloads.
enum FileSizes {
    static func size(of path: String) -> UInt64 {
        var info = stat()
        return stat(path, &info) == 0 ? UInt64(info.st_size) : 0
    }
}
