import Foundation
import FloeSync
import HummingbirdWSClient
import Logging
import NIOSSL

/// Reaches a `floe-sync-server` over a WebSocket (`wss://`, or `ws://` on loopback); each
/// message is one JSON text frame. A token from the client's token provider travels in the
/// upgrade request's `Authorization: Bearer` header.
///
/// ```swift
/// let transport = WebSocketSyncTransport(url: "wss://sync.example.com/sync")
/// var options = SyncClient.Options()
/// options.tokenProvider = { try await auth.currentToken() }
/// let client = try SyncClient(realm: realm, types: [Todo.self], transport: transport, options: options)
/// try await client.start()
/// ```
public struct WebSocketSyncTransport: SyncTransport {
    /// The server's WebSocket address (`wss://host:port/sync`).
    public let url: String
    let tls: TLSConfiguration?
    let logger: Logger

    /// A transport to the server at `url`. For `wss://`, the server's certificate is verified
    /// against the system's roots, or only against the certificates in the PEM file
    /// `certificateAuthorityFile` when given (a private CA, a test CA).
    public init(url: String, certificateAuthorityFile: String? = nil) {
        self.url = url
        var logger = Logger(label: "floe-sync-websocket")
        logger.logLevel = .critical
        self.logger = logger
        if url.lowercased().hasPrefix("wss://") {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.certificateVerification = .fullVerification
            if let certificateAuthorityFile { tls.trustRoots = .file(certificateAuthorityFile) }
            self.tls = tls
        } else {
            tls = nil
        }
    }

    public func connect() async throws -> any SyncConnection {
        try await connect(token: nil)
    }

    public func connect(token: String?) async throws -> any SyncConnection {
        WebSocketSyncConnection(url: url, token: token, tls: tls, logger: logger)
    }
}

/// One WebSocket: outgoing messages queue until the socket is open; incoming ones wait for `receive`.
final class WebSocketSyncConnection: SyncConnection, @unchecked Sendable {
    // @unchecked: the continuations and the task are Sendable; the reader is used by one task at a time.
    private let outgoing: AsyncStream<String>.Continuation
    private let incoming: AsyncThrowingStream<ServerMessage, any Error>
    private let reader: Reader
    private let task: Task<Void, Never>

    /// The incoming stream's iterator, used by one task at a time (the client's download loop).
    final class Reader: @unchecked Sendable {
        // @unchecked: only the client's download loop calls `receive`.
        var iterator: AsyncThrowingStream<ServerMessage, any Error>.AsyncIterator
        init(_ iterator: AsyncThrowingStream<ServerMessage, any Error>.AsyncIterator) { self.iterator = iterator }
    }

    init(url: String, token: String?, tls: TLSConfiguration?, logger: Logger) {
        let (outgoingStream, outgoing) = AsyncStream.makeStream(of: String.self)
        let (incoming, received) = AsyncThrowingStream.makeStream(of: ServerMessage.self)
        self.outgoing = outgoing
        self.incoming = incoming
        reader = Reader(incoming.makeAsyncIterator())
        var configuration = WebSocketClientConfiguration(maxFrameSize: 256 << 20)
        if let token { configuration.additionalHeaders[.authorization] = "Bearer \(token)" }
        task = Task {
            do {
                let close = try await WebSocketClient.connect(url: url, configuration: configuration, tlsConfiguration: tls, logger: logger) { inbound, outbound, _ in
                    // The reader runs until the server closes, so that an error the server sends
                    // before closing is read even when a write fails first.
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for await text in outgoingStream {
                                do { try await outbound.write(.text(text)) } catch { return }
                            }
                            try? await outbound.close(.normalClosure, reason: nil)
                        }
                        let decoder = JSONDecoder()
                        for try await message in inbound.messages(maxSize: 256 << 20) {
                            guard case .text(let text) = message else { continue }
                            received.yield(try decoder.decode(ServerMessage.self, from: Data(text.utf8)))
                        }
                        group.cancelAll()
                    }
                }
                if close?.closeCode == .messageTooLarge {
                    received.finish(throwing: SyncError.limitExceeded(limit: "message size", value: "a message over the server's limit"))
                } else {
                    received.finish()
                }
            } catch let error as WebSocketClientError where error == .webSocketUpgradeFailed {
                // The server refused the upgrade; its reason is in the answer to a plain request.
                received.finish(throwing: await HTTPProbe.refusal(url: url, token: token, tls: tls))
            } catch {
                received.finish(throwing: SyncError.connection(detail: "\(error)"))
            }
        }
    }

    func send(_ message: ClientMessage) async throws {
        let data = try JSONEncoder().encode(message)
        if case .terminated = outgoing.yield(String(decoding: data, as: UTF8.self)) {
            throw SyncError.connection(detail: "the connection is closed")
        }
    }

    func receive() async throws -> ServerMessage? {
        try await reader.iterator.next()
    }

    func close() async {
        outgoing.finish()
        task.cancel()
    }
}
