@_spi(Engine) import FloeStorage

/// Operations on the positional trees behind lists, sets and maps.
///
/// Leaves hold up to ``leafCapacity`` elements as one ``ColumnStorage`` (and, for maps,
/// their keys); inner nodes hold per-child element counts. Lists are ordered by position;
/// sets are kept sorted in ``Value``'s total order and maps sorted by key, so membership
/// and key lookup are binary searches.
package enum CollectionTree {
    package static let leafCapacity = 1000
    package static let innerCapacity = 64

    // MARK: Reading

    package static func count(_ root: NodeRef<CollectionNode>?) throws(FloeError) -> Int {
        try root?.load().elementCount ?? 0
    }

    /// The leaf and slot holding element `position`.
    package static func locate(_ position: Int, in root: NodeRef<CollectionNode>?) throws(FloeError) -> (leaf: CollectionNode, slot: Int)? {
        try CountedTree.locate(position, in: root)
    }

    package static func element(at position: Int, in root: NodeRef<CollectionNode>?) throws(FloeError) -> Value? {
        guard let (leaf, slot) = try locate(position, in: root) else { return nil }
        return leaf.elements.value(at: slot)
    }

    package static func key(at position: Int, in root: NodeRef<CollectionNode>?) throws(FloeError) -> String? {
        guard let (leaf, slot) = try locate(position, in: root) else { return nil }
        return leaf.mapKeys?[slot]
    }

    /// Visits every leaf in order; `body` returns false to stop.
    package static func forEachLeaf(in root: NodeRef<CollectionNode>?, _ body: (CollectionNode) throws(FloeError) -> Bool) throws(FloeError) {
        guard let root else { return }
        _ = try visitLeaves(root, body)
    }

    private static func visitLeaves(_ ref: NodeRef<CollectionNode>, _ body: (CollectionNode) throws(FloeError) -> Bool) throws(FloeError) -> Bool {
        let node = try ref.load()
        if node.isLeaf { return try body(node) }
        for child in node.children where !(try visitLeaves(child, body)) { return false }
        return true
    }

    package static func allElements(_ root: NodeRef<CollectionNode>?) throws(FloeError) -> [Value] {
        var result: [Value] = []
        try forEachLeaf(in: root) { leaf in
            for slot in 0..<leaf.elements.count { result.append(leaf.elements.value(at: slot)) }
            return true
        }
        return result
    }

    /// First position whose element is not less than `value` (sets), and whether it is equal.
    package static func lowerBound(of value: Value, in root: NodeRef<CollectionNode>?) throws(FloeError) -> (position: Int, found: Bool) {
        var low = 0, high = try count(root)
        while low < high {
            let middle = (low + high) >> 1
            if Value.compare(try element(at: middle, in: root)!, value) < 0 { low = middle + 1 } else { high = middle }
        }
        guard low < (try count(root)) else { return (low, false) }
        let found = Value.compare(try element(at: low, in: root)!, value) == 0
        return (low, found)
    }

    /// First position whose key is not less than `key` (maps), and whether it is equal.
    package static func lowerBound(ofKey key: String, in root: NodeRef<CollectionNode>?) throws(FloeError) -> (position: Int, found: Bool) {
        var low = 0, high = try count(root)
        while low < high {
            let middle = (low + high) >> 1
            if try self.key(at: middle, in: root)! < key { low = middle + 1 } else { high = middle }
        }
        guard low < (try count(root)) else { return (low, false) }
        let found = try self.key(at: low, in: root) == key
        return (low, found)
    }

    // MARK: Mutating

    /// Inserts an element (with its key, for maps) at `position`; returns the new root.
    package static func insert(_ value: Value, key: String?, at position: Int, into root: NodeRef<CollectionNode>?,
                       elementType: ColumnType, nullable: Bool, context: WriteContext) throws(FloeError) -> NodeRef<CollectionNode> {
        guard let root else {
            var elements = ColumnStorage(elementType: elementType, nullable: nullable)
            elements.append(value)
            return NodeRef(CollectionNode(elements: elements, mapKeys: key.map { [$0] }))
        }
        let (rootRef, rootNode) = try context.mutable(root)
        guard let sibling = try insert(value, key, position, into: rootNode, context) else { return rootRef }
        let grown = CollectionNode(counts: [rootNode.elementCount, sibling.elementCount],
                                   children: [rootRef, NodeRef(sibling)], elementType: elementType)
        return NodeRef(grown)
    }

    private static func insert(_ value: Value, _ key: String?, _ position: Int, into node: CollectionNode,
                               _ context: WriteContext) throws(FloeError) -> CollectionNode? {
        if node.isLeaf {
            node.elements.insert(value, at: position)
            if let key { node.mapKeys?.insert(key, at: position) }
            guard node.elements.count > leafCapacity else { return nil }
            let split = position == node.elements.count - 1 ? position : node.elements.count / 2
            let tail = node.elements.split(at: split)
            var tailKeys: [String]?
            if let keys = node.mapKeys {
                tailKeys = Array(keys[split...])
                node.mapKeys!.removeSubrange(split...)
            }
            return CollectionNode(elements: tail, mapKeys: tailKeys)
        }
        // `remaining` may equal a child's count: the element then goes at that child's end.
        var index = 0
        var remaining = position
        while index < node.counts.count - 1 && remaining > node.counts[index] {
            remaining -= node.counts[index]
            index += 1
        }
        let (childRef, child) = try context.mutable(node.children[index])
        node.children[index] = childRef
        let sibling = try insert(value, key, remaining, into: child, context)
        guard let sibling else {
            node.counts[index] += 1
            return nil
        }
        node.counts[index] = child.elementCount
        node.counts.insert(sibling.elementCount, at: index + 1)
        node.children.insert(NodeRef(sibling), at: index + 1)
        guard node.children.count > innerCapacity else { return nil }
        let split = index + 1 == node.children.count - 1 ? node.children.count - 1 : node.children.count / 2
        let siblingNode = CollectionNode(counts: Array(node.counts[split...]), children: Array(node.children[split...]),
                                         elementType: node.elements.type)
        node.counts.removeSubrange(split...)
        node.children.removeSubrange(split...)
        return siblingNode
    }

    /// Appends `values` (already checked) at the end of a list; returns the new root. The
    /// values fill the last leaf in runs: one descent along the rightmost path per leaf
    /// filled, not one per element. When the last leaf is full, one insert at the end splits
    /// off a new last leaf, which the next run fills.
    package static func append(contentsOf values: [Value], into root: NodeRef<CollectionNode>?,
                       elementType: ColumnType, nullable: Bool, context: WriteContext) throws(FloeError) -> NodeRef<CollectionNode>? {
        var root = root
        var next = 0
        var path: [CollectionNode] = []
        while next < values.count {
            guard let current = root else {
                root = try insert(values[next], key: nil, at: 0, into: nil, elementType: elementType, nullable: nullable, context: context)
                next += 1
                continue
            }
            let (rootRef, rootNode) = try context.mutable(current)
            root = rootRef
            path.removeAll(keepingCapacity: true)
            var node = rootNode
            while !node.isLeaf {
                path.append(node)
                let last = node.children.count - 1
                let (childRef, child) = try context.mutable(node.children[last])
                node.children[last] = childRef
                node = child
            }
            let room = leafCapacity - node.elements.count
            guard room > 0 else {
                root = try insert(values[next], key: nil, at: rootNode.elementCount, into: rootRef,
                                  elementType: elementType, nullable: nullable, context: context)
                next += 1
                continue
            }
            let run = min(room, values.count - next)
            for index in next..<(next + run) { node.elements.append(values[index]) }
            for inner in path { inner.counts[inner.counts.count - 1] += run }
            next += run
        }
        return root
    }

    /// Replaces the element at `position`; returns the new root.
    package static func set(_ value: Value, at position: Int, in root: NodeRef<CollectionNode>, context: WriteContext) throws(FloeError) -> NodeRef<CollectionNode> {
        let (rootRef, leaf, slot) = try mutableLeaf(for: position, root: root, context: context)
        leaf.elements.set(value, at: slot)
        return rootRef
    }

    /// Removes the element at `position`; returns the new root (nil: empty).
    package static func remove(at position: Int, from root: NodeRef<CollectionNode>, context: WriteContext) throws(FloeError) -> NodeRef<CollectionNode>? {
        let (rootRef, rootNode) = try context.mutable(root)
        try remove(position, from: rootNode, context)
        var newRoot: NodeRef<CollectionNode>? = rootRef
        while let node = newRoot?.residentNode {
            if node.isLeaf { if node.elements.count == 0 { newRoot = nil }; break }
            if node.children.isEmpty { newRoot = nil; break }
            if node.children.count > 1 { break }
            newRoot = node.children[0]
        }
        return newRoot
    }

    private static func remove(_ position: Int, from node: CollectionNode, _ context: WriteContext) throws(FloeError) {
        if node.isLeaf {
            node.elements.remove(at: position)
            node.mapKeys?.remove(at: position)
            return
        }
        var index = 0
        var remaining = position
        while remaining >= node.counts[index] {
            remaining -= node.counts[index]
            index += 1
        }
        let (childRef, child) = try context.mutable(node.children[index])
        node.children[index] = childRef
        try remove(remaining, from: child, context)
        node.counts[index] -= 1
        if node.counts[index] == 0 {
            node.counts.remove(at: index)
            node.children.remove(at: index)
        }
    }

    private static func mutableLeaf(for position: Int, root: NodeRef<CollectionNode>, context: WriteContext)
        throws(FloeError) -> (NodeRef<CollectionNode>, CollectionNode, Int)
    {
        let (rootRef, rootNode) = try context.mutable(root)
        var node = rootNode
        var remaining = position
        while !node.isLeaf {
            var index = 0
            while remaining >= node.counts[index] {
                remaining -= node.counts[index]
                index += 1
            }
            let (childRef, child) = try context.mutable(node.children[index])
            node.children[index] = childRef
            node = child
        }
        return (rootRef, node, remaining)
    }

    /// Checks a collection tree's structure; returns its element count.
    @discardableResult
    package static func checkInvariants(of root: NodeRef<CollectionNode>?, isMap: Bool, context: String) throws -> Int {
        guard let root else { return 0 }
        var leafDepth: Int?
        func visit(_ ref: NodeRef<CollectionNode>, depth: Int) throws -> Int {
            let node = try ref.load()
            if node.isLeaf {
                if leafDepth == nil { leafDepth = depth }
                guard leafDepth == depth, node.elements.count > 0, node.elements.count <= leafCapacity,
                      (node.mapKeys != nil) == isMap, (node.mapKeys?.count ?? node.elements.count) == node.elements.count
                else { throw ClusterTree.InvariantViolation(table: context, detail: "a collection leaf of \(node.elements.count) elements breaks the leaf rules") }
                return node.elements.count
            }
            guard !node.children.isEmpty, node.children.count <= innerCapacity, node.counts.count == node.children.count else {
                throw ClusterTree.InvariantViolation(table: context, detail: "a collection inner node has \(node.children.count) children")
            }
            var total = 0
            for (index, child) in node.children.enumerated() {
                let count = try visit(child, depth: depth + 1)
                guard count == node.counts[index] else {
                    throw ClusterTree.InvariantViolation(table: context, detail: "a collection inner node records \(node.counts[index]) elements for a child of \(count)")
                }
                total += count
            }
            return total
        }
        return try visit(root, depth: 0)
    }
}
