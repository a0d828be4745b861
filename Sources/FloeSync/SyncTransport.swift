/// How a sync client reaches its server: the WebSocket transport in `Sync/`, or an in-process
/// server in tests.
///
/// ```swift
/// struct Loopback: SyncTransport {
///     let server: MyServer
///     func connect() async throws -> any SyncConnection { try await server.accept() }
/// }
/// ```
public protocol SyncTransport: Sendable {
    /// Opens a new connection (each session of the client uses one).
    func connect() async throws -> any SyncConnection
    /// Opens a new connection that presents `token` (a JWT from the client's token provider,
    /// nil without one). The default ignores the token and calls ``connect()``.
    func connect(token: String?) async throws -> any SyncConnection
}

extension SyncTransport {
    /// Ignores the token: for transports to servers that do not authenticate.
    public func connect(token: String?) async throws -> any SyncConnection { try await connect() }
}

/// One open connection to the server.
public protocol SyncConnection: Sendable {
    /// Sends a message; throws when the connection is gone.
    func send(_ message: ClientMessage) async throws
    /// The next message from the server; nil when the server closed the connection.
    func receive() async throws -> ServerMessage?
    /// Closes the connection (a pending `receive` returns nil or throws).
    func close() async
}
