import Foundation
import Testing
import Floe
import FloeSync

/// An object owned by one user.
final class OwnedNote: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var ownerId = ""
    @Persisted var title = ""
}

let noteSchema = SyncSchema(version: 1, classes: [
    SyncClass(name: "OwnedNote", primaryKey: "id", properties: [
        SyncProperty(name: "id", kind: .int),
        SyncProperty(name: "ownerId", kind: .string),
        SyncProperty(name: "title", kind: .string),
    ]),
])

/// Tokens for the in-process server: each user's claims.
let annToken = "token-ann", bobToken = "token-bob", adminToken = "token-admin"
let noteTokens: [String: [String: SyncValue]] = [
    annToken: ["sub": .string("ann")], bobToken: ["sub": .string("bob")], adminToken: ["sub": .string("root"), "role": .string("admin")],
]

/// The client against a server with rules: tokens, refusals kept queued, filtered downloads.
@Suite(.hangLimit) struct SyncAuthorizationTests {
    func server() throws -> FakeServer {
        let server = FakeServer(schema: noteSchema)
        return server
    }

    func rules() throws -> SyncRules {
        try SyncRules(["OwnedNote": [
            .read: "ownerId == $jwt.sub OR $jwt.role == 'admin'",
            .create: "ownerId == $jwt.sub", .update: "ownerId == $jwt.sub OR $jwt.role == 'admin'", .delete: "ownerId == $jwt.sub",
        ]], schema: noteSchema)
    }

    func client(_ realm: Realm, _ server: FakeServer, token: String?, calls: Counter? = nil) throws -> SyncClient {
        var options = fastOptions()
        if let token {
            options.tokenProvider = {
                calls?.increment()
                return token
            }
        }
        return try SyncClient(realm: realm, types: [OwnedNote.self], transport: server, options: options)
    }

    func notes(_ realm: Realm) async throws -> [Int: String] {
        try await realm.read { realm in Dictionary(uniqueKeysWithValues: realm.objects(OwnedNote.self).map { ($0.id, $0.ownerId) }) }
    }

    @Test func aConnectionWithoutAValidTokenIsRefused() async throws {
        let scratch = try Scratch()
        let server = try server()
        await server.setRules(try rules(), tokens: noteTokens)
        let realm = try await Realm(configuration: scratch.configuration("a"))
        let none = try client(realm, server, token: nil)
        try await none.start()
        #expect(await eventually { await none.lastError == .unauthenticated(reason: "no token") })
        #expect(await !none.isConnected)
        await none.stop()
        let forged = try client(realm, server, token: "forged")
        try await forged.start()
        #expect(await eventually { await forged.lastError == .unauthenticated(reason: "the token is not valid") })
        await forged.stop()
        #expect(await server.authenticatedConnections == 0)
    }

    @Test func eachUserReceivesOnlyWhatTheyMayRead() async throws {
        let scratch = try Scratch()
        let server = try server()
        await server.setRules(try rules(), tokens: noteTokens)
        let a = try await Realm(configuration: scratch.configuration("a"))
        let b = try await Realm(configuration: scratch.configuration("b"))
        let admin = try await Realm(configuration: scratch.configuration("admin"))
        let clientA = try client(a, server, token: annToken)
        let clientB = try client(b, server, token: bobToken)
        let clientAdmin = try client(admin, server, token: adminToken)
        for client in [clientA, clientB, clientAdmin] { try await client.start() }
        try await a.write { realm in for id in 1...3 { _ = try realm.create(OwnedNote.self, value: ["id": id, "ownerId": "ann", "title": "a\(id)"]) } }
        try await b.write { realm in for id in 11...12 { _ = try realm.create(OwnedNote.self, value: ["id": id, "ownerId": "bob", "title": "b\(id)"]) } }
        await clientA.waitUntilSynchronized()
        await clientB.waitUntilSynchronized()
        #expect(await eventually {
            let all = [await caughtUp(clientA, server), await caughtUp(clientB, server), await caughtUp(clientAdmin, server)]
            return !all.contains(false)
        })
        #expect(try await notes(a) == [1: "ann", 2: "ann", 3: "ann"])
        #expect(try await notes(b) == [11: "bob", 12: "bob"])
        #expect(try await notes(admin).count == 5)

        // The admin gives note 1 to Bob: it leaves Ann's device and reaches Bob's, whole.
        try await admin.write { realm in realm.object(ofType: OwnedNote.self, forPrimaryKey: 1)!.ownerId = "bob" }
        await clientAdmin.waitUntilSynchronized()
        #expect(try await eventually {
            let onA = try await notes(a)[1], onB = try await notes(b)[1]
            return onA == nil && onB == "bob"
        })
        #expect(try await b.read { realm in realm.object(ofType: OwnedNote.self, forPrimaryKey: 1)?.title } == "a1")

        // A device that catches up from the start receives only what its user may read.
        let late = try await Realm(configuration: scratch.configuration("late"))
        let clientLate = try client(late, server, token: annToken)
        try await clientLate.start()
        #expect(await eventually { await caughtUp(clientLate, server) })
        #expect(try await notes(late) == [2: "ann", 3: "ann"])
        for client in [clientA, clientB, clientAdmin, clientLate] { await client.stop() }
    }

    @Test func aRefusedWriteStaysQueuedUntilDiscarded() async throws {
        let scratch = try Scratch()
        let server = try server()
        await server.setRules(try rules(), tokens: noteTokens)
        let a = try await Realm(configuration: scratch.configuration("a"))
        let clientA = try client(a, server, token: annToken)
        try await clientA.start()
        // Creating an object as another user: refused, typed, naming class, key and rule.
        try await a.write { realm in _ = try realm.create(OwnedNote.self, value: ["id": 5, "ownerId": "bob", "title": "forged"]) }
        try await a.write { realm in _ = try realm.create(OwnedNote.self, value: ["id": 6, "ownerId": "ann", "title": "mine"]) }
        let refusal = SyncError.forbidden(className: "OwnedNote", key: "5", operation: "create", rule: "ownerId == $jwt.sub")
        #expect(await eventually { await clientA.refusal == refusal })
        #expect(await server.objects.isEmpty)
        // It stays queued: retried and refused again, and what follows waits behind it.
        let refusals = await server.rejections
        #expect(await eventually { await server.rejections > refusals })
        #expect(await server.objects.isEmpty)
        // Discarded (once the refusal names the one transaction), the queue moves on: the next
        // write reaches the server, the refused one never does.
        #expect(try await eventually { try await clientA.discardRefusedChanges() })
        await clientA.waitUntilSynchronized()
        #expect(await eventually { await server.objects.keys.map(\.key) == [.int(6)] })
        #expect(await clientA.refusal == nil)
        #expect(try await !clientA.discardRefusedChanges())
        // The device holds what the server holds: the forged note, which the server never had, is gone.
        #expect(try await notes(a) == [6: "ann"])
        await clientA.stop()
    }

    /// A refetch answers only what the token may read: another user's object and a missing one
    /// alike come back as a delete carrying no value, so asking by key reveals nothing.
    @Test func aRefetchRevealsNothingTheTokenMayNotRead() async throws {
        let server = try server()
        await server.setRules(try rules(), tokens: noteTokens)
        let bob = try await server.connect(token: bobToken)
        try await bob.send(.hello(clientID: "bob", protocolVersion: syncProtocolVersion, schemaVersion: 1, serverVersion: 0))
        _ = try await bob.receive()
        try await bob.send(.upload(transactions: [UploadedTransaction(localVersion: 1, changes: [
            ObjectChange(className: "OwnedNote", key: .int(11), operation: .insert, values: ["id": .int(11), "ownerId": .string("bob"), "title": .string("secret")]),
        ])], throughLocalVersion: 1))
        let ann = try await server.connect(token: annToken)
        try await ann.send(.hello(clientID: "ann", protocolVersion: syncProtocolVersion, schemaVersion: 1, serverVersion: 0))
        _ = try await ann.receive()
        try await ann.send(.upload(transactions: [UploadedTransaction(localVersion: 1, changes: [
            ObjectChange(className: "OwnedNote", key: .int(1), operation: .insert, values: ["id": .int(1), "ownerId": .string("ann"), "title": .string("mine")]),
        ])], throughLocalVersion: 1))
        let asked = [11, 12, 1].map { SyncObjectID(className: "OwnedNote", key: .int($0)) }
        try await ann.send(.refetch(objects: asked))
        var answer: [FloeSync.ObjectChange]?
        while answer == nil, let message = try await ann.receive() {
            if case .images(let objects) = message { answer = objects }
        }
        #expect(answer == [
            ObjectChange(className: "OwnedNote", key: .int(11), operation: .delete),
            ObjectChange(className: "OwnedNote", key: .int(12), operation: .delete),
            ObjectChange(className: "OwnedNote", key: .int(1), operation: .insert, values: ["id": .int(1), "ownerId": .string("ann"), "title": .string("mine")]),
        ])
        // Without rules, an object anyone may read comes back whole.
        #expect(ObjectChange.image(of: asked[0], values: ["id": .int(11), "ownerId": .string("bob")], rules: nil, claims: [:]).operation == .insert)
        await ann.close()
        await bob.close()
    }

    /// A connection lost while the client waits for a discard's restore ends its session (the
    /// uploader waiting behind the restore stops with it), and the next connection asks again.
    @Test func aRestoreLostWithItsConnectionIsAskedForAgain() async throws {
        let scratch = try Scratch()
        let server = try server()
        await server.setRules(try rules(), tokens: noteTokens)
        let a = try await Realm(configuration: scratch.configuration("a"))
        let clientA = try client(a, server, token: annToken)
        try await clientA.start()
        try await a.write { realm in _ = try realm.create(OwnedNote.self, value: ["id": 5, "ownerId": "bob", "title": "forged"]) }
        #expect(await eventually { await clientA.refusal != nil })
        await server.setAnswersRefetch(false)
        #expect(try await eventually { try await clientA.discardRefusedChanges() })
        try await a.write { realm in _ = try realm.create(OwnedNote.self, value: ["id": 6, "ownerId": "ann", "title": "queued"]) }
        #expect(await eventually { await clientA.isConnected })
        // Connected, unanswered: the note queued behind the discard waits.
        try await Task.sleep(for: .milliseconds(200))
        #expect(await server.objects.isEmpty)
        #expect(try await notes(a) == [5: "bob", 6: "ann"])
        await server.setOnline(false)
        await server.setAnswersRefetch(true)
        await server.setOnline(true)
        await clientA.waitUntilSynchronized()
        #expect(try await notes(a) == [6: "ann"])
        #expect(await server.objects.keys.map(\.key) == [.int(6)])
        await clientA.stop()
    }

    /// Discarding a refusal leaves on the device what the server holds of the objects it
    /// touched, as Realm's compensating writes do: an update undone, a delete undone, a create
    /// removed; the restoring write is never uploaded; a discard made offline is restored on the
    /// next connection, and changes queued behind it wait until then.
    @Test func aDiscardedRefusalLeavesTheServersValuesOnTheDevice() async throws {
        let scratch = try Scratch()
        let server = try server()
        await server.setRules(try rules(), tokens: noteTokens)
        let a = try await Realm(configuration: scratch.configuration("a"))
        let admin = try await Realm(configuration: scratch.configuration("admin"))
        let clientA = try client(a, server, token: annToken)
        let clientAdmin = try client(admin, server, token: adminToken)
        try await clientA.start()
        try await clientAdmin.start()
        try await a.write { realm in
            _ = try realm.create(OwnedNote.self, value: ["id": 1, "ownerId": "ann", "title": "mine"])
            _ = try realm.create(OwnedNote.self, value: ["id": 2, "ownerId": "ann", "title": "also mine"])
        }
        await clientA.waitUntilSynchronized()
        func titles(_ realm: Realm) async throws -> [Int: String] {
            try await realm.read { realm in Dictionary(uniqueKeysWithValues: realm.objects(OwnedNote.self).map { ($0.id, "\($0.ownerId):\($0.title)") }) }
        }

        // An update the rules refuse (giving the note away), with a change queued behind it.
        try await a.write { realm in
            let note = realm.object(ofType: OwnedNote.self, forPrimaryKey: 1)!
            note.ownerId = "bob"
            note.title = "given away"
        }
        try await a.write { realm in realm.object(ofType: OwnedNote.self, forPrimaryKey: 2)!.title = "edited" }
        #expect(await eventually { await clientA.refusal != nil })
        #expect(try await titles(a)[1] == "bob:given away")
        #expect(try await eventually { try await clientA.discardRefusedChanges() })
        await clientA.waitUntilSynchronized()
        #expect(try await titles(a) == [1: "ann:mine", 2: "ann:edited"])
        #expect(await server.objects[SyncObjectID(className: "OwnedNote", key: .int(2))]?["title"] == .string("edited"))
        #expect(await server.objects[SyncObjectID(className: "OwnedNote", key: .int(1))]?["ownerId"] == .string("ann"))

        // A delete the rules refuse (the admin may read and update Ann's notes, not delete them).
        #expect(await eventually { await caughtUp(clientAdmin, server) })
        try await admin.write { realm in try realm.delete(realm.object(ofType: OwnedNote.self, forPrimaryKey: 2)!) }
        #expect(await eventually { await clientAdmin.refusal != nil })
        #expect(try await eventually { try await clientAdmin.discardRefusedChanges() })
        await clientAdmin.waitUntilSynchronized()
        #expect(try await titles(admin) == [1: "ann:mine", 2: "ann:edited"])

        // A create the rules refuse, discarded while the server is away: restored on the next connection.
        try await a.write { realm in _ = try realm.create(OwnedNote.self, value: ["id": 5, "ownerId": "bob", "title": "forged"]) }
        #expect(await eventually { await clientA.refusal != nil })
        await server.setOnline(false)
        #expect(try await eventually { try await clientA.discardRefusedChanges() })
        try await a.write { realm in _ = try realm.create(OwnedNote.self, value: ["id": 7, "ownerId": "ann", "title": "queued"]) }
        #expect(try await titles(a)[5] == "bob:forged")
        await server.setOnline(true)
        await clientA.waitUntilSynchronized()
        #expect(try await titles(a) == [1: "ann:mine", 2: "ann:edited", 7: "ann:queued"])
        #expect(await eventually { await server.objects[SyncObjectID(className: "OwnedNote", key: .int(7))] != nil })
        #expect(await server.objects[SyncObjectID(className: "OwnedNote", key: .int(5))] == nil)
        #expect(await server.refetches >= 3)

        // The restoring writes were never uploaded: the server applied Ann's three accepted
        // transactions only (the two notes, the edit, the queued note).
        let appliedByAnn = await server.appliedLocalVersions[await clientA.clientID] ?? []
        #expect(appliedByAnn.count == 3, "\(appliedByAnn)")
        for client in [clientA, clientAdmin] { await client.stop() }
    }

    @Test func anExpiredTokenIsReplacedAndTheSessionResumes() async throws {
        let scratch = try Scratch()
        let server = try server()
        await server.setRules(try rules(), tokens: noteTokens)
        let a = try await Realm(configuration: scratch.configuration("a"))
        let calls = Counter()
        // The provider hands out a new token each time; the server learns it as it is issued.
        var options = fastOptions()
        options.tokenProvider = {
            let token = "ann-\(calls.increment())"
            await server.setRules(try SyncRules(["OwnedNote": [.read: "ownerId == $jwt.sub", .create: "ownerId == $jwt.sub"]], schema: noteSchema),
                                  tokens: await server.tokens.merging([token: ["sub": .string("ann")]]) { $1 })
            return token
        }
        let clientA = try SyncClient(realm: a, types: [OwnedNote.self], transport: server, options: options)
        try await clientA.start()
        try await a.write { realm in _ = try realm.create(OwnedNote.self, value: ["id": 1, "ownerId": "ann"]) }
        await clientA.waitUntilSynchronized()
        #expect(calls.value == 1)
        await server.expire("ann-1")
        #expect(await eventually {
            let connected = await clientA.isConnected
            return calls.value == 2 && connected
        })
        try await a.write { realm in _ = try realm.create(OwnedNote.self, value: ["id": 2, "ownerId": "ann"]) }
        await clientA.waitUntilSynchronized()
        #expect(await server.objects.count == 2)
        #expect(await server.appliedLocalVersions[clientA.clientID]?.count == 2)
        await clientA.stop()
    }
}

/// A counter shared with a `@Sendable` closure.
final class Counter: @unchecked Sendable {
    // @unchecked: every access holds the lock.
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    @discardableResult func increment() -> Int { lock.withLock { count += 1; return count } }
}
