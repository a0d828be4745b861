import Foundation
import Testing
@_spi(Engine) @testable import Floe

/// Defects found by trying Floe as a new user would, each pinned by a test.
@Suite struct DefectRegressionTests {
    final class Toy: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
    }

    final class Pet: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var tags: List<String>
        @Persisted var citiesVisited: MutableSet<String>
        @Persisted var parks: Map<String, String>
        @Persisted var toy: Toy?
        @Persisted var toys: List<Toy>
        @Persisted var companion: AnyRealmValue
    }

    final class Owner: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var pets: List<Pet>
        @Persisted var best: Pet?
    }

    static let types: [ObjectBase.Type] = [Toy.self, Pet.self, Owner.self]

    /// No `objectTypes`: as with the README's `Realm()`, tables appear with the first write that needs them.
    func memoryRealm() async throws -> Realm {
        try await Realm(configuration: Realm.Configuration(inMemoryIdentifier: "defects-\(UUID())"))
    }

    // MARK: 1. A rolled-back write leaves the realm as if it never happened

    @Test(arguments: [
        "invalid map key", "null for required", "duplicate key", "thrown by the block",
    ])
    func rolledBackFirstWriteDoesNotPoisonLaterWrites(failure: String) async throws {
        let realm = try await memoryRealm()
        if failure == "duplicate key" {
            try await realm.asyncWrite { realm in try realm.create(Toy.self, value: ["id": 1]) }
        }
        await #expect(throws: (any Error).self) {
            try await realm.asyncWrite { realm in
                switch failure {
                case "invalid map key":
                    let pet = try realm.create(Pet.self, value: ["id": 1])
                    pet.parks["a.b"] = "x"
                case "null for required":
                    try realm.create(Pet.self, value: ["id": 1, "name": NSNull()])
                case "duplicate key":
                    try realm.create(Pet.self, value: ["id": 1, "toy": ["id": 9]])
                    try realm.create(Toy.self, value: ["id": 1])
                default:
                    try realm.create(Pet.self, value: ["id": 1, "toys": [["id": 5]]])
                    struct Refused: Error {}
                    throw Refused()
                }
            }
        }
        // The same valid writes succeed, as on a realm that never saw the failure.
        try await realm.asyncWrite { realm in
            let pet = try realm.create(Pet.self, value: ["id": 1, "name": "Rex", "toy": ["id": 9, "name": "ball"]])
            pet.parks["home"] = "Central"
            try realm.create(Owner.self, value: ["id": 1, "pets": [pet]])
        }
        let summary = try await realm.read { realm in
            (realm.objects(Pet.self).map(\.name), realm.objects(Toy.self).count, realm.objects(Owner.self).count)
        }
        #expect(summary.0 == ["Rex"])
        #expect(summary.1 == (failure == "duplicate key" ? 2 : 1))
        #expect(summary.2 == 1)
    }

    // MARK: 2. Copies of managed objects carry every collection kind

    static func storeSample(in realm: Realm) async throws {
        try await realm.asyncWrite { realm in
            try realm.create(Pet.self, value: [
                "id": 1, "name": "Rex", "tags": ["a", "b"], "citiesVisited": ["Oslo", "Lima"],
                "parks": ["home": "Central", "away": "Hyde"], "toy": ["id": 7, "name": "ball"],
                "toys": [["id": 8, "name": "rope"]], "companion": AnyRealmValue.fromArray([.int(1), .string("x")]),
            ])
        }
    }

    static func summary(of pet: Pet) -> String {
        let nested: String
        if case .list(let list) = pet.companion { nested = list.map { "\($0)" }.joined(separator: ",") } else { nested = "\(pet.companion)" }
        return [pet.name, pet.tags.joined(separator: ","), pet.citiesVisited.sorted().joined(separator: ","),
                pet.parks.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: ","), pet.toy?.name ?? "-",
                pet.toys.map(\.name).joined(separator: ","), nested].joined(separator: "|")
    }

    static let expectedSummary = "Rex|a,b|Lima,Oslo|away=Hyde,home=Central|ball|rope|int(1),string(\"x\")"

    @Test func unmanagedCopiesOfManagedObjectsCopyEveryCollection() async throws {
        let realm = try await memoryRealm()
        try await Self.storeSample(in: realm)
        // From a managed object, into an unmanaged copy.
        let copied = try await realm.read { realm in
            let pet = realm.object(ofType: Pet.self, forPrimaryKey: 1)!
            let copy = try Pet(value: pet)
            return (copy.isManaged, Self.summary(of: copy))
        }
        #expect(copied.0 == false)
        #expect(copied.1 == Self.expectedSummary)
        // From a managed object, over itself with .modified (a no-op) and into a new key.
        let updated = try await realm.write { realm in
            let pet = realm.object(ofType: Pet.self, forPrimaryKey: 1)!
            try realm.create(Pet.self, value: pet, update: .modified)
            let twin = try Pet(value: pet)
            twin.id = 2
            try realm.add(twin)
            return realm.objects(Pet.self).map(Self.summary(of:))
        }
        #expect(updated == [Self.expectedSummary, Self.expectedSummary])
        // From a frozen object and from a managed object of another realm.
        let frozen = try await realm.read { realm in try realm.object(ofType: Pet.self, forPrimaryKey: 1)!.freeze() }
        let other = try await memoryRealm()
        try await other.asyncWrite { realm in try realm.create(Pet.self, value: frozen, update: .modified) }
        #expect(try await other.read { realm in realm.objects(Pet.self).map(Self.summary(of:)) } == [Self.expectedSummary])
        let third = try await memoryRealm()
        let source = try await realm.read { realm in try realm.freeze() }
        try await third.asyncWrite { realm in
            let pet = try source.object(ofType: Pet.self, forPrimaryKey: 1)!
            try realm.create(Pet.self, value: pet)
        }
        #expect(try await third.read { realm in realm.objects(Pet.self).map(Self.summary(of:)) } == [Self.expectedSummary])
    }

    // MARK: 3. Nested objects with existing primary keys follow the update policy

    @Test func nestedObjectsWithExistingPrimaryKeysAreUpdated() async throws {
        let realm = try await memoryRealm()
        try await realm.asyncWrite { realm in
            try realm.create(Owner.self, value: ["id": 1, "name": "Ann", "pets": [["id": 10, "name": "first"]], "best": ["id": 11, "name": "best"]])
        }
        try await realm.asyncWrite { realm in
            try realm.create(Owner.self, value: ["id": 1, "pets": [["id": 10, "name": "renamed"], ["id": 12, "name": "new"]],
                                                 "best": ["id": 11, "name": "still best"]], update: .modified)
        }
        let state = try await realm.read { realm in
            (realm.objects(Pet.self).map { "\($0.id):\($0.name)" }, realm.objects(Owner.self).first!.pets.map(\.id), realm.objects(Owner.self).first!.name)
        }
        #expect(state.0 == ["10:renamed", "11:still best", "12:new"])
        #expect(state.1 == [10, 12])
        #expect(state.2 == "Ann")
        // With .error, the nested duplicate is an error and the write leaves nothing behind.
        let error = await #expect(throws: FloeError.self) {
            try await realm.asyncWrite { realm in
                try realm.create(Owner.self, value: ["id": 2, "pets": [["id": 10, "name": "clash"]]])
            }
        }
        #expect(error == .duplicatePrimaryKey(table: "Pet", column: "id", value: "10"))
        #expect(try await realm.read { realm in realm.objects(Owner.self).count } == 1)
        #expect(try await realm.read { realm in realm.object(ofType: Pet.self, forPrimaryKey: 10)?.name } == "renamed")
    }

    // MARK: 5. A class that no longer matches the file is a typed error, never a trap

    @Test(arguments: [false, true])
    func schemaMismatchFoundByAReadIsThrownByTheRead(readOnly: Bool) async throws {
        let directory = TemporaryDirectory()
        let url = URL(fileURLWithPath: directory.file())
        do {
            // No objectTypes, as with the README's Realm(): the file learns "Person" from the write.
            let realm = try await Realm(configuration: Realm.Configuration(fileURL: url))
            try await realm.asyncWrite { realm in try realm.create(Person.self, value: ["id": 1, "firstName": "Ada"]) }
        }
        // PersonV2 is persisted as "Person" with another shape.
        let realm = try await Realm(configuration: Realm.Configuration(fileURL: url, readOnly: readOnly))
        let countError = await #expect(throws: FloeError.self) {
            try await realm.read { realm in realm.objects(PersonV2.self).count }
        }
        guard case .schemaMismatch(_, let differences) = countError else {
            Issue.record("expected a schema mismatch, got \(String(describing: countError))")
            return
        }
        #expect(!differences.isEmpty)
        await #expect(throws: FloeError.self) {
            try await realm.read { realm in realm.object(ofType: PersonV2.self, forPrimaryKey: 1)?.id }
        }
        await #expect(throws: FloeError.self) {
            try await realm.read { realm in Array(realm.objects(PersonV2.self)).count }
        }
        if !readOnly {
            await #expect(throws: FloeError.self) {
                try await realm.write { realm in realm.objects(PersonV2.self).count }
            }
        }
        // The matching class still reads, and (read-write) still writes.
        #expect(try await realm.read { realm in realm.objects(Person.self).map(\.firstName) } == ["Ada"])
        if !readOnly {
            try await realm.asyncWrite { realm in try realm.create(Person.self, value: ["id": 2]) }
            #expect(try await realm.read { realm in realm.objects(Person.self).count } == 2)
        }
    }

    // MARK: 7. Descriptions show values, as Realm's do

    @Test func descriptionsShowEveryPropertyAndNoInternals() async throws {
        let realm = try await memoryRealm()
        try await Self.storeSample(in: realm)
        let (object, frozenObject, results, frozenResults, frozenMap) = try await realm.read { realm in
            let pet = realm.object(ofType: Pet.self, forPrimaryKey: 1)!
            return (pet.description, try pet.freeze().description, realm.objects(Pet.self).description,
                    try realm.objects(Pet.self).freeze().description, try pet.parks.freeze().description)
        }
        let lines = object.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.first == "Pet {")
        #expect(lines.contains("name = Rex;"))
        #expect(lines.contains { $0.hasPrefix("tags = List<String> <0x") && $0.hasSuffix("(") })
        #expect(lines.contains("[0] a,") && lines.contains("[1] b"))
        #expect(lines.contains("[away] Hyde,") && lines.contains("[home] Central"))
        #expect(lines.contains("toy = Toy(id: 7);"))
        #expect(lines.contains("[0] Toy(id: 8)"))
        #expect(lines.contains("[0] 1,") && lines.contains("[1] x"))
        #expect(!object.contains("null") && !object.contains("link("))
        // Frozen: the same text, never the snapshot's internals.
        #expect(frozenObject.replacingOccurrences(of: #"<0x[0-9a-f]+>"#, with: "", options: .regularExpression)
                == object.replacingOccurrences(of: #"<0x[0-9a-f]+>"#, with: "", options: .regularExpression))
        for text in [results, frozenResults] {
            #expect(text.hasPrefix("Results<Pet> <0x"))
            #expect(text.contains("[0] Pet {"))
            #expect(text.contains("name = Rex;"))
            #expect(!text.contains("Snapshot") && !text.contains("binding"))
        }
        #expect(frozenMap.hasPrefix("Map<String, String> <0x") && frozenMap.contains("[home] Central"))
        // Unmanaged objects describe the same way.
        let unmanaged = try Pet(value: ["id": 3, "tags": ["x"], "companion": "solo"]).description
        #expect(unmanaged.contains("[0] x") && unmanaged.contains("companion = solo;") && unmanaged.contains("toy = nil;"))
    }
}
