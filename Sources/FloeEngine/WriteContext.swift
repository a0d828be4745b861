@_spi(Engine) import FloeStorage

/// What a write transaction tracks while it path-copies: which nodes it made, and how
/// many bytes of the previous version it made dead (for the compaction trigger).
package final class WriteContext {
    /// Bytes of written nodes that this transaction replaced or dropped.
    package var freedBytes = 0

    /// Returns a node of `ref` that this transaction may mutate, copying it (and
    /// returning a new reference to the copy) when it belongs to a committed version.
    @inline(__always)
    package func mutable<Node: TreeNode>(_ ref: NodeRef<Node>) throws(FloeError) -> (NodeRef<Node>, Node) {
        let node = try ref.load()
        if node.isMutable { return (ref, node) }
        freedBytes += node.storedSize
        let copy = node.mutableCopy(writtenAt: ref.offset)
        return (NodeRef(copy), copy)
    }

    /// Counts a detached subtree as dead: every written node of it that is in memory (nodes
    /// never loaded are not counted, so dead bytes are never overstated).
    package func drop<Node: TreeNode>(_ ref: NodeRef<Node>?) {
        guard let ref else { return }
        dropResident(ref)
    }

    private func dropResident(_ ref: AnyNodeRef) {
        guard let node = ref.residentTreeNode else { return }
        if !node.isMutable { freedBytes += node.storedSize }
        for case let child? in node.childSlots() { dropResident(child) }
    }
}
