import Foundation
import Testing
@testable @_spi(Engine) import Floe
@testable @_spi(Engine) import FloeEngine
@testable @_spi(Engine) import FloeStorage

/// `Store.verify()` (and so `floe verify`) checks the object graph as well as checksums and tree
/// rules. Each test writes a file whose checksums are all valid but whose rows break one rule,
/// as a writer going around the object layer could, and expects the problem named by class,
/// object key and property.
@Suite struct ObjectGraphVerificationTests {
    enum VerifiedGraph {
        final class Address: EmbeddedObject {
            @Persisted var city = ""
        }

        final class Person: Object {
            @Persisted(primaryKey: true) var name = ""
            @Persisted var address: Address?
            @Persisted var previousAddresses: List<Address>
            @Persisted var places: Map<String, Address?>
            @Persisted var dogs: List<Dog>
        }

        final class Dog: Object {
            @Persisted var name = ""
        }
    }

    /// Columns of the engine-level file below.
    static let personAddress = 1, personDogs = 2, dogName = 0

    /// Person {name (primary key), address → Address (embedded), dogs: list → Dog}, Address
    /// {city}, Dog {name, indexed}: Ada at 0 and Bo at 1, each with an address of their own;
    /// Rex (0) and Max (1), both Ada's dogs. Every rule holds until `damage` runs in the same write.
    static func makeFile(at path: String, damage: (WriteTransaction, _ people: TableHandle, _ addresses: TableHandle, _ dogs: TableHandle) throws -> Void) throws {
        let store = try Store.open(path: path)
        defer { store.close() }
        let transaction = try store.beginWrite()
        let addresses = try transaction.createTable(TableSpec(name: "Address", kind: .embedded, columns: [ColumnSpec(name: "city", type: .string)]))
        let dogs = try transaction.createTable(TableSpec(name: "Dog", columns: [ColumnSpec(name: "name", type: .string, isIndexed: true)]))
        let people = try transaction.createTable(TableSpec(name: "Person", columns: [
            ColumnSpec(name: "name", type: .string, isIndexed: true, isPrimaryKey: true),
            ColumnSpec(name: "address", type: .link, isNullable: true, linkTarget: "Address"),
            ColumnSpec(name: "dogs", type: .link, collection: .list, linkTarget: "Dog"),
        ]))
        let rome = try transaction.insertObject(into: addresses, values: [.string("Rome")])
        let oslo = try transaction.insertObject(into: addresses, values: [.string("Oslo")])
        let rex = try transaction.insertObject(into: dogs, values: [.string("Rex")])
        let max = try transaction.insertObject(into: dogs, values: [.string("Max")])
        let ada = try transaction.insertObject(into: people, values: [.string("Ada"), .link(rome), .null])
        _ = try transaction.insertObject(into: people, values: [.string("Bo"), .link(oslo), .null])
        try transaction.listAppend(contentsOf: [.link(rex), .link(max)], in: people, key: ada, column: personDogs)
        try damage(transaction, people, addresses, dogs)
        _ = try transaction.commit()
    }

    /// The problems `verify` reports for the file, after checking that every checksum is right
    /// (the damage is in the graph alone).
    static func problems(at path: String) throws -> [String] {
        let store = try Store.open(path: path, options: StoreOptions(readOnly: true))
        defer { store.close() }
        let report = try store.verify()
        #expect(report.commits == 1 && report.nodes > 0)
        return report.problems
    }

    @Test func aSoundFileHasNoProblems() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("sound.floe")
        try Self.makeFile(at: path) { _, _, _, _ in }
        #expect(try Self.problems(at: path) == [])
    }

    /// Embedded objects written, replaced and deleted through the object layer keep one owner each.
    @Test func theObjectLayerKeepsEveryRule() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("model.floe")
        let realm = try await Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path),
                                                                       objectTypes: [VerifiedGraph.Address.self, VerifiedGraph.Person.self, VerifiedGraph.Dog.self]))
        try await realm.write { realm in
            for name in ["Ada", "Bo", "Cy"] {
                try realm.create(VerifiedGraph.Person.self, value: [
                    "name": name, "address": ["city": "Rome"], "previousAddresses": [["city": "Oslo"], ["city": "Bergen"]],
                    "places": ["home": ["city": "Pisa"], "work": ["city": "Turin"]], "dogs": [["name": "Rex"]],
                ])
            }
        }
        try await realm.write { realm in
            let ada = realm.object(ofType: VerifiedGraph.Person.self, forPrimaryKey: "Ada")!
            let paris = VerifiedGraph.Address()
            paris.city = "Paris"
            ada.address = paris
            ada.previousAddresses.remove(at: 0)
            ada.places["home"] = nil
            try realm.delete(realm.object(ofType: VerifiedGraph.Person.self, forPrimaryKey: "Bo")!)
            try realm.delete(realm.objects(VerifiedGraph.Dog.self).first!)
        }
        let report = try realm.store.verify()
        #expect(report.isValid, "\(report)")
    }

    @Test func anEmbeddedObjectWithTwoOwnersIsNamed() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("shared.floe")
        try Self.makeFile(at: path) { transaction, people, _, _ in
            // Bo's address is Ada's: what importing `"address": 0` used to write.
            try transaction.setValue(.link(0), in: people, key: 1, column: Self.personAddress)
        }
        let problems = try Self.problems(at: path)
        #expect(problems.contains("Address 0 is an embedded object with 2 owners (Person 0, property 'address'; Person 1, property 'address'): "
                                  + "an embedded object belongs to exactly one"), "\(problems)")
        // Bo's old address lost its owner.
        #expect(problems.contains("Address 1 is an embedded object that no object owns: an embedded object exists only inside its owner"), "\(problems)")
        #expect(problems.count == 2, "\(problems)")
    }

    @Test func anEmbeddedObjectWithoutAnOwnerIsNamed() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("orphan.floe")
        try Self.makeFile(at: path) { transaction, _, addresses, _ in
            // A row straight into the embedded class: what importing into it used to write.
            _ = try transaction.insertObject(into: addresses, values: [.string("Nowhere")])
        }
        #expect(try Self.problems(at: path) == ["Address 2 is an embedded object that no object owns: an embedded object exists only inside its owner"])
    }

    @Test func aLinkWithoutItsBacklinkIsNamed() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("backlink.floe")
        try Self.makeFile(at: path) { transaction, people, _, _ in
            let node = try transaction.tableNode(people)
            node.indexRoots[Self.personDogs] = try SearchIndex.remove(0, for: .int(1), from: node.indexRoots[Self.personDogs], context: transaction.context)
        }
        #expect(try Self.problems(at: path) == ["Person 0, property 'dogs', links to Dog 1, but the backlinks of Dog 1 do not list that link"])
    }

    @Test func aBacklinkWithoutItsLinkIsNamed() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("extra-backlink.floe")
        try Self.makeFile(at: path) { transaction, people, _, _ in
            let node = try transaction.tableNode(people)
            node.indexRoots[Self.personAddress] = try SearchIndex.insert(1, for: .int(0), into: node.indexRoots[Self.personAddress], context: transaction.context)
        }
        #expect(try Self.problems(at: path) == ["the backlinks of Address 0 list a link from Person 1, property 'address', which does not link there"])
    }

    @Test func anIndexEntryThatDisagreesWithItsValueIsNamed() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("index.floe")
        try Self.makeFile(at: path) { transaction, _, _, dogs in
            // Rex filed under "Fido" instead of under his name.
            let node = try transaction.tableNode(dogs)
            var root = try SearchIndex.remove(0, for: .string("Rex"), from: node.indexRoots[Self.dogName], context: transaction.context)
            root = try SearchIndex.insert(0, for: .string("Fido"), into: root, context: transaction.context)
            node.indexRoots[Self.dogName] = root
        }
        #expect(try Self.problems(at: path) == ["Dog 0, property 'name', holds \"Rex\", but the index of Dog.name does not file it under that value"])
    }

    @Test func anIndexEntryForNoObjectIsNamed() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("index-extra.floe")
        try Self.makeFile(at: path) { transaction, _, _, dogs in
            let node = try transaction.tableNode(dogs)
            node.indexRoots[Self.dogName] = try SearchIndex.insert(7, for: .string("Ghost"), into: node.indexRoots[Self.dogName], context: transaction.context)
        }
        #expect(try Self.problems(at: path) == ["the index of Dog.name files Dog 7, which does not exist"])
    }

    /// A list still holding an object deleted without the object layer (which removes it from
    /// every list that holds it).
    @Test func aCollectionHoldingADeletedObjectIsNamed() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("dangling.floe")
        try Self.makeFile(at: path) { transaction, _, _, dogs in
            try transaction.deleteObject(from: dogs, key: 1)
        }
        #expect(try Self.problems(at: path) == ["Person 0, property 'dogs', links to Dog 1, which does not exist"])
    }

    /// Two objects holding one list tree: the second list is no list of its own.
    @Test func aCollectionSharedByTwoObjectsIsNamed() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("shared-list.floe")
        try Self.makeFile(at: path) { transaction, people, _, _ in
            try Self.giveBoAdasDogs(transaction, people)
        }
        let problems = try Self.problems(at: path)
        #expect(problems.contains("Person 1, property 'dogs', shares its collection with Person 0, property 'dogs': each object's list, set or map must be its own"),
                "\(problems)")
    }

    /// The list of a deleted object, left in another object's row: its links have no backlinks.
    @Test func theCollectionOfADeletedObjectIsNamed() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("deleted-owner.floe")
        try Self.makeFile(at: path) { transaction, people, addresses, _ in
            try Self.giveBoAdasDogs(transaction, people)
            try transaction.deleteObject(from: people, key: 0)
            try transaction.deleteObject(from: addresses, key: 0)
        }
        let problems = try Self.problems(at: path)
        #expect(problems == [
            "Person 1, property 'dogs', links to Dog 0, but the backlinks of Dog 0 do not list that link",
            "Person 1, property 'dogs', links to Dog 1, but the backlinks of Dog 1 do not list that link",
        ], "\(problems)")
    }

    /// Puts Ada's list tree into Bo's row, as a copy of a row's bytes would.
    static func giveBoAdasDogs(_ transaction: WriteTransaction, _ people: TableHandle) throws {
        let node = try transaction.tableNode(people)
        let adasDogs = try #require(try transaction.collectionRoot(people, 0, Self.personDogs))
        let (root, leaf, row) = try #require(try ClusterTree.mutableLeaf(for: 1, root: node.root, context: transaction.context))
        node.root = root
        let (columnRef, column) = try transaction.context.mutable(leaf.columns[Self.personDogs])
        leaf.columns[Self.personDogs] = columnRef
        column.storage.setCollection(adasDogs, at: row)
    }

    /// Recovery salvages versions whose trees are intact, whatever their object graph says.
    @Test func recoveryIsNotBlockedByGraphProblems() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("orphan.floe")
        try Self.makeFile(at: path) { transaction, _, addresses, _ in
            _ = try transaction.insertObject(into: addresses, values: [.string("Nowhere")])
        }
        let outcome = try Store.recover(path: path, to: directory.file("saved.floe"))
        #expect(outcome.version == 1 && outcome.skipped.isEmpty, "\(outcome.skipped)")
    }
}
