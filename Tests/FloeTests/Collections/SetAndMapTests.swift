import Foundation
import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

enum SetsAndMaps {
    final class Park: Object {
        @Persisted var name = ""
    }

    final class Dog: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var citiesVisited: MutableSet<String>
        @Persisted var parks: MutableSet<Park>
        @Persisted var favoriteParksByCity: Map<String, String>
        @Persisted var parkByCity: Map<String, Park?>
    }

    final class BadMap: Object {
        @Persisted var parks: Map<String, Park>
    }
}

@Suite struct SetAndMapTests {
    func realm() async throws -> Realm {
        try await inMemoryRealm("sets", objectTypes: [SetsAndMaps.Park.self, SetsAndMaps.Dog.self])
    }

    @Test func mutableSets() async throws {
        let realm = try await realm()
        try await realm.write { realm in
            let dog = SetsAndMaps.Dog()
            dog.id = 1
            dog.citiesVisited.insert(objectsIn: ["New York", "Toronto", "New York"])
            #expect(dog.citiesVisited.count == 2)
            try realm.add(dog)
            dog.citiesVisited.insert("Boston")
            dog.citiesVisited.insert("Toronto")
            dog.citiesVisited.remove("New York")
            let park = SetsAndMaps.Park()
            park.name = "Central"
            dog.parks.insert(park)
            dog.parks.insert(park)
        }
        let result = try await realm.read { realm -> [String] in
            let dog = realm.objects(SetsAndMaps.Dog.self).first!
            let other = SetsAndMaps.Dog()
            other.citiesVisited.insert(objectsIn: ["Boston", "Paris"])
            return [Array(dog.citiesVisited).joined(separator: ","), "\(dog.citiesVisited.contains("Boston")) \(dog.citiesVisited.contains("Oslo"))",
                    "\(dog.parks.count) \(dog.parks.contains(realm.objects(SetsAndMaps.Park.self).first!))",
                    "\(dog.citiesVisited.intersects(other.citiesVisited)) \(dog.citiesVisited.isSubset(of: other.citiesVisited))"]
        }
        #expect(result == ["Boston,Toronto", "true false", "1 true", "true false"])
        try await realm.write { realm in
            let dog = realm.objects(SetsAndMaps.Dog.self).first!
            let other = SetsAndMaps.Dog()
            other.citiesVisited.insert(objectsIn: ["Boston", "Paris"])
            dog.citiesVisited.formUnion(other.citiesVisited)
            dog.citiesVisited.subtract(other.citiesVisited)
            try realm.delete(realm.objects(SetsAndMaps.Park.self))
        }
        #expect(try await realm.read { realm in realm.objects(SetsAndMaps.Dog.self).first.map { "\(Array($0.citiesVisited)) \($0.parks.count)" } } == "[\"Toronto\"] 0")
    }

    @Test func maps() async throws {
        let realm = try await realm()
        try await realm.write { realm in
            let dog = SetsAndMaps.Dog()
            dog.id = 1
            dog.favoriteParksByCity["New York"] = "Central Park"
            try realm.add(dog)
            dog.favoriteParksByCity["Chicago"] = "Millennium Park"
            dog.favoriteParksByCity.setValue("Lincoln Park", forKey: "Chicago")
            dog.favoriteParksByCity.merge(["Boston": "Common", "Toronto": "High Park"])
            dog.favoriteParksByCity["Toronto"] = nil
            let park = SetsAndMaps.Park()
            park.name = "Central"
            dog.parkByCity["New York"] = park
        }
        let result = try await realm.read { realm -> [String] in
            let dog = realm.objects(SetsAndMaps.Dog.self).first!
            func count<C: RealmCollection>(_ collection: C) -> Int { collection.count }
            #expect(Array(dog.favoriteParksByCity.values) == ["Common", "Lincoln Park", "Central Park"])
            #expect(count(dog.favoriteParksByCity.values) == 3 && AnyRealmCollection(dog.favoriteParksByCity.values).count == 3)
            return [dog.favoriteParksByCity.map { "\($0.key)=\($0.value)" }.joined(separator: ","),
                    "\(dog.favoriteParksByCity.keys) \(dog.favoriteParksByCity.count) \(dog.favoriteParksByCity["Oslo"] == nil)",
                    dog.parkByCity["New York"]??.name ?? "-"]
        }
        #expect(result == ["Boston=Common,Chicago=Lincoln Park,New York=Central Park", "[\"Boston\", \"Chicago\", \"New York\"] 3 true", "Central"])
        // Keys with '.' or a leading '$' are refused, and the write rolls back.
        for key in ["a.b", "$x"] {
            let error = await #expect(throws: FloeError.self) {
                try await realm.write { realm in
                    let dog = realm.objects(SetsAndMaps.Dog.self).first!
                    dog.favoriteParksByCity["Paris"] = "Luxembourg"
                    dog.favoriteParksByCity[key] = "bad"
                }
            }
            #expect(error == .invalidMapKey(table: "Dog", column: "favoriteParksByCity", key: key))
        }
        #expect(try await realm.read { realm in realm.objects(SetsAndMaps.Dog.self).first!.favoriteParksByCity["Paris"] } == nil)
        // Deleting an object keeps the key with a nil value.
        try await realm.write { realm in try realm.delete(realm.objects(SetsAndMaps.Park.self)) }
        let after = try await realm.read { realm in realm.objects(SetsAndMaps.Dog.self).first!.parkByCity.map { "\($0.key) \($0.value == nil)" } }
        #expect(after == ["New York true"])
        // Maps from create values, including JSON.
        try await realm.write { realm in
            let json = try JSONSerialization.jsonObject(with: Data(#"{"id": 2, "favoriteParksByCity": {"Rome": "Borghese"}, "citiesVisited": ["Rome"]}"#.utf8))
            try realm.create(SetsAndMaps.Dog.self, value: json)
        }
        #expect(try await realm.read { realm in realm.object(ofType: SetsAndMaps.Dog.self, forPrimaryKey: 2)?.favoriteParksByCity["Rome"] } == "Borghese")
        #expect(throws: FloeError.self) { try SchemaDiscovery.schema(for: SetsAndMaps.BadMap.self) }
    }
}
