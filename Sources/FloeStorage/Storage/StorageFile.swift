import Synchronization

/// One open Floe file: reads nodes by offset and appends transaction chunks.
///
/// Reads are thread-safe and lock-free (positional reads of bytes that never change
/// once written). Appends are serialized by the caller: the engine's single writer.
@usableFromInline package final class StorageFile: @unchecked Sendable {
    // @unchecked: `lastCommit` and `hintSequence` change only inside
    // `append`, which the engine calls from its one writer at a time.
    package let path: String
    package let handle: FileHandle
    package let isReadOnly: Bool
    package let durability: Durability

    /// The newest valid commit (nil for a file with no commit yet).
    package private(set) var lastCommit: CommitRecord?
    /// Where the next chunk will be written. Atomic because readers check node offsets against it.
    private let end: Atomic<UInt64>
    package var endOffset: UInt64 { end.load(ordering: .acquiring) }
    private var hintSequence: UInt64
    /// Where the zeros written ahead of the commits end (the file's size while it is open for
    /// writing; `endOffset` when nothing is preallocated). See ``append``'s `extendingAhead`.
    private var allocatedEnd: UInt64
    /// The file is extended by at least this much when a commit runs past its preallocated
    /// zeros. Small, so that the first commit after an open (which extends) costs about what an
    /// append does; each later step doubles the one before up to ``preallocationDoublingLimit``,
    /// then is an eighth of the file, at most ``preallocationMaximumStep``.
    package static let preallocationMinimumStep: UInt64 = 64 << 10
    /// Steps double up to this: an extension costs a journal commit (≈ 200 µs on the benchmark
    /// machine) plus ≈ 0.75 µs per KiB of zeros, so a writer that keeps growing the file pays
    /// the fixed part once per MiB instead of once per 64 KiB.
    package static let preallocationDoublingLimit: UInt64 = 1 << 20
    package static let preallocationMaximumStep: UInt64 = 64 << 20
    /// The step of the last extension (0 before the first): the next one doubles it.
    package private(set) var extensionStep: UInt64 = 0
    /// What was appended since the header hint was last written. The hint is refreshed only
    /// every so often (it costs a write per commit otherwise); open then checks at most that
    /// much of the tail.
    private var bytesSinceHint: UInt64 = 0
    private var commitsSinceHint = 0
    package static let hintEveryBytes: UInt64 = 256 * 1024
    package static let hintEveryCommits = 32
    /// What open found and did, for diagnostics and tests.
    package let recovery: RecoveryReport

    /// What opening the file had to do.
    package struct RecoveryReport: Equatable {
        /// Bytes after the last valid commit that were cut off (or, read-only, ignored).
        package var discardedTailBytes: UInt64 = 0
        /// Whether no usable hint existed and the chunks were scanned from the start.
        package var scannedFromStart = false
        /// Bytes read to find the last commit (beyond the header and the hinted record).
        package var scannedBytes: UInt64 = 0
        /// Of `discardedTailBytes`, the zeros that end the file: space a writer extended the file
        /// by ahead of its commits, not data. The rest (if any) is a commit cut short.
        package var zeroTailBytes: UInt64 = 0
    }

    private init(path: String, handle: FileHandle, isReadOnly: Bool, durability: Durability,
                 lastCommit: CommitRecord?, endOffset: UInt64, hintSequence: UInt64, recovery: RecoveryReport) {
        self.path = path
        self.handle = handle
        self.isReadOnly = isReadOnly
        self.durability = durability
        self.lastCommit = lastCommit
        end = Atomic(endOffset)
        allocatedEnd = endOffset
        self.hintSequence = hintSequence
        self.recovery = recovery
    }

    /// Opens (or, unless read-only, creates) a file, takes its lock and finds its last valid commit.
    ///
    /// `openPath` names the file to open when it differs from the path errors should name
    /// (a compacted copy is built under a temporary name, then renamed into place).
    package static func open(path: String, openPath: String? = nil, readOnly: Bool, durability: Durability) throws(FloeError) -> StorageFile {
        if readOnly && !FileHandle.exists(openPath ?? path) {
            throw .io(path: path, operation: "open", errno: ENOENT)
        }
        let handle = try FileHandle(path: path, openPath: openPath, mode: readOnly ? .readOnly : .readWrite, create: !readOnly)
        // Writers exclude each other; readers take no lock: committed bytes never change, so a
        // reader in another process can follow a file an application is writing.
        if !readOnly { try handle.lock(exclusive: true) }
        let size = try handle.size()
        if size < UInt64(FileHeader.size) {
            // A brand-new file, or one whose creation died before the header was whole.
            let existing = size == 0 ? [] : try handle.read(count: Int(size), at: 0)
            let initial = FileHeader.initialBytes()
            guard Array(initial.prefix(existing.count)) == existing else { throw .notAFloeFile(path: path) }
            if readOnly { throw .notAFloeFile(path: path) }
            try handle.write(initial, at: 0)
            try handle.truncate(to: UInt64(FileHeader.size))
            if durability == .full { try handle.sync() }
            return StorageFile(path: path, handle: handle, isReadOnly: false, durability: durability,
                               lastCommit: nil, endOffset: UInt64(FileHeader.size), hintSequence: 0,
                               recovery: RecoveryReport())
        }
        let header = try handle.read(count: FileHeader.size, at: 0)
        let hints = try FileHeader.validate(header, path: path)
        var scanner = CommitScanner(handle: handle, fileSize: size)
        let found = try scanner.findLastCommit(hints: hints)
        var report = scanner.report
        let validEnd = found?.end ?? UInt64(FileHeader.size)
        report.discardedTailBytes = size - validEnd
        if validEnd < size { report.zeroTailBytes = try scanner.zeroBytesAtEnd(after: validEnd) }
        if validEnd < size && !readOnly, try scanner.hasIntactCommit(atOrAfter: validEnd + 8) {
            throw .corruptFile(path: path, offset: validEnd, detail: "the chunk here is damaged but intact commits follow it; "
                + "refusing to cut them off (open the file read-only to read version \(found?.version ?? 0))")
        }
        if validEnd < size && !readOnly {
            try handle.truncate(to: validEnd)
            if durability == .full { try handle.sync() }
        }
        let file = StorageFile(path: path, handle: handle, isReadOnly: readOnly, durability: durability,
                               lastCommit: found, endOffset: validEnd,
                               hintSequence: hints.first?.sequence ?? 0, recovery: report)
        if let found, !readOnly, hints.first?.commitOffset != found.offset {
            try file.writeHint(for: found)
        }
        return file
    }

    private let closedFlag = Atomic<Bool>(false)

    /// For a read-only file that another process writes: the newest commit appended since the
    /// last look (nil when nothing new is whole yet). A chunk still being written fails its
    /// checks and is simply not followed yet.
    package func followAppendedCommits() throws(FloeError) -> CommitRecord? {
        precondition(isReadOnly, "only read-only files follow another writer")
        let size = try handle.size()
        guard size > endOffset else { return nil }
        var scanner = CommitScanner(handle: handle, fileSize: size)
        guard let newest = try scanner.followChunks(after: lastCommit, from: endOffset), newest.version > (lastCommit?.version ?? 0) else {
            return nil
        }
        lastCommit = newest
        end.store(newest.end, ordering: .releasing)
        return newest
    }

    /// Whether `path` now names another file than the one open here (a writer compacted it).
    package func wasReplaced() -> Bool {
        guard let current = FileHandle.identity(ofPath: path) else { return false }
        return current != handle.identity
    }

    /// Stops all further reads and writes and releases the lock. The descriptor itself
    /// closes when the last reference goes, so a late reader gets an error, never another file's bytes.
    package func close() {
        if !isReadOnly, !isClosed {
            // A clean close leaves open nothing to scan: the hint names the last commit, and the
            // zeros written ahead of the commits go.
            if commitsSinceHint > 0, let lastCommit { try? writeHint(for: lastCommit) }
            trimPreallocation()
        }
        closedFlag.store(true, ordering: .releasing)
        handle.unlock()
    }

    /// For the file of a store that goes away without being closed: the same clean end as
    /// ``close()`` (hint and trimmed tail), but reads go on for the snapshots still holding it.
    package func release() {
        if !isReadOnly, !isClosed, !isRetired {
            if commitsSinceHint > 0, let lastCommit { try? writeHint(for: lastCommit) }
            trimPreallocation()
        }
        retire()
    }

    /// Cuts the zeros written ahead of the commits (best effort: left in place, they are read
    /// as the end of the file and cut by the next open for writing).
    private func trimPreallocation() {
        guard allocatedEnd > endOffset else { return }
        if (try? handle.truncate(to: endOffset)) != nil { allocatedEnd = endOffset }
    }

    package var isClosed: Bool { closedFlag.load(ordering: .acquiring) }

    /// For a file that a compacted copy replaced: no more writes (nor its lock), but reads go
    /// on, for the snapshots that still hold versions whose nodes live here. The descriptor
    /// closes when the last of them lets go.
    package func retire() {
        retiredFlag.store(true, ordering: .releasing)
        handle.unlock()
    }

    private let retiredFlag = Atomic<Bool>(false)
    package var isRetired: Bool { retiredFlag.load(ordering: .acquiring) }

    deinit {
        if !isReadOnly, !isClosed, !isRetired, commitsSinceHint > 0, let lastCommit { try? writeHint(for: lastCommit) }
    }

    /// Reads and checks the node at `offset`.
    /// Bytes the first read of a node takes: its header and, for a node up to this size (a
    /// leaf's keys or one column of a full leaf), its body, in one system call.
    package static let firstNodeRead = 4096

    package func readNode(at offset: UInt64) throws(FloeError) -> NodeImage {
        if isClosed { throw .closed(path: path) }
        let end = endOffset
        try Self.checkNodeReference(offset, end: end, path: path)
        // One read for the header and, for most nodes, the whole body (a second only for larger ones).
        let header = try handle.read(count: Int(min(UInt64(Self.firstNodeRead), end - offset)), at: offset)
        guard let parsed = NodeImage.parseHeader(header) else {
            throw .corruptFile(path: path, offset: offset, detail: "no node magic at a node reference")
        }
        let bodyLength = try Self.checkNodeLength(childCount: parsed.childCount, payloadLength: parsed.payloadLength,
                                                  at: offset, end: end, path: path)
        let framed = NodeImage.headerSize + bodyLength <= header.count
        let body = framed ? header : try handle.read(count: bodyLength, at: offset + UInt64(NodeImage.headerSize))
        guard let image = NodeImage.decode(header: header, body: body, bodyOffset: framed ? NodeImage.headerSize : 0,
                                           childCount: parsed.childCount, payloadLength: parsed.payloadLength,
                                           checksum: parsed.checksum, kind: parsed.kind)
        else { throw .corruptFile(path: path, offset: offset, detail: "node checksum mismatch") }
        return image
    }

    /// Throws unless `offset` can be a node's in a file whose commits end at `end`: past the
    /// header, aligned, with room for a node header before the end. (Every node read checks
    /// this first, through a positional read or a mapping: ``MappedNodes``.)
    package static func checkNodeReference(_ offset: UInt64, end: UInt64, path: String) throws(FloeError) {
        guard offset >= UInt64(FileHeader.size), offset % 8 == 0, offset <= end,
              end - offset >= UInt64(NodeImage.headerSize)
        else { throw .corruptFile(path: path, offset: offset, detail: "a node reference points outside the written file") }
    }

    /// The body length a node header at `offset` claims, once it is checked to fit before `end`.
    package static func checkNodeLength(childCount: Int, payloadLength: Int, at offset: UInt64, end: UInt64,
                                path: String) throws(FloeError) -> Int {
        let bodyLength = childCount * 8 + payloadLength
        let paddedBody = (NodeImage.headerSize + bodyLength + 7) & ~7 - NodeImage.headerSize
        guard bodyLength <= NodeImage.maximumSize, UInt64(NodeImage.headerSize + paddedBody) <= end - offset else {
            throw .corruptFile(path: path, offset: offset, detail: "a node claims \(bodyLength) bytes, past the end of the file")
        }
        return bodyLength
    }

    /// A builder for the next chunk.
    package func makeChunk() -> ChunkBuilder { ChunkBuilder(start: endOffset) }

    /// Writes a built chunk in one write, syncs it per the durability, and records it as the last commit.
    ///
    /// `sync: false` leaves the sync to a later group commit (``GroupCommit``), even with `.full`.
    /// `extendingAhead` (a store's commits with durability `.full`): when the chunk runs past
    /// the zeros written ahead, the file is extended by a large step of zeros in the same
    /// write-and-sync, so that the next commits overwrite synced blocks instead of growing the
    /// file (on ext4 an overwrite plus `fdatasync` skips the journal commit an append needs).
    /// Open reads zeros after the last commit as the end of the file.
    @discardableResult
    package func append(_ chunk: inout ChunkBuilder, version: UInt64, rootRef: UInt64, liveBytes: UInt64, sync: Bool = true,
                extendingAhead: Bool = false) throws(FloeError) -> CommitRecord {
        guard !isReadOnly else { throw .readOnly(path: path) }
        if isClosed || isRetired { throw .closed(path: path) }
        precondition(chunk.start == endOffset, "chunk built for offset \(chunk.start) but the file ends at \(endOffset)")
        let sealed = chunk.seal(version: version, rootRef: rootRef, previousCommit: lastCommit?.offset ?? 0, liveBytes: liveBytes)
        do {
            try handle.write(sealed.tail, at: sealed.tailOffset)
            if sealed.tailOffset != sealed.record.chunkStart {
                try handle.write(sealed.header, at: sealed.record.chunkStart)
            }
            if extendingAhead && durability == .full && sealed.record.end > allocatedEnd {
                extendAhead(of: sealed.record.end)
            }
            if durability == .full && sync { try handle.sync() }
        } catch {
            // Leave no half chunk behind for the next commit to follow (nor zeros ahead of it).
            if (try? handle.truncate(to: endOffset)) != nil { allocatedEnd = endOffset }
            throw error
        }
        lastCommit = sealed.record
        end.store(sealed.record.end, ordering: .releasing)
        allocatedEnd = max(allocatedEnd, sealed.record.end)
        bytesSinceHint += sealed.record.chunkLength
        commitsSinceHint += 1
        if bytesSinceHint >= Self.hintEveryBytes || commitsSinceHint >= Self.hintEveryCommits {
            try writeHint(for: sealed.record)
        }
        return sealed.record
    }

    /// Writes zeros after `chunkEnd`, a step proportional to the file. A failure (a full disk)
    /// only means no step: whatever zeros landed read as the end of the file, and the commit
    /// goes on as an append.
    private func extendAhead(of chunkEnd: UInt64) {
        let doubled = min(extensionStep * 2, Self.preallocationDoublingLimit)
        let step = min(max(chunkEnd / 8, doubled, Self.preallocationMinimumStep), Self.preallocationMaximumStep)
        let target = (chunkEnd + step + 0xFFFF) & ~0xFFFF
        do {
            try handle.writeZeros(count: target - chunkEnd, at: chunkEnd)
            allocatedEnd = target
            extensionStep = step
        } catch {
            try? handle.truncate(to: chunkEnd)
            allocatedEnd = chunkEnd
        }
    }

    /// Carries on `previous`'s steps of extension (a compaction's copy, which takes over from
    /// the file it replaces: its writer's commits keep coming at the same pace). Called by the
    /// writer, before its first append here.
    package func continueExtending(after previous: StorageFile) {
        extensionStep = previous.extensionStep
    }

    /// Bytes of zeros written ahead of the commits, after ``endOffset``.
    /// (A read-only file that follows a writer sees its end move past what it knew of: 0.)
    package var preallocatedBytes: UInt64 { allocatedEnd > endOffset ? allocatedEnd - endOffset : 0 }

    /// Writes buffered bytes of a streamed chunk (compaction) ahead of `append`.
    package func writeStreamed(_ bytes: [UInt8], at offset: UInt64) throws(FloeError) {
        try handle.write(bytes, at: offset)
    }

    package func sync() throws(FloeError) { try handle.sync() }

    private func writeHint(for record: CommitRecord) throws(FloeError) {
        bytesSinceHint = 0
        commitsSinceHint = 0
        hintSequence += 1
        let hint = FileHeader.Hint(sequence: hintSequence, commitOffset: record.offset, version: record.version)
        let slot = FileHeader.slotOffsets[Int(hintSequence % 2)]
        try handle.write(hint.encoded(), at: slot)
    }

    /// Bytes in the file that no longer belong to the newest version.
    package var deadBytes: UInt64 {
        let live = lastCommit?.liveBytes ?? 0
        return endOffset - UInt64(FileHeader.size) - min(live, endOffset - UInt64(FileHeader.size))
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
