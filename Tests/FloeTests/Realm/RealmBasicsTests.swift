import Foundation
import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

@Suite struct RealmBasicsTests {
    func configuration(_ directory: TemporaryDirectory) -> Realm.Configuration {
        Realm.Configuration(fileURL: directory.url(), objectTypes: [TestDog.self])
    }

    @Test func addReadUpdateDeleteAcrossReopen() async throws {
        let directory = TemporaryDirectory()
        let realm = try await Realm(configuration: configuration(directory))
        try await realm.write { realm in
            let dog = TestDog()
            dog.id = 1
            dog.name = "Rex"
            dog.age = 10
            try realm.add(dog)
            try realm.create(TestDog.self, value: ["id": 2, "name": "Pluto", "age": 3, "color": DogColor.white])
        }
        let names = try await realm.read { realm in realm.objects(TestDog.self).map(\.name) }
        #expect(names == ["Rex", "Pluto"])
        let pluto = try await realm.read { realm in try realm.object(ofType: TestDog.self, forPrimaryKey: 2)?.freeze() }
        #expect(pluto?.name == "Pluto")
        #expect(pluto?.color == .white)
        #expect(pluto?.breed == nil)
        #expect(pluto?.description2 == "Pluto (3)")
        #expect(pluto?.isFrozen == true)

        try await realm.write { realm in
            let found = realm.object(ofType: TestDog.self, forPrimaryKey: 1)
            let rex = try #require(found)
            rex.age += 1
            rex.breed = "Collie"
        }
        let rex = try await realm.read { realm in realm.object(ofType: TestDog.self, forPrimaryKey: 1).map { ($0.age, $0.breed) } }
        #expect(rex?.0 == 11 && rex?.1 == "Collie")

        try await realm.write { realm in
            try realm.delete(realm.objects(TestDog.self).filter { $0.id == 2 })
        }
        #expect(try await realm.read { realm in realm.objects(TestDog.self).count } == 1)
        // The frozen Pluto still reads its version.
        #expect(pluto?.name == "Pluto")
        #expect(pluto?.isInvalidated == false)

        let reopened = try await Realm(configuration: configuration(directory))
        #expect(try await reopened.read { realm in realm.objects(TestDog.self).map { "\($0.name) \($0.age) \($0.breed ?? "-")" } } == ["Rex 11 Collie"])
    }

    @Test func everyScalarTypeRoundTrips() async throws {
        let realm = try await inMemoryRealm("types")
        let objectId = ObjectId.generate()
        let uuid = UUID()
        let date = Date(timeIntervalSince1970: 1_700_000_000.25)
        let decimal = try Decimal128(string: "123.456")
        try await realm.write { realm in
            let object = AllTypes()
            object.bool = true
            object.int = .max
            object.int8 = .min
            object.int16 = 1234
            object.int32 = -99
            object.int64 = .min
            object.float = 1.5
            object.double = .pi
            object.string = "héllo 🐕"
            object.data = Data([1, 2, 3])
            object.date = date
            object.decimal = decimal
            object.objectId = objectId
            object.uuid = uuid
            object.optionalInt = 5
            object.optionalString = "x"
            object.optionalUUID = uuid
            object.optionalDecimal = decimal
            object.optionalColor = .white
            try realm.add(object)
        }
        let frozen = try #require(try await realm.read { realm in try realm.objects(AllTypes.self).first?.freeze() })
        #expect(frozen.bool && frozen.int == .max && frozen.int8 == .min && frozen.int16 == 1234 && frozen.int32 == -99 && frozen.int64 == .min)
        #expect(frozen.float == 1.5 && frozen.double == .pi && frozen.string == "héllo 🐕" && frozen.data == Data([1, 2, 3]))
        #expect(frozen.date == date && frozen.decimal == decimal && frozen.objectId == objectId && frozen.uuid == uuid)
        #expect(frozen.optionalBool == nil && frozen.optionalInt == 5 && frozen.optionalString == "x" && frozen.optionalUUID == uuid)
        #expect(frozen.optionalDecimal == decimal && frozen.optionalDate == nil && frozen.optionalObjectId == nil)
        #expect(frozen.color == .black && frozen.optionalColor == .white)
    }
}

extension RealmBasicsTests {
    /// Iteration reuses an object only when nothing kept the previous one.
    @Test func iterationNeverChangesObjectsTheCallerKept() async throws {
        let realm = try await inMemoryRealm("iterate", objectTypes: [TestDog.self])
        try await realm.write { realm in
            for id in 0..<600 { try realm.create(TestDog.self, value: ["id": id, "name": "dog\(id)", "age": id % 7]) }
        }
        let result = try await realm.read { realm -> [Int] in
            let results = realm.objects(TestDog.self)
            let kept = Array(results)
            var sum = 0
            for dog in results { sum += dog.age }
            var every: [TestDog] = []
            for dog in results where dog.id % 100 == 0 { every.append(dog) }
            return [kept.count, Set(kept.map(ObjectIdentifier.init)).count, kept.map(\.id) == Array(0..<600) ? 1 : 0,
                    sum, every.map(\.id).reduce(0, +), results.reduce(0) { $0 + $1.age }]
        }
        #expect(result == [600, 600, 1, (0..<600).reduce(0) { $0 + $1 % 7 }, 1500, (0..<600).reduce(0) { $0 + $1 % 7 }])
    }
}

extension RealmBasicsTests {
    @Test func sumOfProperty() async throws {
        let realm = try await inMemoryRealm("sum", objectTypes: [TestDog.self])
        try await realm.write { realm in
            for id in 0..<1000 { try realm.create(TestDog.self, value: ["id": id, "age": id % 10, "weight": 0.5]) }
        }
        let sums = try await realm.read { realm -> [Double] in
            let dogs = realm.objects(TestDog.self)
            let age: Int = try dogs.sum(ofProperty: "age")
            let weight: Double = try dogs.sum(ofProperty: "weight")
            return [Double(age), weight]
        }
        #expect(sums == [4500, 500])
        await #expect(throws: FloeError.self) {
            try await realm.read { realm in let _: Int = try realm.objects(TestDog.self).sum(ofProperty: "name") }
        }
        await #expect(throws: FloeError.invalidKeyPath(className: "TestDog", keyPath: "nope", reason: "TestDog has no property 'nope'")) {
            try await realm.read { realm in let _: Int = try realm.objects(TestDog.self).sum(ofProperty: "nope") }
        }
    }
}
