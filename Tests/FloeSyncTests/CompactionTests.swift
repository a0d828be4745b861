import Foundation
import Testing
@_spi(Engine) import Floe
import FloeSync

/// Offline first: compaction keeps the history the server has not acknowledged, so changes
/// made offline upload after any number of compactions.
@Suite struct CompactionTests {
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
}
