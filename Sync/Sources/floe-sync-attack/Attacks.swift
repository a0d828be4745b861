import Foundation
import FloeSync

// MARK: Helpers

/// A connection that said hello and got its welcome (nil: refused).
func session(_ token: String?, clientID: String = UUID().uuidString, serverVersion: UInt64 = 0) async -> (RawConnection, welcome: UInt64, acknowledged: UInt64)? {
    let connection = RawConnection(url: url, token: token)
    connection.send(.hello(clientID: clientID, protocolVersion: syncProtocolVersion, schemaVersion: 1, serverVersion: serverVersion))
    guard case .welcome(let latest, let acknowledged)? = await connection.receive(until: { if case .welcome = $0 { true } else { true } }) else {
        connection.finish()
        return nil
    }
    return (connection, latest, acknowledged)
}

/// Sends one upload and waits for its answer: an acknowledgement or an error.
func upload(_ connection: RawConnection, _ changes: [ObjectChange], localVersion: UInt64) async -> ServerMessage? {
    connection.send(.upload(transactions: [UploadedTransaction(localVersion: localVersion, changes: changes)], throughLocalVersion: localVersion))
    return await connection.receive(until: {
        switch $0 {
        case .acknowledge, .error: true
        default: false
        }
    }, within: 30)
}

/// Everything a new device of the token's user receives when it catches up from version 0.
func catchUp(_ token: String) async -> [ObjectChange]? {
    guard let (connection, latest, _) = await session(token) else { return nil }
    defer { connection.finish() }
    var changes: [ObjectChange] = []
    var version: UInt64 = 0
    while version < latest {
        guard case .changes(_, let to, let page)? = await connection.receive(until: { if case .changes = $0 { true } else { false } }, within: 30) else { return nil }
        changes += page
        version = to
    }
    return changes
}

/// The objects `changes` leave, by key.
func objects(after changes: [ObjectChange]) -> [SyncValue: [String: SyncValue]] {
    var objects: [SyncObjectID: [String: SyncValue]] = [:]
    _ = ConflictRules.apply(changes, to: &objects)
    return Dictionary(uniqueKeysWithValues: objects.map { ($0.key.key, $0.value) })
}

/// The server's tables (GET /state, served with --debug-state).
func serverNotes() async throws -> [String: [String: SyncValue]] {
    let (_, body) = try await httpGet(port: port, path: "/state")
    let state = try JSONDecoder().decode([String: [String: [String: SyncValue]]].self, from: Data(body.utf8))
    return state["Note"] ?? [:]
}

func note(_ id: Int64, owner: String, team: String? = nil, title: String = "t") -> ObjectChange {
    ObjectChange(className: "Note", key: .int(id), operation: .insert,
                 values: ["id": .int(id), "ownerId": .string(owner), "teamId": team.map(SyncValue.string) ?? .null, "title": .string(title)])
}

func update(_ id: Int64, _ values: [String: SyncValue]) -> ObjectChange {
    ObjectChange(className: "Note", key: .int(id), operation: .update, values: values)
}

func refusal(_ answer: (status: Int, body: String)) -> SyncError? {
    try? JSONDecoder().decode(SyncError.self, from: Data(answer.body.utf8))
}

func isForbidden(_ message: ServerMessage?, key: Int64, operation: String) -> Bool {
    guard case .error(.forbidden("Note", let refusedKey, let refusedOperation, let rule))? = message else { return false }
    return refusedKey == "\(key)" && refusedOperation == operation && !rule.isEmpty
}

// MARK: Authentication

func authenticationAttacks(_ minter: Minter, _ report: Report) async throws {
    func attempt(_ token: String?, _ name: String, expect reason: String) async throws {
        let headers = token.map { [("Authorization", "Bearer \($0)")] } ?? []
        let answer = try await upgradeAttempt(host: "127.0.0.1", port: port, path: "/sync", headers: headers)
        guard answer.status == 401, case .unauthenticated(let given)? = refusal(answer) else {
            report.check(name, false, "HTTP \(answer.status) \(answer.body)")
            return
        }
        report.check(name, given.contains(reason), "refused, but for: \(given)")
    }
    let now = Int(Date().timeIntervalSince1970)
    var claims = Claims.valid("ann")
    try await attempt(nil, "no token: 401 before the upgrade", expect: "no token")
    try await attempt("not-a-jwt", "a token that is not a JWT: 401", expect: "three base64url parts")
    claims.exp = now - 10
    try await attempt(try await minter.hs256(claims), "an expired token: 401", expect: "expired")
    claims = .valid("ann")
    claims.nbf = now + 600
    try await attempt(try await minter.hs256(claims), "a token not yet valid: 401", expect: "not valid before")
    try await attempt(try await minter.hs256(.valid("ann"), secret: String(repeating: "w", count: 40)), "a token signed with another secret: 401", expect: "signature")
    try await attempt(try await minter.tampered(.valid("ann"), as: "bob"), "a token whose payload was changed after signing: 401", expect: "signature")
    try await attempt(try minter.unsigned(.valid("ann")), "alg none: 401", expect: "signed with 'none'")
    try await attempt(try await minter.confused(.valid("ann")), "HS256 signed with the RSA public key (HS/RS confusion): 401", expect: "signed with 'HS256'")
    try await attempt(try await minter.rs256(.valid("ann"), kid: "es"), "RS256 naming the ES256 key: 401", expect: "signed with 'RS256'")
    try await attempt(try await minter.rs256(.valid("ann"), kid: "zz"), "a kid the server does not have: 401", expect: "signed with 'RS256'")
    claims = .valid("ann")
    claims.iss = "someone-else"
    try await attempt(try await minter.hs256(claims), "a wrong issuer: 401", expect: "issuer")
    claims = .valid("ann")
    claims.aud = "another-app"
    try await attempt(try await minter.hs256(claims), "a wrong audience: 401", expect: "audience")
    claims = .valid("ann")
    claims.exp = nil
    try await attempt(try await minter.hs256(claims), "a token without expiry: 401", expect: "no expiry")
    claims = .valid("ann")
    claims.sub = nil
    try await attempt(try await minter.hs256(claims), "a token without subject: 401", expect: "no subject")

    for (name, token) in [("HS256", try await minter.hs256(.valid("ann"))), ("ES256", try await minter.es256(.valid("ann"))),
                          ("RS256", try await minter.rs256(.valid("ann")))] {
        let answer = try await upgradeAttempt(host: "127.0.0.1", port: port, path: "/sync", headers: [("Authorization", "Bearer \(token)")])
        report.check("a valid \(name) token upgrades", answer.status == 101, "HTTP \(answer.status) \(answer.body)")
    }
    let query = try await upgradeAttempt(host: "127.0.0.1", port: port, path: "/sync?access_token=\(try await minter.hs256(.valid("ann")))", headers: [])
    report.check("a valid token in the access_token query parameter upgrades", query.status == 101, "HTTP \(query.status) \(query.body)")
    // A refused upgrade reads and writes nothing: the plain GET that explains it says the same.
    let plain = try await upgradeAttempt(host: "127.0.0.1", port: port, path: "/sync", headers: [], upgrade: false)
    report.check("a plain GET of /sync explains the refusal (401, typed)", plain.status == 401 && refusal(plain) != nil, "HTTP \(plain.status) \(plain.body)")

    // A token that expires during the session ends it with tokenExpired.
    claims = .valid("ann")
    claims.exp = Int(Date().timeIntervalSince1970) + 2
    if let (connection, _, _) = await session(try await minter.hs256(claims)) {
        let message = await connection.receive(until: { if case .error = $0 { true } else { false } }, within: 10)
        let closed = await connection.closed()
        report.check("a token that expires during the session ends it with tokenExpired", message == .error(.tokenExpired) && closed,
                     "got \(String(describing: message)), close \(connection.close ?? "none")")
        connection.finish()
    } else {
        report.check("a token that expires during the session ends it with tokenExpired", false, "no session")
    }
}

// MARK: Rules

func ruleAttacks(_ minter: Minter, _ report: Report) async throws {
    let ann = try await minter.hs256(.valid("ann"))
    let bob = try await minter.es256(.valid("bob"))
    let carol = try await minter.rs256(.valid("carol", teams: ["red"]))
    let admin = try await minter.hs256(.valid("root", role: "admin"))
    let annID = UUID().uuidString
    guard let (a, _, _) = await session(ann, clientID: annID), let (b, _, _) = await session(bob),
          let (root, _, _) = await session(admin) else {
        report.check("sessions for ann, bob and an admin", false, "refused")
        return
    }
    defer { for connection in [a, b, root] { connection.finish() } }
    var annVersion: UInt64 = 0, bobVersion: UInt64 = 0
    func annUploads(_ changes: [ObjectChange]) async -> ServerMessage? {
        annVersion += 1
        return await upload(a, changes, localVersion: annVersion)
    }
    annVersion += 1
    let setupA = await upload(a, [note(1, owner: "ann"), note(2, owner: "ann"), note(3, owner: "ann")], localVersion: annVersion)
    bobVersion += 1
    let setupB = await upload(b, [note(11, owner: "bob", title: "secret"), note(12, owner: "bob", team: "red", title: "team")], localVersion: bobVersion)
    guard case .acknowledge? = setupA, case .acknowledge? = setupB else {
        report.check("each user creates their own notes", false, "\(String(describing: setupA)) \(String(describing: setupB))")
        return
    }
    report.check("each user creates their own notes", true)
    let before = try await serverNotes()

    report.check("A updating B's object is refused, typed (class, key, rule)", isForbidden(await annUploads([update(11, ["title": .string("mine")])]), key: 11, operation: "update"))
    report.check("A upserting over B's object is refused", isForbidden(await annUploads([note(11, owner: "ann")]), key: 11, operation: "update"))
    report.check("A deleting B's object is refused", isForbidden(await annUploads([ObjectChange(className: "Note", key: .int(11), operation: .delete)]), key: 11, operation: "delete"))
    report.check("A taking B's object (ownerId to A) is refused", isForbidden(await annUploads([update(11, ["ownerId": .string("ann")])]), key: 11, operation: "update"))
    report.check("A giving away their object (ownerId to B) is refused", isForbidden(await annUploads([update(1, ["ownerId": .string("bob")])]), key: 1, operation: "update"))
    report.check("A creating an object as B is refused", isForbidden(await annUploads([note(20, owner: "bob")]), key: 20, operation: "create"))
    report.check("a batch with one forbidden change is refused whole",
                 isForbidden(await annUploads([note(21, owner: "ann"), update(12, ["title": .string("x")])]), key: 12, operation: "update"))
    let after = try await serverNotes()
    report.check("no refused write reached the database", after == before, "before \(before), after \(after)")

    // Reading: catch-up from version 0, per user.
    let annSees = await catchUp(ann).map(objects(after:))
    report.check("A's catch-up from version 0 holds A's objects only", annSees.map { Set($0.keys) } == [.int(1), .int(2), .int(3)], "\(String(describing: annSees))")
    let carolSees = await catchUp(carol).map(objects(after:))
    report.check("a team member's catch-up holds the team's object only", carolSees.map { Set($0.keys) } == [.int(12)], "\(String(describing: carolSees))")
    let rootSees = await catchUp(admin).map(objects(after:))
    report.check("the admin's catch-up holds every object", rootSees?.count == 5, "\(String(describing: rootSees))")
    // Guessing keys: writes to them are refused, and no refusal carries a value.
    var leaked = false
    for key in Int64(10)..<16 {
        if case .error(let error)? = await annUploads([update(key, ["title": .string("probe")])]) {
            if "\(error)".contains("secret") || "\(error)".contains("team") { leaked = true }
        }
    }
    let unchanged = try await serverNotes() == before
    report.check("guessing B's keys yields no value of B's objects", !leaked && unchanged)
    // Asking for objects by key, as a device restoring a discarded change does: what A may not
    // read (or what does not exist) comes back as a delete carrying no value; A's own object whole.
    let asked = (Int64(10)..<16).map { SyncObjectID(className: "Note", key: .int($0)) } + [SyncObjectID(className: "Note", key: .int(1))]
    a.send(.refetch(objects: asked))
    let answer = await a.receive(until: { if case .images = $0 { true } else { false } }, within: 10)
    if case .images(let images)? = answer {
        let others = images.filter { $0.key != .int(1) }
        let own = images.first { $0.key == .int(1) }
        report.check("a refetch of B's keys answers deletes without values", others.count == 6 && others.allSatisfy { $0.operation == .delete && $0.values.isEmpty }, "\(others)")
        report.check("a refetch of A's own object answers it whole", own?.operation == .insert && own?.values["ownerId"] == .string("ann"), "\(String(describing: own))")
    } else {
        report.check("a refetch of B's keys answers deletes without values", false, "\(String(describing: answer))")
    }
    a.send(.refetch(objects: [SyncObjectID(className: "Nope", key: .int(1))]))
    let unknown = await a.receive(until: { if case .error = $0 { true } else { false } }, within: 10)
    report.check("a refetch of an unknown class is refused, typed", unknown == .error(.unknownClass(className: "Nope")), "\(String(describing: unknown))")

    // Ownership moves: the object leaves A's device and reaches B's, whole, on the live stream.
    guard let (live, latest, _) = await session(ann, serverVersion: 0), let (liveB, _, _) = await session(bob) else {
        report.check("live sessions", false, "refused")
        return
    }
    defer { live.finish(); liveB.finish() }
    _ = await live.receive(until: { if case .changes(_, let to, _) = $0 { to >= latest } else { false } }, within: 10)
    _ = await liveB.receive(until: { if case .changes(_, let to, _) = $0 { to >= latest } else { false } }, within: 10)
    let moved = await upload(root, [update(2, ["ownerId": .string("bob")])], localVersion: 1)
    report.check("the admin moves A's object to B", { if case .acknowledge = moved { true } else { false } }(), "\(String(describing: moved))")
    let removal = await live.receive(until: { if case .changes(_, _, let changes) = $0 { !changes.isEmpty } else { false } }, within: 10)
    report.check("the object that stopped being readable is removed from A's device",
                 removal == nil ? false : { if case .changes(_, _, let changes)? = removal { changes == [ObjectChange(className: "Note", key: .int(2), operation: .delete)] } else { false } }(),
                 "\(String(describing: removal))")
    let arrival = await liveB.receive(until: { if case .changes(_, _, let changes) = $0 { !changes.isEmpty } else { false } }, within: 10)
    if case .changes(_, _, let changes)? = arrival, let first = changes.first {
        report.check("the object that became readable reaches B's device whole", changes.count == 1 && first.operation == .insert
                     && first.values["title"] == .string("t") && first.values["ownerId"] == .string("bob"), "\(changes)")
    } else {
        report.check("the object that became readable reaches B's device whole", false, "\(String(describing: arrival))")
    }

    // A device id is the user's own: another user's token with it starts from nothing.
    if let (hijack, _, acknowledged) = await session(bob, clientID: annID) {
        report.check("B claiming A's client id does not get A's cursor", acknowledged == 0, "acknowledged \(acknowledged)")
        hijack.finish()
    }
}

// MARK: Limits

func limitAttacks(_ minter: Minter, _ report: Report) async throws {
    let token = try await minter.hs256(.valid("mallory"))
    func refusedAndClosed(_ name: String, _ connection: RawConnection, _ matches: (SyncError) -> Bool) async {
        let message = await connection.receive(until: { if case .error = $0 { true } else { false } }, within: 10)
        let closed = await connection.closed()
        if case .error(let error)? = message {
            report.check(name, matches(error) && closed, "\(error), closed \(closed)")
        } else {
            report.check(name, closed && (connection.close ?? "").contains("messageTooLarge"), "no typed error; close \(connection.close ?? "none")")
        }
        connection.finish()
    }
    if let (big, _, _) = await session(token) {
        big.send(text: "{\"upload\":{\"transactions\":[],\"throughLocalVersion\":0,\"pad\":\"" + String(repeating: "x", count: 2 << 20) + "\"}}")
        await refusedAndClosed("a message over the size limit is refused and the connection closed", big) {
            if case .limitExceeded("message size", _) = $0 { true } else { false }
        }
    }
    if let (batch, _, _) = await session(token) {
        let changes = (0..<1001).map { note(Int64(100_000 + $0), owner: "mallory") }
        batch.send(.upload(transactions: [UploadedTransaction(localVersion: 1, changes: changes)], throughLocalVersion: 1))
        await refusedAndClosed("an upload over the batch limit is refused and the connection closed", batch) {
            if case .limitExceeded("changes in one upload", _) = $0 { true } else { false }
        }
    }
    if let (garbage, _, _) = await session(token) {
        garbage.send(text: "{\"upload\": [1, 2")
        await refusedAndClosed("malformed JSON is refused, typed, and the connection closed", garbage) {
            if case .malformedMessage = $0 { true } else { false }
        }
    }
    if let (binary, _, _) = await session(token) {
        binary.send(bytes: [0, 1, 2, 255])
        await refusedAndClosed("a binary message is refused, typed, and the connection closed", binary) {
            if case .malformedMessage = $0 { true } else { false }
        }
    }
    let early = RawConnection(url: url, token: token)
    early.send(.upload(transactions: [], throughLocalVersion: 0))
    await refusedAndClosed("an upload before hello is refused, typed", early) { if case .malformedMessage = $0 { true } else { false } }
    let earlyRefetch = RawConnection(url: url, token: token)
    earlyRefetch.send(.refetch(objects: [SyncObjectID(className: "Note", key: .int(1))]))
    await refusedAndClosed("a refetch before hello is refused, typed", earlyRefetch) { if case .malformedMessage = $0 { true } else { false } }
    let silent = RawConnection(url: url, token: token)
    await refusedAndClosed("a client silent after connecting is closed", silent) { if case .malformedMessage = $0 { true } else { false } }
    if let (twice, _, _) = await session(token) {
        twice.send(.hello(clientID: "x", protocolVersion: syncProtocolVersion, schemaVersion: 1, serverVersion: 0))
        await refusedAndClosed("a second hello is refused, typed", twice) { if case .malformedMessage = $0 { true } else { false } }
    }
    // Versions past what PostgreSQL's bigint holds: refused, typed, never a crash.
    let farFuture = RawConnection(url: url, token: token)
    farFuture.send(.hello(clientID: UUID().uuidString, protocolVersion: syncProtocolVersion, schemaVersion: 1, serverVersion: .max))
    await refusedAndClosed("a hello from server version 2^64 - 1 is refused, typed", farFuture) { if case .malformedMessage = $0 { true } else { false } }
    if let (far, _, _) = await session(token) {
        far.send(.upload(transactions: [], throughLocalVersion: .max))
        await refusedAndClosed("an upload through local version 2^64 - 1 is refused, typed", far) { if case .malformedMessage = $0 { true } else { false } }
    }
    let health = try await httpGet(port: port, path: "/health")
    report.check("the server is healthy after the attacks", health.status == 200, "HTTP \(health.status)")
}

/// A flood, against a server whose rate limit is lower than the rate at which it can apply
/// uploads (messages are counted as they are handled, one at a time).
func floodAttack(_ minter: Minter, _ report: Report) async throws {
    let token = try await minter.hs256(.valid("mallory"))
    guard let (flood, _, _) = await session(token) else {
        report.check("a session for the flood", false, "refused")
        return
    }
    for _ in 0..<2000 { flood.send(.upload(transactions: [], throughLocalVersion: 0)) }
    let message = await flood.receive(until: { if case .error = $0 { true } else { false } }, within: 30)
    let closed = await flood.closed()
    if case .error(.limitExceeded("message rate", _))? = message {
        report.check("a flood of messages passes the rate limit, refused typed and closed", closed, "not closed")
    } else {
        report.check("a flood of messages passes the rate limit, refused typed and closed", false, "\(String(describing: message)), close \(flood.close ?? "none")")
    }
    flood.finish()
    let health = try await httpGet(port: port, path: "/health")
    report.check("the server is healthy after the flood", health.status == 200, "HTTP \(health.status)")
}
