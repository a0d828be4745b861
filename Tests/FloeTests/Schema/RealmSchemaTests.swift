import Foundation
import Testing
@_spi(Engine) @testable import Floe
@_spi(Engine) @testable import FloeEngine
@_spi(Engine) @testable import FloeStorage

@Suite struct RealmSchemaTests {
    @Test func discoveryIgnoresNonPersistedAndFollowsInheritanceAndMapping() throws {
        let dog = try SchemaDiscovery.schema(for: TestDog.self)
        #expect(dog.properties.map(\.name) == ["id", "name", "age", "color", "breed", "weight"])
        #expect(dog.primaryKeyIndex == 0)
        let cat = try SchemaDiscovery.schema(for: Cat.self)
        #expect(cat.className == "Cat")
        #expect(cat.properties.map(\.name) == ["name", "lives"])
        let mapped = try SchemaDiscovery.schema(for: MappedPerson.self)
        #expect(mapped.properties.map(\.persistedName) == ["first_name", "last_name"])
        #expect(TestDog().objectSchema.properties.map(\.type) == ["Int", "String", "Int", "DogColor", "String?", "Double"])
        #expect(TestDog().objectSchema.primaryKeyProperty?.name == "id")
    }

    final class Shelf: Object {
        @Persisted var name = ""
        @Persisted var books: List<String>
        @Persisted var labels: MutableSet<Int>
        @Persisted var counts: Map<String, Double>
        @Persisted var partner: Shelf?
    }

    /// Realm's `isArray`, `isSet` and `isMap` say which properties are which collection.
    @Test func propertiesSayWhichCollectionTheyAre() {
        let properties = Shelf().objectSchema.properties
        #expect(properties.filter(\.isArray).map(\.name) == ["books"])
        #expect(properties.filter(\.isSet).map(\.name) == ["labels"])
        #expect(properties.filter(\.isMap).map(\.name) == ["counts"])
    }

    @Test func invalidModelsAreTypedErrors() throws {
        #expect(throws: FloeError.invalidSchema(className: "TwoPrimaryKeys", property: "b", reason: "'a' is already the primary key; a class has at most one")) {
            try SchemaDiscovery.schema(for: TwoPrimaryKeys.self)
        }
        #expect(throws: FloeError.invalidSchema(className: "DoublePrimaryKey", property: "a", reason: "a primary key must be Int, String, ObjectId or UUID (or an optional of them), not Double")) {
            try SchemaDiscovery.schema(for: DoublePrimaryKey.self)
        }
        #expect(throws: FloeError.self) { try SchemaDiscovery.schema(for: IndexedDouble.self) }
        #expect(throws: FloeError.invalidSchema(className: "EmbeddedWithKey", property: "a", reason: "embedded objects cannot have a primary key")) {
            try SchemaDiscovery.schema(for: EmbeddedWithKey.self)
        }
        let longClass = #expect(throws: FloeError.self) { try SchemaDiscovery.schema(for: ThisClassNameIsFarTooLongToBeATableNameBecauseItHasMoreThanFiftySevenBytes.self) }
        #expect(longClass?.description.contains("more than the limit of 57") == true)
        let longProperty = #expect(throws: FloeError.self) { try SchemaDiscovery.schema(for: LongPropertyName.self) }
        #expect(longProperty?.description.contains("more than the limit of 63") == true)
    }

    @Test func anInvalidClassDoesNotBreakRealmsThatNeverUseIt() async throws {
        let realm = try await inMemoryRealm("unrelated")
        try await realm.asyncWrite { realm in try realm.create(Person.self, value: ["id": 1]) }
        await #expect(throws: FloeError.self) {
            try await realm.asyncWrite { realm in try realm.create(TwoPrimaryKeys.self, value: [:]) }
        }
        #expect(try await realm.read { realm in realm.objects(Person.self).count } == 1)
    }

    @Test func objectTypesRestrictTheSchemaAndMismatchesListEveryDifference() async throws {
        let directory = TemporaryDirectory()
        let url = directory.url()
        do {
            let realm = try await Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [Person.self]))
            try await realm.asyncWrite { realm in try realm.create(Person.self, value: ["id": 1, "firstName": "Ada", "lastName": "L", "age": 36]) }
            let store = try await realm.read { realm in try realm.freeze() }.snapshot
            #expect(try store.tableNames() == ["Person"])
        }
        // Same class name, different shape: PersonV2 is persisted as "Person".
        let mismatch = await #expect(throws: FloeError.self) {
            _ = try await Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [PersonV2.self]))
        }
        guard case .schemaMismatch(_, let differences) = mismatch else {
            Issue.record("expected a schema mismatch, got \(String(describing: mismatch))")
            return
        }
        #expect(differences.sorted() == [
            "Property 'Person.age' has been changed from 'int?' to 'string'.",
            "Property 'Person.fullName' has been added.",
            "Property 'Person.lastName' has been removed.",
        ])
        #expect(mismatch?.description.hasPrefix("Migration is required") == true)
        // The failed open changed nothing.
        let again = try await Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [Person.self]))
        #expect(try await again.read { realm in realm.objects(Person.self).map(\.firstName) } == ["Ada"])
    }

    @Test func migrationRenamesEnumeratesCreatesAndDeletes() async throws {
        let directory = TemporaryDirectory()
        let url = directory.url()
        do {
            let realm = try await Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [Person.self, TestDog.self]))
            try await realm.write { realm in
                try realm.create(Person.self, value: ["id": 1, "firstName": "Ada", "lastName": "Lovelace", "age": 36])
                try realm.create(Person.self, value: ["id": 2, "firstName": "Alan", "lastName": "Turing"])
                try realm.create(TestDog.self, value: ["id": 1, "name": "Rex"])
            }
        }
        var configuration = Realm.Configuration(fileURL: url, objectTypes: [PersonV2.self, TestDog.self])
        configuration.schemaVersion = 2
        configuration.migrationBlock = { migration, oldVersion in
            #expect(oldVersion == 0)
            migration.enumerateObjects(ofType: "Person") { oldObject, newObject in
                let first = oldObject!["firstName"] as! String
                let last = oldObject!["lastName"] as! String
                newObject!["fullName"] = "\(first) \(last)"
                newObject!["age"] = (oldObject!["age"] as? Int).map { "\($0)" } ?? "unknown"
            }
            migration.create("Person", value: ["id": 3, "firstName": "Grace", "fullName": "Grace Hopper", "age": "85"])
            migration.deleteData(forType: "TestDog")
        }
        let realm = try await Realm(configuration: configuration)
        let people = try await realm.read { realm in realm.objects(PersonV2.self).map { "\($0.id) \($0.firstName) \($0.fullName) \($0.age)" } }
        #expect(people == ["1 Ada Ada Lovelace 36", "2 Alan Alan Turing unknown", "3 Grace Grace Hopper 85"])
        #expect(try await realm.read { realm in realm.objects(TestDog.self).count } == 0)
        // Opening with a lower version is refused.
        await #expect(throws: FloeError.schemaVersionTooLow(path: url.path, stored: 2, requested: 1)) {
            _ = try await Realm(configuration: Realm.Configuration(fileURL: url, schemaVersion: 1, objectTypes: [PersonV2.self]))
        }
    }

    @Test func renamePropertyMovesValues() async throws {
        let directory = TemporaryDirectory()
        let url = directory.url()
        do {
            let realm = try await Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [Person.self]))
            try await realm.asyncWrite { realm in try realm.create(Person.self, value: ["id": 1, "firstName": "Ada", "lastName": "Lovelace"]) }
        }
        var configuration = Realm.Configuration(fileURL: url, schemaVersion: 1, objectTypes: [PersonRenamed.self])
        configuration.migrationBlock = { migration, _ in
            migration.renameProperty(onType: "Person", from: "lastName", to: "familyName")
        }
        let realm = try await Realm(configuration: configuration)
        #expect(try await realm.read { realm in realm.objects(PersonRenamed.self).map { "\($0.firstName) \($0.familyName)" } } == ["Ada Lovelace"])
    }

    @Test func deleteRealmIfMigrationNeeded() async throws {
        let directory = TemporaryDirectory()
        let url = directory.url()
        do {
            let realm = try await Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [Person.self]))
            try await realm.asyncWrite { realm in try realm.create(Person.self, value: ["id": 1]) }
        }
        let realm = try await Realm(configuration: Realm.Configuration(fileURL: url, deleteRealmIfMigrationNeeded: true, objectTypes: [PersonV2.self]))
        #expect(try await realm.read { realm in realm.objects(PersonV2.self).count } == 0)
        try await realm.asyncWrite { realm in try realm.create(PersonV2.self, value: ["id": 5, "fullName": "New"]) }
        #expect(try await realm.read { realm in realm.objects(PersonV2.self).map(\.fullName) } == ["New"])
    }
}

/// Persisted as "Person" with a changed shape.
final class PersonV2: Object {
    override class func className() -> String { "Person" }
    @Persisted(primaryKey: true) var id = 0
    @Persisted var firstName = ""
    @Persisted var fullName = ""
    @Persisted var age = ""
}

/// Persisted as "Person" with `lastName` renamed.
final class PersonRenamed: Object {
    override class func className() -> String { "Person" }
    @Persisted(primaryKey: true) var id = 0
    @Persisted var firstName = ""
    @Persisted var familyName = ""
    @Persisted var age: Int?
}
