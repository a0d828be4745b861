import Foundation
import FloeSync
import HummingbirdWSClient
import Logging

/// Reaches a `floe-sync-server` over a WebSocket; each message is one JSON text frame.
///
/// ```swift
/// let transport = WebSocketSyncTransport(url: "ws://127.0.0.1:8080/sync")
/// let client = try SyncClient(realm: realm, types: [Todo.self], transport: transport)
/// try await client.start()
/// ```
public struct WebSocketSyncTransport: SyncTransport {
    /// The server's WebSocket address (`ws://host:port/sync`).
    public let url: String
    let logger: Logger

    /// A transport to the server at `url`.
    public init(url: String) {
        self.url = url
        var logger = Logger(label: "floe-sync-websocket")
        logger.logLevel = .critical
        self.logger = logger
    }

    public func connect() async throws -> any SyncConnection {
        WebSocketSyncConnection(url: url, logger: logger)
    }
}

/// One WebSocket: outgoing messages queue until the socket is open; incoming ones wait for `receive`.
final class WebSocketSyncConnection: SyncConnection, @unchecked Sendable {
    private let outgoing: AsyncStream<String>.Continuation
    private let incoming: AsyncThrowingStream<ServerMessage, any Error>
    private let reader: Reader
    private let task: Task<Void, Never>

    /// The incoming stream's iterator, used by one task at a time (the client's download loop).
    final class Reader: @unchecked Sendable {
        var iterator: AsyncThrowingStream<ServerMessage, any Error>.AsyncIterator
        init(_ iterator: AsyncThrowingStream<ServerMessage, any Error>.AsyncIterator) { self.iterator = iterator }
    }

    init(url: String, logger: Logger) {
        let (outgoingStream, outgoing) = AsyncStream.makeStream(of: String.self)
        let (incoming, received) = AsyncThrowingStream.makeStream(of: ServerMessage.self)
        self.outgoing = outgoing
        self.incoming = incoming
        reader = Reader(incoming.makeAsyncIterator())
        task = Task {
            do {
                _ = try await WebSocketClient.connect(url: url, configuration: .init(maxFrameSize: 256 << 20), logger: logger) { inbound, outbound, _ in
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for await text in outgoingStream { try await outbound.write(.text(text)) }
                            try await outbound.close(.normalClosure, reason: nil)
                        }
                        group.addTask {
                            let decoder = JSONDecoder()
                            for try await message in inbound.messages(maxSize: 256 << 20) {
                                guard case .text(let text) = message else { continue }
                                received.yield(try decoder.decode(ServerMessage.self, from: Data(text.utf8)))
                            }
                        }
                        try await group.next()
                        group.cancelAll()
                    }
                }
                received.finish()
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
