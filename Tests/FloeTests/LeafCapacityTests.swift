import Foundation
import Testing
@_spi(Engine) @testable import Floe

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
    static func leaf(_ rows: [(key: Int64, name: String)]) -> ClusterNode {
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

    @Test func anInnerNodeLargerThanTheCapacityReadsVerifiesAndGrows() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        var store = try Store.open(path: path, options: StoreOptions(durability: .none))
        let leaves = ClusterTree.maximumInnerChildren
        var keys = (0..<leaves * 4).map { Int64($0 * 3) }
        do {
            let transaction = try store.beginWrite()
            let table = try transaction.createTable(Self.spec)
            for key in keys { try transaction.insertObject(into: table, key: key, values: [.int(key), .string("k\(key)")]) }
            // One root over 64 leaves of four objects, as a file written with 64-way inner nodes holds.
            var children: [NodeRef<ClusterNode>] = []
            for leaf in 0..<leaves {
                let leafKeys = Array(keys[leaf * 4..<leaf * 4 + 4])
                children.append(NodeRef(Self.leaf(leafKeys.map { ($0, "k\($0)") })))
            }
            try transaction.tableNode(table).root = NodeRef(ClusterNode(
                innerKeys: (0..<leaves).map { keys[$0 * 4] }, counts: [Int](repeating: 4, count: leaves), children: children))
            try transaction.commit()
        }
        store.close()
        store = try Store.open(path: path, options: StoreOptions(durability: .none))
        #expect(try Self.innerSizes(try store.snapshot(), try store.snapshot().table(named: "Thing")) == [leaves])
        #expect(try store.verify().isValid)
        // Enough inserts into one leaf to split it, each its own commit, and a delete.
        for round in 0..<(ClusterTree.leafCapacity + 10) {
            let transaction = try store.beginWrite()
            let table = try transaction.table(named: "Thing")
            if round == 5 {
                #expect(try transaction.deleteObject(from: table, key: keys.removeLast()))
            } else {
                let key = Int64(1_000_000 + round)
                try transaction.insertObject(into: table, key: key, values: [.int(key), .string("k\(key)")])
                keys.append(key)
            }
            try transaction.commit()
        }
        store.close()
        store = try Store.open(path: path, options: StoreOptions(durability: .none))
        let snapshot = try store.snapshot()
        let handle = try snapshot.table(named: "Thing")
        let report = try store.verify()
        #expect(report.isValid, "\(report)")
        #expect(try snapshot.objectKeys(in: handle) == keys.sorted())
        for key in keys { #expect(try snapshot.value(in: handle, key: key, column: 1) == .string("k\(key)")) }
        #expect(try Self.innerSizes(snapshot, handle).allSatisfy { $0 <= ClusterTree.maximumInnerChildren })
        store.close()
    }

    @Test func aLeafLargerThanTheCapacityReadsVerifiesAndGrows() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        var store = try Store.open(path: path, options: StoreOptions(durability: .none))
        let count = ClusterTree.maximumLeafObjects
        var model = (0..<count).map { (key: Int64($0 * 2), name: "object \($0)") }
        do {
            let transaction = try store.beginWrite()
            let table = try transaction.createTable(Self.spec)
            for (key, name) in model { try transaction.insertObject(into: table, key: key, values: [.int(key), .string(name)]) }
            // One leaf of every object, as a file written with 256-object leaves holds.
            try transaction.tableNode(table).root = NodeRef(Self.leaf(model))
            try transaction.commit()
        }
        store.close()
        store = try Store.open(path: path, options: StoreOptions(durability: .none))
        #expect(try Self.leafSizes(try store.snapshot(), try store.snapshot().table(named: "Thing")) == [count])
        #expect(try store.verify().isValid)
        // One insert inside it, one at its end and one delete, each its own commit.
        for (index, operation) in [(101, "insert"), (-1, "append"), (40, "delete")] {
            let transaction = try store.beginWrite()
            let table = try transaction.table(named: "Thing")
            switch operation {
            case "insert":
                try transaction.insertObject(into: table, key: Int64(index), values: [.int(Int64(index)), .string("inserted")])
                model.append((Int64(index), "inserted"))
            case "append":
                let key = Int64(count * 2 + 1)
                try transaction.insertObject(into: table, key: key, values: [.int(key), .string("appended")])
                model.append((key, "appended"))
            default:
                #expect(try transaction.deleteObject(from: table, key: Int64(index)))
                model.removeAll { $0.key == Int64(index) }
            }
            try transaction.commit()
            store.close()
            store = try Store.open(path: path, options: StoreOptions(durability: .none))
            let snapshot = try store.snapshot()
            let handle = try snapshot.table(named: "Thing")
            let report = try store.verify()
            #expect(report.isValid, "\(operation): \(report)")
            #expect(try snapshot.objectKeys(in: handle) == model.map(\.key).sorted(), "\(operation)")
            for (key, name) in model {
                #expect(try snapshot.value(in: handle, key: key, column: 0) == .int(key))
                #expect(try snapshot.value(in: handle, key: key, column: 1) == .string(name))
            }
            #expect(try Self.leafSizes(snapshot, handle).allSatisfy { $0 <= ClusterTree.maximumLeafObjects })
        }
        store.close()
    }
}
