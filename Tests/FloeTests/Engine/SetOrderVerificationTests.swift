import Foundation
import Testing
@testable @_spi(Engine) import Floe
@testable @_spi(Engine) import FloeEngine
@testable @_spi(Engine) import FloeStorage

/// `verify` checks that every set holds its elements distinct and ascending in the one order
/// of values, which set lookups rely on: a set written out of that order (as under the earlier
/// order of decimals, by their bits) is named, and sets written by the object layer pass.
@Suite struct SetOrderVerificationTests {
    final class Jar: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var coins: MutableSet<Decimal128>
        @Persisted var things: MutableSet<AnyRealmValue>
    }

    @Test func aSetOutOfOrderIsNamed() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("unordered-set.floe")
        do {
            let store = try Store.open(path: path)
            defer { store.close() }
            let transaction = try store.beginWrite()
            let jars = try transaction.createTable(TableSpec(name: "Jar", columns: [ColumnSpec(name: "coins", type: .decimal128, collection: .set)]))
            let key = try transaction.insertObject(into: jars, values: [.null])
            // 100 before 5: ascending by bits, not by value.
            var root = try CollectionTree.insert(Aggregation.decimal(100), key: nil, at: 0, into: nil, elementType: .decimal128, nullable: false, context: transaction.context)
            root = try CollectionTree.insert(Aggregation.decimal(5), key: nil, at: 1, into: root, elementType: .decimal128, nullable: false, context: transaction.context)
            let node = try transaction.tableNode(jars)
            let (treeRoot, leaf, row) = try #require(try ClusterTree.mutableLeaf(for: key, root: node.root, context: transaction.context))
            node.root = treeRoot
            let (columnRef, column) = try transaction.context.mutable(leaf.columns[0])
            leaf.columns[0] = columnRef
            column.storage.setCollection(root, at: row)
            _ = try transaction.commit()
        }
        let store = try Store.open(path: path, options: StoreOptions(readOnly: true))
        defer { store.close() }
        let problems = try store.verify().problems
        #expect(problems == ["Jar 0, property 'coins', a set, holds 100 before 5: a set keeps its elements distinct and in ascending order"], "\(problems)")
    }

    @Test func setsWrittenByTheObjectLayerAreInOrder() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("ordered-sets.floe")
        do {
            let realm = try await Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [Jar.self]))
            try await realm.write { realm in
                let jar = try realm.create(Jar.self, value: ["id": 1])
                for coin: Decimal128 in ["100", "5", "5.00", "-3.5", "12.34", "0", "-0", "NaN"] { jar.coins.insert(coin) }
                for thing: AnyRealmValue in [.int(5), .double(5), .decimal128("2.5"), .string("a"), .double(.nan), .bool(true), .none, .float(2.5)] {
                    jar.things.insert(thing)
                }
            }
            let counts = try await realm.read { realm in
                let jar = realm.object(ofType: Jar.self, forPrimaryKey: 1)!
                return (jar.coins.count, jar.things.count)
            }
            // 5 and 5.00 are one coin, -0 and 0 one, NaN one; 5 and 5.0 one thing, 2.5 and 2.5 one.
            #expect(counts == (6, 6))
        }
        let store = try Store.open(path: path, options: StoreOptions(readOnly: true))
        defer { store.close() }
        #expect(try store.verify().problems == [])
    }
}
