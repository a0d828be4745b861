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
    /// Each table's name and object count in the checked version.
    public var tables: [(name: String, objects: Int)] = []
    /// Every problem found, each naming where it is.
    public var problems: [String] = []

    /// Whether nothing was wrong.
    public var isValid: Bool { problems.isEmpty }

    public var description: String {
        var lines = ["version \(version), \(commits) commits, \(nodes) nodes, \(fileBytes) bytes"]
        lines += tables.map { "table \($0.name): \($0.objects) objects" }
        lines += problems.map { "problem: \($0)" }
        lines.append(isValid ? "ok" : "\(problems.count) problem(s)")
        return lines.joined(separator: "\n")
    }
}

/// Checks a version's trees: every node decodes with a valid checksum and every tree
/// keeps its structural rules (see ``ClusterTree/checkInvariants(of:table:)``).
enum StoreVerifier {
    static func verify(root: GroupNode, version: UInt64, into report: inout VerificationReport) {
        report.version = version
        for tableRef in root.tables {
            do {
                let table = try tableRef.load()
                let found = try ClusterTree.checkInvariants(of: table.root, table: table.spec)
                report.tables.append((table.spec.name, found))
                if found != table.count {
                    report.problems.append("table '\(table.spec.name)' records \(table.count) objects but its tree holds \(found)")
                }
                try checkCollectionsAndKeys(of: table, into: &report)
                try checkSearchIndexes(of: table, into: &report)
                try checkBacklinks(of: table, into: &report)
            } catch {
                report.problems.append("\(error)")
            }
        }
    }

    /// Every link appears in its column's backlinks, and nothing else does.
    private static func checkBacklinks(of table: TableNode, into report: inout VerificationReport) throws {
        for (column, spec) in table.spec.columns.enumerated() where spec.type == .link {
            var expected: [Int64: [Int64]] = [:]
            try ClusterTree.forEachLeaf(in: table.root) { leaf throws(FloeError) in
                let storage = try leaf.column(column).storage
                for row in 0..<leaf.keys.count {
                    let targets = storage.layout == .collections ? try CollectionTree.allElements(storage.collections[row]) : [storage.value(at: row)]
                    for case .link(let target) in targets { expected[target, default: []].append(leaf.keys[row]) }
                }
                return true
            }
            let root = table.indexRoots[column]
            try ClusterTree.checkInvariants(of: root, table: SearchIndex.entrySpec)
            var found = 0
            try ClusterTree.forEachLeaf(in: root) { leaf throws(FloeError) in
                for target in leaf.keys {
                    let origins = try SearchIndex.candidates(for: .int(target), in: root).sorted()
                    found += origins.count
                    if origins != (expected[target] ?? []).sorted() {
                        report.problems.append("the backlinks of '\(table.spec.name).\(spec.name)' to object \(target) are \(origins), the links say \((expected[target] ?? []).sorted())")
                    }
                }
                return true
            }
            let total = expected.values.reduce(0) { $0 + $1.count }
            if found != total {
                report.problems.append("the backlinks of '\(table.spec.name).\(spec.name)' hold \(found) links, the column \(total)")
            }
        }
    }

    private static func checkSearchIndexes(of table: TableNode, into report: inout VerificationReport) throws {
        if let keyColumn = table.spec.objectKeyColumn {
            try ClusterTree.forEachLeaf(in: table.root) { leaf throws(FloeError) in
                let storage = try leaf.column(keyColumn).storage
                for row in 0..<leaf.keys.count where storage.int(at: row) != leaf.keys[row] {
                    report.problems.append("object \(leaf.keys[row]) of '\(table.spec.name)' has primary key \(storage.int(at: row)), which must be its object key")
                }
                return true
            }
        }
        for (column, spec) in table.spec.columns.enumerated() where spec.hasSearchIndex {
            let root = table.indexRoots[column]
            try ClusterTree.checkInvariants(of: root, table: SearchIndex.entrySpec)
            let indexed = try SearchIndex.allKeys(in: root)
            if indexed.count != table.count || Set(indexed).count != indexed.count {
                report.problems.append("the index of '\(table.spec.name).\(spec.name)' holds \(indexed.count) entries for \(table.count) objects")
                continue
            }
            try ClusterTree.forEachLeaf(in: table.root) { leaf throws(FloeError) in
                let storage = try leaf.column(column).storage
                for row in 0..<leaf.keys.count {
                    let candidates = try SearchIndex.candidates(for: storage.value(at: row), in: root)
                    if !candidates.contains(leaf.keys[row]) {
                        report.problems.append("the index of '\(table.spec.name).\(spec.name)' does not file object \(leaf.keys[row]) under its value")
                    }
                }
                return true
            }
        }
    }

    private static func checkCollectionsAndKeys(of table: TableNode, into report: inout VerificationReport) throws {
        var maximumKey: Int64 = -1
        let collectionColumns = table.spec.columns.indices.filter { table.spec.columns[$0].collection != .single }
        try ClusterTree.forEachLeaf(in: table.root) { leaf throws(FloeError) in
            maximumKey = max(maximumKey, leaf.keys.last ?? -1)
            for column in collectionColumns {
                let spec = table.spec.columns[column]
                let storage = try leaf.column(column).storage
                for (row, root) in storage.collections.enumerated() {
                    do {
                        try CollectionTree.checkInvariants(of: root, isMap: spec.collection == .map,
                                                           context: "\(table.spec.name).\(spec.name) of object \(leaf.keys[row])")
                    } catch {
                        report.problems.append("\(error)")
                    }
                }
            }
            return true
        }
        if maximumKey >= table.nextKey {
            report.problems.append("table '\(table.spec.name)' will hand out key \(table.nextKey) but already holds key \(maximumKey)")
        }
    }
}

@_spi(Engine) extension Store {
    /// Reads the whole file and checks every checksum and every tree rule of the newest
    /// version, reporting each problem with where it is. Nodes are read afresh from the
    /// file, not from memory.
    public func verify() throws(FloeError) -> VerificationReport {
        var report = VerificationReport()
        gate.enter()
        defer { gate.leave() }
        let (file, root, version) = state.withLock { ($0.file, $0.root, $0.version) }
        guard let file else {
            StoreVerifier.verify(root: root, version: version, into: &report)
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
                StoreVerifier.verify(root: fresh, version: version, into: &report)
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
