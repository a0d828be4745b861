/// Copies the newest version of a file into a new file, node by node.
///
/// The copy walks the version's tree from its root through the node images' child
/// references, writing children before parents into one streamed chunk; memory holds one
/// node per tree level plus a 1 MiB write buffer, whatever the file's size. A version's
/// nodes form a tree (no node has two parents), so each is copied exactly once.
enum Compactor {
    static let flushThreshold = 1 << 20

    /// Writes the newest version of `file` into a new file at `openPath` (reported as
    /// `reportedPath`), synced whatever `durability` says (it replaces the original), and
    /// returns it open and locked, committing with `durability` from then on.
    static func copy(file: StorageFile, to openPath: String, reportedPath: String, durability: Durability) throws(FloeError) -> StorageFile {
        try copy(file: file, commit: file.lastCommit, to: openPath, reportedPath: reportedPath, durability: durability)
    }

    /// Writes the version of `commit` (nil: an empty file); every node read is checked, so a
    /// copy that succeeds holds only verified bytes (what recovery relies on).
    static func copy(file: StorageFile, commit: CommitRecord?, to openPath: String, reportedPath: String,
                     durability: Durability) throws(FloeError) -> StorageFile {
        let target = try StorageFile.open(path: reportedPath, openPath: openPath, readOnly: false, durability: durability)
        guard let commit else { return target }
        var chunk = target.makeChunk()
        func copyNode(at offset: UInt64) throws(FloeError) -> UInt64 {
            var image = try file.readNode(at: offset)
            for index in image.children.indices where image.children[index] != 0 {
                image.children[index] = try copyNode(at: image.children[index])
            }
            let newOffset = chunk.append(image)
            if chunk.bufferedCount >= flushThreshold {
                let (at, bytes) = chunk.takeBufferedBytes()
                try target.writeStreamed(bytes, at: at)
            }
            return newOffset
        }
        let root = commit.rootRef == 0 ? 0 : try copyNode(at: commit.rootRef)
        let live = chunk.nextOffset - chunk.start - UInt64(ChunkHeader.size)
        try target.append(&chunk, version: commit.version, rootRef: root, liveBytes: live)
        try target.sync()
        return target
    }

    /// Writes every version of `history` (oldest first: version and root offset, 0 for an
    /// empty version) into a new file, one commit record each, chained as the original's were:
    /// a node shared by several versions is copied once and shared in the copy too. The newest
    /// record counts every copied byte as live (the older versions are kept on purpose).
    static func copy(file: StorageFile, history: [(version: UInt64, rootRef: UInt64)], to openPath: String,
                     reportedPath: String, durability: Durability) throws(FloeError) -> StorageFile {
        let target = try StorageFile.open(path: reportedPath, openPath: openPath, readOnly: false, durability: durability)
        var copied: [UInt64: UInt64] = [:]
        var total: UInt64 = 0
        for (version, rootRef) in history {
            var chunk = target.makeChunk()
            func copyNode(at offset: UInt64) throws(FloeError) -> UInt64 {
                if let done = copied[offset] { return done }
                var image = try file.readNode(at: offset)
                for index in image.children.indices where image.children[index] != 0 {
                    image.children[index] = try copyNode(at: image.children[index])
                }
                let newOffset = chunk.append(image)
                copied[offset] = newOffset
                if chunk.bufferedCount >= flushThreshold {
                    let (at, bytes) = chunk.takeBufferedBytes()
                    try target.writeStreamed(bytes, at: at)
                }
                return newOffset
            }
            let root = rootRef == 0 ? 0 : try copyNode(at: rootRef)
            total += chunk.nextOffset - chunk.start - UInt64(ChunkHeader.size)
            try target.append(&chunk, version: version, rootRef: root, liveBytes: total, sync: false)
        }
        try target.sync()
        return target
    }
}

/// A compacted copy of one version whose nodes are written and synced but whose commit record
/// is not: ``Compactor/beginCopy(file:commit:to:reportedPath:durability:isCancelled:)`` writes
/// it away from the writer, and ``Compactor/finishCopy(_:file:commit:)`` later adds the nodes of
/// the newer version it ends with and seals the chunk, so that the writer's turn pays only for
/// what was committed meanwhile.
///
/// ```swift
/// var pending = try Compactor.beginCopy(file: file, commit: base, to: temporary, reportedPath: path,
///                                      durability: .full, isCancelled: { false })
/// let copy = try Compactor.finishCopy(&pending, file: file, commit: file.lastCommit!)
/// ```
final class PendingCopy: @unchecked Sendable {
    // @unchecked: made on one thread and handed to the writer through a lock; only one thread
    // touches it at a time.
    /// The copy, open and locked; no commit in it yet.
    let target: StorageFile
    /// The one chunk of the copy, its bytes so far written to `target` (none buffered).
    var chunk: ChunkBuilder
    /// For every node of the copied version: its offset in the original, its offset in the copy
    /// and the bytes its subtree takes in the copy. Nodes never change once written, so a node of
    /// a newer version at one of these offsets is this very node, subtree and all.
    var copied: [UInt64: (offset: UInt64, subtreeBytes: UInt64)]

    init(target: StorageFile, chunk: ChunkBuilder, copied: [UInt64: (offset: UInt64, subtreeBytes: UInt64)]) {
        self.target = target
        self.chunk = chunk
        self.copied = copied
    }

    /// Closes the copy without a commit (its file is the caller's to remove).
    func abandon() { target.close() }
}

extension Compactor {
    /// Writes the nodes of `commit`'s version into a new file at `openPath`, streams them all out
    /// and syncs them, without a commit record: ``finishCopy(_:file:commit:)`` makes it a file.
    /// `isCancelled` is asked between nodes; a cancelled copy throws
    /// ``FloeError/closed(path:)``. Reads only bytes of `file` that never change, so a writer
    /// may go on appending to it meanwhile.
    static func beginCopy(file: StorageFile, commit: CommitRecord, to openPath: String, reportedPath: String,
                          durability: Durability, isCancelled: () -> Bool) throws(FloeError) -> PendingCopy {
        let target = try StorageFile.open(path: reportedPath, openPath: openPath, readOnly: false, durability: durability)
        do {
            var chunk = target.makeChunk()
            var copied: [UInt64: (offset: UInt64, subtreeBytes: UInt64)] = [:]
            if commit.rootRef != 0 {
                _ = try copyTree(at: commit.rootRef, from: file, into: target, chunk: &chunk, copied: &copied,
                                 recording: true, isCancelled: isCancelled)
            }
            if chunk.bufferedCount > 0 {
                let (at, bytes) = chunk.takeBufferedBytes()
                try target.writeStreamed(bytes, at: at)
            }
            try target.sync()
            return PendingCopy(target: target, chunk: chunk, copied: copied)
        } catch {
            target.close()
            throw error
        }
    }

    /// Adds to `pending` the nodes of `commit`'s version that its copied version did not have
    /// (a node it had is referenced where the copy put it), seals the chunk with `commit`'s
    /// version, syncs it, and returns the copy, which holds that version alone.
    static func finishCopy(_ pending: inout PendingCopy, file: StorageFile, commit: CommitRecord) throws(FloeError) -> StorageFile {
        var chunk = pending.chunk
        var root: UInt64 = 0
        var live: UInt64 = 0
        if commit.rootRef != 0 {
            (root, live) = try copyTree(at: commit.rootRef, from: file, into: pending.target, chunk: &chunk,
                                        copied: &pending.copied, recording: false, isCancelled: { false })
        }
        try pending.target.append(&chunk, version: commit.version, rootRef: root, liveBytes: live, sync: false)
        try pending.target.sync()
        return pending.target
    }

    /// Copies the subtree at `offset` (children first), reusing the nodes `copied` has, and
    /// returns its offset in the copy and the bytes its subtree takes there. `recording` adds
    /// every node copied to `copied`.
    private static func copyTree(at offset: UInt64, from file: StorageFile, into target: StorageFile,
                                 chunk: inout ChunkBuilder, copied: inout [UInt64: (offset: UInt64, subtreeBytes: UInt64)],
                                 recording: Bool, isCancelled: () -> Bool) throws(FloeError) -> (offset: UInt64, bytes: UInt64) {
        if let done = copied[offset] { return (done.offset, done.subtreeBytes) }
        if isCancelled() { throw .closed(path: target.path) }
        var image = try file.readNode(at: offset)
        var bytes: UInt64 = 0
        for index in image.children.indices where image.children[index] != 0 {
            let child = try copyTree(at: image.children[index], from: file, into: target, chunk: &chunk, copied: &copied,
                                     recording: recording, isCancelled: isCancelled)
            image.children[index] = child.offset
            bytes += child.bytes
        }
        let before = chunk.nextOffset
        let newOffset = chunk.append(image)
        bytes += chunk.nextOffset - before
        if recording { copied[offset] = (newOffset, bytes) }
        if chunk.bufferedCount >= flushThreshold {
            let (at, flushed) = chunk.takeBufferedBytes()
            try target.writeStreamed(flushed, at: at)
        }
        return (newOffset, bytes)
    }
}
