@_spi(Engine) import FloeStorage

extension ClusterTree {
    /// Inserts an object whose `row` holds one checked value per column; returns the new root.
    package static func insert(key: Int64, row: [Value], table: TableSpec, into root: NodeRef<ClusterNode>?,
                       context: WriteContext) throws(FloeError) -> NodeRef<ClusterNode> {
        guard let root else {
            let leaf = ClusterNode(leafKeys: [key], columns: table.columns.enumerated().map { index, column in
                var storage = ColumnStorage(layout: column.layout, type: column.type, nullable: column.storesNulls)
                storage.append(row[index])
                return NodeRef(ColumnNode(storage: storage))
            })
            return NodeRef(leaf)
        }
        let (rootRef, rootNode) = try context.mutable(root)
        guard let sibling = try insert(key, row, table, into: rootNode, context) else { return rootRef }
        let grown = ClusterNode(innerKeys: [rootNode.keys[0], sibling.keys[0]],
                                counts: [rootNode.objectCount, sibling.objectCount],
                                children: [rootRef, NodeRef(sibling)])
        return NodeRef(grown)
    }

    /// Inserts into a mutable node; returns the new right sibling when the node split.
    private static func insert(_ key: Int64, _ row: [Value], _ table: TableSpec, into node: ClusterNode,
                               _ context: WriteContext) throws(FloeError) -> ClusterNode? {
        if node.isLeaf {
            let index = lowerBound(node.keys, key)
            if index < node.keys.count && node.keys[index] == key { throw .duplicateObjectKey(table: table.name, key: key) }
            node.keys.insert(key, at: index)
            for column in node.columns.indices {
                let (ref, columnNode) = try context.mutable(node.columns[column])
                if ref !== node.columns[column] { node.columns[column] = ref }
                columnNode.storage.insert(row[column], at: index)
            }
            guard node.keys.count > leafCapacity else { return nil }
            return splitLeaf(node, at: index == node.keys.count - 1 ? node.keys.count - 1 : node.keys.count / 2)
        }
        let index = childIndex(for: key, in: node.keys)
        let (childRef, child) = try context.mutable(node.children[index])
        if childRef !== node.children[index] { node.children[index] = childRef }
        let sibling = try insert(key, row, table, into: child, context)
        node.keys[index] = child.keys[0]
        guard let sibling else {
            node.counts[index] += 1
            return nil
        }
        node.counts[index] = child.objectCount
        node.keys.insert(sibling.keys[0], at: index + 1)
        node.counts.insert(sibling.objectCount, at: index + 1)
        node.children.insert(NodeRef(sibling), at: index + 1)
        guard node.children.count > innerCapacity else { return nil }
        // Sequential keys fill nodes completely: split off only the newest child.
        let split = index + 1 == node.children.count - 1 ? node.children.count - 1 : node.children.count / 2
        return splitInner(node, at: split)
    }

    private static func splitLeaf(_ leaf: ClusterNode, at split: Int) -> ClusterNode {
        let keys = Array(leaf.keys[split...])
        leaf.keys.removeSubrange(split...)
        let columns = leaf.columns.map { ref -> NodeRef<ColumnNode> in
            // Columns of a leaf that just took an insert are all mutable.
            let column = ref.residentNode!
            return NodeRef(ColumnNode(storage: column.storage.split(at: split)))
        }
        return ClusterNode(leafKeys: keys, columns: columns)
    }

    private static func splitInner(_ node: ClusterNode, at split: Int) -> ClusterNode {
        let sibling = ClusterNode(innerKeys: Array(node.keys[split...]), counts: Array(node.counts[split...]),
                                  children: Array(node.children[split...]))
        node.keys.removeSubrange(split...)
        node.counts.removeSubrange(split...)
        node.children.removeSubrange(split...)
        return sibling
    }

    /// Copies the path to the object `key` and returns the new root, the (mutable) leaf and the row.
    package static func mutableLeaf(for key: Int64, root: NodeRef<ClusterNode>?, context: WriteContext)
        throws(FloeError) -> (root: NodeRef<ClusterNode>, leaf: ClusterNode, row: Int)?
    {
        guard let root, try find(key, in: root) != nil else { return nil }
        let (rootRef, rootNode) = try context.mutable(root)
        var node = rootNode
        while !node.isLeaf {
            let index = childIndex(for: key, in: node.keys)
            let (childRef, child) = try context.mutable(node.children[index])
            node.children[index] = childRef
            node = child
        }
        return (rootRef, node, binarySearch(node.keys, key)!)
    }

    /// Removes the object `key`; returns whether it existed and the new root (nil: empty).
    package static func remove(key: Int64, from root: NodeRef<ClusterNode>?, context: WriteContext)
        throws(FloeError) -> (removed: Bool, root: NodeRef<ClusterNode>?)
    {
        guard let root, try find(key, in: root) != nil else { return (false, root) }
        let (rootRef, rootNode) = try context.mutable(root)
        try remove(key, from: rootNode, context)
        var newRoot: NodeRef<ClusterNode>? = rootRef
        // Collapse a root that lost its children, or has only one.
        while let node = newRoot?.residentNode {
            if node.isLeaf { if node.keys.isEmpty { newRoot = nil }; break }
            if node.children.isEmpty { newRoot = nil; break }
            if node.children.count > 1 { break }
            newRoot = node.children[0]
        }
        return (true, newRoot)
    }

    private static func remove(_ key: Int64, from node: ClusterNode, _ context: WriteContext) throws(FloeError) {
        if node.isLeaf {
            let row = binarySearch(node.keys, key)!
            node.keys.remove(at: row)
            for column in node.columns.indices {
                let (ref, columnNode) = try context.mutable(node.columns[column])
                node.columns[column] = ref
                if columnNode.storage.layout == .collections { context.drop(columnNode.storage.collections[row]) }
                columnNode.storage.remove(at: row)
            }
            return
        }
        let index = childIndex(for: key, in: node.keys)
        let (childRef, child) = try context.mutable(node.children[index])
        node.children[index] = childRef
        try remove(key, from: child, context)
        node.counts[index] -= 1
        if node.counts[index] == 0 {
            node.keys.remove(at: index)
            node.counts.remove(at: index)
            node.children.remove(at: index)
            return
        }
        node.keys[index] = child.keys[0]
        try mergeIfSmall(childAt: index, in: node, context)
    }

    /// Joins a child that became small with a neighbour, when both fit in one node.
    private static func mergeIfSmall(childAt index: Int, in parent: ClusterNode, _ context: WriteContext) throws(FloeError) {
        let child = parent.children[index].residentNode!
        let size = child.isLeaf ? child.keys.count : child.children.count
        let capacity = child.isLeaf ? leafCapacity : innerCapacity
        guard size < capacity / 4 else { return }
        for neighbour in [index - 1, index + 1] where neighbour >= 0 && neighbour < parent.children.count {
            let other = try parent.children[neighbour].load()
            let otherSize = other.isLeaf ? other.keys.count : other.children.count
            guard size + otherSize <= capacity * 3 / 4 else { continue }
            let left = min(index, neighbour)
            let (leftRef, leftNode) = try context.mutable(parent.children[left])
            let rightNode = try parent.children[left + 1].load()
            if !rightNode.isMutable { context.freedBytes += rightNode.storedSize }
            leftNode.keys.append(contentsOf: rightNode.keys)
            if leftNode.isLeaf {
                for column in leftNode.columns.indices {
                    let (ref, columnNode) = try context.mutable(leftNode.columns[column])
                    leftNode.columns[column] = ref
                    let right = try rightNode.columns[column].load()
                    if !right.isMutable { context.freedBytes += right.storedSize }
                    columnNode.storage.append(contentsOf: right.storage)
                }
            } else {
                leftNode.counts.append(contentsOf: rightNode.counts)
                leftNode.children.append(contentsOf: rightNode.children)
            }
            parent.children[left] = leftRef
            parent.counts[left] += parent.counts[left + 1]
            parent.keys.remove(at: left + 1)
            parent.counts.remove(at: left + 1)
            parent.children.remove(at: left + 1)
            return
        }
    }

    /// Applies `body` to every leaf after making it mutable; returns the new root.
    package static func updateEveryLeaf(root: NodeRef<ClusterNode>?, context: WriteContext,
                                _ body: (ClusterNode) throws(FloeError) -> Void) throws(FloeError) -> NodeRef<ClusterNode>? {
        guard let root else { return nil }
        let (ref, node) = try context.mutable(root)
        if node.isLeaf {
            try body(node)
        } else {
            for index in node.children.indices {
                node.children[index] = try updateEveryLeaf(root: node.children[index], context: context, body)!
            }
        }
        return ref
    }
}
