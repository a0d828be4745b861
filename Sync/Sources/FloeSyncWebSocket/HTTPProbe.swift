import Foundation
import FloeSync
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// Asks the server why it refused a WebSocket upgrade: a plain GET of the same path with the
/// same token, whose 401 answer carries the refusal as a `SyncError` in JSON. (The WebSocket
/// client library reports a refused upgrade without its status or body.)
enum HTTPProbe {
    static func refusal(url: String, token: String?, tls: TLSConfiguration?) async -> SyncError {
        guard let parsed = URL(string: url), let host = parsed.host else {
            return .connection(detail: "the server refused the WebSocket upgrade")
        }
        let port = parsed.port ?? (tls == nil ? 80 : 443)
        let path = parsed.path.isEmpty ? "/" : parsed.path
        do {
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.seconds(10))
                .connect(host: host, port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if let tls {
                            let context = try NIOSSLContext(configuration: tls)
                            let isAddress = host.contains(":") || host.allSatisfy { $0.isNumber || $0 == "." }
                            try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: isAddress ? nil : host))
                        }
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
                    }
                }
            return try await channel.executeThenClose { inbound, outbound in
                var headers = HTTPHeaders()
                headers.add(name: "Host", value: host)
                headers.add(name: "Connection", value: "close")
                if let token { headers.add(name: "Authorization", value: "Bearer \(token)") }
                try await outbound.write(.head(HTTPRequestHead(version: .http1_1, method: .GET, uri: path, headers: headers)))
                try await outbound.write(.end(nil))
                var status = HTTPResponseStatus.ok
                var body = ByteBuffer()
                reading: for try await part in inbound {
                    switch part {
                    case .head(let head): status = head.status
                    case .body(var bytes):
                        guard body.readableBytes + bytes.readableBytes <= 64 << 10 else { break reading }
                        body.writeBuffer(&bytes)
                    case .end: break reading
                    }
                }
                if status == .unauthorized, let refusal = try? JSONDecoder().decode(SyncError.self, from: Data(body.readableBytesView)) {
                    return refusal
                }
                return .connection(detail: "the server refused the WebSocket upgrade (HTTP \(status.code))")
            }
        } catch {
            return .connection(detail: "the server refused the WebSocket upgrade, and asking why failed: \(error)")
        }
    }
}
