import Foundation
import Testing
@_spi(Engine) import Floe
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage
import FloeSync

/// Offline first: compaction keeps the history the server has not acknowledged, so changes
/// made offline upload after any number of compactions.
@Suite(.hangLimit) struct CompactionTests {
    @Test func compactionKeepsWhatTheServerHasNotAcknowledged() async throws {
        let scratch = try Scratch()
        let server = FakeServer(schema: testSchema)
        let configuration = scratch.configuration("a")
        let realm = try await Realm(configuration: configuration)
        let client = try SyncClient(realm: realm, types: [Todo.self, Person.self], transport: server, options: fastOptions())
        try await client.start()
        try await realm.write { realm in _ = try realm.create(Todo.self, value: ["id": 1, "title": "online"]) }
        await client.waitUntilSynchronized()
        let acknowledged = await client.acknowledgedLocalVersion
        #expect(acknowledged > 0)

        await server.setOnline(false)
        for id in 2...40 {
            try await realm.write { realm in _ = try realm.create(Todo.self, value: ["id": id, "title": "offline \(id)", "tags": ["x"]]) }
        }
        try await realm.write { realm in
            realm.object(ofType: Todo.self, forPrimaryKey: 2)!.title = "changed offline"
            try realm.delete(realm.object(ofType: Todo.self, forPrimaryKey: 3)!)
        }
        let store = try Store.open(path: configuration.fileURL!.path)
        let sizeBefore = store.fileSize
        try store.compact()
        // The versions the server has not acknowledged are still in the file; older ones are gone.
        #expect(throws: Never.self) { _ = try realm.changeFeed(since: acknowledged) }
        #expect(throws: FloeError.self) { _ = try realm.changeFeed(since: acknowledged - 1) }
        #expect(store.fileSize < sizeBefore)
        try store.compact()
        #expect(throws: Never.self) { _ = try realm.changeFeed(since: acknowledged) }

        await server.setOnline(true)
        await client.waitUntilSynchronized()
        let onServer = await server.objects
        #expect(onServer.count == 39)
        #expect(onServer[SyncObjectID(className: "Todo", key: .int(2))]?["title"] == .string("changed offline"))
        #expect(try await syncedObjects(of: realm) == onServer)

        // Once acknowledged, the history is released at the next compaction.
        let newAcknowledged = await client.acknowledgedLocalVersion
        await client.stop()
        try store.compact()
        #expect(throws: FloeError.self) { _ = try realm.changeFeed(since: acknowledged) }
        #expect(throws: Never.self) { _ = try realm.changeFeed(since: newAcknowledged) }
    }

    @Test func withoutAPinCompactionKeepsTheNewestVersionOnly() async throws {
        let scratch = try Scratch()
        let configuration = scratch.configuration("plain")
        let realm = try await Realm(configuration: configuration)
        for id in 1...5 { try await realm.write { realm in _ = try realm.create(Todo.self, value: ["id": id]) } }
        let store = try Store.open(path: configuration.fileURL!.path)
        let newest = store.currentVersion
        try store.compact()
        #expect(throws: FloeError.self) { _ = try realm.changeFeed(since: newest - 1) }
        #expect(throws: Never.self) { _ = try realm.changeFeed(since: newest) }
    }

    /// Syncs one write, then writes `count` transactions with the server offline; returns the
    /// acknowledged version.
    private func writeOffline(_ realm: Realm, _ client: SyncClient, _ server: FakeServer, count: Int) async throws -> UInt64 {
        try await client.start()
        try await realm.write { realm in _ = try realm.create(Todo.self, value: ["id": 1, "title": "online"]) }
        await client.waitUntilSynchronized()
        let acknowledged = await client.acknowledgedLocalVersion
        await server.setOnline(false)
        for id in 2...(count + 1) {
            try await realm.write { realm in _ = try realm.create(Todo.self, value: ["id": id, "title": "offline \(id)", "tags": ["x"]]) }
            try await realm.write { realm in realm.object(ofType: Todo.self, forPrimaryKey: id)!.title = "changed offline \(id)" }
        }
        return acknowledged
    }

    @Test func automaticCompactionKeepsWhatTheServerHasNotAcknowledged() async throws {
        let scratch = try Scratch()
        let server = FakeServer(schema: testSchema)
        let configuration = scratch.configuration("automatic")
        // The store compacts after any commit whose dead bytes exceed twice the live ones.
        var options = StoreOptions()
        options.automaticCompactionMinimumSize = 0
        let store = try Store.open(path: configuration.fileURL!.path, options: options)
        let realm = try await Realm(configuration: configuration)
        let client = try SyncClient(realm: realm, types: [Todo.self, Person.self], transport: server, options: fastOptions())
        let acknowledged = try await writeOffline(realm, client, server, count: 60)
        // Compaction ran on its own (the versions before the acknowledged one are gone) and kept
        // every version from the acknowledged one on.
        #expect(throws: FloeError.self) { _ = try realm.changeFeed(since: 1) }
        #expect(throws: Never.self) { _ = try realm.changeFeed(since: acknowledged) }
        #expect(store.currentVersion > acknowledged + 100)

        await server.setOnline(true)
        await client.waitUntilSynchronized()
        let onServer = await server.objects
        #expect(onServer.count == 61)
        #expect(onServer[SyncObjectID(className: "Todo", key: .int(30))]?["title"] == .string("changed offline 30"))
        #expect(try await syncedObjects(of: realm) == onServer)
        await client.stop()
    }

    @Test func compactionOnLaunchKeepsWhatTheServerHasNotAcknowledged() async throws {
        let scratch = try Scratch()
        let server = FakeServer(schema: testSchema)
        let configuration = scratch.configuration("launch")
        let realm = try await Realm(configuration: configuration)
        let client = try SyncClient(realm: realm, types: [Todo.self, Person.self], transport: server, options: fastOptions())
        let acknowledged = try await writeOffline(realm, client, server, count: 20)
        await client.stop()
        #expect(throws: Never.self) { _ = try realm.changeFeed(since: 1) }

        // The app launches again and asks to compact before any client has started.
        var launch = configuration
        launch.shouldCompactOnLaunch = { _, _ in true }
        let relaunched = try await Realm(configuration: launch)
        #expect(throws: FloeError.self) { _ = try relaunched.changeFeed(since: 1) }
        #expect(throws: Never.self) { _ = try relaunched.changeFeed(since: acknowledged) }

        await server.setOnline(true)
        let restarted = try SyncClient(realm: relaunched, types: [Todo.self, Person.self], transport: server, options: fastOptions())
        try await restarted.start()
        await restarted.waitUntilSynchronized()
        let onServer = await server.objects
        #expect(onServer.count == 21)
        #expect(onServer[SyncObjectID(className: "Todo", key: .int(20))]?["title"] == .string("changed offline 20"))
        #expect(try await syncedObjects(of: relaunched) == onServer)
        await restarted.stop()
    }
}
