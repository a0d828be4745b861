@_spi(Engine) import FloeStorage

/// A tree whose inner nodes record how many elements each child holds: cluster trees
/// (objects) and collection trees (elements) alike, so positional access is shared.
package protocol CountedTreeNode: TreeNode {
    var isLeaf: Bool { get }
    /// Inner nodes: elements per child.
    var counts: [Int] { get }
    var children: [NodeRef<Self>] { get }
    /// Leaves: the elements they hold.
    var leafCount: Int { get }
}

extension ClusterNode: CountedTreeNode {
    package var leafCount: Int { keys.count }
}

extension CollectionNode: CountedTreeNode {
    package var leafCount: Int { elements.count }
}

package enum CountedTree {
    /// The leaf holding element `position` (in order) and the element's slot in it.
    package static func locate<Node: CountedTreeNode>(_ position: Int, in root: NodeRef<Node>?) throws(FloeError) -> (leaf: Node, slot: Int)? {
        guard var node = try root?.load(), position >= 0 else { return nil }
        var remaining = position
        while !node.isLeaf {
            var index = 0
            while index < node.counts.count && remaining >= node.counts[index] {
                remaining -= node.counts[index]
                index += 1
            }
            guard index < node.children.count else { return nil }
            node = try node.children[index].load()
        }
        return remaining < node.leafCount ? (node, remaining) : nil
    }
}
