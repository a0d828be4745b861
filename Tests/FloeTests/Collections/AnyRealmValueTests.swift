import Foundation
import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

enum Mixed {
    final class Dog: Object {
        @Persisted var name = ""
        @Persisted var companion: AnyRealmValue
    }

    final class OptionalMixed: Object {
        @Persisted var value: AnyRealmValue?
    }
}

@Suite struct AnyRealmValueTests {
    /// The seeds' companion example: none, a string, and an unmanaged object that is added with its owner.
    @Test func mixedValuesAndObjects() async throws {
        let realm = try await inMemoryRealm("mixed", objectTypes: [Mixed.Dog.self])
        try await realm.write { realm in
            let myDog = Mixed.Dog()
            myDog.name = "Rex"
            myDog.companion = .none
            let theirDog = Mixed.Dog()
            theirDog.name = "Wolfie"
            theirDog.companion = .string("Fluffy the Cat")
            let anotherDog = Mixed.Dog()
            anotherDog.name = "Fido"
            anotherDog.companion = .object(try Mixed.Dog(value: ["name": "Spot"]))
            try realm.add([myDog, theirDog, anotherDog])
        }
        #expect(try await realm.read { realm in realm.objects(Mixed.Dog.self).count } == 4)
        let companions = try await realm.read { realm in
            realm.objects(Mixed.Dog.self).map { dog -> String in
                switch dog.companion {
                case .none: return "\(dog.name): none"
                case .string(let text): return "\(dog.name): \(text)"
                case .object(let object): return "\(dog.name): \((object as? Mixed.Dog)?.name ?? "?")"
                default: return "\(dog.name): other"
                }
            }
        }
        #expect(companions == ["Rex: none", "Wolfie: Fluffy the Cat", "Fido: Spot", "Spot: none"])
        try await realm.write { realm in
            let rex = realm.objects(Mixed.Dog.self).first!
            for value: AnyRealmValue in [.int(5), .bool(true), .double(1.5), .data(Data([1])), .uuid(UUID()), .decimal128(2)] {
                rex.companion = value
                #expect(rex.companion == value)
            }
            try realm.create(Mixed.Dog.self, value: ["name": "Json", "companion": 42])
            // Deleting a held object leaves .none behind.
            try realm.delete(realm.objects(Mixed.Dog.self).filter { $0.name == "Spot" })
        }
        let after = try await realm.read { realm in realm.objects(Mixed.Dog.self).map { "\($0.name) \($0.companion.intValue.map(String.init) ?? ($0.companion == .none ? "none" : "other"))" } }
        #expect(after == ["Rex other", "Wolfie other", "Fido none", "Json 42"])
        #expect(throws: FloeError.self) { try SchemaDiscovery.schema(for: Mixed.OptionalMixed.self) }
    }
}

extension AnyRealmValueTests {
    @Test func nestedListsAndDictionaries() async throws {
        let realm = try await inMemoryRealm("nested", objectTypes: [Mixed.Dog.self])
        try await realm.write { realm in
            let dog = Mixed.Dog()
            dog.name = "Rex"
            dog.companion = AnyRealmValue.fromArray([.string("a"), .int(1), AnyRealmValue.fromDictionary(["toy": .string("ball"), "tags": AnyRealmValue.fromArray([.bool(true)])])])
            try realm.add(dog)
            let spot = try realm.create(Mixed.Dog.self, value: ["name": "Spot"])
            // In place: single elements of nested collections.
            guard case .list(let list) = dog.companion, case .dictionary(let dictionary) = list[2] else { throw FloeError.noSuchTable(name: "nested") }
            list.append(.object(spot))
            list[1] = .int(2)
            dictionary["owner"] = .string("Ann")
            dictionary["tags"]?.listValue?.append(.string("good"))
            try realm.create(Mixed.Dog.self, value: ["name": "Json", "companion": ["x": [1, 2, ["y": "z"]]]])
        }
        let read = try await realm.read { realm -> [String] in
            let dog = realm.objects(Mixed.Dog.self).first!
            let list = dog.companion.listValue!
            let dictionary = list[2].dictionaryValue!
            let json = realm.objects(Mixed.Dog.self).first { $0.name == "Json" }!.companion.dictionaryValue!
            return ["\(list.count) \(list[0].stringValue ?? "-") \(list[1].intValue ?? 0) \((list[3].objectValue as? Mixed.Dog)?.name ?? "-")",
                    dictionary.keys.joined(separator: ","),
                    "\(dictionary["tags"]?.listValue?.count ?? 0) \(dictionary["owner"]?.stringValue ?? "-")",
                    "\(json["x"]?.listValue?.count ?? 0) \(json["x"]?.listValue?[2].dictionaryValue?["y"]?.stringValue ?? "-")"]
        }
        #expect(read == ["4 a 2 Spot", "owner,tags,toy", "2 Ann", "3 z"])
        // Deleting an object held in a nested list leaves .none there.
        try await realm.write { realm in try realm.delete(realm.objects(Mixed.Dog.self).filter { $0.name == "Spot" }) }
        #expect(try await realm.read { realm in realm.objects(Mixed.Dog.self).first!.companion.listValue![3] == .none })
        // Deeper than 100 levels is refused.
        let error = await #expect(throws: FloeError.self) {
            try await realm.write { realm in
                var value = AnyRealmValue.int(0)
                for _ in 0..<101 { value = AnyRealmValue.fromArray([value]) }
                realm.objects(Mixed.Dog.self).first!.companion = value
            }
        }
        #expect(error?.description.contains("at most 100 levels") == true)
        // An unmanaged object inside a nested collection is refused, not dropped.
        let unmanaged = await #expect(throws: FloeError.self) {
            try await realm.write { realm in
                realm.objects(Mixed.Dog.self).first!.companion = AnyRealmValue.fromArray([.object(Mixed.Dog())])
            }
        }
        #expect(unmanaged?.description.contains("add it to the realm first") == true)
    }
}

extension AnyRealmValueTests {
    /// An object not yet in any realm put inside a nested list or dictionary — by assignment,
    /// by appending, inserting or replacing in a nested list, by setting a nested dictionary's
    /// key, or in a new object being added — makes the write throw, naming the class; the
    /// realm is left as if the write never happened.
    @Test func unmanagedObjectsInsideNestedCollectionsAreRefusedEveryWay() async throws {
        let realm = try await inMemoryRealm("mixed", objectTypes: [Mixed.Dog.self])
        try await realm.asyncWrite { realm in
            try realm.create(Mixed.Dog.self, value: ["name": "Rex",
                                                     "companion": AnyRealmValue.fromArray([.int(1), .fromDictionary(["a": .int(2)])])])
        }
        @Sendable func shape(_ realm: borrowing Realm.ReadTransaction) -> String {
            let dogs = realm.objects(Mixed.Dog.self)
            guard let list = dogs.first?.companion.listValue, list.count == 2, let inner = list[1].dictionaryValue else { return "changed" }
            return "\(dogs.count) \(list[0].intValue ?? -1) \(inner.keys.sorted()) \(inner["a"]?.intValue ?? -1)"
        }
        let before = try await realm.read { realm in shape(realm) }
        #expect(before == "1 1 [\"a\"] 2")
        let attempts: [(String, @Sendable (borrowing Realm.Transaction) throws -> Void)] = [
            ("assign", { realm in realm.objects(Mixed.Dog.self).first!.companion = .fromArray([.object(Mixed.Dog())]) }),
            ("append", { realm in realm.objects(Mixed.Dog.self).first!.companion.listValue!.append(.object(Mixed.Dog())) }),
            ("insert", { realm in realm.objects(Mixed.Dog.self).first!.companion.listValue!.insert(.object(Mixed.Dog()), at: 0) }),
            ("replace", { realm in realm.objects(Mixed.Dog.self).first!.companion.listValue![0] = .object(Mixed.Dog()) }),
            ("deep", { realm in
                let inner = realm.objects(Mixed.Dog.self).first!.companion.listValue![1].dictionaryValue!
                inner["b"] = .fromArray([.object(Mixed.Dog())])
            }),
            ("add", { realm in
                let dog = Mixed.Dog()
                dog.companion = .fromDictionary(["pal": .object(Mixed.Dog())])
                try realm.add(dog)
            }),
        ]
        for (name, attempt) in attempts {
            let error = await #expect(throws: FloeError.self, "\(name)") {
                try await realm.write { realm in try attempt(realm) }
            }
            #expect(error?.description.contains("Dog") == true, "\(name)")
            #expect(error?.description.contains("add it to the realm first") == true, "\(name)")
            #expect(try await realm.read { realm in shape(realm) } == before, "\(name)")
        }
    }
}
