import Foundation
import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

enum Inverse {
    final class Person: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var dogs: List<Dog>
        @Persisted var bestFriend: Dog?
    }

    final class Dog: Object {
        @Persisted var name = ""
        @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
        @Persisted(originProperty: "bestFriend") var bestFriendOf: LinkingObjects<Person>
    }

    final class Broken: Object {
        @Persisted(originProperty: "nothing") var owners: LinkingObjects<Person>
    }
}

@Suite struct LinkingObjectsTests {
    @Test func inverseRelationshipsFollowTheLinks() async throws {
        let realm = try await inMemoryRealm("inverse", objectTypes: [Inverse.Person.self, Inverse.Dog.self])
        try await realm.write { realm in
            try realm.create(Inverse.Person.self, value: [1, "Ann", [["Rex"], ["Fido"]]])
            let bob = try realm.create(Inverse.Person.self, value: ["id": 2, "name": "Bob"])
            let rex = realm.objects(Inverse.Dog.self).first!
            bob.dogs.append(rex)
            bob.bestFriend = rex
        }
        let owners = try await realm.read { realm in
            realm.objects(Inverse.Dog.self).map { "\($0.name): \($0.owners.map(\.name)) \($0.bestFriendOf.map(\.name))" }
        }
        #expect(owners == ["Rex: [\"Ann\", \"Bob\"] [\"Bob\"]", "Fido: [\"Ann\"] []"])
        // Always current: changing the links changes the inverse.
        try await realm.write { realm in
            realm.object(ofType: Inverse.Person.self, forPrimaryKey: 1)!.dogs.removeAll()
            try realm.delete(realm.object(ofType: Inverse.Person.self, forPrimaryKey: 2)!)
        }
        #expect(try await realm.read { realm in realm.objects(Inverse.Dog.self).map(\.owners.count) } == [0, 0])
        // Frozen objects read their version's inverse.
        #expect(try await realm.read { realm in Inverse.Dog().objectSchema.computedProperties.map(\.name) } == ["owners", "bestFriendOf"])
        // A misdeclared origin is refused when the class is used.
        let broken = try await inMemoryRealm("broken")
        await #expect(throws: FloeError.self) {
            try await broken.asyncWrite { realm in try realm.create(Inverse.Broken.self, value: [:]) }
        }
    }
}
