import Foundation
import FloeSync
import Hummingbird
import HummingbirdWebSocket
import Logging
import PostgresNIO

// floe-sync-server: FloeSync clients connect over a WebSocket (/sync); uploads are checked
// against the schema and applied in one PostgreSQL transaction each; every connection is
// streamed the change log after the server version it holds. GET /state lists the tables'
// objects as sync values; GET /health answers once the database is reachable.

func argument(_ name: String) -> String? {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

guard let schemaPath = argument("--schema") else {
    FileHandle.standardError.write(Data("""
        usage: floe-sync-server --schema schema.json [--port 8080] [--pg-host 127.0.0.1] [--pg-port 5432]
                                [--pg-user postgres] [--pg-password ...] [--pg-database postgres]

        """.utf8))
    exit(2)
}
let schema: SyncSchema
do {
    schema = try JSONDecoder().decode(SyncSchema.self, from: Data(contentsOf: URL(fileURLWithPath: schemaPath)))
} catch {
    FileHandle.standardError.write(Data("floe-sync-server: cannot read the schema \(schemaPath): \(error)\n".utf8))
    exit(2)
}
let port = Int(argument("--port") ?? "8080") ?? 8080
var logger = Logger(label: "floe-sync-server")
logger.logLevel = .warning
let postgres = PostgresClient(configuration: .init(
    host: argument("--pg-host") ?? "127.0.0.1", port: Int(argument("--pg-port") ?? "5432") ?? 5432,
    username: argument("--pg-user") ?? "postgres", password: argument("--pg-password"),
    database: argument("--pg-database") ?? "postgres", tls: .disable))
let database = Database(client: postgres, schema: schema, logger: logger)

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

    /// Wakes every waiter (at shutdown).
    func wakeAll() {
        let waiting = waiters
        waiters = []
        for waiter in waiting { waiter.resume() }
    }
}
let hub = Hub()

/// Writes to one WebSocket, one message at a time.
actor Outbox {
    let outbound: WebSocketOutboundWriter
    let encoder = JSONEncoder()
    init(_ outbound: WebSocketOutboundWriter) { self.outbound = outbound }

    func send(_ message: ServerMessage) async throws {
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
    }
}

/// Uploads are applied one at a time, in arrival order (the database lock orders them too,
/// across server processes).
actor Uploads {
    func apply(_ transactions: [UploadedTransaction], through: UInt64, from clientID: String) async throws -> UInt64 {
        try await database.apply(transactions, through: through, from: clientID)
    }
}
let uploads = Uploads()

let router = Router(context: BasicWebSocketRequestContext.self)
router.get("/health") { _, _ -> String in
    _ = try await database.latestVersion()
    return "ok"
}
router.get("/state") { _, _ -> Response in
    let data = try JSONEncoder().encode(try await database.state())
    return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
}
router.ws("/sync") { inbound, outbound, _ in
    let outbox = Outbox(outbound)
    var clientID: String?
    var streaming: Task<Void, Never>?
    defer { streaming?.cancel() }
    let decoder = JSONDecoder()
    for try await frame in inbound.messages(maxSize: 256 << 20) {
        guard case .text(let text) = frame else { continue }
        let message: ClientMessage
        do {
            message = try decoder.decode(ClientMessage.self, from: Data(text.utf8))
        } catch {
            try await outbox.send(.error(.connection(detail: "an unreadable message: \(error)")))
            return
        }
        switch message {
        case .hello(let id, let protocolVersion, let schemaVersion, let serverVersion):
            if protocolVersion != syncProtocolVersion {
                try await outbox.send(.error(.unsupportedProtocol(client: protocolVersion, server: syncProtocolVersion)))
                return
            }
            if schemaVersion > schema.version {
                try await outbox.send(.error(.futureSchemaVersion(client: schemaVersion, server: schema.version)))
                return
            }
            clientID = id
            let latest: UInt64
            let acknowledged: UInt64
            do {
                latest = try await database.latestVersion()
                acknowledged = try await database.acknowledgedLocalVersion(of: id)
            } catch {
                try await outbox.send(.error(.serverUnavailable(detail: "\(String(reflecting: error))")))
                return
            }
            await hub.publish(latest)
            try await outbox.send(.welcome(serverVersion: latest, acknowledgedLocalVersion: acknowledged))
            streaming = Task {
                // The log after the client's version, then each new version as it commits.
                var sent = serverVersion
                while !Task.isCancelled {
                    do {
                        let page = try await database.changes(after: sent, limit: 5000)
                        if page.through > sent {
                            try await outbox.sendChanges(from: sent, to: page.through, page.changes)
                            sent = page.through
                            continue
                        }
                    } catch {
                        try? await outbox.send(.error(.serverUnavailable(detail: "\(String(reflecting: error))")))
                        try? await outbound.close(.unexpectedServerError, reason: nil)
                        return
                    }
                    await hub.wait(after: sent)
                }
            }
        case .upload(let transactions, let through):
            guard let clientID else {
                try await outbox.send(.error(.connection(detail: "an upload before hello")))
                return
            }
            do throws(SyncError) {
                for transaction in transactions { for change in transaction.changes { try schema.validate(change) } }
            } catch {
                // Nothing of the batch is applied; the client keeps it queued.
                try await outbox.send(.error(error))
                continue
            }
            let version: UInt64
            do {
                version = try await uploads.apply(transactions, through: through, from: clientID)
            } catch {
                try await outbox.send(.error(.serverUnavailable(detail: "\(String(reflecting: error))")))
                return
            }
            try await outbox.send(.acknowledge(localVersion: through, serverVersion: version))
            await hub.publish(version)
        }
    }
}

let app = Application(
    router: router,
    server: .http1WebSocketUpgrade(webSocketRouter: router, configuration: .init(ws: .init(maxFrameSize: 256 << 20))),
    configuration: .init(address: .hostname("127.0.0.1", port: port)),
    services: [postgres],
    onServerRunning: { channel in
        do {
            try await database.prepare()
            await hub.publish(try await database.latestVersion())
        } catch {
            FileHandle.standardError.write(Data("floe-sync-server: PostgreSQL is not ready: \(String(reflecting: error))\n".utf8))
        }
        print("listening on ws://127.0.0.1:\(channel.localAddress?.port ?? port)/sync")
        fflush(nil)
    },
    logger: logger
)
try await app.runService()
