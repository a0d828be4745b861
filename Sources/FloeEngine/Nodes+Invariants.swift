@_spi(Engine) import FloeStorage

// Local invariants, checked on every node a commit writes when built with FLOE_INVARIANTS
// (debug builds and tests); release builds compile the calls away. A whole-tree check
// (which loads every node) is `ClusterTree.checkInvariants` and `Store.verify()`.

extension GroupNode {
    @usableFromInline package func checkLocalInvariants() {}
}

extension TableNode {
    @usableFromInline package func checkLocalInvariants() {
        precondition(count >= 0, "table '\(spec.name)' records \(count) objects")
        precondition(indexRoots.count == spec.columns.count, "table '\(spec.name)' has \(indexRoots.count) index slots for \(spec.columns.count) columns")
        precondition((root == nil) == (count == 0), "table '\(spec.name)' records \(count) objects but \(root == nil ? "has no" : "has a") tree")
    }
}

extension ClusterNode {
    @usableFromInline package func checkLocalInvariants() {
        if isLeaf {
            precondition(!keys.isEmpty && keys.count <= ClusterTree.maximumLeafObjects, "cluster leaf holds \(keys.count) objects")
            for index in keys.indices.dropFirst() {
                precondition(keys[index - 1] < keys[index], "cluster leaf key \(keys[index]) follows \(keys[index - 1])")
            }
            for column in columns {
                if let node = column.residentNode {
                    precondition(node.storage.count == keys.count, "cluster leaf of \(keys.count) objects has a column of \(node.storage.count) rows")
                }
            }
        } else {
            precondition(!children.isEmpty && children.count <= ClusterTree.maximumInnerChildren, "cluster inner node has \(children.count) children")
            precondition(keys.count == children.count && counts.count == children.count,
                         "cluster inner node has \(children.count) children, \(keys.count) keys, \(counts.count) counts")
            for index in keys.indices.dropFirst() {
                precondition(keys[index - 1] < keys[index], "cluster inner first key \(keys[index]) follows \(keys[index - 1])")
            }
            for (index, child) in children.enumerated() {
                if let node = child.residentNode {
                    precondition(node.objectCount == counts[index], "cluster inner node records \(counts[index]) objects for a child of \(node.objectCount)")
                    precondition(node.keys.first == keys[index], "cluster inner node records first key \(keys[index]) for a child starting at \(node.keys.first.map(String.init) ?? "nothing")")
                }
            }
        }
    }
}

extension ColumnNode {
    @usableFromInline package func checkLocalInvariants() {
        let expected: Int
        switch storage.layout {
        case .words: expected = storage.words.count
        case .pairs: expected = storage.words.count / 2
        case .strings: expected = storage.strings.count
        case .binaries: expected = storage.binaries.count
        case .values: expected = storage.values.count
        case .collections: expected = storage.collections.count
        }
        precondition(expected == storage.count, "column of \(storage.type) records \(storage.count) rows but holds \(expected)")
        if let nulls = storage.nulls { precondition(nulls.count == storage.count, "column of \(storage.type) has \(nulls.count) null flags for \(storage.count) rows") }
    }
}

extension CollectionNode {
    @usableFromInline package func checkLocalInvariants() {
        if isLeaf {
            precondition(elements.count > 0 && elements.count <= CollectionTree.leafCapacity, "collection leaf holds \(elements.count) elements")
            if let mapKeys {
                precondition(mapKeys.count == elements.count, "map leaf has \(mapKeys.count) keys for \(elements.count) values")
                for index in mapKeys.indices.dropFirst() {
                    precondition(mapKeys[index - 1] < mapKeys[index], "map key '\(mapKeys[index])' follows '\(mapKeys[index - 1])'")
                }
            }
        } else {
            precondition(!children.isEmpty && children.count <= CollectionTree.innerCapacity && counts.count == children.count,
                         "collection inner node has \(children.count) children and \(counts.count) counts")
            for (index, child) in children.enumerated() {
                if let node = child.residentNode {
                    precondition(node.elementCount == counts[index], "collection inner node records \(counts[index]) elements for a child of \(node.elementCount)")
                }
            }
        }
    }
}
