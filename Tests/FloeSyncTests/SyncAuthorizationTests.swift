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
@Suite struct SyncAuthorizationTests {
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
        await clientA.stop()
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
