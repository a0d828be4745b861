import Foundation
import Testing
@_spi(Engine) @testable import Floe
@_spi(Engine) @testable import FloeEngine
@_spi(Engine) @testable import FloeStorage

/// Writers fill leaves to ``ClusterTree/leafCapacity`` objects and inner nodes to
/// ``ClusterTree/innerCapacity`` children; files may hold leaves of up to
/// ``ClusterTree/maximumLeafObjects`` and inner nodes of up to
/// ``ClusterTree/maximumInnerChildren`` (written before the capacities were lowered), which
/// read, verify and take writes as they are.
@Suite struct LeafCapacityTests {
    static let spec = TableSpec(name: "Thing", columns: [
        ColumnSpec(name: "number", type: .int),
        ColumnSpec(name: "name", type: .string),
    ])

    /// A leaf of `rows` (key, and the key as `number`), of any size.
    static func leaf(_ rows: Rows) -> ClusterNode {
        var numbers = ColumnStorage(elementType: .int, nullable: false)
        var names = ColumnStorage(elementType: .string, nullable: false)
        for (key, name) in rows {
            numbers.append(.int(key))
            names.append(.string(name))
        }
        return ClusterNode(leafKeys: rows.map(\.key), columns: [NodeRef(ColumnNode(storage: numbers)), NodeRef(ColumnNode(storage: names))])
    }

    static func leafSizes(_ reader: some VersionReading, _ table: TableHandle) throws -> [Int] {
        var sizes: [Int] = []
        try ClusterTree.forEachLeaf(in: try reader.tableNode(table).root) { leaf throws(FloeError) in
            sizes.append(leaf.keys.count)
            return true
        }
        return sizes
    }

    @Test func writersSplitLeavesAtTheirCapacity() throws {
        let store = Store.inMemory(identifier: "leaf-capacity-\(UUID())")
        let transaction = try store.beginWrite()
        let table = try transaction.createTable(Self.spec)
        for key in 0..<1_000 { try transaction.insertObject(into: table, key: Int64(key), values: [.int(Int64(key)), .string("\(key)")]) }
        let sizes = try Self.leafSizes(transaction, table)
        #expect(sizes.allSatisfy { $0 <= ClusterTree.leafCapacity })
        #expect(sizes.reduce(0, +) == 1_000)
        #expect(ClusterTree.leafCapacity < ClusterTree.maximumLeafObjects)
        transaction.rollback()
        store.close()
    }

    static func innerSizes(_ reader: some VersionReading, _ table: TableHandle) throws -> [Int] {
        var sizes: [Int] = []
        func visit(_ ref: NodeRef<ClusterNode>) throws {
            let node = try ref.load()
            guard !node.isLeaf else { return }
            sizes.append(node.children.count)
            for child in node.children { try visit(child) }
        }
        if let root = try reader.tableNode(table).root { try visit(root) }
        return sizes
    }

    @Test func writersSplitInnerNodesAtTheirCapacity() throws {
        let store = Store.inMemory(identifier: "inner-capacity-\(UUID())")
        let transaction = try store.beginWrite()
        let table = try transaction.createTable(Self.spec)
        let count = ClusterTree.leafCapacity * ClusterTree.innerCapacity * 3
        for key in 0..<count { try transaction.insertObject(into: table, key: Int64(key), values: [.int(Int64(key)), .string("")]) }
        let sizes = try Self.innerSizes(transaction, table)
        #expect(sizes.count > 1)
        #expect(sizes.allSatisfy { $0 <= ClusterTree.innerCapacity }, "\(sizes)")
        #expect(ClusterTree.innerCapacity < ClusterTree.maximumInnerChildren)
        transaction.rollback()
        store.close()
    }

    typealias Rows = [(key: Int64, name: String)]

    /// A store at `path` whose table holds `rows` under the root `makeRoot` builds of them (nodes
    /// larger than writers make, as older files hold), reopened from the file.
    static func store(at path: String, holding rows: Rows, under makeRoot: (Rows) -> ClusterNode) throws -> Store {
        let store = try ColumnChangeTests.openStore(path)
        let transaction = try store.beginWrite()
        let table = try transaction.createTable(spec)
        for (key, name) in rows { try transaction.insertObject(into: table, key: key, values: [.int(key), .string(name)]) }
        try transaction.tableNode(table).root = NodeRef(makeRoot(rows))
        try transaction.commit()
        store.close()
        return try ColumnChangeTests.openStore(path)
    }

    /// `store` reopened from `path`, once it verifies, holds exactly `rows`, and its nodes'
    /// `sizes` stay within `bound`.
    static func reopened(_ store: Store, at path: String, holding rows: Rows, sizes: (Snapshot, TableHandle) throws -> [Int],
                         within bound: Int, after step: String) throws -> Store {
        store.close()
        let reopened = try ColumnChangeTests.openStore(path)
        let snapshot = try reopened.snapshot()
        let handle = try snapshot.table(named: "Thing")
        let report = try reopened.verify()
        #expect(report.isValid, "\(step): \(report)")
        #expect(try snapshot.objectKeys(in: handle) == rows.map(\.key).sorted(), "\(step)")
        for (key, name) in rows {
            #expect(try snapshot.value(in: handle, key: key, column: 0) == .int(key))
            #expect(try snapshot.value(in: handle, key: key, column: 1) == .string(name))
        }
        #expect(try sizes(snapshot, handle).allSatisfy { $0 <= bound }, "\(step)")
        return reopened
    }

    @Test func anInnerNodeLargerThanTheCapacityReadsVerifiesAndGrows() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        let leaves = ClusterTree.maximumInnerChildren
        var rows = (0..<leaves * 4).map { (key: Int64($0 * 3), name: "k\($0 * 3)") }
        // One root over 64 leaves of four objects, as a file written with 64-way inner nodes holds.
        var store = try Self.store(at: path, holding: rows) { rows in
            ClusterNode(innerKeys: (0..<leaves).map { rows[$0 * 4].key }, counts: [Int](repeating: 4, count: leaves),
                        children: (0..<leaves).map { NodeRef(Self.leaf(Array(rows[$0 * 4..<$0 * 4 + 4]))) })
        }
        #expect(try Self.innerSizes(try store.snapshot(), try store.snapshot().table(named: "Thing")) == [leaves])
        #expect(try store.verify().isValid)
        // Enough inserts into one leaf to split it, each its own commit, and a delete.
        for round in 0..<(ClusterTree.leafCapacity + 10) {
            let transaction = try store.beginWrite()
            let table = try transaction.table(named: "Thing")
            if round == 5 {
                #expect(try transaction.deleteObject(from: table, key: rows.removeLast().key))
            } else {
                let key = Int64(1_000_000 + round)
                try transaction.insertObject(into: table, key: key, values: [.int(key), .string("k\(key)")])
                rows.append((key, "k\(key)"))
            }
            try transaction.commit()
        }
        store = try Self.reopened(store, at: path, holding: rows, sizes: { try Self.innerSizes($0, $1) },
                                  within: ClusterTree.maximumInnerChildren, after: "inserts and a delete")
        store.close()
    }

    @Test func aLeafLargerThanTheCapacityReadsVerifiesAndGrows() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        let count = ClusterTree.maximumLeafObjects
        var rows = (0..<count).map { (key: Int64($0 * 2), name: "object \($0)") }
        // One leaf of every object, as a file written with 256-object leaves holds.
        var store = try Self.store(at: path, holding: rows) { Self.leaf($0) }
        #expect(try Self.leafSizes(try store.snapshot(), try store.snapshot().table(named: "Thing")) == [count])
        #expect(try store.verify().isValid)
        // One insert inside it, one at its end and one delete, each its own commit.
        for (index, operation) in [(101, "insert"), (-1, "append"), (40, "delete")] {
            let transaction = try store.beginWrite()
            let table = try transaction.table(named: "Thing")
            switch operation {
            case "insert":
                try transaction.insertObject(into: table, key: Int64(index), values: [.int(Int64(index)), .string("inserted")])
                rows.append((Int64(index), "inserted"))
            case "append":
                let key = Int64(count * 2 + 1)
                try transaction.insertObject(into: table, key: key, values: [.int(key), .string("appended")])
                rows.append((key, "appended"))
            default:
                #expect(try transaction.deleteObject(from: table, key: Int64(index)))
                rows.removeAll { $0.key == Int64(index) }
            }
            try transaction.commit()
            store = try Self.reopened(store, at: path, holding: rows, sizes: { try Self.leafSizes($0, $1) },
                                      within: ClusterTree.maximumLeafObjects, after: operation)
        }
        store.close()
    }
}
