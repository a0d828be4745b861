import Foundation
import Testing
@_spi(Engine) @testable import Floe
@_spi(Engine) @testable import FloeEngine
@_spi(Engine) @testable import FloeStorage

enum Lists {
    final class Dog: Object {
        @Persisted var name = ""
        @Persisted var age = 0
    }

    final class Stop: EmbeddedObject {
        @Persisted var city = ""
    }

    final class Person: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var dogs: List<Dog>
        @Persisted var nicknames: List<String>
        @Persisted var scores: List<Int?>
        @Persisted var trip: List<Stop>
    }
}

@Suite struct ListTests {
    func realm() async throws -> Realm {
        try await inMemoryRealm("lists", objectTypes: [Lists.Dog.self, Lists.Stop.self, Lists.Person.self])
    }

    @Test func listsOfValuesAndObjects() async throws {
        let realm = try await realm()
        try await realm.write { realm in
            let person = Lists.Person()
            person.id = 1
            person.nicknames.append("Jo")
            person.nicknames.append(objectsIn: ["Joey", "J"])
            person.scores.append(nil)
            let rex = Lists.Dog()
            rex.name = "Rex"
            person.dogs.append(rex)
            try realm.add(person)
            #expect(rex.isManaged)
            // Managed now: changes go to the realm.
            person.nicknames.insert("First", at: 0)
            person.nicknames.move(from: 3, to: 1)
            person.nicknames.swapAt(0, 2)
            person.nicknames.replace(index: 3, object: "Joseph")
            person.scores.append(7)
            person.dogs.append(objectsIn: [try Lists.Dog(value: ["name": "Fido", "age": 2]), rex])   // duplicates allowed
            person.scores.append(objectsIn: [Int?]())
        }
        let summary = try await realm.read { realm -> [String] in
            let person = realm.objects(Lists.Person.self).first!
            return [person.nicknames.joined(separator: ","), "\(Array(person.scores))", person.dogs.map(\.name).joined(separator: ","),
                    "\(person.dogs.index(of: person.dogs[1]) ?? -1) \(person.nicknames.index(of: "J") ?? -1)",
                    "\(realm.objects(Lists.Dog.self).count)"]
        }
        #expect(summary == ["Jo,J,First,Joseph", "[nil, Optional(7)]", "Rex,Fido,Rex", "1 1", "2"])
        try await realm.write { realm in
            let person = realm.objects(Lists.Person.self).first!
            person.nicknames.remove(at: 0)
            person.nicknames.removeLast()
            person.dogs.removeAll()
        }
        let after = try await realm.read { realm in
            let person = realm.objects(Lists.Person.self).first!
            return "\(Array(person.nicknames)) \(person.dogs.count) \(realm.objects(Lists.Dog.self).count)"
        }
        #expect(after == "[\"J\", \"First\"] 0 2")
    }

    @Test func createWithNestedArraysAndDeleteRemovesFromLists() async throws {
        let realm = try await realm()
        try await realm.write { realm in
            try realm.create(Lists.Person.self, value: [1, "Jane", [["Buster", 5], ["Buddy", 6]], ["J"], [1, nil], [["city": "Paris"], ["city": "Rome"]]])
            let json = try JSONSerialization.jsonObject(with: Data(#"{"id": 2, "name": "Joe", "dogs": [{"name": "Max"}], "nicknames": ["Jo"], "trip": []}"#.utf8))
            try realm.create(Lists.Person.self, value: json)
        }
        let people = try await realm.read { realm in
            realm.objects(Lists.Person.self).map { "\($0.name) \($0.dogs.map(\.name)) \(Array($0.nicknames)) \(Array($0.scores)) \($0.trip.map(\.city))" }
        }
        #expect(people == ["Jane [\"Buster\", \"Buddy\"] [\"J\"] [Optional(1), nil] [\"Paris\", \"Rome\"]", "Joe [\"Max\"] [\"Jo\"] [] []"])
        try await realm.write { realm in
            try realm.delete(realm.objects(Lists.Dog.self).filter { $0.name == "Buster" })
            realm.objects(Lists.Person.self).first!.trip.remove(at: 0)
        }
        let after = try await realm.read { realm in
            (realm.objects(Lists.Person.self).first!.dogs.map(\.name), try realm.freeze().embeddedStops())
        }
        #expect(after.0 == ["Buddy"])
        #expect(after.1 == 1, "a removed embedded object is deleted")
        try await realm.write { realm in try realm.delete(realm.objects(Lists.Person.self).first!) }
        #expect(try await realm.read { realm in try realm.freeze().embeddedStops() } == 0, "a deleted owner takes its embedded objects along")
    }

    @Test func badElementsAndIndexesAreErrors() async throws {
        let realm = try await realm()
        await #expect(throws: FloeError.typeMismatch(table: "Person", column: "nicknames", expected: "String", value: "5")) {
            try await realm.asyncWrite { realm in try realm.create(Lists.Person.self, value: ["id": 1, "nicknames": ["ok", 5]]) }
        }
        await #expect(throws: FloeError.self) {
            try await realm.asyncWrite { realm in try realm.create(Lists.Person.self, value: ["id": 1, "nicknames": "not an array"]) }
        }
        #expect(try await realm.read { realm in realm.objects(Lists.Person.self).count } == 0)
        // Persisted across reopen.
        let directory = TemporaryDirectory()
        let url = directory.url()
        do {
            let fileRealm = try await Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [Lists.Dog.self, Lists.Stop.self, Lists.Person.self]))
            try await fileRealm.asyncWrite { realm in try realm.create(Lists.Person.self, value: ["id": 1, "nicknames": Array(repeating: "x", count: 2500), "dogs": [["name": "a"]]]) }
        }
        let reopened = try await Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [Lists.Dog.self, Lists.Stop.self, Lists.Person.self]))
        #expect(try await reopened.read { realm in realm.objects(Lists.Person.self).first.map { "\($0.nicknames.count) \($0.dogs.first?.name ?? "")" } } == "2500 a")
    }
}

extension FrozenRealm {
    func embeddedStops() throws -> Int {
        guard let table = try snapshot.tableIfPresent(named: "Stop") else { return 0 }
        return try snapshot.objectCount(in: table)
    }
}

extension ListTests {
    @Test func collectionsFreezeAndThaw() async throws {
        let realm = try await inMemoryRealm("frozen-lists", objectTypes: [Lists.Dog.self, Lists.Stop.self, Lists.Person.self])
        let other = try await inMemoryRealm("frozen-sets", objectTypes: [SetsAndMaps.Park.self, SetsAndMaps.Dog.self])
        try await realm.asyncWrite { realm in
            try realm.create(Lists.Person.self, value: ["id": 1, "nicknames": ["a", "b"], "dogs": [["name": "Rex"]]])
        }
        try await other.write { realm in
            let dog = try realm.create(SetsAndMaps.Dog.self, value: ["id": 1])
            dog.citiesVisited.insert("Oslo")
            dog.favoriteParksByCity["Oslo"] = "Frogner"
        }
        let (names, dogs) = try await realm.read { realm in
            let person = realm.objects(Lists.Person.self).first!
            return (try person.nicknames.freeze(), try person.dogs.freeze())
        }
        let (cities, parks) = try await other.read { realm in
            let dog = realm.objects(SetsAndMaps.Dog.self).first!
            return (try dog.citiesVisited.freeze(), try dog.favoriteParksByCity.freeze())
        }
        let frozenPerson = try await realm.read { realm in try realm.objects(Lists.Person.self).first!.freeze() }
        try await realm.write { realm in
            let person = realm.objects(Lists.Person.self).first!
            person.nicknames.append("c")
            person.dogs.first!.name = "Changed"
        }
        try await other.write { realm in realm.objects(SetsAndMaps.Dog.self).first!.favoriteParksByCity["Oslo"] = "Vigeland" }
        let seen = await Task.detached {
            [Array(names).joined(separator: ","), dogs.map(\.name).joined(), Array(cities).joined(), parks["Oslo"] ?? "-",
             frozenPerson.nicknames.joined(separator: ","), "\(names.isFrozen) \(frozenPerson.dogs.count)"]
        }.value
        #expect(seen == ["a,b", "Rex", "Oslo", "Frogner", "a,b", "true 1"])
        let thawed = try await realm.read { realm in realm.thaw(names).map { Array($0) } }
        #expect(thawed == ["a", "b", "c"])
        let thawedOther = try await other.read { realm in
            [realm.thaw(cities).map { Array($0).joined() } ?? "-", realm.thaw(parks).map { $0["Oslo"] ?? "-" } ?? "-", "\(cities.contains("Oslo"))"]
        }
        #expect(thawedOther == ["Oslo", "Vigeland", "true"])
    }
}
