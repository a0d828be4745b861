import Synchronization
@_spi(Engine) import FloeStorage

/// The node kinds the engine writes; storage keeps the tag and never interprets it. The raw
/// values are in every node's header: each is spelled out (pinned by a test).
package enum NodeKind: UInt8, CaseIterable {
    case group = 1
    case table = 2
    case clusterInner = 3
    case clusterLeaf = 4
    case column = 5
    case collectionInner = 6
    case collectionLeaf = 7
    /// A column as one row's change to a column written before (see `ColumnNode+Changes.swift`).
    case columnChange = 8
}

/// A node of the engine's copy-on-write trees.
///
/// A node is mutable only while it belongs to the open write transaction (`isMutable`);
/// commit clears the flag, and from then on the node is shared by every version that
/// reaches it and never changes again. That is what makes snapshots O(1) and lock-free.
@usableFromInline package protocol TreeNode: AnyObject {
    /// Decodes a node of this type from its image, or fails with a reason.
    static func decode(_ image: NodeImage, source: StorageFile) throws(DecodeFailure) -> Self
    /// The image to write, given the file offsets of its (already written) children.
    func image() -> NodeImage
    /// Appends ``image()`` to `chunk` (nodes a commit writes often write it in place, with no
    /// arrays built for it); returns its offset and the bytes it takes.
    func write(into chunk: inout ChunkBuilder) -> (offset: UInt64, size: Int)
    /// A mutable copy that shares the arrays (copy-on-write) and child references.
    func mutableCopy() -> Self
    /// ``mutableCopy()`` of this node as written at `offset` (0: never written): a node whose
    /// image can describe its change to the written one remembers where that one is.
    func mutableCopy(writtenAt offset: UInt64) -> Self
    /// Written children and dirty children alike.
    func forEachChild(_ body: (AnyNodeRef) throws -> Void) rethrows
    /// One slot per child reference of ``image()``, in the same order (nil where it writes 0).
    func childSlots() -> [AnyNodeRef?]
    /// Persists the children this transaction changed (typed loops: a commit visits every
    /// child reference of every changed node, so closures and existentials here cost).
    func persistChangedChildren(into chunk: inout ChunkBuilder?)
    var isMutable: Bool { get set }
    /// Bytes the node occupies in the file; 0 while it was never written.
    var storedSize: Int { get set }
    /// Stops with a message naming the culprit when the node breaks one of its own rules.
    func checkLocalInvariants()
}

extension TreeNode {
    @usableFromInline package func mutableCopy(writtenAt offset: UInt64) -> Self { mutableCopy() }

    @usableFromInline package func write(into chunk: inout ChunkBuilder) -> (offset: UInt64, size: Int) {
        let image = image()
        return (chunk.append(image), image.encodedSize)
    }
}

/// Type-erased view of a ``NodeRef`` for walks that do not care about the node type.
@usableFromInline package protocol AnyNodeRef: AnyObject {
    var offset: UInt64 { get }
    var isDirty: Bool { get }
    /// Writes the node (children first) and returns its offset; clears mutability.
    func persist(into chunk: inout ChunkBuilder?) -> UInt64
    /// The node, loading it if needed.
    func loadNode() throws(FloeError) -> any TreeNode
    /// The node if it is in memory.
    var residentTreeNode: (any TreeNode)? { get }
}

/// A parent's reference to a child node: the child's file offset once written, and the
/// decoded child once loaded.
///
/// Loading is lazy and lock-free: concurrent readers may decode the same node twice, but
/// only one decoded copy is ever kept (a compare-and-swap), so every reader sees the same
/// object. A node that is resident is never evicted while its parent lives.
@usableFromInline package final class NodeRef<Node: TreeNode>: AnyNodeRef, @unchecked Sendable {
    // @unchecked: `offset` is set once, by the writer, before the version that
    // reaches this reference is published; after that nothing here changes but the
    // atomic lazy reference.
    @usableFromInline package private(set) var offset: UInt64
    private let source: StorageFile?
    /// The decoded node as a retained pointer's bits (0: not loaded). A hand-rolled lazy
    /// reference: the library's generic one is not specialized across modules, and resolving
    /// its generic metadata on every load cost more than the tree walk itself.
    @usableFromInline let resident = Atomic<UInt>(0)

    /// A reference to a node created in memory (by a write transaction).
    package init(_ node: Node) {
        offset = 0
        source = nil
        resident.store(UInt(bitPattern: Unmanaged.passRetained(node).toOpaque()), ordering: .relaxed)
    }

    /// A reference to a node in a file, decoded on first use.
    @usableFromInline package init(offset: UInt64, source: StorageFile) {
        self.offset = offset
        self.source = source
    }

    deinit {
        let bits = resident.load(ordering: .acquiring)
        if bits != 0 { Unmanaged<Node>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).release() }
    }

    package var residentNode: Node? {
        let bits = resident.load(ordering: .acquiring)
        return bits == 0 ? nil : Unmanaged<Node>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).takeUnretainedValue()
    }

    /// The node if it is in memory, not retained: valid while this reference lives (a
    /// resident node stays as long as its reference). For reads that hold the reference.
    @inlinable @inline(__always)
    package var unretainedResidentNode: Unmanaged<Node>? {
        let bits = resident.load(ordering: .acquiring)
        return bits == 0 ? nil : Unmanaged<Node>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!)
    }

    @usableFromInline package var isDirty: Bool { residentNode?.isMutable ?? false }

    @inline(__always)
    package func load() throws(FloeError) -> Node {
        if let node = residentNode { return node }
        return try loadFromFile()
    }

    /// Keeps `node` unless another thread stored one first; returns the one kept.
    private func storeIfNil(_ node: Node) -> Node {
        let bits = UInt(bitPattern: Unmanaged.passRetained(node).toOpaque())
        let (exchanged, current) = resident.compareExchange(expected: 0, desired: bits, ordering: .acquiringAndReleasing)
        if exchanged { return node }
        Unmanaged<Node>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).release()
        return Unmanaged<Node>.fromOpaque(UnsafeRawPointer(bitPattern: current)!).takeUnretainedValue()
    }

    @inline(never)
    private func loadFromFile() throws(FloeError) -> Node {
        guard let source else { preconditionFailure("a node reference has neither a node nor a file") }
        let image = try source.readNode(at: offset)
        let node: Node
        do {
            node = try Node.decode(image, source: source)
        } catch {
            throw .corruptFile(path: source.path, offset: offset, detail: error.detail)
        }
        node.storedSize = image.encodedSize
        return storeIfNil(node)
    }

    @usableFromInline package func loadNode() throws(FloeError) -> any TreeNode { try load() }

    /// The file this node is read from ("memory" for a node made in memory), for error messages.
    @usableFromInline package var filePath: String { source?.path ?? "memory" }

    @usableFromInline package var residentTreeNode: (any TreeNode)? { residentNode }

    @inline(__always)
    @usableFromInline package func persistIfChanged(into chunk: inout ChunkBuilder?) {
        // Most children a commit visits are unchanged: asking, not holding, keeps the node unretained.
        guard let node = unretainedResidentNode, node._withUnsafeGuaranteedRef({ $0.isMutable }) else { return }
        _ = persist(into: &chunk)
    }

    @usableFromInline package func persist(into chunk: inout ChunkBuilder?) -> UInt64 {
        guard let node = residentNode, node.isMutable else { return offset }
        node.persistChangedChildren(into: &chunk)
        #if FLOE_INVARIANTS
        node.checkLocalInvariants()
        #endif
        node.isMutable = false
        if chunk != nil {
            let (written, size) = node.write(into: &chunk!)
            offset = written
            node.storedSize = size
            // A column change keeps the written column under it alive (its stored size counts both).
            chunk!.keptAliveBytes += node.storedSize - size
        }
        return offset
    }
}

/// A parent's loops over its child references. A commit visits every child reference of every
/// node it changed (32 children an inner node, most of them unchanged): iterating the array
/// retained and released each reference and its node, which cost more than the visit itself.
/// The array keeps each reference alive for the loop, so none is retained here.
extension Array {
    /// Persists each reference whose node this transaction changed (``NodeRef/persistIfChanged(into:)``).
    @inline(__always)
    package func persistChanged<Node: TreeNode>(into chunk: inout ChunkBuilder?) where Element == NodeRef<Node> {
        withUnsafeBufferPointer { references in
            for index in references.indices {
                Unmanaged.passUnretained(references[index])._withUnsafeGuaranteedRef { $0.persistIfChanged(into: &chunk) }
            }
        }
    }

    /// Appends each reference's file offset, in order: a node image's child references.
    @inline(__always)
    package func appendOffsets<Node: TreeNode>(to writer: inout ByteWriter) where Element == NodeRef<Node> {
        withUnsafeBufferPointer { references in
            for index in references.indices {
                writer.append(Unmanaged.passUnretained(references[index])._withUnsafeGuaranteedRef { $0.offset })
            }
        }
    }
}
