import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The process's memory and the kernel's page cache, as the open workload needs them.
enum ProcessMemory {
    /// The resident set size of this process in bytes (`VmRSS` of `/proc/self/status`).
    static func residentBytes() -> UInt64 {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let kilobytes = line.dropFirst("VmRSS:".count).split(whereSeparator: \.isWhitespace).first.flatMap { UInt64($0) } ?? 0
            return kilobytes * 1_024
        }
        return 0
    }
}

enum PageCache {
    /// Writes the file's dirty pages and asks the kernel to drop all its cached pages, so
    /// that the next reader goes to the disk. Returns the fraction of the file's pages
    /// still resident afterwards, which the caller reports: a cold figure measured on a
    /// file that stayed cached would be a lie.
    static func evict(_ path: String) -> Double {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return 1 }
        defer { close(descriptor) }
        fsync(descriptor)
        posix_fadvise(descriptor, 0, 0, Int32(POSIX_FADV_DONTNEED))
        var resident = residentFraction(path)
        if resident > 0.01 {
            // Some kernels keep pages that fadvise alone will not drop; as root we may
            // drop the whole clean page cache instead.
            sync()
            if let dropper = fopen("/proc/sys/vm/drop_caches", "w") {
                fputs("1\n", dropper)
                fclose(dropper)
            }
            resident = residentFraction(path)
        }
        return resident
    }

    /// The fraction of the file's pages in the page cache, from `mincore` over a mapping.
    static func residentFraction(_ path: String) -> Double {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return 0 }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_size > 0 else { return 0 }
        let length = Int(info.st_size)
        guard let mapping = mmap(nil, length, PROT_READ, MAP_SHARED, descriptor, 0), mapping != MAP_FAILED else { return 0 }
        defer { munmap(mapping, length) }
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        let pageCount = (length + pageSize - 1) / pageSize
        var residency = [UInt8](repeating: 0, count: pageCount)
        guard mincore(mapping, length, &residency) == 0 else { return 0 }
        let resident = residency.reduce(0) { $0 + Int($1 & 1) }
        return Double(resident) / Double(pageCount)
    }
}
