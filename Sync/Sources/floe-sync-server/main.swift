import Foundation
import FloeSync
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import Logging
import Metrics
import NIOSSL
import PostgresNIO
import Prometheus
import ServiceLifecycle

// floe-sync-server: FloeSync clients connect over a WebSocket (/sync), presenting a JWT; uploads
// are checked against the schema and the rules and applied in one PostgreSQL transaction each;
// every connection is streamed the change log after the server version it holds, filtered by
// what its token may read. Several servers may share one database: each follows the others'
// commits (LISTEN floe_log). GET /health answers once the database is reachable.

let usage = """
    usage: floe-sync-server --schema schema.json [--rules rules.json]
             (--jwt-hs256-secret-file FILE | --jwt-public-key FILE [--jwt-algorithm ES256|RS256] | --jwks FILE)...
             --jwt-issuer ISS --jwt-audience AUD        (or --insecure-no-auth, loopback only)
             [--tls-cert cert.pem --tls-key key.pem]    (or plain ws://, loopback only unless --allow-plain)
             [--host 127.0.0.1] [--port 8080] [--max-message-bytes N] [--max-batch-changes N]
             [--max-messages-per-second N] [--hello-timeout SECONDS] [--debug-state]
             [--metrics-port N [--metrics-host 127.0.0.1]]   (Prometheus's text format at GET /metrics, plain HTTP)
             [--log-level trace|debug|info|notice|warning|error]  (notice: refusals; info: connections too)
             [--no-shared-pages]    (each connection reads its own pages of the log: for measuring what sharing saves)
             [--check-read-conditions N [--seed S]]    (tests the read filter's SQL on the database, then exits)
             [--check-capture N [--seed S]]            (tests the capture of direct SQL writes, rolled back, then exits)
             [--pg-host 127.0.0.1] [--pg-port 5432] [--pg-user postgres] [--pg-password ...] [--pg-database postgres]

    SIGHUP reads the key files again.

    """

func argument(_ name: String) -> String? {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

func flag(_ name: String) -> Bool { CommandLine.arguments.contains(name) }

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("floe-sync-server: \(message)\n".utf8))
    exit(2)
}

guard let schemaPath = argument("--schema") else {
    FileHandle.standardError.write(Data(usage.utf8))
    exit(2)
}
let schema: SyncSchema
do {
    schema = try JSONDecoder().decode(SyncSchema.self, from: Data(contentsOf: URL(fileURLWithPath: schemaPath)))
} catch {
    fail("cannot read the schema \(schemaPath): \(error)")
}
let rules: SyncRules? = argument("--rules").map { path in
    do {
        return try SyncRules(json: Data(contentsOf: URL(fileURLWithPath: path)), schema: schema)
    } catch {
        fail("cannot use the rules \(path): \(error)")
    }
}

let host = argument("--host") ?? "127.0.0.1"
let isLoopback = host == "127.0.0.1" || host == "localhost" || host == "::1" || host.hasPrefix("127.")
let port = Int(argument("--port") ?? "8080") ?? 8080

// Authentication: required, unless explicitly off on a loopback address.
let keySource = KeySource(hmacSecretFile: argument("--jwt-hs256-secret-file"), publicKeyFile: argument("--jwt-public-key"),
                          publicKeyAlgorithm: argument("--jwt-algorithm") ?? "ES256", jwksFile: argument("--jwks"))
func makeAuthenticator() async -> Authenticator? {
    if flag("--insecure-no-auth") {
        guard isLoopback else { fail("--insecure-no-auth serves only a loopback address") }
        guard rules == nil else { fail("rules need tokens: drop --insecure-no-auth") }
        return nil
    }
    guard !keySource.isEmpty else { fail("give keys to verify tokens with (--jwt-hs256-secret-file, --jwt-public-key or --jwks), or --insecure-no-auth on loopback") }
    guard let issuer = argument("--jwt-issuer"), let audience = argument("--jwt-audience") else { fail("give --jwt-issuer and --jwt-audience") }
    do {
        return try await Authenticator(source: keySource, issuer: issuer, audience: audience)
    } catch {
        fail("cannot read the keys: \(error)")
    }
}
let authenticator = await makeAuthenticator()

// TLS: wss:// with a certificate and key from files; plain ws:// only on loopback unless asked.
func makeTLS() -> TLSConfiguration? {
    guard let certificate = argument("--tls-cert"), let key = argument("--tls-key") else {
        if !isLoopback && !flag("--allow-plain") {
            fail("on \(host), serve wss:// (--tls-cert and --tls-key), or say --allow-plain (behind a TLS proxy)")
        }
        return nil
    }
    do {
        return TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(certificate).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem)))
    } catch {
        fail("cannot read the certificate or key: \(error)")
    }
}
let tls = makeTLS()

func makeLimits() -> Limits {
    var limits = Limits()
    if let value = argument("--max-message-bytes").flatMap(Int.init) { limits.messageBytes = value }
    if let value = argument("--max-batch-changes").flatMap(Int.init) { limits.batchChanges = value }
    if let value = argument("--hello-timeout").flatMap(Double.init) { limits.helloTimeout = .milliseconds(Int64(value * 1000)) }
    if let value = argument("--max-messages-per-second").flatMap(Double.init) {
        limits.messagesPerSecond = value
        limits.burst = value * 2
    }
    return limits
}
let limits = makeLimits()

let logger = {
    var logger = Logger(label: "floe-sync-server")
    logger.logLevel = argument("--log-level").flatMap(Logger.Level.init(rawValue:)) ?? .notice
    return logger
}()
let postgres = PostgresClient(configuration: .init(
    host: argument("--pg-host") ?? "127.0.0.1", port: Int(argument("--pg-port") ?? "5432") ?? 5432,
    username: argument("--pg-user") ?? "postgres", password: argument("--pg-password"),
    database: argument("--pg-database") ?? "postgres", tls: .disable))
let database = Database(client: postgres, schema: schema, logger: logger)

// The SQL a catch-up filters the log with, held to what the rules' conditions mean (opt-in script).
if let count = argument("--check-read-conditions").flatMap(Int.init) {
    let running = Task { await postgres.run() }
    let failures = try await ReadConditionCheck(client: postgres, logger: logger)
        .run(conditions: count, seed: argument("--seed").flatMap(UInt64.init) ?? 1)
    for failure in failures.prefix(20) { print("✘ \(failure)") }
    print(failures.isEmpty ? "✔ \(count) read conditions: SQL and Swift agree on every object" : "✘ \(failures.count) disagreements")
    running.cancel()
    exit(failures.isEmpty ? 0 : 1)
}
if let count = argument("--check-capture").flatMap(Int.init) {
    let running = Task { await postgres.run() }
    let failures = try await CaptureCheck(client: postgres, logger: logger).run(writes: count, seed: argument("--seed").flatMap(UInt64.init) ?? 1)
    for failure in failures.prefix(20) { print("✘ \(failure)") }
    print(failures.isEmpty ? "✔ \(count) writes made directly in SQL: captured exactly, refused where a device could not hold them" : "✘ \(failures.count) failures")
    running.cancel()
    exit(failures.isEmpty ? 0 : 1)
}
// Metrics: a registry swift-metrics reports into, served on a listener of its own (plain HTTP,
// loopback unless asked), never on the sync port the internet reaches.
let metricsRegistry = PrometheusCollectorRegistry()
let metricsPort = argument("--metrics-port").flatMap(Int.init)
if metricsPort != nil { MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: metricsRegistry)) }
let service = SyncService(database: database, schema: schema, rules: rules, authenticator: authenticator, limits: limits,
                          sharedPages: !flag("--no-shared-pages"))

// SIGHUP: read the key files again (a rotated key, a new JWKS); on failure the old keys stay.
signal(SIGHUP, SIG_IGN)
let hangup = DispatchSource.makeSignalSource(signal: SIGHUP)
hangup.setEventHandler {
    guard let authenticator else { return }
    Task {
        do {
            try await authenticator.reload()
            FileHandle.standardError.write(Data("floe-sync-server: keys reloaded\n".utf8))
        } catch {
            FileHandle.standardError.write(Data("floe-sync-server: keys not reloaded, the old ones stay: \(error)\n".utf8))
        }
    }
}
hangup.resume()

let router = Router(context: BasicWebSocketRequestContext.self)
router.get("/health") { _, _ -> String in
    _ = try await database.latestVersion()
    return "ok"
}
// Every object of every user: for tests on loopback only.
if flag("--debug-state") {
    guard isLoopback else { fail("--debug-state serves only a loopback address") }
    router.get("/state") { _, _ -> Response in
        let data = try JSONEncoder().encode(try await database.state())
        return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
// A plain GET of the sync path says why a token is refused (a WebSocket client library that
// does not show the 401's body asks here); with a valid token, it asks for the upgrade.
router.get("/sync") { request, _ -> Response in
    var refusal: SyncError?
    if let authenticator {
        do throws(SyncError) {
            _ = try await authenticator.verify(Authenticator.token(authorization: request.headers[.authorization], query: request.uri.query))
        } catch {
            refusal = error
        }
    }
    let body = try JSONEncoder().encode(refusal ?? SyncError.connection(detail: "the sync path takes a WebSocket upgrade"))
    return Response(status: refusal == nil ? .upgradeRequired : .unauthorized, headers: [.contentType: "application/json"],
                    body: .init(byteBuffer: ByteBuffer(bytes: body)))
}

let webSocketRouter = Router(context: BasicWebSocketRequestContext.self)
webSocketRouter.ws("/sync") { inbound, outbound, context in
    try await service.serve(inbound, outbound, request: context.request)
}
// A frame a little over the message limit still reaches the session, which refuses it with a
// typed error; a larger one is refused by the WebSocket layer (close code 1009) before it is read.
let webSocketConfiguration = WebSocketServerConfiguration(maxFrameSize: limits.messageBytes + 4096, autoPing: .enabled(timePeriod: .seconds(30)))
let webSocketResponder = webSocketRouter.buildResponder()
let server = HTTPServerBuilder { responder in
    let upgrade = HTTP1WebSocketUpgradeChannel(responder: responder, webSocketResponder: webSocketResponder,
                                               configuration: .init(ws: webSocketConfiguration))
    guard let authenticator else {
        if let tls { return try TLSChannel(upgrade, tlsConfiguration: tls) }
        return upgrade
    }
    let gated = AuthenticatingChannel(base: upgrade, authenticator: authenticator, path: "/sync")
    if let tls { return try TLSChannel(gated, tlsConfiguration: tls) }
    return gated
}

let scheme = tls == nil ? "ws" : "wss"
var services: [any Service] = [postgres]
if let metricsPort {
    let metricsHost = argument("--metrics-host") ?? "127.0.0.1"
    let metricsRouter = Router()
    metricsRouter.get("/metrics") { _, _ -> Response in
        Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                 body: .init(byteBuffer: ByteBuffer(bytes: metricsRegistry.emitToBuffer())))
    }
    services.append(Application(router: metricsRouter, configuration: .init(address: .hostname(metricsHost, port: metricsPort)),
                                onServerRunning: { channel in
                                    print("metrics on http://\(metricsHost):\(channel.localAddress?.port ?? metricsPort)/metrics")
                                    fflush(nil)
                                }, logger: logger))
}
let app = Application(
    router: router,
    server: server,
    configuration: .init(address: .hostname(host, port: port)),
    services: services,
    onServerRunning: { channel in
        do {
            try await database.prepare()
            await service.hub.publish(try await database.latestVersion())
        } catch {
            FileHandle.standardError.write(Data("floe-sync-server: PostgreSQL is not ready: \(String(reflecting: error))\n".utf8))
        }
        // Commits through other servers on the same database wake this one's connections.
        Task {
            await database.followCommits {
                service.metrics.commitsFollowed.increment()
                await service.hub.publish($0)
            }
        }
        print("listening on \(scheme)://\(host):\(channel.localAddress?.port ?? port)/sync")
        fflush(nil)
    },
    logger: logger
)
try await app.runService()
