@_spi(Engine) import FloeStorage

extension ClusterTree {
    /// A broken rule of the cluster tree, with where it was found.
    package struct InvariantViolation: Error, CustomStringConvertible {
        package let table: String
        package let detail: String
        package var description: String { "cluster tree of '\(table)': \(detail)" }
    }

    /// Checks every structural rule of a table's tree, loading every node; returns the
    /// number of objects found.
    ///
    /// Rules: keys strictly increase across the whole tree; every leaf is at the same depth
    /// and holds 1...maximumLeafObjects objects and one column per table column, each with as
    /// many rows as keys; every inner node holds 1...maximumInnerChildren children whose first
    /// keys and counts it records correctly.
    @discardableResult
    package static func checkInvariants(of root: NodeRef<ClusterNode>?, table: TableSpec) throws -> Int {
        guard let root else { return 0 }
        var leafDepth: Int?
        var previousKey: Int64?
        func visit(_ ref: NodeRef<ClusterNode>, depth: Int) throws -> (count: Int, firstKey: Int64) {
            let node = try ref.load()
            if node.isLeaf {
                if leafDepth == nil { leafDepth = depth }
                guard leafDepth == depth else { throw InvariantViolation(table: table.name, detail: "leaves at depths \(leafDepth!) and \(depth)") }
                guard !node.keys.isEmpty, node.keys.count <= maximumLeafObjects else {
                    throw InvariantViolation(table: table.name, detail: "a leaf holds \(node.keys.count) objects")
                }
                guard node.columns.count == table.columns.count else {
                    throw InvariantViolation(table: table.name, detail: "a leaf has \(node.columns.count) columns for \(table.columns.count)")
                }
                for key in node.keys {
                    if let previousKey, key <= previousKey {
                        throw InvariantViolation(table: table.name, detail: "key \(key) follows key \(previousKey)")
                    }
                    previousKey = key
                }
                for (index, columnRef) in node.columns.enumerated() {
                    let column = try columnRef.load()
                    guard column.storage.count == node.keys.count else {
                        throw InvariantViolation(table: table.name, detail: "column '\(table.columns[index].name)' has \(column.storage.count) rows in a leaf of \(node.keys.count)")
                    }
                    guard column.storage.layout == table.columns[index].layout, column.storage.type == table.columns[index].type else {
                        throw InvariantViolation(table: table.name, detail: "column '\(table.columns[index].name)' is stored as \(column.storage.layout) of \(column.storage.type)")
                    }
                }
                return (node.keys.count, node.keys[0])
            }
            guard !node.children.isEmpty, node.children.count <= maximumInnerChildren,
                  node.keys.count == node.children.count, node.counts.count == node.children.count
            else { throw InvariantViolation(table: table.name, detail: "an inner node has \(node.children.count) children, \(node.keys.count) keys, \(node.counts.count) counts") }
            var total = 0
            for (index, child) in node.children.enumerated() {
                let (count, firstKey) = try visit(child, depth: depth + 1)
                guard count == node.counts[index] else {
                    throw InvariantViolation(table: table.name, detail: "an inner node records \(node.counts[index]) objects for a child holding \(count)")
                }
                guard firstKey == node.keys[index] else {
                    throw InvariantViolation(table: table.name, detail: "an inner node records first key \(node.keys[index]) for a child starting at \(firstKey)")
                }
                total += count
            }
            return (total, node.keys[0])
        }
        return try visit(root, depth: 0).count
    }
}
