import Foundation
import FloeSync
import HummingbirdWSClient
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix

/// A raw WebSocket to the server: sends any text or bytes, receives the server's messages
/// (undecoded, so that an unreadable answer is seen), and the close code.
final class RawConnection: Sendable {
    enum Outgoing: Sendable {
        case text(String)
        case binary([UInt8])
    }

    private let outgoing: AsyncStream<Outgoing>.Continuation
    private let task: Task<Void, Never>
    private let closeCode = Box()
    private let mailbox = Mailbox()

    final class Box: @unchecked Sendable {
        // @unchecked: every access holds the lock.
        private let lock = NSLock()
        private var value: String?
        var code: String? {
            get { lock.withLock { value } }
            set { lock.withLock { value = newValue } }
        }
    }

    /// The messages received and not yet read.
    final class Mailbox: @unchecked Sendable {
        // @unchecked: every access holds the lock.
        private let lock = NSLock()
        private var messages: [String] = []
        private var finished = false
        func put(_ text: String) { lock.withLock { messages.append(text) } }
        func finish() { lock.withLock { finished = true } }
        /// The next message; nil when none is waiting (`isFinished` says whether one may still come).
        func take() -> (String?, isFinished: Bool) {
            lock.withLock { messages.isEmpty ? (nil, finished) : (messages.removeFirst(), false) }
        }
    }

    init(url: String, token: String?, queryToken: Bool = false) {
        let (outgoingStream, outgoing) = AsyncStream.makeStream(of: Outgoing.self)
        self.outgoing = outgoing
        let received = mailbox
        var configuration = WebSocketClientConfiguration(maxFrameSize: 64 << 20)
        var address = url
        if let token {
            if queryToken { address += "?access_token=\(token)" } else { configuration.additionalHeaders[.authorization] = "Bearer \(token)" }
        }
        var logger = Logger(label: "floe-sync-attack")
        logger.logLevel = .critical
        let box = closeCode
        task = Task { [address, configuration, logger] in
            do {
                let close = try await WebSocketClient.connect(url: address, configuration: configuration, logger: logger) { inbound, outbound, _ in
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for await message in outgoingStream {
                                do {
                                    switch message {
                                    case .text(let text): try await outbound.write(.text(text))
                                    case .binary(let bytes): try await outbound.write(.binary(ByteBuffer(bytes: bytes)))
                                    }
                                } catch {
                                    return
                                }
                            }
                            try? await outbound.close(.normalClosure, reason: nil)
                        }
                        for try await message in inbound.messages(maxSize: 64 << 20) {
                            if case .text(let text) = message { received.put(text) }
                        }
                        group.cancelAll()
                    }
                }
                box.code = close.map { "\($0.closeCode)" } ?? "closed"
                received.finish()
            } catch {
                box.code = "error: \(error)"
                received.finish()
            }
        }
    }

    func send(_ message: ClientMessage) {
        outgoing.yield(.text(String(decoding: try! JSONEncoder().encode(message), as: UTF8.self)))
    }

    func send(text: String) { outgoing.yield(.text(text)) }
    func send(bytes: [UInt8]) { outgoing.yield(.binary(bytes)) }

    /// The next message, decoded; nil when the connection closed or `seconds` passed.
    func receive(within seconds: Double = 10) async -> ServerMessage? {
        guard let text = await receiveText(within: seconds) else { return nil }
        return try? JSONDecoder().decode(ServerMessage.self, from: Data(text.utf8))
    }

    func receiveText(within seconds: Double = 10) async -> String? {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            let (text, isFinished) = mailbox.take()
            if let text { return text }
            if isFinished || Date() >= deadline { return nil }
            try? await Task.sleep(for: .milliseconds(2))
        }
    }

    /// Reads messages until `condition` holds for one (returned) or the time runs out.
    func receive(until condition: (ServerMessage) -> Bool, within seconds: Double = 10) async -> ServerMessage? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            guard let message = await receive(within: deadline.timeIntervalSinceNow) else { return nil }
            if condition(message) { return message }
        }
        return nil
    }

    /// Waits until the server closed the connection (true) or `seconds` pass (false).
    func closed(within seconds: Double = 10) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if closeCode.code != nil { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return closeCode.code != nil
    }

    var close: String? { closeCode.code }

    func finish() {
        outgoing.finish()
        task.cancel()
    }
}

/// A WebSocket upgrade request sent by hand: the status and body of the answer.
func upgradeAttempt(host: String, port: Int, path: String, headers extra: [(String, String)], upgrade: Bool = true) async throws -> (status: Int, body: String) {
    let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .connect(host: host, port: port) { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHTTPClientHandlers()
                return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
            }
        }
    return try await channel.executeThenClose { inbound, outbound in
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: "\(host):\(port)")
        if upgrade {
            headers.add(name: "Upgrade", value: "websocket")
            headers.add(name: "Connection", value: "Upgrade")
            headers.add(name: "Sec-WebSocket-Key", value: "dGhlIHNhbXBsZSBub25jZQ==")
            headers.add(name: "Sec-WebSocket-Version", value: "13")
        } else {
            headers.add(name: "Connection", value: "close")
        }
        for (name, value) in extra { headers.add(name: name, value: value) }
        try await outbound.write(.head(HTTPRequestHead(version: .http1_1, method: .GET, uri: path, headers: headers)))
        try await outbound.write(.end(nil))
        var status = 0
        var body = ByteBuffer()
        reading: for try await part in inbound {
            switch part {
            case .head(let head):
                status = Int(head.status.code)
                if status == 101 { break reading }
            case .body(var bytes): body.writeBuffer(&bytes)
            case .end: break reading
            }
        }
        return (status, String(buffer: body))
    }
}

/// A plain GET on the server (its state, its health).
func httpGet(port: Int, path: String) async throws -> (status: Int, body: String) {
    try await upgradeAttempt(host: "127.0.0.1", port: port, path: path, headers: [], upgrade: false)
}
