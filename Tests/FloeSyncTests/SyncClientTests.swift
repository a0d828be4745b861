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

    /// Lists, sets and maps edited on two devices while both were offline merge: both
    /// insertions survive, a removal made on both applies once, the set and the map keep what
    /// each device did; both devices and the server end equal.
    @Test func collectionsEditedOnTwoDevicesMerge() async throws {
        let scratch = try Scratch()
        let server = FakeServer(schema: testSchema)
        let (realms, clients) = try await startedClients(["a", "b"], in: scratch, server: server)
        let (a, b, clientA, clientB) = (realms[0], realms[1], clients[0], clients[1])
        try await a.write { realm in
            _ = try realm.create(Todo.self, value: ["id": 1, "title": "trip", "tags": ["a", "b", "c"], "labels": ["x"], "scores": ["p": 1, "q": 2]])
        }
        await clientA.waitUntilSynchronized()
        #expect(await eventually { await caughtUp(clientB, server) })
        await server.setOnline(false)
        try await a.write { realm in
            let todo = realm.object(ofType: Todo.self, forPrimaryKey: 1)!
            todo.tags.insert("a2", at: 1)
            todo.tags.remove(at: 3)        // c
            todo.labels.insert("y")
            todo.scores["p"] = 10
        }
        try await a.write { realm in realm.object(ofType: Todo.self, forPrimaryKey: 1)!.tags.append("end-a") }
        try await b.write { realm in
            let todo = realm.object(ofType: Todo.self, forPrimaryKey: 1)!
            todo.tags.insert("b2", at: 2)
            todo.tags.remove(at: 3)        // c, removed on both
            todo.tags.append("end-b")
            todo.labels.remove("x")
            todo.labels.insert("z")
            todo.scores["q"] = nil
            todo.scores["r"] = 3
        }
        await server.setOnline(true)
        await clientA.waitUntilSynchronized()
        await clientB.waitUntilSynchronized()
        #expect(await eventually { let first = await caughtUp(clientA, server); let second = await caughtUp(clientB, server); return first && second })
        let id = SyncObjectID(className: "Todo", key: .int(1))
        let merged = await server.objects[id]
        let tags = merged?["tags"]
        // Whichever device reached the server first, both insertions are there and c is gone once.
        // A's first: b2 and end-b followed c, which is gone, so they go at the end; B's first (or
        // between A's two): end-a is appended after them.
        #expect(tags == .list(["a", "a2", "b", "end-a", "b2", "end-b"].map(SyncValue.string))
                || tags == .list(["a", "a2", "b", "b2", "end-b", "end-a"].map(SyncValue.string)))
        #expect(merged.map { Set(SyncValue.strings($0["labels"])) } == ["y", "z"])
        #expect(merged?["scores"] == .map(["p": .int(10), "r": .int(3)]))
        #expect(try await syncedObjects(of: a)[id] == merged?.normalizingSets)
        #expect(try await syncedObjects(of: b)[id] == merged?.normalizingSets)
        await clientA.stop()
        await clientB.stop()
    }

    /// Three real clients edit the lists, sets and maps of a few objects at random (one edit
    /// per transaction, each a unique value), while the server goes offline and comes back at
    /// random: the uploads reach it in whatever order the clients' timing gives, and server
    /// changes land on devices over their own unsent edits. At the end all three realms equal
    /// the server, every tag inserted and never removed is there once, every removed one gone.
    @Test func threeClientsEditingCollectionsConverge() async throws {
        let scratch = try Scratch()
        let server = FakeServer(schema: testSchema)
        let (realms, clients) = try await startedClients(["a", "b", "c"], in: scratch, server: server)
        try await realms[0].write { realm in
            for id in 1...3 { _ = try realm.create(Todo.self, value: ["id": id, "title": "t\(id)"]) }
        }
        await clients[0].waitUntilSynchronized()
        for client in clients.dropFirst() { #expect(await eventually { await caughtUp(client, server) }) }
        var random = SyncRulesModelTests.RandomSource(state: 7)
        var inserted = Set<String>(), removed = Set<String>()
        var next = 0
        for step in 0..<300 {
            if step % 25 == 0 { await server.setOnline(Bool.random(using: &random)) }
            let device = Int.random(in: 0..<3, using: &random)
            let id = Int.random(in: 1...3, using: &random)
            next += 1
            let fresh = "v\(next)"
            let kind = Int.random(in: 0..<10, using: &random)
            let choice = Int.random(in: 0..<1000, using: &random)
            let edit = try await realms[device].write { realm -> (inserted: String?, removed: String?) in
                let todo = realm.object(ofType: Todo.self, forPrimaryKey: id)!
                switch kind {
                case 0..<4:
                    todo.tags.insert(fresh, at: choice % (todo.tags.count + 1))
                    return (fresh, nil)
                case 4 where !todo.tags.isEmpty:
                    let gone = todo.tags[choice % todo.tags.count]
                    todo.tags.remove(at: choice % todo.tags.count)
                    return (nil, gone)
                case 5 where todo.tags.count > 1:
                    todo.tags.move(from: choice % todo.tags.count, to: (choice / 7) % todo.tags.count)
                    return (nil, nil)
                case 6, 7:
                    if let label = todo.labels.first, choice % 2 == 0 { todo.labels.remove(label) } else { todo.labels.insert(fresh) }
                    return (nil, nil)
                default:
                    todo.scores["k\(choice % 4)"] = choice % 3 == 0 ? nil : choice
                    return (nil, nil)
                }
            }
            if let value = edit.inserted { inserted.insert(value) }
            if let value = edit.removed { removed.insert(value) }
            if step % 10 == 0 { try await Task.sleep(for: .milliseconds(Int.random(in: 0...20, using: &random))) }
        }
        await server.setOnline(true)
        let settled = await eventually {
            for client in clients {
                if await client.refusal != nil { return true }
                if !(await caughtUp(client, server)) { return false }
            }
            return true
        }
        for client in clients {
            let refusal = await client.refusal, error = await client.lastError
            #expect(refusal == nil, "\(String(describing: refusal))")
            if !settled { Issue.record("not caught up: \(String(describing: error)), \(await client.serverVersion) of \(await server.version), connected \(await client.isConnected), online \(await server.online)") }
        }
        #expect(settled)
        for client in clients { await client.waitUntilSynchronized() }
        let expected = await server.objects.mapValues(\.normalizingSets)
        for (index, realm) in realms.enumerated() {
            #expect(try await syncedObjects(of: realm) == expected, "realm \(index)")
        }
        var tags: [String] = []
        for id in 1...3 { tags += SyncValue.strings(expected[SyncObjectID(className: "Todo", key: .int(Int64(id)))]?["tags"]) }
        #expect(Set(tags).count == tags.count)
        #expect(Set(tags) == inserted.subtracting(removed))
        for client in clients { await client.stop() }
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

extension SyncValue {
    /// A list of strings' elements (none for anything else).
    static func strings(_ value: SyncValue?) -> [String] {
        guard case .list(let elements)? = value else { return [] }
        return elements.compactMap { if case .string(let string) = $0 { string } else { nil } }
    }
}

extension Dictionary where Key == String, Value == SyncValue {
    /// The values with the test model's set (`labels`) sorted, as ``syncedObjects(of:)`` reads it.
    var normalizingSets: Self {
        var copy = self
        if let labels = copy["labels"] { copy["labels"] = .list(SyncValue.strings(labels).sorted().map(SyncValue.string)) }
        return copy
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
