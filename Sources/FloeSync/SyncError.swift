import Foundation

/// Why sync refused a change or a connection. Each case names the class, property and value
/// involved, and travels from the server to the client as it is.
///
/// ```swift
/// if case .wrongType(let className, let property, let expected, let value) = error {
///     print("\(className).\(property) expects \(expected), got \(value)")
/// }
/// ```
public enum SyncError: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The server's schema has no class of this name (or it has no primary key, so it does not sync).
    case unknownClass(className: String)
    /// The class has no property of this name in the server's schema.
    case unknownProperty(className: String, property: String)
    /// The value does not fit the property's type in the server's schema.
    case wrongType(className: String, property: String, expected: String, value: String)
    /// The client's schema version is newer than the server's.
    case futureSchemaVersion(client: UInt64, server: UInt64)
    /// The client speaks a protocol version the server does not.
    case unsupportedProtocol(client: Int, server: Int)
    /// A model class given to the sync client has no primary key, so it cannot sync.
    case noPrimaryKey(className: String)
    /// The realm's history no longer holds changes the server has not acknowledged.
    case historyUnavailable(version: UInt64, detail: String)
    /// The server could not store the batch (its database is unreachable, say); the client retries.
    case serverUnavailable(detail: String)
    /// The connection broke or a message could not be read.
    case connection(detail: String)
    /// The server refused the connection before it opened: no token, or a token that is not
    /// valid (signature, algorithm, issuer, audience, expiry, not-before); `reason` says which.
    case unauthenticated(reason: String)
    /// The connection's token expired during the session; the client asks its token provider
    /// for a new one and resumes.
    case tokenExpired
    /// A rule refused a change: nothing of its batch was applied, and it stays queued until the
    /// rules allow it or the app discards it (``SyncClient/discardRefusedChanges()``).
    case forbidden(className: String, key: String, operation: String, rule: String)
    /// A rule in the server's rules file does not parse or names what the schema does not have.
    case invalidRule(className: String, operation: String, rule: String, reason: String)
    /// A message passed one of the server's limits (its size, a batch's size, the rate); the
    /// server closed the connection.
    case limitExceeded(limit: String, value: String)
    /// A message could not be read as the protocol's; the server closed the connection.
    case malformedMessage(detail: String)
    /// The client could not apply the server's changes from `fromVersion` to `toVersion` (a
    /// value the realm's schema refuses, say): nothing of them was written, and the realm still
    /// holds server version `fromVersion`; the client asks for them again when it reconnects.
    case applyFailed(fromVersion: UInt64, toVersion: UInt64, detail: String)

    public var description: String {
        switch self {
        case .unknownClass(let className):
            "the server does not sync a class named '\(className)'"
        case .unknownProperty(let className, let property):
            "the server's '\(className)' has no property '\(property)'"
        case .wrongType(let className, let property, let expected, let value):
            "\(className).\(property) expects \(expected), not \(value)"
        case .futureSchemaVersion(let client, let server):
            "the client's schema version \(client) is newer than the server's (\(server)); upgrade the server first"
        case .unsupportedProtocol(let client, let server):
            "the client speaks sync protocol \(client), the server \(server)"
        case .noPrimaryKey(let className):
            "'\(className)' has no primary key: only classes with a primary key sync"
        case .historyUnavailable(let version, let detail):
            "the realm no longer holds the changes after version \(version) that the server has not acknowledged: \(detail)"
        case .serverUnavailable(let detail):
            "the server could not store the changes: \(detail)"
        case .connection(let detail):
            "the connection to the sync server failed: \(detail)"
        case .unauthenticated(let reason):
            "the sync server refused the connection: \(reason)"
        case .tokenExpired:
            "the token expired during the session"
        case .forbidden(let className, let key, let operation, let rule):
            "the rule for \(operation) on '\(className)' refused \(className)(\(key)): \(rule)"
        case .invalidRule(let className, let operation, let rule, let reason):
            "the \(operation) rule of '\(className)' (\(rule)) is not valid: \(reason)"
        case .limitExceeded(let limit, let value):
            "the message passed the server's limit on \(limit): \(value)"
        case .malformedMessage(let detail):
            "the server could not read a message: \(detail)"
        case .applyFailed(let from, let to, let detail):
            "the server's changes from version \(from) to \(to) could not be applied, and none of them was: \(detail)"
        }
    }

    /// Whether the error concerns the data itself (the batch stays queued until the schema allows it).
    public var isRejection: Bool {
        switch self {
        case .unknownClass, .unknownProperty, .wrongType, .forbidden: true
        default: false
        }
    }
}

/// Foundation's `localizedDescription` is the error's own message.
///
/// ```swift
/// print(SyncError.unknownClass(className: "Dog").localizedDescription)
/// ```
extension SyncError: LocalizedError {
    /// The message, the same as ``description``.
    public var errorDescription: String? { description }
}
