import Foundation
import FloeSync
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// Wraps the HTTP and WebSocket channel so that a WebSocket upgrade to the sync path is
/// authenticated before the upgrade runs: a request without a valid token gets HTTP 401 with
/// the refusal in its body (a `SyncError` as JSON) and the connection is closed, before any
/// WebSocket frame is read or written.
struct AuthenticatingChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value
    let base: Base
    let authenticator: Authenticator
    let path: String

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let operations = channel.pipeline.syncOperations
            let decoder = try operations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try operations.addHandler(AuthenticationGate(authenticator: authenticator, path: path), position: .after(decoder))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

/// Holds the first request of a connection while its token is verified; lets it through (and
/// leaves the pipeline) when the token is valid or the request is no WebSocket upgrade to the
/// sync path, and answers 401 otherwise.
final class AuthenticationGate: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private enum State {
        case waiting
        case checking([HTTPServerRequestPart])
        case done
    }

    private let authenticator: Authenticator
    private let path: String
    private var state = State.waiting

    init(authenticator: Authenticator, path: String) {
        self.authenticator = authenticator
        self.path = path
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        switch state {
        case .done:
            context.fireChannelRead(data)
        case .checking(var parts):
            // An upgrade request has no body; a client that sends one anyway is refused with it.
            parts.append(part)
            state = parts.count > 64 ? .done : .checking(parts)
            if parts.count > 64 { refuse(.malformedMessage(detail: "an upgrade request with a body"), context: context) }
        case .waiting:
            guard case .head(let head) = part, Self.isUpgrade(head), head.uri.split(separator: "?", maxSplits: 1).first.map(String.init) == path else {
                state = .done
                context.fireChannelRead(data)
                context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
                return
            }
            state = .checking([part])
            let query = head.uri.split(separator: "?", maxSplits: 1).dropFirst().first.map(String.init)
            let token = Authenticator.token(authorization: head.headers.first(name: "authorization"), query: query)
            let authenticator = authenticator
            let promise = context.eventLoop.makePromise(of: SyncError?.self)
            promise.completeWithTask {
                do throws(SyncError) {
                    _ = try await authenticator.verify(token)
                    return nil
                } catch {
                    return error
                }
            }
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            promise.futureResult.whenSuccess { refusal in
                let (gate, context) = bound.value
                gate.decided(refusal, context: context)
            }
        }
    }

    private func decided(_ refusal: SyncError?, context: ChannelHandlerContext) {
        guard case .checking(let parts) = state else { return }
        state = .done
        if let refusal {
            refuse(refusal, context: context)
            return
        }
        for part in parts { context.fireChannelRead(wrapInboundOut(part)) }
        context.fireChannelReadComplete()
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    private func refuse(_ refusal: SyncError, context: ChannelHandlerContext) {
        let body = (try? JSONEncoder().encode(refusal)) ?? Data()
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "Content-Length", value: "\(body.count)")
        headers.add(name: "Connection", value: "close")
        headers.add(name: "WWW-Authenticate", value: "Bearer error=\"invalid_token\"")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .unauthorized, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in bound.value.close(promise: nil) }
    }

    private static func isUpgrade(_ head: HTTPRequestHead) -> Bool {
        head.headers["upgrade"].contains { $0.lowercased().contains("websocket") }
    }
}
