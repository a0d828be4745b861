/// Copies the newest version of a file into a new file, node by node.
///
/// The copy walks the version's tree from its root through the node images' child
/// references, writing children before parents into one streamed chunk. It reads the file
/// through a mapping (``MappedNodes``): each node is checked where the file holds it, and a
/// node without children is copied as it is, so memory holds the child offsets of one node
/// per tree level plus a 1 MiB write buffer, whatever the file's size. Recovery reads with
/// positional reads instead (`readingPositionally`): a file it salvages may lie on a disk
/// that fails to read some blocks, which a positional read reports as an error where a mapped
/// page stops the process. A version's nodes form a tree (no node has two parents), so each
/// is copied exactly once.
package enum Compactor {
    package static let flushThreshold = 1 << 20

    /// Writes the newest version of `file` into a new file at `openPath` (reported as
    /// `reportedPath`), synced whatever `durability` says (it replaces the original), and
    /// returns it open and locked, committing with `durability` from then on.
    package static func copy(file: StorageFile, to openPath: String, reportedPath: String, durability: Durability) throws(FloeError) -> StorageFile {
        try copy(file: file, commit: file.lastCommit, to: openPath, reportedPath: reportedPath, durability: durability)
    }

    /// Writes the version of `commit` (nil: an empty file); every node read is checked, so a
    /// copy that succeeds holds only verified bytes (what recovery relies on).
    /// `readingPositionally`: reads with positional reads, not through a mapping (recovery).
    package static func copy(file: StorageFile, commit: CommitRecord?, to openPath: String, reportedPath: String,
                     durability: Durability, readingPositionally: Bool = false) throws(FloeError) -> StorageFile {
        let target = try StorageFile.open(path: reportedPath, openPath: openPath, readOnly: false, durability: durability)
        guard let commit else { return target }
        if readingPositionally {
            var copier = TreeCopier(source: file, target: target, sharesNodes: false)
            try copyVersion(of: commit, with: &copier, into: target)
        } else {
            var copier = TreeCopier(source: try MappedNodes(file: file), target: target, sharesNodes: false)
            try copyVersion(of: commit, with: &copier, into: target)
        }
        try target.sync()
        return target
    }

    private static func copyVersion<Source: CopySource>(of commit: CommitRecord, with copier: inout TreeCopier<Source>,
                                                        into target: StorageFile) throws(FloeError) {
        let root = commit.rootRef == 0 ? 0 : try copier.copy(at: commit.rootRef)
        let live = copier.chunk.nextOffset - copier.chunk.start - UInt64(ChunkHeader.size)
        try target.append(&copier.chunk, version: commit.version, rootRef: root, liveBytes: live)
    }

    /// Writes every version of `history` (oldest first: version and root offset, 0 for an
    /// empty version) into a new file, one commit record each, chained as the original's were:
    /// a node shared by several versions is copied once and shared in the copy too. The newest
    /// record counts every copied byte as live (the older versions are kept on purpose).
    package static func copy(file: StorageFile, history: [(version: UInt64, rootRef: UInt64)], to openPath: String,
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

/// Where a copy reads its checked nodes: a mapping of the file (``MappedNodes``), or the file's
/// positional reads (``StorageFile``).
package protocol CopySource {
    associatedtype Node: CopiedNode
    /// The checked node at `offset`, valid while the source lives.
    func node(at offset: UInt64) throws(FloeError) -> Node
}

/// A checked node as a copy sees it.
package protocol CopiedNode {
    var kind: UInt8 { get }
    var childCount: Int { get }
    /// The file offset of child reference `index` (0: none).
    func child(at index: Int) -> UInt64
    /// Appends the node, children and all, to `chunk` as it is; returns its offset.
    func appendUnchanged(to chunk: inout ChunkBuilder) -> UInt64
    /// Appends the bytes after the child references.
    func appendPayload(to writer: inout ByteWriter)
}

extension MappedNodes: CopySource {}

extension MappedNode: CopiedNode {
    package func appendUnchanged(to chunk: inout ChunkBuilder) -> UInt64 { chunk.appendUnchanged(self) }
    package func appendPayload(to writer: inout ByteWriter) { writer.append(payload) }
}

extension StorageFile: CopySource {
    package func node(at offset: UInt64) throws(FloeError) -> NodeImage { try readNode(at: offset) }
}

extension NodeImage: CopiedNode {
    package var childCount: Int { children.count }
    package func child(at index: Int) -> UInt64 { children[index] }
    package func appendUnchanged(to chunk: inout ChunkBuilder) -> UInt64 { chunk.append(self) }
    package func appendPayload(to writer: inout ByteWriter) { writer.append(payload) }
}

/// One copy's walk: reads checked nodes from its source and streams them into the chunk being
/// built for the target.
private struct TreeCopier<Source: CopySource> {
    let source: Source
    let target: StorageFile
    var chunk: ChunkBuilder
    /// The new offsets of the children of the nodes being copied, one run per level of the walk.
    private var newChildren: [UInt64] = []
    /// Where nodes already copied went (only for copies of several versions, which share nodes).
    private var copied: [UInt64: UInt64]?

    init(source: Source, target: StorageFile, sharesNodes: Bool) {
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
            newOffset = node.appendUnchanged(to: &chunk)
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
    private mutating func appendNode(_ node: Source.Node, childrenAt run: Int) -> UInt64 {
        let children = newChildren[run...]
        return chunk.appendNode(kind: node.kind, childCount: node.childCount) { writer in
            for child in children { writer.append(child) }
            node.appendPayload(to: &writer)
        }.offset
    }
}
