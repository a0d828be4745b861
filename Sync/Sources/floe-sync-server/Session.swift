import Foundation
import FloeSync
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket
import PostgresNIO

/// What one connection may send.
struct Limits: Sendable {
    /// The largest message, in bytes (a larger one is refused and the connection closed).
    var messageBytes = 64 << 20
    /// The most object changes one upload may carry. A client never splits a transaction, so
    /// this must exceed the largest transaction an app commits, or that transaction never uploads.
    var batchChanges = 100_000
    /// The messages a connection may send per second on average, and in a burst.
    var messagesPerSecond = 100.0
    var burst = 200.0
    /// How long a connection may stay silent before its `hello`.
    var helloTimeout: Duration = .seconds(10)
}

/// Counts a connection's messages against its rate (a token bucket).
struct RateLimiter {
    let rate: Double
    let burst: Double
    private var tokens: Double
    private var last = ContinuousClock.now

    init(rate: Double, burst: Double) {
        self.rate = rate
        self.burst = burst
        tokens = burst
    }

    /// Whether one more message fits.
    mutating func admit() -> Bool {
        let now = ContinuousClock.now
        let elapsed = now - last
        last = now
        tokens = min(burst, tokens + rate * (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18))
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}

/// The newest committed server version, and the connections waiting for a newer one.
actor Hub {
    private(set) var latest: UInt64 = 0
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func publish(_ version: UInt64) {
        guard version > latest else { return }
        latest = version
        let waiting = waiters
        waiters = []
        for waiter in waiting { waiter.resume() }
    }

    /// Returns once the newest version is after `version` (or at once when it already is).
    func wait(after version: UInt64) async {
        while latest <= version && !Task.isCancelled {
            await withCheckedContinuation { waiters.append($0) }
        }
    }
}

/// Writes to one WebSocket, one message at a time. A write waits while the client does not
/// read (the channel is not writable), so a slow client holds the server back by one page of
/// changes at most, never an unbounded queue.
actor Outbox {
    let outbound: WebSocketOutboundWriter
    let metrics: ServerMetrics
    let logger: Logger
    let encoder = JSONEncoder()
    init(_ outbound: WebSocketOutboundWriter, metrics: ServerMetrics, logger: Logger) {
        self.outbound = outbound
        self.metrics = metrics
        self.logger = logger
    }

    func send(_ message: ServerMessage) async throws {
        if case .error(let error) = message {
            metrics.refused(error)
            logger.notice("refused", metadata: ["reason": "\(ServerMetrics.reason(error))", "detail": "\(error)"])
        }
        try await outbound.write(.text(String(decoding: try encoder.encode(message), as: UTF8.self)))
    }

    /// A `changes` message from logged changes, each already the JSON of an `ObjectChange`
    /// (the same text `send(.changes(...))` would write).
    func sendChanges(from: UInt64, to: UInt64, _ changes: [String]) async throws {
        var text = "{\"changes\":{\"fromVersion\":\(from),\"toVersion\":\(to),\"changes\":["
        text.reserveCapacity(changes.reduce(text.utf8.count + 3) { $0 + $1.utf8.count + 1 })
        for (index, change) in changes.enumerated() {
            if index > 0 { text += "," }
            text += change
        }
        text += "]}}"
        try await outbound.write(.text(text))
        metrics.pagesSent.increment()
        metrics.changesSent.increment(by: changes.count)
    }

    /// Sends `error` and closes the connection.
    func refuse(_ error: SyncError, code: WebSocketErrorCode = .policyViolation) async {
        try? await send(.error(error))
        try? await outbound.close(code, reason: nil)
    }
}

/// Uploads are applied one at a time, in arrival order (the database lock orders them too,
/// across server processes).
actor Uploads {
    let database: Database
    init(database: Database) { self.database = database }

    func apply(_ transactions: [UploadedTransaction], through: UInt64, from clientID: String, rules: SyncRules?,
               claims: [String: SyncValue]) async throws -> UInt64 {
        do {
            return try await database.apply(transactions, through: through, from: clientID, rules: rules, claims: claims)
        } catch let error as PostgresTransactionError {
            // A rule's refusal, with the transaction rolled back: nothing of the batch applied.
            if let refusal = error.closureError as? SyncError, error.rollbackError == nil { throw refusal }
            throw error
        }
    }
}

/// The server's parts, shared by every connection.
struct SyncService: Sendable {
    let database: Database
    let schema: SyncSchema
    let rules: SyncRules?
    let authenticator: Authenticator?
    let limits: Limits
    let hub = Hub()
    let uploads: Uploads
    let metrics = ServerMetrics()
    let pages: LogPages

    init(database: Database, schema: SyncSchema, rules: SyncRules?, authenticator: Authenticator?, limits: Limits, sharedPages: Bool = true) {
        self.database = database
        self.schema = schema
        self.rules = rules
        self.authenticator = authenticator
        self.limits = limits
        uploads = Uploads(database: database)
        pages = LogPages(database: database, shared: sharedPages)
    }

    /// One WebSocket connection, from its first message to its close.
    func serve(_ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter, request: Request) async throws {
        var logger = database.logger
        logger[metadataKey: "connection"] = "\(UInt32.random(in: 0...UInt32.max))"
        let outbox = Outbox(outbound, metrics: metrics, logger: logger)
        metrics.connectionsOpened.increment()
        metrics.connections.increment()
        defer { metrics.connections.decrement() }
        // The gate let the upgrade through; the token is read again for its claims (it may
        // have expired in between).
        var claims: [String: SyncValue] = [:]
        if let authenticator {
            let token = Authenticator.token(authorization: request.headers[.authorization], query: request.uri.query)
            do throws(SyncError) {
                claims = try await authenticator.verify(token)
            } catch {
                await outbox.refuse(error)
                return
            }
        }
        let expiry = Authenticator.seconds(claims["exp"]).map { expiry in
            Task {
                // In steps of a day at most: an expiry centuries away is a wait too long to express.
                while !Task.isCancelled, case let wait = expiry - Date().timeIntervalSince1970, wait > 0 {
                    try? await Task.sleep(for: .milliseconds(Int64(min(wait, 86_400) * 1000)))
                }
                if !Task.isCancelled { await outbox.refuse(.tokenExpired) }
            }
        }
        let silence = Task {
            try? await Task.sleep(for: limits.helloTimeout)
            if !Task.isCancelled { await outbox.refuse(.malformedMessage(detail: "no hello within \(limits.helloTimeout)")) }
        }
        logger.info("connected", metadata: ["sub": "\(claims["sub"]?.description ?? "-")"])
        defer { logger.info("disconnected") }
        var session = Session(service: self, outbox: outbox, claims: claims)
        defer {
            expiry?.cancel()
            silence.cancel()
            session.streaming?.cancel()
        }
        var rate = RateLimiter(rate: limits.messagesPerSecond, burst: limits.burst)
        var message = ByteBuffer()
        var isText = true
        for try await frame in inbound {
            switch frame.opcode {
            case .text, .binary:
                message.clear()
                isText = frame.opcode == .text
            case .continuation:
                break
            }
            guard message.readableBytes + frame.data.readableBytes <= limits.messageBytes else {
                await outbox.refuse(.limitExceeded(limit: "message size", value: "more than \(limits.messageBytes) bytes"), code: .messageTooLarge)
                return
            }
            var data = frame.data
            message.writeBuffer(&data)
            guard frame.fin else { continue }
            guard rate.admit() else {
                await outbox.refuse(.limitExceeded(limit: "message rate", value: "more than \(Int(limits.burst)) messages at once or \(Int(limits.messagesPerSecond)) a second"))
                return
            }
            guard isText else {
                await outbox.refuse(.malformedMessage(detail: "a binary message: the protocol's messages are JSON text"), code: .unacceptableData)
                return
            }
            let decoded: ClientMessage
            do {
                decoded = try JSONDecoder().decode(ClientMessage.self, from: Data(message.readableBytesView))
            } catch {
                await outbox.refuse(.malformedMessage(detail: "not a protocol message: \(error)"), code: .unacceptableData)
                return
            }
            if case .hello = decoded { silence.cancel() }
            guard try await session.handle(decoded) else { return }
        }
    }
}

/// One connection's state: who it is and what it has been sent.
struct Session {
    let service: SyncService
    let outbox: Outbox
    let claims: [String: SyncValue]
    var clientID: String?
    var streaming: Task<Void, Never>?

    init(service: SyncService, outbox: Outbox, claims: [String: SyncValue]) {
        self.service = service
        self.outbox = outbox
        self.claims = claims
    }

    /// Handles one message; false when the connection is to close.
    mutating func handle(_ message: ClientMessage) async throws -> Bool {
        switch message {
        case .hello(let id, let protocolVersion, let schemaVersion, let serverVersion):
            guard clientID == nil else {
                await outbox.refuse(.malformedMessage(detail: "a second hello"))
                return false
            }
            if protocolVersion != syncProtocolVersion {
                try await outbox.send(.error(.unsupportedProtocol(client: protocolVersion, server: syncProtocolVersion)))
                return false
            }
            if schemaVersion > service.schema.version {
                try await outbox.send(.error(.futureSchemaVersion(client: schemaVersion, server: service.schema.version)))
                return false
            }
            // Versions are PostgreSQL bigints: a larger one is no version the server ever gave.
            guard serverVersion <= UInt64(Int64.max) else {
                await outbox.refuse(.malformedMessage(detail: "a server version of \(serverVersion), beyond any the server gives"))
                return false
            }
            guard !id.isEmpty, id.utf8.count <= 200 else {
                await outbox.refuse(.malformedMessage(detail: "a client id of \(id.utf8.count) bytes (1 to 200)"))
                return false
            }
            // With tokens, a client's cursor belongs to its user: a token for one user cannot
            // move the cursor of another user's device (and make the server skip its uploads).
            let storedID = service.authenticator == nil ? id : "\(claims["sub"]?.description ?? "")/\(id)"
            clientID = storedID
            let latest: UInt64
            let acknowledged: UInt64
            do {
                latest = try await service.database.latestVersion()
                acknowledged = try await service.database.acknowledgedLocalVersion(of: storedID)
            } catch {
                try await outbox.send(.error(.serverUnavailable(detail: "\(String(reflecting: error))")))
                return false
            }
            await service.hub.publish(latest)
            try await outbox.send(.welcome(serverVersion: latest, acknowledgedLocalVersion: acknowledged))
            streaming = stream(after: serverVersion)
            return true
        case .upload(let transactions, let through):
            guard let clientID else {
                await outbox.refuse(.malformedMessage(detail: "an upload before hello"))
                return false
            }
            guard through <= UInt64(Int64.max) else {
                await outbox.refuse(.malformedMessage(detail: "an upload through local version \(through), beyond what the server stores"))
                return false
            }
            let count = transactions.reduce(0) { $0 + $1.changes.count }
            guard count <= service.limits.batchChanges else {
                await outbox.refuse(.limitExceeded(limit: "changes in one upload", value: "\(count), more than \(service.limits.batchChanges)"))
                return false
            }
            do throws(SyncError) {
                for transaction in transactions { for change in transaction.changes { try service.schema.validate(change) } }
            } catch {
                // Nothing of the batch is applied; the client keeps it queued.
                try await outbox.send(.error(error))
                return true
            }
            let version: UInt64
            do {
                version = try await service.metrics.time(service.metrics.uploadTime) {
                    try await service.uploads.apply(transactions, through: through, from: clientID, rules: service.rules, claims: claims)
                }
                service.metrics.uploads.increment()
                service.metrics.uploadedChanges.increment(by: count)
            } catch let refusal as SyncError {
                // A rule refused a change: the transaction rolled back, the client keeps the batch queued.
                try await outbox.send(.error(refusal))
                return true
            } catch {
                service.metrics.databaseErrors.increment()
                try await outbox.send(.error(.serverUnavailable(detail: "\(String(reflecting: error))")))
                return false
            }
            try await outbox.send(.acknowledge(localVersion: through, serverVersion: version))
            await service.hub.publish(version)
            return true
        case .refetch(let objects):
            guard clientID != nil else {
                await outbox.refuse(.malformedMessage(detail: "a refetch before hello"))
                return false
            }
            guard objects.count <= service.limits.batchChanges else {
                await outbox.refuse(.limitExceeded(limit: "objects in one refetch", value: "\(objects.count), more than \(service.limits.batchChanges)"))
                return false
            }
            do throws(SyncError) {
                // A class and a key the schema knows, or a typed refusal naming them.
                for object in objects { try service.schema.validate(ObjectChange(className: object.className, key: object.key, operation: .delete)) }
            } catch {
                try await outbox.send(.error(error))
                return true
            }
            let images: [ObjectChange]
            do {
                images = try await service.database.images(of: objects, rules: service.rules, claims: claims)
            } catch {
                try await outbox.send(.error(.serverUnavailable(detail: "\(String(reflecting: error))")))
                return false
            }
            try await outbox.send(.images(objects: images))
            return true
        }
    }

    /// The log after the client's version, then each new version as it commits; with rules,
    /// only what the connection's token may read.
    private func stream(after version: UInt64) -> Task<Void, Never> {
        let service = service, outbox = outbox, claims = claims
        return Task {
            var sent = version
            let filter = service.rules.map { service.database.readFilter(rules: $0, claims: claims) }
            let metrics = service.metrics
            while !Task.isCancelled {
                let latest = await service.hub.latest
                if latest > sent { metrics.lag.record(latest - sent) }
                do {
                    let page = try await metrics.time(metrics.logReadTime) { try await service.pages.page(after: sent, filter: filter) }
                    if page.through > sent {
                        let changes: [String]
                        if let rules = service.rules, let filter {
                            changes = try service.database.visible(page, rules: rules, claims: claims, filter: filter)
                        } else {
                            changes = page.changes.map(\.change)
                        }
                        try await outbox.sendChanges(from: sent, to: page.through, changes)
                        sent = page.through
                        continue
                    }
                } catch {
                    metrics.databaseErrors.increment()
                    await outbox.refuse(.serverUnavailable(detail: "\(String(reflecting: error))"), code: .unexpectedServerError)
                    return
                }
                await service.hub.wait(after: sent)
            }
        }
    }
}
