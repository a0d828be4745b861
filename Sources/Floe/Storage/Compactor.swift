/// Copies the newest version of a file into a new file, node by node.
///
/// The copy walks the version's tree from its root through the node images' child
/// references, writing children before parents into one streamed chunk. It reads the file
/// through a mapping (``MappedNodes``): each node is checked where the file holds it, and a
/// node without children is copied as it is, so memory holds the child offsets of one node
/// per tree level plus a 1 MiB write buffer, whatever the file's size. A version's nodes form
/// a tree (no node has two parents), so each is copied exactly once.
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
        var copier = TreeCopier(source: try MappedNodes(file: file), target: target, sharesNodes: false)
        let root = commit.rootRef == 0 ? 0 : try copier.copy(at: commit.rootRef)
        let live = copier.chunk.nextOffset - copier.chunk.start - UInt64(ChunkHeader.size)
        try target.append(&copier.chunk, version: commit.version, rootRef: root, liveBytes: live)
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
        var copier = TreeCopier(source: try MappedNodes(file: file), target: target, sharesNodes: true)
        var total: UInt64 = 0
        for (version, rootRef) in history {
            let root = rootRef == 0 ? 0 : try copier.copy(at: rootRef)
            total += copier.chunk.nextOffset - copier.chunk.start - UInt64(ChunkHeader.size)
            try target.append(&copier.chunk, version: version, rootRef: root, liveBytes: total, sync: false)
            copier.chunk = target.makeChunk()
        }
        try target.sync()
        return target
    }
}

/// One copy's walk: reads checked nodes from the source's mapping and streams them into the
/// chunk being built for the target.
private struct TreeCopier {
    let source: MappedNodes
    let target: StorageFile
    var chunk: ChunkBuilder
    /// The new offsets of the children of the nodes being copied, one run per level of the walk.
    private var newChildren: [UInt64] = []
    /// Where nodes already copied went (only for copies of several versions, which share nodes).
    private var copied: [UInt64: UInt64]?

    init(source: MappedNodes, target: StorageFile, sharesNodes: Bool) {
        self.source = source
        self.target = target
        chunk = target.makeChunk()
        copied = sharesNodes ? [:] : nil
    }

    /// Copies the node at `offset` and everything under it; returns where the copy is.
    mutating func copy(at offset: UInt64) throws(FloeError) -> UInt64 {
        if let done = copied?[offset] { return done }
        let node = try source.node(at: offset)
        let newOffset: UInt64
        if node.childCount == 0 {
            // Copied as it is: its checked checksum still holds.
            newOffset = chunk.appendUnchanged(node)
        } else {
            let run = newChildren.count
            for index in 0..<node.childCount {
                let child = node.child(at: index)
                newChildren.append(child == 0 ? 0 : try copy(at: child))
            }
            newOffset = appendNode(node, childrenAt: run)
            newChildren.removeSubrange(run...)
        }
        copied?[offset] = newOffset
        if chunk.bufferedCount >= Compactor.flushThreshold {
            let (at, bytes) = chunk.takeBufferedBytes()
            try target.writeStreamed(bytes, at: at)
        }
        return newOffset
    }

    /// Appends `node` with the child offsets from `run` on in ``newChildren``.
    private mutating func appendNode(_ node: MappedNode, childrenAt run: Int) -> UInt64 {
        let children = newChildren[run...]
        return chunk.appendNode(kind: node.kind, childCount: node.childCount) { writer in
            for child in children { writer.append(child) }
            writer.append(node.payload)
        }.offset
    }
}
