import Foundation
import FloeSync

/// An in-process sync server with the same rules as the PostgreSQL one: uploads validated
/// against its schema and applied whole or not at all, with ``ConflictRules``, one server
/// version per applied upload, every connection streamed the log after its version.
actor FakeServer: SyncTransport {
    var schema: SyncSchema
    var objects: [SyncObjectID: [String: SyncValue]] = [:]
    var log: [(version: UInt64, changes: [ObjectChange])] = []
    var acknowledged: [String: UInt64] = [:]
    var online = true
    /// Every local version applied, per client, in arrival order (a version twice is a duplicate upload).
    var appliedLocalVersions: [String: [UInt64]] = [:]
    var rejections = 0
    /// How many `refetch` requests were answered.
    var refetches = 0
    /// False: `refetch` requests go unanswered (a server that drops the connection before answering).
    var answersRefetch = true
    /// With rules, uploads are authorized and downloads filtered by them, as the real server does.
    var rules: SyncRules?
    /// The tokens the server accepts, with their claims (with rules, a connection needs one).
    var tokens: [String: [String: SyncValue]] = [:]
    /// The objects' values before and after each logged change, by version (kept with rules).
    var images: [UInt64: [(before: [String: SyncValue]?, after: [String: SyncValue]?)]] = [:]
    /// How many connections presented a token.
    var authenticatedConnections = 0
    private var connections: [ObjectIdentifier: FakeConnection] = [:]
    private var sent: [ObjectIdentifier: UInt64] = [:]

    init(schema: SyncSchema) {
        self.schema = schema
    }

    var version: UInt64 { log.last?.version ?? 0 }

    func setOnline(_ online: Bool) async {
        self.online = online
        if !online { await dropConnections() }
    }

    func setSchema(_ schema: SyncSchema) { self.schema = schema }

    func setAnswersRefetch(_ answers: Bool) { answersRefetch = answers }

    func setRules(_ rules: SyncRules?, tokens: [String: [String: SyncValue]]) {
        self.rules = rules
        self.tokens = tokens
    }

    /// Ends the sessions of connections presenting `token` with ``SyncError/tokenExpired``, and refuses it from now on.
    func expire(_ token: String) {
        tokens[token] = nil
        for (id, connection) in connections where connection.token == token {
            connection.deliver(.error(.tokenExpired))
            connection.finish()
            connections[id] = nil
            sent[id] = nil
        }
    }

    func dropConnections() async {
        let open = Array(connections.values)
        connections = [:]
        sent = [:]
        for connection in open { connection.finish() }
    }

    nonisolated func connect() async throws -> any SyncConnection {
        try await connect(token: nil)
    }

    nonisolated func connect(token: String?) async throws -> any SyncConnection {
        guard await online else { throw SyncError.connection(detail: "the server is offline") }
        return try await accept(token: token)
    }

    private func accept(token: String?) throws -> FakeConnection {
        let connection = FakeConnection(server: self)
        if rules != nil {
            guard let token else { throw SyncError.unauthenticated(reason: "no token") }
            guard let claims = tokens[token] else { throw SyncError.unauthenticated(reason: "the token is not valid") }
            connection.token = token
            connection.claims = claims
            authenticatedConnections += 1
        }
        return connection
    }

    func receive(_ message: ClientMessage, from connection: FakeConnection) {
        let id = ObjectIdentifier(connection)
        switch message {
        case .hello(let clientID, let protocolVersion, let schemaVersion, let serverVersion):
            if protocolVersion != syncProtocolVersion {
                connection.deliver(.error(.unsupportedProtocol(client: protocolVersion, server: syncProtocolVersion)))
                connection.finish()
                return
            }
            if schemaVersion > schema.version {
                connection.deliver(.error(.futureSchemaVersion(client: schemaVersion, server: schema.version)))
                connection.finish()
                return
            }
            connection.clientID = clientID
            connections[id] = connection
            connection.deliver(.welcome(serverVersion: version, acknowledgedLocalVersion: acknowledged[clientID] ?? 0))
            sent[id] = serverVersion
            stream(to: connection)
        case .upload(let transactions, let through):
            guard let clientID = connection.clientID else { return }
            let done = acknowledged[clientID] ?? 0
            let fresh = transactions.filter { $0.localVersion > done }
            do {
                for transaction in fresh { for change in transaction.changes { try schema.validate(change) } }
            } catch {
                rejections += 1
                connection.deliver(.error(error))
                return
            }
            var applied: [ObjectChange] = []
            var appliedImages: [(before: [String: SyncValue]?, after: [String: SyncValue]?)] = []
            if let rules {
                // All or nothing: every change is authorized against the objects as the batch leaves them.
                var working = objects
                do {
                    for transaction in fresh {
                        for change in transaction.changes {
                            let before = working[change.objectID]
                            // A merged collection is judged as it will be stored.
                            let resolved = ConflictRules.resolved(change, current: before)
                            let after = try rules.authorize(resolved, before: before, claims: connection.claims)
                            if ConflictRules.apply(resolved, to: &working) != nil { appliedImages.append((before, after)) }
                        }
                    }
                } catch {
                    rejections += 1
                    connection.deliver(.error(error))
                    return
                }
            }
            for transaction in fresh {
                applied += ConflictRules.apply(transaction.changes, to: &objects)
                appliedLocalVersions[clientID, default: []].append(transaction.localVersion)
            }
            if !applied.isEmpty {
                log.append((version + 1, applied))
                if rules != nil { images[version] = appliedImages }
            }
            acknowledged[clientID] = max(done, through)
            connection.deliver(.acknowledge(localVersion: through, serverVersion: version))
            for other in connections.values { stream(to: other) }
        case .refetch(let ids):
            guard connection.clientID != nil, answersRefetch else { return }
            refetches += 1
            stream(to: connection)
            connection.deliver(.images(objects: ids.map { ObjectChange.image(of: $0, values: objects[$0], rules: rules, claims: connection.claims) }))
        }
    }

    /// Logs `changes` as the next server version, as if another client had uploaded them
    /// (unchecked against the schema), and streams them to every connection.
    func inject(_ changes: [ObjectChange]) {
        log.append((version + 1, changes))
        for connection in connections.values { stream(to: connection) }
    }

    private func stream(to connection: FakeConnection) {
        let id = ObjectIdentifier(connection)
        guard let from = sent[id], from < version else { return }
        var changes: [ObjectChange] = []
        for entry in log where entry.version > from {
            guard let rules else {
                changes += entry.changes
                continue
            }
            for (change, image) in zip(entry.changes, images[entry.version] ?? []) {
                if let visible = rules.visibleChange(change, before: image.before, after: image.after, claims: connection.claims) {
                    changes.append(visible)
                }
            }
        }
        connection.deliver(.changes(fromVersion: from, toVersion: version, changes: changes))
        sent[id] = version
    }

    func closed(_ connection: FakeConnection) {
        connections[ObjectIdentifier(connection)] = nil
        sent[ObjectIdentifier(connection)] = nil
    }
}

/// One connection to the fake server: messages travel as JSON, as over the WebSocket.
final class FakeConnection: SyncConnection, @unchecked Sendable {
    let server: FakeServer
    private let lock = NSLock()
    private var _clientID: String?
    /// The token the connection presented, and its claims.
    var token: String?
    var claims: [String: SyncValue] = [:]
    private let messages: AsyncStream<Data>
    private let continuation: AsyncStream<Data>.Continuation
    private let iterator: Iterator

    final class Iterator: @unchecked Sendable {
        var base: AsyncStream<Data>.Iterator
        init(_ base: AsyncStream<Data>.Iterator) { self.base = base }
    }

    init(server: FakeServer) {
        self.server = server
        (messages, continuation) = AsyncStream.makeStream(of: Data.self)
        iterator = Iterator(messages.makeAsyncIterator())
    }

    var clientID: String? {
        get { lock.withLock { _clientID } }
        set { lock.withLock { _clientID = newValue } }
    }

    func deliver(_ message: ServerMessage) {
        continuation.yield(try! JSONEncoder().encode(message))
    }

    func finish() { continuation.finish() }

    func send(_ message: ClientMessage) async throws {
        let data = try JSONEncoder().encode(message)
        await server.receive(try JSONDecoder().decode(ClientMessage.self, from: data), from: self)
    }

    func receive() async throws -> ServerMessage? {
        guard let data = await iterator.base.next() else { return nil }
        return try JSONDecoder().decode(ServerMessage.self, from: data)
    }

    func close() async {
        continuation.finish()
        await server.closed(self)
    }
}
