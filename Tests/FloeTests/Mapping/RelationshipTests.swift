import Foundation
import Testing
@_spi(Engine) @testable import Floe
@_spi(Engine) @testable import FloeEngine
@_spi(Engine) @testable import FloeStorage

enum Links {
    final class DogToy: Object {
        @Persisted var name = ""
    }

    final class Dog: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var favoriteToy: DogToy?
        @Persisted var buddy: Dog?
    }

    final class Address: EmbeddedObject {
        @Persisted var street: String?
        @Persisted var city: String?
        @Persisted var geo: Geo?
    }

    final class Geo: EmbeddedObject {
        @Persisted var latitude = 0.0
        @Persisted var longitude = 0.0
    }

    final class Person: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var address: Address?
        @Persisted var dog: Dog?

        convenience init(name: String, address: Address) {
            self.init()
            self.name = name
            self.address = address
        }
    }

    final class Node: Object {
        @Persisted var name = ""
        @Persisted var next: Node?
    }

    final class RequiredLink: Object {
        @Persisted var toy: DogToy
    }

    final class EmbeddedLinkingOut: EmbeddedObject {
        @Persisted var toy: DogToy?
    }
}

@Suite struct RelationshipTests {
    func realm() async throws -> Realm {
        try await inMemoryRealm("links", objectTypes: [Links.DogToy.self, Links.Dog.self, Links.Address.self, Links.Geo.self, Links.Person.self])
    }

    @Test func addingAnObjectAddsWhatItLinksTo() async throws {
        let realm = try await realm()
        try await realm.write { realm in
            let toy = Links.DogToy()
            toy.name = "ball"
            let rex = Links.Dog()
            rex.id = 1
            rex.name = "Rex"
            rex.favoriteToy = toy
            let fido = Links.Dog()
            fido.id = 2
            fido.name = "Fido"
            // A cycle of unmanaged objects: add handles it.
            rex.buddy = fido
            fido.buddy = rex
            try realm.add(rex)
            #expect(toy.isManaged && fido.isManaged)
        }
        let summary = try await realm.read { realm in
            realm.objects(Links.Dog.self).map { "\($0.name) \($0.favoriteToy?.name ?? "-") \($0.buddy?.name ?? "-") \($0.buddy?.buddy?.name ?? "-")" }
        }
        #expect(summary == ["Rex ball Fido Rex", "Fido - Rex Fido"])
        #expect(try await realm.read { realm in realm.objects(Links.DogToy.self).count } == 1)
    }

    @Test func nestedValuesCreateRelatedAndEmbeddedObjects() async throws {
        let realm = try await realm()
        try await realm.write { realm in
            try realm.create(Links.Person.self, value: [
                "id": 1, "name": "Jane",
                "address": ["street": "1 Main St", "city": "Springfield", "geo": ["latitude": 1.5, "longitude": -2.5]],
                "dog": ["id": 10, "name": "Buster", "favoriteToy": ["name": "rope"]],
            ])
            let json = try JSONSerialization.jsonObject(with: Data(#"{"id": 2, "name": "Joe", "address": {"city": "Shelbyville"}, "dog": null}"#.utf8))
            try realm.create(Links.Person.self, value: json)
        }
        let people = try await realm.read { realm in
            realm.objects(Links.Person.self).map {
                "\($0.name) \($0.address?.street ?? "-") \($0.address?.city ?? "-") \($0.address?.geo?.longitude ?? 0) \($0.dog?.name ?? "-") \($0.dog?.favoriteToy?.name ?? "-")"
            }
        }
        #expect(people == ["Jane 1 Main St Springfield -2.5 Buster rope", "Joe - Shelbyville 0.0 - -"])
        // Unmanaged objects take nested values too.
        let unmanaged = try Links.Person(value: ["name": "Ann", "address": ["city": "Ogdenville"]])
        #expect(unmanaged.address?.city == "Ogdenville" && !unmanaged.isManaged)
    }

    @Test func embeddedObjectsHaveOneOwnerAndDieWithIt() async throws {
        let realm = try await realm()
        try await realm.write { realm in
            let address = Links.Address()
            address.street = "Elm"
            try realm.add(Links.Person(name: "Ann", address: address))
        }
        #expect(try await realm.read { realm in realm.objects(Links.Person.self).first?.address?.street } == "Elm")
        // Reassigning deletes the old embedded object.
        try await realm.write { realm in
            let person = realm.objects(Links.Person.self).first!
            let replacement = Links.Address()
            replacement.street = "Oak"
            person.address = replacement
        }
        let counts = try await realm.embeddedCount()
        #expect(counts == 1)
        // A second owner is refused, and the write rolls back.
        let error = await #expect(throws: FloeError.self) {
            try await realm.write { realm in
                let owner = realm.objects(Links.Person.self).first!
                let other = Links.Person()
                other.id = 2
                try realm.add(other)
                other.address = owner.address
            }
        }
        #expect(error?.description.contains("already has an owner") == true)
        #expect(try await realm.read { realm in realm.objects(Links.Person.self).count } == 1)
        // Deleting the owner deletes it.
        try await realm.write { realm in try realm.delete(realm.objects(Links.Person.self).first!) }
        #expect(try await realm.embeddedCount() == 0)
    }

    @Test func deletingAnObjectNilsLinksToIt() async throws {
        let realm = try await realm()
        try await realm.write { realm in
            try realm.create(Links.Dog.self, value: ["id": 1, "name": "Rex", "favoriteToy": ["name": "ball"]])
            try realm.create(Links.Dog.self, value: ["id": 2, "name": "Fido"])
            realm.object(ofType: Links.Dog.self, forPrimaryKey: 2)!.buddy = realm.object(ofType: Links.Dog.self, forPrimaryKey: 1)
        }
        try await realm.write { realm in
            try realm.delete(realm.objects(Links.DogToy.self).first!)
            try realm.delete(realm.object(ofType: Links.Dog.self, forPrimaryKey: 1)!)
        }
        let remaining = try await realm.read { realm in realm.objects(Links.Dog.self).map { "\($0.name) \($0.buddy == nil)" } }
        #expect(remaining == ["Fido true"])
    }

    @Test func frozenObjectsFollowLinksToFrozenObjects() async throws {
        let realm = try await realm()
        try await realm.asyncWrite { realm in
            try realm.create(Links.Dog.self, value: ["id": 1, "name": "Rex", "favoriteToy": ["name": "ball"]])
        }
        let frozen = try await realm.read { realm in try realm.objects(Links.Dog.self).freeze() }
        let toy: Frozen<Links.DogToy>? = frozen[0].favoriteToy
        #expect(toy?.name == "ball")
        #expect(toy?.isFrozen == true)
        #expect(frozen[0].buddy == nil)
        try await realm.write { realm in realm.objects(Links.DogToy.self).first!.name = "changed" }
        #expect(await Task.detached { frozen[0].favoriteToy?.name }.value == "ball")
    }

    @Test func invalidRelationshipsAreRefused() async throws {
        #expect(throws: FloeError.self) { try SchemaDiscovery.schema(for: Links.RequiredLink.self) }
        #expect(throws: FloeError.self) { try SchemaDiscovery.schema(for: Links.EmbeddedLinkingOut.self) }
        let first = try await realm()
        let second = try await realm()
        try await first.asyncWrite { realm in try realm.create(Links.DogToy.self, value: ["name": "ball"]) }
        let frozenToy = try await first.read { realm in try realm.objects(Links.DogToy.self).freeze()[0] }
        // An object of another realm is copied by create, never linked.
        try await second.asyncWrite { realm in
            try realm.create(Links.Dog.self, value: ["id": 1, "favoriteToy": frozenToy])
        }
        #expect(try await second.read { realm in realm.objects(Links.Dog.self).first?.favoriteToy?.name } == "ball")
        #expect(try await second.read { realm in realm.objects(Links.DogToy.self).count } == 1)
    }

    /// A cyclic graph handed to `create` is refused with a typed error naming the class, with
    /// or without primary keys, and the write leaves nothing behind; nesting deeper than 100
    /// levels is refused the same way.
    @Test func cyclicValuesInCreateAreRefused() async throws {
        let realm = try await realm()
        let error = await #expect(throws: FloeError.self) {
            try await realm.write { realm in
                let a = Links.Dog()
                let b = Links.Dog()
                a.id = 1
                b.id = 2
                a.buddy = b
                b.buddy = a
                try realm.create(Links.Dog.self, value: a)
            }
        }
        #expect(error == .cyclicValue(className: "Dog"))
        #expect(error?.description.hasPrefix("Cannot create a Dog from a cyclic value") == true)
        #expect(try await realm.read { realm in realm.objects(Links.Dog.self).count } == 0)
        let keyless = try await inMemoryRealm("cycle")
        let keylessError = await #expect(throws: FloeError.self) {
            try await keyless.write { realm in
                let a = Links.Node()
                let b = Links.Node()
                a.next = b
                b.next = a
                try realm.create(Links.Node.self, value: a)
            }
        }
        #expect(keylessError == .cyclicValue(className: "Node"))
        // A cycle in objects handed to add(_:) is kept: those objects become managed themselves.
        let count = try await keyless.write { realm in
            let a = Links.Node()
            let b = Links.Node()
            a.next = b
            b.next = a
            try realm.add(a)
            return realm.objects(Links.Node.self).count
        }
        #expect(count == 2)
        let nodes = try await inMemoryRealm("nodes", objectTypes: [Links.Node.self])
        let deep = await #expect(throws: FloeError.self) {
            try await nodes.write { realm in
                // Nesting without end is how a value that contains itself shows; 150 levels stand in
                // for it (Foundation on Linux cannot even read a dictionary that holds itself).
                var value: [String: Any] = ["name": "bottom"]
                for level in 0..<150 { value = ["name": "level \(level)", "next": value] }
                try realm.create(Links.Node.self, value: value)
            }
        }
        #expect(deep == .cyclicValue(className: "Node"))
        #expect(try await nodes.read { realm in realm.objects(Links.Node.self).count } == 0)
    }
}

extension Realm {
    func embeddedCount() throws -> Int {
        let snapshot = try freeze().snapshot
        guard let table = try snapshot.tableIfPresent(named: "Address") else { return 0 }
        return try snapshot.objectCount(in: table)
    }
}
