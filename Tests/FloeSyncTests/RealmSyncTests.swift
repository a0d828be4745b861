import Foundation
import Testing
@_spi(Sync) import Floe
@_spi(Testing) import FloeStorage
import FloeSync

/// The client works through the realm alone: an in-memory realm syncs, the client opens no
/// store of the file, and a server message that cannot be applied leaves the realm as it was.
@Suite(.hangLimit) struct RealmSyncTests {
    private func memoryConfiguration() -> Realm.Configuration {
        var configuration = Realm.Configuration(inMemoryIdentifier: "sync-\(UUID().uuidString)")
        configuration.objectTypes = [Todo.self, Person.self, Draft.self, OwnedNote.self, SyncClient.stateType]
        configuration.schemaVersion = 1
        return configuration
    }

    @Test func anInMemoryRealmUploadsAndDownloads() async throws {
        let scratch = try Scratch()
        let server = FakeServer(schema: testSchema)
        let memory = try await Realm(configuration: memoryConfiguration())
        let file = try await Realm(configuration: scratch.configuration("file"))
        let memoryClient = try SyncClient(realm: memory, types: [Todo.self, Person.self], transport: server, options: fastOptions())
        let fileClient = try SyncClient(realm: file, types: [Todo.self, Person.self], transport: server, options: fastOptions())
        try await memoryClient.start()
        try await fileClient.start()

        // Upload from memory, download into the file.
        try await memory.write { realm in _ = try realm.create(Todo.self, value: ["id": 1, "title": "milk", "tags": ["shop"]]) }
        await memoryClient.waitUntilSynchronized()
        #expect(await server.objects[SyncObjectID(className: "Todo", key: .int(1))]?["title"] == .string("milk"))
        #expect(await eventually { await caughtUp(fileClient, server) })
        #expect(try await file.read { realm in realm.object(ofType: Todo.self, forPrimaryKey: 1)?.title } == "milk")

        // Download into memory.
        try await file.write { realm in _ = try realm.create(Todo.self, value: ["id": 2, "title": "bread"]) }
        await fileClient.waitUntilSynchronized()
        #expect(await eventually { await caughtUp(memoryClient, server) })
        #expect(try await memory.read { realm in realm.object(ofType: Todo.self, forPrimaryKey: 2)?.title } == "bread")

        // Offline, the in-memory history waits in the client's pin; a new connection uploads it.
        await server.setOnline(false)
        for id in 3...5 {
            try await memory.write { realm in _ = try realm.create(Todo.self, value: ["id": id, "title": "t\(id)"]) }
        }
        try await memory.write { realm in realm.object(ofType: Todo.self, forPrimaryKey: 1)!.done = true }
        await server.setOnline(true)
        await memoryClient.waitUntilSynchronized()
        #expect(await eventually { await caughtUp(fileClient, server) })
        #expect(try await syncedObjects(of: memory) == server.objects)
        #expect(try await syncedObjects(of: file) == server.objects)
        #expect(await server.objects.count == 5)
        // Each transaction went once, in order.
        let versions = await server.appliedLocalVersions[memoryClient.clientID] ?? []
        #expect(versions.count == 5 && versions == versions.sorted())

        // Downloads only (the pin lets go of what holds nothing to upload), then a restart of
        // the same client: it resumes from what its pin still holds.
        for id in 6...8 {
            try await file.write { realm in _ = try realm.create(Todo.self, value: ["id": id, "title": "f\(id)"]) }
        }
        await fileClient.waitUntilSynchronized()
        #expect(await eventually { await caughtUp(memoryClient, server) })
        await memoryClient.waitUntilSynchronized()
        await memoryClient.stop()
        try await memory.write { realm in _ = try realm.create(Todo.self, value: ["id": 9, "title": "after restart"]) }
        try await memoryClient.start()
        await memoryClient.waitUntilSynchronized()
        #expect(await memoryClient.lastError == nil)
        #expect(await server.objects[SyncObjectID(className: "Todo", key: .int(9))]?["title"] == .string("after restart"))
        #expect(await eventually { await caughtUp(fileClient, server) })
        #expect(try await syncedObjects(of: memory) == server.objects)
        #expect(try await syncedObjects(of: file) == server.objects)
        await memoryClient.stop()
        await fileClient.stop()
    }

    /// In memory, the pin lets go of versions the client settled past its acknowledgement (the
    /// server's changes it applied); a refusal discarded after that still finds its objects and
    /// restores them.
    @Test func anInMemoryRealmDiscardsARefusalAfterSettledVersions() async throws {
        let server = FakeServer(schema: noteSchema)
        await server.setRules(try SyncRules(["OwnedNote": [.read: "ownerId == $jwt.sub", .create: "ownerId == $jwt.sub"]], schema: noteSchema),
                              tokens: noteTokens)
        let otherDevice = try await server.connect(token: annToken)
        let memory = try await Realm(configuration: memoryConfiguration())
        var options = fastOptions()
        options.tokenProvider = { annToken }
        let client = try SyncClient(realm: memory, types: [OwnedNote.self], transport: server, options: options)
        try await client.start()
        await client.waitUntilSynchronized()
        // A note from Ann's other device reaches this one: the version that applies it is settled, not acknowledged.
        try await otherDevice.send(.hello(clientID: "ann-other", protocolVersion: syncProtocolVersion, schemaVersion: 1, serverVersion: 0))
        try await otherDevice.send(.upload(transactions: [UploadedTransaction(localVersion: 1, changes: [
            ObjectChange(className: "OwnedNote", key: .int(1), operation: .insert, values: ["id": .int(1), "ownerId": .string("ann"), "title": .string("shared")]),
        ])], throughLocalVersion: 1))
        #expect(await server.version == 1)
        #expect(await eventually { await caughtUp(client, server) })
        await client.waitUntilSynchronized()
        try await memory.write { realm in _ = try realm.create(OwnedNote.self, value: ["id": 2, "ownerId": "bob", "title": "forged"]) }
        #expect(await eventually { await client.refusal != nil })
        #expect(try await eventually { try await client.discardRefusedChanges() })
        await client.waitUntilSynchronized()
        let left = try await memory.read { realm in realm.objects(OwnedNote.self).map(\.id) }
        #expect(left == [1], "\(left)")
        await client.stop()
        await otherDevice.close()
    }

    @Test func theSchemaOfAnInMemoryRealm() async throws {
        let memory = try await Realm(configuration: memoryConfiguration())
        let schema = try SyncSchema(realm: memory, classNames: ["Todo", "Person"], version: 1)
        #expect(schema == testSchema)
        #expect(throws: SyncError.noPrimaryKey(className: "Draft")) { try SyncSchema(realm: memory, classNames: ["Draft"], version: 1) }
    }

    @Test func theStoredPinIsTheClientsState() {
        #expect(Realm.historyPin.className == FloeSyncState.className())
        #expect(Realm.historyPin.property == "acknowledgedLocalVersion")
        #expect(FloeSyncState().objectSchema.properties.contains { $0.name == Realm.historyPin.property })
    }

    @Test func theClientOpensNoStoreOfTheFile() async throws {
        let scratch = try Scratch()
        let marker = scratch.directory.lastPathComponent
        let server = FakeServer(schema: testSchema)
        let realm = try await Realm(configuration: scratch.configuration("one"))
        FaultInjection.count(pathContains: marker)
        defer { FaultInjection.remove(pathContains: marker) }
        let schema = try SyncSchema(realm: realm, classNames: ["Todo", "Person"], version: 1)
        #expect(schema == testSchema)
        let client = try SyncClient(realm: realm, types: [Todo.self, Person.self], transport: server, options: fastOptions())
        try await client.start()
        try await realm.write { realm in _ = try realm.create(Todo.self, value: ["id": 1, "title": "milk"]) }
        await client.waitUntilSynchronized()
        await server.inject([ObjectChange(className: "Todo", key: .int(2), operation: .insert, values: ["id": .int(2), "title": .string("bread")])])
        #expect(await eventually { await caughtUp(client, server) })
        #expect(try await realm.read { realm in realm.objects(Todo.self).count } == 2)
        await client.stop()
        // The realm's store wrote and synced the file all along; nothing opened it again.
        let operations = FaultInjection.operations(pathContains: marker)
        #expect(operations.contains(.write))
        #expect(!operations.contains(.open))
        // (The count sees a file opened: another realm's.)
        _ = try await Realm(configuration: scratch.configuration("two"))
        #expect(FaultInjection.operations(pathContains: marker).contains(.open))
    }

    @Test func aServerMessageThatFailsLeavesTheRealmAsItWas() async throws {
        let scratch = try Scratch()
        let server = FakeServer(schema: testSchema)
        let realm = try await Realm(configuration: scratch.configuration("a"))
        let client = try SyncClient(realm: realm, types: [Todo.self, Person.self], transport: server, options: fastOptions())
        try await client.start()
        try await realm.write { realm in _ = try realm.create(Todo.self, value: ["id": 1, "title": "before"]) }
        await client.waitUntilSynchronized()
        let before = try await syncedObjects(of: realm)
        let serverVersion = await client.serverVersion
        let version = realm.committedVersion

        // An update and an insert that fit, then a value the realm's schema refuses: one message.
        await server.inject([
            ObjectChange(className: "Todo", key: .int(1), operation: .update, values: ["title": .string("after")]),
            ObjectChange(className: "Todo", key: .int(2), operation: .insert, values: ["id": .int(2), "title": .string("new")]),
            ObjectChange(className: "Todo", key: .int(3), operation: .insert, values: ["id": .int(3), "title": .int(5)]),
        ])
        #expect(await eventually {
            if case .applyFailed(let from, let to, _)? = await client.lastError { return from == serverVersion && to == serverVersion + 1 }
            return false
        })
        #expect(realm.committedVersion == version)
        #expect(try await syncedObjects(of: realm) == before)
        #expect(await client.serverVersion == serverVersion)
        await client.stop()
        #expect(realm.committedVersion == version)
    }
}
