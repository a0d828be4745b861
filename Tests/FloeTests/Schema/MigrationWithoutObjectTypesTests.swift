import Foundation
import Testing
@_spi(Engine) @testable import Floe
@_spi(Engine) @testable import FloeEngine
@_spi(Engine) @testable import FloeStorage

/// Realm's usual migration, `Realm.Configuration(schemaVersion:migrationBlock:)` with no
/// `objectTypes`: the classes the migration reshapes the stored ones into are not known when
/// the realm opens, so opening refuses before writing anything, and the file stays migratable
/// by an open that names them. The version is never stored without the migration.
@Suite struct MigrationWithoutObjectTypesTests {
    /// A file written by version 0 of the app: one Person, whose `lastName` version 1 renames.
    private static func makeVersion0File(_ directory: TemporaryDirectory) async throws -> URL {
        let url = directory.url()
        let realm = try await Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [Person.self]))
        try await realm.write { realm in
            _ = try realm.create(Person.self, value: ["id": 1, "firstName": "Ada", "lastName": "Lovelace", "age": 36])
        }
        return url
    }

    /// The schema version the file stores, read with nothing else holding it.
    private static func storedSchemaVersion(at url: URL) throws -> UInt64 {
        let store = try Store.open(path: url.path, options: StoreOptions(readOnly: true))
        defer { store.close() }
        return try store.snapshot().schemaVersion
    }

    /// How many times a migration block ran, and with which old versions.
    private final class BlockRuns: Sendable {
        private let versions = Locked<[UInt64]>([])
        func record(_ version: UInt64) { versions.withLock { $0.append(version) } }
        var all: [UInt64] { versions.withLock { $0 } }
    }

    private static func renamingBlock(_ runs: BlockRuns) -> MigrationBlock {
        { migration, oldSchemaVersion in
            runs.record(oldSchemaVersion)
            if oldSchemaVersion < 1 {
                migration.renameProperty(onType: "Person", from: "lastName", to: "familyName")
            }
        }
    }

    @Test func aMigrationWithoutObjectTypesIsRefusedBeforeWritingAndALaterOpenWithThemMigrates() async throws {
        let directory = TemporaryDirectory()
        let url = try await Self.makeVersion0File(directory)
        let before = try Data(contentsOf: url)
        let runs = BlockRuns()

        // How most Realm code is written: a version and a block, no objectTypes.
        let refused = await #expect(throws: FloeError.self) {
            _ = try await Realm(configuration: Realm.Configuration(fileURL: url, schemaVersion: 1, migrationBlock: Self.renamingBlock(runs)))
        }
        #expect(refused == .migrationNeedsObjectTypes(path: url.path, stored: 0, requested: 1, classNames: ["Person"]))
        let message = refused?.description ?? ""
        #expect(message.contains("Configuration.objectTypes") && message.contains("objectTypes = [Person.self]")
                && message.contains("schema version 0 to 1") && message.contains("left unchanged"), "\(message)")
        #expect(runs.all.isEmpty, "the block ran though nothing was migrated")
        // Nothing was written: the same bytes, the old version.
        #expect(try Data(contentsOf: url) == before)
        #expect(try Self.storedSchemaVersion(at: url) == 0)

        // Refused again the same way: the first refusal left nothing that changes the answer.
        await #expect(throws: FloeError.migrationNeedsObjectTypes(path: url.path, stored: 0, requested: 1, classNames: ["Person"])) {
            _ = try await Realm(configuration: Realm.Configuration(fileURL: url, schemaVersion: 1, migrationBlock: Self.renamingBlock(runs)))
        }
        #expect(try Data(contentsOf: url) == before)

        // Naming the classes migrates the file: the block runs once, from version 0.
        let realm = try await Realm(configuration: Realm.Configuration(fileURL: url, schemaVersion: 1, migrationBlock: Self.renamingBlock(runs),
                                                                      objectTypes: [PersonRenamed.self]))
        #expect(runs.all == [0])
        let people = try await realm.read { realm in
            realm.objects(PersonRenamed.self).map { "\($0.id) \($0.firstName) \($0.familyName) \($0.age.map(String.init) ?? "nil")" }
        }
        #expect(people == ["1 Ada Lovelace 36"])
        let stored = try await realm.read { realm in try realm.freeze() }.snapshot
        #expect(stored.schemaVersion == 1)
        #expect(try stored.spec(of: stored.table(named: "Person")).columns.map(\.name).sorted() == ["age", "familyName", "firstName", "id"])
    }

    @Test func aRaisedVersionWithoutABlockOrObjectTypesIsRefusedToo() async throws {
        let directory = TemporaryDirectory()
        let url = try await Self.makeVersion0File(directory)
        let before = try Data(contentsOf: url)
        // Storing version 3 here would make a later open at version 3 skip its migration.
        await #expect(throws: FloeError.migrationNeedsObjectTypes(path: url.path, stored: 0, requested: 3, classNames: ["Person"])) {
            _ = try await Realm(configuration: Realm.Configuration(fileURL: url, schemaVersion: 3))
        }
        #expect(try Data(contentsOf: url) == before)
        #expect(try Self.storedSchemaVersion(at: url) == 0)

        // With the classes, the same raise checks them and stores the version.
        let realm = try await Realm(configuration: Realm.Configuration(fileURL: url, schemaVersion: 3, objectTypes: [Person.self]))
        #expect(try await realm.read { realm in realm.objects(Person.self).map(\.lastName) } == ["Lovelace"])
        #expect(try await realm.read { realm in try realm.freeze() }.snapshot.schemaVersion == 3)
    }

    @Test func anInMemoryRealmWithDataIsRefusedAlike() async throws {
        let identifier = "migrate-in-memory-\(UUID())"
        let first = try await Realm(configuration: Realm.Configuration(inMemoryIdentifier: identifier))
        try await first.write { realm in _ = try realm.create(Person.self, value: ["id": 1, "lastName": "Lovelace"]) }
        let runs = BlockRuns()
        await #expect(throws: FloeError.migrationNeedsObjectTypes(path: "memory:\(identifier)", stored: 0, requested: 1, classNames: ["Person"])) {
            _ = try await Realm(configuration: Realm.Configuration(inMemoryIdentifier: identifier, schemaVersion: 1,
                                                                   migrationBlock: Self.renamingBlock(runs)))
        }
        #expect(runs.all.isEmpty)
        #expect(try await first.read { realm in try realm.freeze() }.snapshot.schemaVersion == 0)
        #expect(try await first.read { realm in realm.objects(Person.self).map(\.lastName) } == ["Lovelace"])
    }

    @Test func deleteRealmIfMigrationNeededStartsANewFileInsteadOfRefusing() async throws {
        let directory = TemporaryDirectory()
        let url = try await Self.makeVersion0File(directory)
        let runs = BlockRuns()
        let realm = try await Realm(configuration: Realm.Configuration(fileURL: url, schemaVersion: 2, migrationBlock: Self.renamingBlock(runs),
                                                                      deleteRealmIfMigrationNeeded: true))
        #expect(runs.all.isEmpty)
        #expect(try await realm.read { realm in realm.objects(PersonRenamed.self).count } == 0)
        #expect(try await realm.read { realm in try realm.freeze() }.snapshot.schemaVersion == 2)
        try await realm.write { realm in _ = try realm.create(PersonRenamed.self, value: ["id": 2, "familyName": "Hopper"]) }
        #expect(try await realm.read { realm in realm.objects(PersonRenamed.self).map(\.familyName) } == ["Hopper"])
    }

    @Test func withNothingToMigrateAVersionIsStoredWithoutObjectTypes() async throws {
        let directory = TemporaryDirectory()
        let url = directory.url()
        let runs = BlockRuns()
        // A new file takes the version as it is; a new file has nothing to migrate.
        do {
            let realm = try await Realm(configuration: Realm.Configuration(fileURL: url, schemaVersion: 2, migrationBlock: Self.renamingBlock(runs)))
            try await realm.write { realm in _ = try realm.create(PersonRenamed.self, value: ["id": 1, "familyName": "Hopper"]) }
            #expect(try await realm.read { realm in try realm.freeze() }.snapshot.schemaVersion == 2)
        }
        // The same version again opens as before, without objectTypes, and runs no block.
        do {
            let realm = try await Realm(configuration: Realm.Configuration(fileURL: url, schemaVersion: 2, migrationBlock: Self.renamingBlock(runs)))
            #expect(try await realm.read { realm in realm.objects(PersonRenamed.self).map(\.familyName) } == ["Hopper"])
        }
        #expect(runs.all.isEmpty)
        // A file that stores no class yet, opened with a raised version and no block: nothing
        // to migrate and nothing to run.
        let empty = directory.url("empty.floe")
        do {
            let realm = try await Realm(configuration: Realm.Configuration(fileURL: empty, schemaVersion: 1))
            #expect(try await realm.read { realm in try realm.freeze() }.snapshot.schemaVersion == 1)
        }
        let raised = try await Realm(configuration: Realm.Configuration(fileURL: empty, schemaVersion: 4))
        #expect(try await raised.read { realm in try realm.freeze() }.snapshot.schemaVersion == 4)
    }
}
