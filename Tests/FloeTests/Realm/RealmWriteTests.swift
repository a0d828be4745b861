import Foundation
import Testing
@_spi(Engine) @testable import Floe
@_spi(Engine) @testable import FloeEngine
@_spi(Engine) @testable import FloeStorage

@Suite struct RealmWriteTests {
    func memoryRealm(_ types: [ObjectBase.Type] = [TestDog.self, Person.self]) async throws -> Realm {
        try await inMemoryRealm("write", objectTypes: types)
    }

    @Test func updatePolicies() async throws {
        let realm = try await memoryRealm()
        try await realm.asyncWrite { realm in
            try realm.create(Person.self, value: ["id": 1, "firstName": "Ada", "lastName": "Lovelace", "age": 36])
        }
        let duplicate = await #expect(throws: FloeError.self) {
            try await realm.asyncWrite { realm in
                try realm.create(Person.self, value: ["id": 1, "firstName": "Other"])
            }
        }
        #expect(duplicate == .duplicatePrimaryKey(table: "Person", column: "id", value: "1"))
        #expect(duplicate?.description == "Attempting to create an object of type 'Person' with an existing primary key value 1 for 'id'.")
        // .modified writes the given properties only; missing keys keep the stored values.
        try await realm.asyncWrite { realm in
            try realm.create(Person.self, value: ["id": 1, "firstName": "Augusta"], update: .modified)
        }
        #expect(try await realm.read { realm in realm.objects(Person.self).map { "\($0.firstName) \($0.lastName) \($0.age ?? -1)" } } == ["Augusta Lovelace 36"])
        // add with .all replaces every property with the unmanaged object's values.
        try await realm.write { realm in
            let person = Person()
            person.id = 1
            person.firstName = "Ada"
            try realm.add(person, update: .all)
        }
        #expect(try await realm.read { realm in realm.objects(Person.self).map { "\($0.firstName)|\($0.lastName)|\(String(describing: $0.age))" } } == ["Ada||nil"])
        #expect(try await realm.read { realm in realm.objects(Person.self).count } == 1)
    }

    @Test func createFromDictionaryArrayObjectAndJSON() async throws {
        let realm = try await memoryRealm()
        let isManaged = try await realm.write { realm in
            let json = #"{"id": 7, "name": "Jason", "age": 3, "breed": null, "weight": 12.5, "unknown": [1, 2]}"#
            let parsed = try JSONSerialization.jsonObject(with: Data(json.utf8))
            let source = TestDog()
            source.id = 9
            source.name = "Copied"
            try realm.create(TestDog.self, value: ["id": 1, "name": "Dictionary"])
            try realm.create(TestDog.self, value: [2, "Array", 4])
            try realm.create(TestDog.self, value: parsed)
            try realm.create(TestDog.self, value: source)
            return source.isManaged
        }
        let dogs = try await realm.read { realm in
            realm.objects(TestDog.self).map { "\($0.id) \($0.name) \($0.age) \($0.color) \($0.breed ?? "-") \($0.weight)" }
        }
        #expect(dogs == ["1 Dictionary 0 brown - 0.0", "2 Array 4 brown - 0.0", "7 Jason 3 brown - 12.5", "9 Copied 0 brown - 0.0"])
        // The object the copy was made from stays unmanaged.
        #expect(!isManaged)
    }

    @Test func badValuesAreTypedErrorsAndRollBack() async throws {
        let realm = try await memoryRealm()
        try await realm.asyncWrite { realm in try realm.create(TestDog.self, value: ["id": 1, "name": "Keep"]) }
        @Sendable func badValue(_ index: Int) -> [String: Any] {
            [["id": 2, "name": 5], ["id": 3, "name": NSNull()], ["id": 4, "age": "old"], ["id": 5, "age": 1.5],
             ["id": 6, "color": "purple"]][index]
        }
        let expected: [FloeError] = [
            .typeMismatch(table: "TestDog", column: "name", expected: "String", value: "5"),
            .nullForRequired(table: "TestDog", column: "name"),
            .typeMismatch(table: "TestDog", column: "age", expected: "Int", value: "'old'"),
            .typeMismatch(table: "TestDog", column: "age", expected: "Int", value: "1.5"),
            .typeMismatch(table: "TestDog", column: "color", expected: "DogColor", value: "'purple'"),
        ]
        for index in expected.indices {
            let error = await #expect(throws: FloeError.self) {
                try await realm.write { realm in
                    try realm.create(TestDog.self, value: ["id": 100, "name": "Rolled back"])
                    try realm.create(TestDog.self, value: badValue(index))
                }
            }
            #expect(error == expected[index])
        }
        #expect(try await realm.read { realm in realm.objects(TestDog.self).map(\.name) } == ["Keep"])
        await #expect(throws: FloeError.typeMismatch(table: "TestDog", column: "name", expected: "String", value: "1")) {
            try await realm.asyncWrite { realm in
                let json = try JSONSerialization.jsonObject(with: Data(#"{"id": 8, "name": true}"#.utf8))
                try realm.create(TestDog.self, value: json)
            }
        }
        let dates = try await memoryRealm([AllTypes.self])
        await #expect(throws: FloeError.self) {
            try await dates.asyncWrite { realm in try realm.create(AllTypes.self, value: ["date": "2024-01-01"]) }
        }
    }

    @Test func setterErrorsMakeTheWriteThrowAndRollBack() async throws {
        let realm = try await memoryRealm()
        try await realm.asyncWrite { realm in try realm.create(TestDog.self, value: ["id": 1, "name": "Rex"]) }
        let huge = String(repeating: "x", count: WriteTransaction.maximumValueSize + 1)
        let tooLarge = await #expect(throws: FloeError.self) {
            try await realm.write { realm in
                let dog = realm.objects(TestDog.self).first!
                dog.age = 5
                dog.name = huge
            }
        }
        #expect(tooLarge == .valueTooLarge(table: "TestDog", column: "name", size: huge.utf8.count, limit: WriteTransaction.maximumValueSize))
        let changedKey = await #expect(throws: FloeError.self) {
            try await realm.write { realm in
                realm.objects(TestDog.self).first!.id = 2
            }
        }
        #expect(changedKey == .primaryKeyChanged(className: "TestDog", property: "id", from: "1", to: "2"))
        #expect(try await realm.read { realm in realm.objects(TestDog.self).map { "\($0.id) \($0.name) \($0.age)" } } == ["1 Rex 0"])
    }

    @Test func throwingOrCancelledWritesRollBack() async throws {
        struct Oops: Error {}
        let realm = try await memoryRealm()
        await #expect(throws: Oops.self) {
            try await realm.write { realm in
                try realm.create(TestDog.self, value: ["id": 1])
                throw Oops()
            }
        }
        let task = Task {
            try await realm.write { realm in
                try realm.create(TestDog.self, value: ["id": 2])
                withUnsafeCurrentTask { $0?.cancel() }
            }
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(try await realm.read { realm in realm.objects(TestDog.self).count } == 0)
    }

    @Test func inActorApiAndDeletes() async throws {
        let realm = try await memoryRealm()
        let names = try await realm.exerciseSynchronousAPI()
        #expect(names == ["b", "d"])
    }

    @Test func unmanagedCopiesIdentityAndInvalidation() async throws {
        let realm = try await memoryRealm()
        try await realm.write { realm in
            for id in 1...3 { try realm.create(TestDog.self, value: ["id": id, "name": "dog\(id)"]) }
        }
        let result = try await realm.read { realm -> [String] in
            let all = Array(realm.objects(TestDog.self))
            let again = realm.object(ofType: TestDog.self, forPrimaryKey: 2)!
            let copy = try TestDog(value: again)
            copy.name = "changed copy"
            return [
                "\(all[1] == again) \(all[1].isSameObject(as: again)) \(Set(all + [again]).count) \(all[0] == all[1])",
                "\(copy.isManaged) \(again.name) \(copy.name) \(again.isInvalidated) \(copy.isInvalidated)",
                "\(again.objectSchema.properties.map(\.name))",
            ]
        }
        #expect(result == ["true true 3 false", "false dog2 changed copy false false", "[\"id\", \"name\", \"age\", \"color\", \"breed\", \"weight\"]"])
        let invalidated = try await realm.invalidationCheck()
        #expect(invalidated == [false, true])
    }
}

extension Realm {
    /// Users' own `Realm` extensions run on the actor and use the synchronous API.
    func exerciseSynchronousAPI() throws -> [String] {
        #expect(!isInWriteTransaction)
        try beginWrite()
        #expect(isInWriteTransaction)
        for (id, name) in ["a", "b", "c", "d"].enumerated() { try create(TestDog.self, value: ["id": id, "name": name]) }
        try commitWrite()
        try beginWrite()
        try create(TestDog.self, value: ["id": 99])
        cancelWrite()
        try write {
            try delete(objects(TestDog.self).filter { $0.id % 2 == 0 })
        }
        #expect(throws: FloeError.alreadyInWriteTransaction(path: "memory:" + configuration.inMemoryIdentifier!)) {
            try write { try beginWrite() }
        }
        return objects(TestDog.self).map(\.name)
    }

    func invalidationCheck() throws -> [Bool] {
        let dog = objects(TestDog.self).first!
        #expect(dog.realm === self)
        #expect(TestDog().realm == nil)
        let before = dog.isInvalidated
        try write { try delete(dog) }
        return [before, dog.isInvalidated]
    }
}
