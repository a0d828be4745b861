import Foundation
import Testing
@_spi(Engine) @testable import Floe
@_spi(Engine) @testable import FloeEngine
@_spi(Engine) @testable import FloeStorage

@Suite struct RealmConcurrencyTests {
    @Test func twoRealmsOnOneFileShareCommitsAndTakeTurns() async throws {
        let directory = TemporaryDirectory()
        let configuration = Realm.Configuration(fileURL: directory.url(), objectTypes: [TestDog.self])
        let first = try await Realm(configuration: configuration)
        let second = try await Realm(configuration: configuration)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (realm, offset) in [(first, 0), (second, 1000)] {
                group.addTask {
                    for index in 0..<50 {
                        try await realm.asyncWrite { realm in try realm.create(TestDog.self, value: ["id": offset + index]) }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await first.read { realm in realm.objects(TestDog.self).count } == 100)
        #expect(try await second.read { realm in realm.objects(TestDog.self).count } == 100)
    }

    @Test func frozenObjectsAreSharedAcrossTasksAndNeverChange() async throws {
        let realm = try await inMemoryRealm("frozen", objectTypes: [TestDog.self])
        try await realm.write { realm in
            for id in 0..<20 { try realm.create(TestDog.self, value: ["id": id, "name": "dog\(id)", "age": id]) }
        }
        let frozen = try await realm.read { realm in try realm.objects(TestDog.self).freeze() }
        let frozenRealm = try await realm.read { realm in try realm.freeze() }
        try await realm.write { realm in
            for dog in realm.objects(TestDog.self) { dog.age += 100 }
            try realm.delete(realm.objects(TestDog.self).filter { $0.id < 5 })
        }
        let sums = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<8 { group.addTask { frozen.reduce(0) { $0 + $1.age } } }
            var sums: [Int] = []
            for await sum in group { sums.append(sum) }
            return sums
        }
        #expect(sums == Array(repeating: (0..<20).reduce(0, +), count: 8))
        #expect(frozen.count == 20 && frozen.isFrozen)
        #expect(frozenRealm.objects(TestDog.self).count == 20)
        #expect(try frozenRealm.object(ofType: TestDog.self, forPrimaryKey: 3)?.name == "dog3")
        let liveAges = try await realm.read { realm in realm.objects(TestDog.self).map(\.age) }
        #expect(liveAges == Array(105..<120))
        // Thaw gives the live object, or nil once it was deleted.
        let thawed = try await realm.read { realm in
            [realm.thaw(frozen[10])?.age, realm.thaw(frozen[3])?.age]
        }
        #expect(thawed == [110, nil])
        #expect(frozen[3].isInvalidated == false)
    }

    /// The seeds' "copy an object to another realm": pass a frozen object to `create`.
    @Test func copyingObjectsBetweenRealms() async throws {
        let source = try await inMemoryRealm("source", objectTypes: [TestDog.self])
        let target = try await inMemoryRealm("target", objectTypes: [TestDog.self])
        try await source.asyncWrite { realm in try realm.create(TestDog.self, value: ["id": 1, "name": "Traveller", "age": 4, "color": DogColor.white]) }
        let frozen = try await source.read { realm in try realm.objects(TestDog.self).freeze() }
        try await target.write { realm in
            for dog in frozen { try realm.create(TestDog.self, value: dog) }
        }
        try await source.write { realm in realm.objects(TestDog.self).first!.name = "Changed at home" }
        let copied = try await target.read { realm in realm.objects(TestDog.self).map { "\($0.id) \($0.name) \($0.age) \($0.color)" } }
        #expect(copied == ["1 Traveller 4 white"])
    }

    @Test func activeVersionsAreBounded() async throws {
        var configuration = Realm.Configuration(inMemoryIdentifier: "versions-\(UUID())", objectTypes: [TestDog.self])
        configuration.maximumNumberOfActiveVersions = 2
        let realm = try await Realm(configuration: configuration)
        try await realm.asyncWrite { realm in try realm.create(TestDog.self, value: ["id": 1]) }
        let held = try await realm.read { realm in try realm.freeze() }
        try await realm.asyncWrite { realm in try realm.create(TestDog.self, value: ["id": 2]) }
        let held2 = try await realm.read { realm in try realm.freeze() }
        #expect(await realm.numberOfActiveVersions == 2)
        let error = await #expect(throws: FloeError.self) {
            try await realm.asyncWrite { realm in try realm.create(TestDog.self, value: ["id": 3]) }
        }
        #expect(error?.description.contains("maximumNumberOfActiveVersions is 2") == true)
        _ = (held, held2)
    }

    @Test func readOnlyRealmsRefuseWrites() async throws {
        let directory = TemporaryDirectory()
        let url = directory.url()
        do {
            let realm = try await Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [TestDog.self]))
            try await realm.asyncWrite { realm in try realm.create(TestDog.self, value: ["id": 1]) }
            // Close it: a read-only open in the same process would share the writable store.
            await realm.closeForTesting()
        }
        let readOnly = try await Realm(configuration: Realm.Configuration(fileURL: url, readOnly: true, objectTypes: [TestDog.self]))
        #expect(try await readOnly.read { realm in realm.objects(TestDog.self).count } == 1)
        await #expect(throws: FloeError.self) {
            try await readOnly.asyncWrite { realm in try realm.create(TestDog.self, value: ["id": 2]) }
        }
    }

    @Test func defaultConfigurationOpensDefaultFloe() async throws {
        let directory = TemporaryDirectory()
        var configuration = Realm.Configuration.defaultConfiguration
        #expect(configuration.fileURL == nil && configuration.inMemoryIdentifier == nil)
        configuration.inMemoryIdentifier = "x"
        #expect(configuration.fileURL == nil)
        configuration.fileURL = directory.url("default.floe")
        #expect(configuration.inMemoryIdentifier == nil)
        let realm = try await Realm.open(configuration: configuration)
        try await realm.asyncWrite { realm in try realm.create(TestDog.self, value: ["id": 1]) }
        #expect(FileManager.default.fileExists(atPath: directory.file("default.floe")))
        #expect(Realm.Configuration().resolvedPath == FileManager.default.currentDirectoryPath + "/default.floe")
    }
}

extension Realm {
    /// Closes the store now rather than when the last reference goes.
    func closeForTesting() {
        context.store.close()
    }
}
