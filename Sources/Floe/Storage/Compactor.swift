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
            var checksum: UInt32 = 0
            var image = try file.readNode(at: offset, checksum: &checksum)
            for index in image.children.indices where image.children[index] != 0 {
                image.children[index] = try copyNode(at: image.children[index])
            }
            // A node without children is copied unchanged: its checked checksum still holds.
            let newOffset = chunk.append(image, checksum: image.children.isEmpty ? checksum : nil)
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
                var checksum: UInt32 = 0
                var image = try file.readNode(at: offset, checksum: &checksum)
                for index in image.children.indices where image.children[index] != 0 {
                    image.children[index] = try copyNode(at: image.children[index])
                }
                let newOffset = chunk.append(image, checksum: image.children.isEmpty ? checksum : nil)
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
