@_spi(Engine) import FloeStorage

/// What ``Store/verify()`` found.
///
/// ```swift
/// let report = try store.verify()
/// if !report.isValid { print(report.problems.joined(separator: "\n")) }
/// ```
@_spi(Engine) public struct VerificationReport: Sendable, CustomStringConvertible {
    /// The version checked.
    public var version: UInt64 = 0
    /// Commits (chunks) found in the file.
    public var commits = 0
    /// Nodes found in the file's chunks.
    public var nodes = 0
    /// The file's size in bytes (0 in memory).
    public var fileBytes: UInt64 = 0
    /// Each class's name and object count in the checked version.
    public var tables: [(name: String, objects: Int)] = []
    /// Every problem found, each naming where it is: for the object graph, the class, the
    /// object's key and the property.
    public var problems: [String] = []

    /// Whether nothing was wrong.
    public var isValid: Bool { problems.isEmpty }

    public var description: String {
        var lines = ["version \(version), \(commits) commits, \(nodes) nodes, \(fileBytes) bytes"]
        lines += tables.map { "class \($0.name): \($0.objects) objects" }
        lines += problems.map { "problem: \($0)" }
        lines.append(isValid ? "ok" : "\(problems.count) problem(s)")
        return lines.joined(separator: "\n")
    }
}

/// Checks a version's trees: every node decodes with a valid checksum, every tree keeps its
/// structural rules (see ``ClusterTree/checkInvariants(of:table:)``), indexes and backlinks
/// match the values and links they index, and (unless `checkingObjectGraph` is false) the
/// object graph holds together (see ``ObjectGraphCheck``).
package enum StoreVerifier {
    package static func verify(root: GroupNode, version: UInt64, into report: inout VerificationReport, checkingObjectGraph: Bool = true) {
        report.version = version
        var graph = checkingObjectGraph ? ObjectGraphCheck(root: root) : nil
        for tableRef in root.tables {
            do {
                let table = try tableRef.load()
                let found = try ClusterTree.checkInvariants(of: table.root, table: table.spec)
                report.tables.append((table.spec.name, found))
                if found != table.count {
                    report.problems.append("class \(table.spec.name) records \(table.count) objects but holds \(found)")
                }
                try checkCollectionsAndKeys(of: table, graph: &graph, into: &report)
                try checkSearchIndexes(of: table, into: &report)
                try checkLinks(of: table, graph: &graph, into: &report)
            } catch {
                report.problems.append("\(error)")
            }
        }
        graph?.finish(into: &report)
    }

    /// Every link appears in its property's backlinks, and nothing else does; with `graph`,
    /// each link is also noted for the object-graph rules.
    private static func checkLinks(of table: TableNode, graph: inout ObjectGraphCheck?, into report: inout VerificationReport) throws {
        let className = table.spec.name
        for (column, spec) in table.spec.columns.enumerated() where spec.type == .link {
            let target = spec.linkTarget ?? ""
            var expected: [Int64: [Int64]] = [:]
            try ClusterTree.forEachLeaf(in: table.root) { leaf throws(FloeError) in
                let storage = try leaf.column(column).storage
                for row in 0..<leaf.keys.count {
                    let targets = storage.layout == .collections ? try CollectionTree.allElements(storage.collections[row]) : [storage.value(at: row)]
                    for case .link(let linked) in targets {
                        expected[linked, default: []].append(leaf.keys[row])
                        let holder = ObjectGraphCheck.Holder(className: className, key: leaf.keys[row], property: spec.name)
                        try graph?.noteLink(from: holder, to: linked, of: target, into: &report)
                    }
                }
                return true
            }
            let root = table.indexRoots[column]
            try ClusterTree.checkInvariants(of: root, table: SearchIndex.entrySpec)
            var recorded: [Int64: [Int64]] = [:]
            try ClusterTree.forEachLeaf(in: root) { leaf throws(FloeError) in
                for linked in leaf.keys { recorded[linked] = try SearchIndex.candidates(for: .int(linked), in: root) }
                return true
            }
            for linked in Set(expected.keys).union(recorded.keys).sorted() {
                // Both sides sorted and walked together: a target a million objects link to costs
                // no more than its links.
                let linking = (expected[linked] ?? []).sorted(), listed = (recorded[linked] ?? []).sorted()
                var missing: [Int64] = [], extra: [Int64] = []
                var (i, j) = (0, 0)
                while i < linking.count || j < listed.count {
                    if j == listed.count || (i < linking.count && linking[i] < listed[j]) {
                        missing.append(linking[i])
                        i += 1
                    } else if i == linking.count || listed[j] < linking[i] {
                        extra.append(listed[j])
                        j += 1
                    } else {
                        i += 1
                        j += 1
                    }
                }
                for origin in missing {
                    report.problems.append("\(className) \(origin), property '\(spec.name)', links to \(target) \(linked), "
                                           + "but the backlinks of \(target) \(linked) do not list that link")
                }
                for origin in extra {
                    report.problems.append("the backlinks of \(target) \(linked) list a link from \(className) \(origin), property '\(spec.name)', "
                                           + "which does not link there")
                }
            }
        }
    }

    private static func checkSearchIndexes(of table: TableNode, into report: inout VerificationReport) throws {
        let className = table.spec.name
        if let keyColumn = table.spec.objectKeyColumn {
            try ClusterTree.forEachLeaf(in: table.root) { leaf throws(FloeError) in
                let storage = try leaf.column(keyColumn).storage
                for row in 0..<leaf.keys.count where storage.int(at: row) != leaf.keys[row] {
                    report.problems.append("\(className) \(leaf.keys[row]) has primary key \(storage.int(at: row)), which must be its object key")
                }
                return true
            }
        }
        for (column, spec) in table.spec.columns.enumerated() where spec.hasSearchIndex {
            let root = table.indexRoots[column]
            try ClusterTree.checkInvariants(of: root, table: SearchIndex.entrySpec)
            let indexName = "the index of \(className).\(spec.name)"
            var objects = Set<Int64>()
            try ClusterTree.forEachLeaf(in: table.root) { leaf throws(FloeError) in
                objects.formUnion(leaf.keys)
                let storage = try leaf.column(column).storage
                for row in 0..<leaf.keys.count {
                    let value = storage.value(at: row)
                    if !(try SearchIndex.candidates(for: value, in: root).contains(leaf.keys[row])) {
                        report.problems.append("\(className) \(leaf.keys[row]), property '\(spec.name)', holds \(value.debugText), "
                                               + "but \(indexName) does not file it under that value")
                    }
                }
                return true
            }
            var filed = Set<Int64>()
            for key in try SearchIndex.allKeys(in: root) {
                if !objects.contains(key) {
                    report.problems.append("\(indexName) files \(className) \(key), which does not exist")
                } else if !filed.insert(key).inserted {
                    report.problems.append("\(indexName) files \(className) \(key) more than once")
                }
            }
        }
    }

    private static func checkCollectionsAndKeys(of table: TableNode, graph: inout ObjectGraphCheck?, into report: inout VerificationReport) throws {
        var maximumKey: Int64 = -1
        let collectionColumns = table.spec.columns.indices.filter { table.spec.columns[$0].collection != .single }
        try ClusterTree.forEachLeaf(in: table.root) { leaf throws(FloeError) in
            maximumKey = max(maximumKey, leaf.keys.last ?? -1)
            for column in collectionColumns {
                let spec = table.spec.columns[column]
                let storage = try leaf.column(column).storage
                for (row, root) in storage.collections.enumerated() {
                    let holder = ObjectGraphCheck.Holder(className: table.spec.name, key: leaf.keys[row], property: spec.name)
                    do {
                        try CollectionTree.checkInvariants(of: root, isMap: spec.collection == .map,
                                                           context: "\(table.spec.name).\(spec.name) of object \(leaf.keys[row])")
                    } catch {
                        report.problems.append("\(error)")
                    }
                    if let root { graph?.noteCollection(root, of: holder, into: &report) }
                    if spec.collection == .set, let root { Self.checkSetOrder(root, of: holder, into: &report) }
                }
            }
            return true
        }
        if maximumKey >= table.nextKey {
            report.problems.append("class \(table.spec.name) will hand out key \(table.nextKey) to a new object but already holds an object with key \(maximumKey)")
        }
    }
}

@_spi(Engine) extension Store {
    /// Reads the whole file and checks every checksum and every tree rule of the newest
    /// version, and (unless `checkingObjectGraph` is false) its object graph: links lead to
    /// objects that exist, every embedded object has exactly one owner, every collection belongs
    /// to one object. Reports each problem with where it is. Nodes are read afresh from the
    /// file, not from memory.
    ///
    /// The graph rules are the object layer's: a file written through the engine alone may break
    /// them on purpose (the engine's delete leaves links to the object as they are), and its
    /// checks pass `checkingObjectGraph: false`.
    ///
    /// ```swift
    /// let report = try store.verify()
    /// if !report.isValid { print(report) }
    /// ```
    public func verify(checkingObjectGraph: Bool = true) throws(FloeError) -> VerificationReport {
        var report = VerificationReport()
        gate.enter()
        defer { gate.leave() }
        let (file, root, version) = state.withLock { ($0.file, $0.root, $0.version) }
        guard let file else {
            StoreVerifier.verify(root: root, version: version, into: &report, checkingObjectGraph: checkingObjectGraph)
            return report
        }
        let audit = try FileAudit.run(file)
        report.commits = audit.commits
        report.nodes = audit.nodes
        report.fileBytes = audit.bytes
        report.problems += audit.problems
        if let rootRef = file.lastCommit?.rootRef, rootRef != 0 {
            do {
                let fresh = try NodeRef<GroupNode>(offset: rootRef, source: file).load()
                StoreVerifier.verify(root: fresh, version: version, into: &report, checkingObjectGraph: checkingObjectGraph)
            } catch {
                report.problems.append("\(error)")
            }
        } else {
            report.version = version
        }
        return report
    }

    /// Opens the file at `path` read-only (or uses this process's open store for it) and verifies it.
    public static func verify(path: String) throws(FloeError) -> VerificationReport {
        let store = try Store.open(path: path, options: StoreOptions(readOnly: true))
        return try store.verify()
    }
}

extension StoreVerifier {
    /// A set keeps its elements ascending and distinct in the one order of values
    /// (`Value.compare`), which its lookups rely on; a set written under an earlier order (by
    /// kind, then by bits, for decimals and mixed numbers) is reported, not misread.
    package static func checkSetOrder(_ root: NodeRef<CollectionNode>, of holder: ObjectGraphCheck.Holder, into report: inout VerificationReport) {
        do {
            let elements = try CollectionTree.allElements(root)
            for index in elements.indices.dropFirst() where Value.compare(elements[index - 1], elements[index]) >= 0 {
                report.problems.append("\(holder), a set, holds \(elements[index - 1].debugText) before \(elements[index].debugText): "
                                       + "a set keeps its elements distinct and in ascending order")
                return
            }
        } catch {
            report.problems.append("\(error)")
        }
    }
}
