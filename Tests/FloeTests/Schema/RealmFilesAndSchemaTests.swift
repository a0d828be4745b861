import Foundation
import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

/// `Realm.schema` and `Realm.deleteFiles(for:)`, as Realm offers them.
@Suite struct RealmFilesAndSchemaTests {
    final class Shelf: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var label = ""
    }

    final class Book: Object {
        @Persisted var title = ""
        @Persisted var shelf: Shelf?
    }

    @Test func theSchemaListsTheRealmsClasses() async throws {
        let named = try await inMemoryRealm("schema", objectTypes: [Shelf.self, Book.self])
        let schema = await named.schema
        #expect(schema.objectSchema.map(\.className) == ["Book", "Shelf"])
        #expect(schema["Shelf"]?.primaryKeyProperty?.name == "id")
        #expect(schema["Book"]?["shelf"]?.objectClassName == "Shelf")
        #expect(schema["Nope"] == nil)
        // Without objectTypes: the classes the file stores.
        let open = try await inMemoryRealm("schema")
        #expect(await open.schema.objectSchema.isEmpty)
        try await open.asyncWrite { realm in try realm.create(Shelf.self, value: ["id": 1]) }
        #expect(await open.schema.objectSchema.map(\.className) == ["Shelf"])
    }

    @Test func deleteFilesRemovesAFileNoRealmHasOpen() async throws {
        let directory = TemporaryDirectory()
        let configuration = Realm.Configuration(fileURL: directory.url(), objectTypes: [Shelf.self, Book.self])
        #expect(try Realm.deleteFiles(for: configuration) == false)   // nothing there yet
        do {
            let realm = try await Realm(configuration: configuration)
            try await realm.asyncWrite { realm in try realm.create(Shelf.self, value: ["id": 1]) }
            let refused = #expect(throws: FloeError.self) { try Realm.deleteFiles(for: configuration) }
            #expect(refused?.description.contains("is open in this process") == true)
            #expect(try await realm.read { realm in realm.objects(Shelf.self).count } == 1)
        }
        #expect(try Realm.deleteFiles(for: configuration) == true)
        #expect(!FileManager.default.fileExists(atPath: directory.file()))
        let fresh = try await Realm(configuration: configuration)
        #expect(try await fresh.read { realm in realm.objects(Shelf.self).count } == 0)
        #expect(try Realm.deleteFiles(for: Realm.Configuration(inMemoryIdentifier: "x")) == false)
    }
}
