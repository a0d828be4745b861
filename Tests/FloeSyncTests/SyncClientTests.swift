import Foundation
import Testing
import Floe
import FloeSync

/// The client engine against the in-process server: uploads, downloads, convergence,
/// offline queueing, restarts, refusals.
@Suite(.hangLimit) struct SyncClientTests {
    @Test func twoClientsConvergeThroughTheServer() async throws {
        let scratch = try Scratch()
        let server = FakeServer(schema: testSchema)
        let a = try await Realm(configuration: scratch.configuration("a"))
        let b = try await Realm(configuration: scratch.configuration("b"))
        let clientA = try SyncClient(realm: a, types: [Todo.self, Person.self], transport: server, options: fastOptions())
        let clientB = try SyncClient(realm: b, types: [Todo.self, Person.self], transport: server, options: fastOptions())
        try await clientA.start()
        try await clientB.start()

        try await a.write { realm in
            let ann = try realm.create(Person.self, value: ["id": "ann", "name": "Ann"])
            let todo = try realm.create(Todo.self, value: ["id": 1, "title": "milk", "tags": ["shop"]])
            todo.owner = ann
            _ = try realm.create(Draft.self, value: ["text": "stays here"])
        }
        await clientA.waitUntilSynchronized()
        #expect(await eventually { await caughtUp(clientB, server) })
        let onB = try await b.read { realm in realm.object(ofType: Todo.self, forPrimaryKey: 1).map { ($0.title, Array($0.tags), $0.owner?.name) } }
        #expect(onB?.0 == "milk" && onB?.1 == ["shop"] && onB?.2 == "Ann")
        #expect(try await b.read { realm in realm.objects(Draft.self).count } == 0)

        // Different properties on two devices: both kept. The same property: the later upload wins.
        try await a.write { realm in realm.object(ofType: Todo.self, forPrimaryKey: 1)!.title = "oat milk" }
        await clientA.waitUntilSynchronized()
        try await b.write { realm in
            realm.object(ofType: Todo.self, forPrimaryKey: 1)!.done = true
            realm.object(ofType: Todo.self, forPrimaryKey: 1)!.title = "soy milk"
        }
        await clientB.waitUntilSynchronized()
        #expect(await eventually { let first = await caughtUp(clientA, server); let second = await caughtUp(clientB, server); return first && second })
        let expected = await server.objects
        #expect(expected[SyncObjectID(className: "Todo", key: .int(1))]?["title"] == .string("soy milk"))
        #expect(try await syncedObjects(of: a) == expected)
        #expect(try await syncedObjects(of: b) == expected)

        // A delete on one device wins over an update the other makes afterwards without having seen it.
        await server.setOnline(false)
        try await a.write { realm in try realm.delete(realm.object(ofType: Todo.self, forPrimaryKey: 1)!) }
        try await b.write { realm in realm.object(ofType: Todo.self, forPrimaryKey: 1)!.priority = 5 }
        await server.setOnline(true)
        await clientA.waitUntilSynchronized()
        await clientB.waitUntilSynchronized()
        #expect(await eventually { let first = await caughtUp(clientA, server); let second = await caughtUp(clientB, server); return first && second })
        #expect(try await syncedObjects(of: b)[SyncObjectID(className: "Todo", key: .int(1))] == nil)
        #expect(try await syncedObjects(of: a) == server.objects)
        #expect(try await syncedObjects(of: b) == server.objects)
        await clientA.stop()
        await clientB.stop()
    }

    /// A connection that ends while an upload is still being sent (its send returns after the
    /// session has failed): the uploader must not wait for an acknowledgement that cannot come.
    /// It waited forever, with the client still reporting itself connected.
    @Test func aConnectionLostDuringAnUploadsSendIsLeftAndResumed() async throws {
        let scratch = try Scratch()
        let server = FakeServer(schema: testSchema)
        let transport = EndsDuringFirstUpload(server: server)
        let realm = try await Realm(configuration: scratch.configuration("a"))
        let client = try SyncClient(realm: realm, types: [Todo.self, Person.self], transport: transport, options: fastOptions())
        try await client.start()
        try await realm.write { realm in _ = try realm.create(Todo.self, value: ["id": 1, "title": "milk"]) }
        #expect(await eventually(10) { await server.objects[SyncObjectID(className: "Todo", key: .int(1))] != nil })
        #expect(transport.connections >= 2)
        await client.stop()
    }

    @Test func serverChangesAreNotSentBack() async throws {
        let scratch = try Scratch()
        let server = FakeServer(schema: testSchema)
        let a = try await Realm(configuration: scratch.configuration("a"))
        let b = try await Realm(configuration: scratch.configuration("b"))
        let clientA = try SyncClient(realm: a, types: [Todo.self, Person.self], transport: server, options: fastOptions())
        let clientB = try SyncClient(realm: b, types: [Todo.self, Person.self], transport: server, options: fastOptions())
        try await clientA.start()
        try await clientB.start()
        for id in 1...20 {
            try await a.write { realm in _ = try realm.create(Todo.self, value: ["id": id, "title": "t\(id)"]) }
        }
        await clientA.waitUntilSynchronized()
        #expect(await eventually { await caughtUp(clientB, server) })
        await clientB.waitUntilSynchronized()
        // B applied every change and uploaded none of them.
        #expect(try await b.read { realm in realm.objects(Todo.self).count } == 20)
        #expect(await server.appliedLocalVersions[clientB.clientID] == nil)
        #expect(await server.appliedLocalVersions[clientA.clientID]?.count == 20)
        await clientA.stop()
        await clientB.stop()
    }

    @Test func offlineChangesQueueInTheFileAndSurviveARestart() async throws {
        let scratch = try Scratch()
        let server = FakeServer(schema: testSchema)
        await server.setOnline(false)
        var clientID = ""
        do {
            let realm = try await Realm(configuration: scratch.configuration("a"))
            let client = try SyncClient(realm: realm, types: [Todo.self, Person.self], transport: server, options: fastOptions())
            try await client.start()
            for id in 1...5 {
                try await realm.write { realm in _ = try realm.create(Todo.self, value: ["id": id, "title": "offline \(id)"]) }
            }
            #expect(await client.lastError != nil)
            #expect(await client.acknowledgedLocalVersion == 0)
            clientID = await client.clientID
            await client.stop()
        }
        // A new process: the same file, a new client; the server is back.
        await server.setOnline(true)
        let realm = try await Realm(configuration: scratch.configuration("a"))
        let client = try SyncClient(realm: realm, types: [Todo.self, Person.self], transport: server, options: fastOptions())
        try await client.start()
        #expect(await client.clientID == clientID)
        try await realm.write { realm in realm.object(ofType: Todo.self, forPrimaryKey: 3)!.done = true }
        await client.waitUntilSynchronized()
        #expect(await server.objects.count == 5)
        #expect(await server.objects[SyncObjectID(className: "Todo", key: .int(3))]?["done"] == .bool(true))
        let acknowledged = await client.acknowledgedLocalVersion
        await client.stop()

        // Restarting again uploads nothing twice: every local version reached the server once.
        let again = try SyncClient(realm: realm, types: [Todo.self, Person.self], transport: server, options: fastOptions())
        try await again.start()
        #expect(await again.acknowledgedLocalVersion == acknowledged)
        await again.waitUntilSynchronized()
        let versions = await server.appliedLocalVersions[clientID] ?? []
        #expect(versions.count == 6 && Set(versions).count == 6)
        await again.stop()
    }

    @Test func anAcknowledgementLostInACrashIsNotUploadedTwice() async throws {
        let scratch = try Scratch()
        let server = FakeServer(schema: testSchema)
        let realm = try await Realm(configuration: scratch.configuration("a"))
        let client = try SyncClient(realm: realm, types: [Todo.self, Person.self], transport: server, options: fastOptions())
        try await client.start()
        try await realm.write { realm in _ = try realm.create(Todo.self, value: ["id": 1]) }
        await client.waitUntilSynchronized()
        await client.stop()
        // The file forgets the acknowledgement, as if the client died between the server's
        // commit and its own: the server's welcome tells it what it already has.
        try await realm.write { realm in _ = try realm.create(SyncClient.stateType, value: ["id": 0, "acknowledgedLocalVersion": 0], update: .modified) }
        let restarted = try SyncClient(realm: realm, types: [Todo.self, Person.self], transport: server, options: fastOptions())
        try await restarted.start()
        await restarted.waitUntilSynchronized()
        #expect(await server.appliedLocalVersions[restarted.clientID]?.count == 1)
        #expect(await restarted.acknowledgedLocalVersion > 0)
        await restarted.stop()
    }

    @Test func aBatchBreakingTheSchemaIsRefusedAndStaysQueued() async throws {
        let scratch = try Scratch()
        var narrow = testSchema
        narrow.classes[1].properties.removeAll { $0.name == "priority" }
        let server = FakeServer(schema: narrow)
        let realm = try await Realm(configuration: scratch.configuration("a"))
        let client = try SyncClient(realm: realm, types: [Todo.self, Person.self], transport: server, options: fastOptions())
        try await client.start()
        try await realm.write { realm in _ = try realm.create(Todo.self, value: ["id": 1, "title": "a", "priority": 2]) }
        #expect(await eventually { await client.lastError == .unknownProperty(className: "Todo", property: "priority") })
        #expect(await server.objects.isEmpty)
        #expect(await server.version == 0)
        #expect(await client.acknowledgedLocalVersion == 0)
        // Once the server's schema has the property, the queued change goes through.
        await server.setSchema(testSchema)
        await client.waitUntilSynchronized()
        #expect(await server.objects[SyncObjectID(className: "Todo", key: .int(1))]?["priority"] == .int(2))
        #expect(await client.lastError == nil)
        await client.stop()
    }

    @Test func aClientWithAFutureSchemaIsRefused() async throws {
        let scratch = try Scratch()
        let server = FakeServer(schema: testSchema)
        let realm = try await Realm(configuration: scratch.configuration("a"))
        var options = fastOptions()
        options.schemaVersion = 2
        let client = try SyncClient(realm: realm, types: [Todo.self], transport: server, options: options)
        try await client.start()
        #expect(await eventually { await client.lastError == .futureSchemaVersion(client: 2, server: 1) })
        #expect(await client.isConnected == false)
        await client.stop()
    }

    @Test func classesWithoutAPrimaryKeyDoNotSync() async throws {
        let scratch = try Scratch()
        let realm = try await Realm(configuration: scratch.configuration("a"))
        #expect(throws: SyncError.noPrimaryKey(className: "Draft")) {
            try SyncClient(realm: realm, types: [Todo.self, Draft.self], transport: FakeServer(schema: testSchema))
        }
    }
}

/// Server changes applied in server order, whatever the order of classes in a message.
@Suite(.hangLimit) struct ServerChangeApplyTests {
    @Test func aLinkToAnObjectCreatedLaterInTheSameMessageIsSet() async throws {
        let scratch = try Scratch()
        let server = FakeServer(schema: testSchema)
        // Another device's upload, straight to the server: the todo names its owner before
        // the owner exists, and a second todo links to someone who never comes.
        let other = try await server.connect()
        try await other.send(.hello(clientID: "other", protocolVersion: syncProtocolVersion, schemaVersion: 1, serverVersion: 0))
        _ = try await other.receive()
        try await other.send(.upload(transactions: [UploadedTransaction(localVersion: 1, changes: [
            ObjectChange(className: "Todo", key: .int(1), operation: .insert,
                         values: ["id": .int(1), "title": .string("walk"), "owner": .link(className: "Person", key: .string("bob"))]),
            ObjectChange(className: "Todo", key: .int(2), operation: .insert,
                         values: ["id": .int(2), "owner": .link(className: "Person", key: .string("nobody"))]),
            ObjectChange(className: "Person", key: .string("bob"), operation: .insert, values: ["id": .string("bob"), "name": .string("Bob")]),
        ])], throughLocalVersion: 1))
        #expect(await server.version == 1)

        let realm = try await Realm(configuration: scratch.configuration("a"))
        let client = try SyncClient(realm: realm, types: [Todo.self, Person.self], transport: server, options: fastOptions())
        try await client.start()
        #expect(await eventually { await caughtUp(client, server) })
        let owners = try await realm.read { realm in
            (realm.object(ofType: Todo.self, forPrimaryKey: 1)?.owner?.name, realm.object(ofType: Todo.self, forPrimaryKey: 2)?.owner == nil)
        }
        #expect(owners.0 == "Bob")
        #expect(owners.1)
        // Applying a server message uploads nothing back.
        await client.waitUntilSynchronized()
        #expect(await server.appliedLocalVersions[client.clientID] == nil)
        await client.stop()
        await other.close()
    }
}

/// Connects to `server`; the first connection's first upload closes the connection and then
/// returns from `send` a little later, as a send racing a dropped socket can.
final class EndsDuringFirstUpload: SyncTransport, @unchecked Sendable {
    let server: FakeServer
    private let lock = NSLock()
    private var count = 0

    init(server: FakeServer) { self.server = server }

    var connections: Int { lock.withLock { count } }

    func connect() async throws -> any SyncConnection {
        let inner = try await server.connect()
        let first = lock.withLock { count += 1; return count == 1 }
        return first ? Ending(inner: inner) : inner
    }

    struct Ending: SyncConnection {
        let inner: any SyncConnection
        func send(_ message: ClientMessage) async throws {
            guard case .upload = message else { return try await inner.send(message) }
            await inner.close()
            try? await Task.sleep(for: .milliseconds(300))
        }
        func receive() async throws -> ServerMessage? { try await inner.receive() }
        func close() async { await inner.close() }
    }
}
