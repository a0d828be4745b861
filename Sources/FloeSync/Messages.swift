/// The sync protocol's version; a server refuses a client speaking another. Version 2 added
/// `refetch` and `images` (restoring a discarded change's objects).
public let syncProtocolVersion = 2

/// One object's change, as clients upload it and the server streams it back.
///
/// ```swift
/// let change = ObjectChange(className: "Todo", key: .int(1), operation: .update, values: ["done": .bool(true)])
/// ```
public struct ObjectChange: Sendable, Hashable, Codable {
    /// What happened to the object.
    public enum Operation: String, Sendable, Hashable, Codable {
        /// Created (or created again), with every property's value.
        case insert
        /// Changed: `values` holds only the properties that changed.
        case update
        /// Deleted; `values` is empty.
        case delete
    }

    /// The object's class.
    public var className: String
    /// Its primary key.
    public var key: SyncValue
    /// What happened to it.
    public var operation: Operation
    /// The properties written, by persisted name.
    public var values: [String: SyncValue]
    /// For an update, the value each list, set or map property in `values` had on the device
    /// before the change: the server merges what the device did into the value it holds
    /// (``ConflictRules``) instead of replacing it, and logs the merged value. Nil (or a
    /// property missing here): the value replaces the server's, as a scalar's does.
    public var bases: [String: CollectionBase]?

    /// A change of the object of `className` whose primary key is `key`.
    public init(className: String, key: SyncValue, operation: Operation, values: [String: SyncValue] = [:],
                bases: [String: CollectionBase]? = nil) {
        self.className = className
        self.key = key
        self.operation = operation
        self.values = values
        self.bases = bases
    }

    /// The object it concerns.
    public var objectID: SyncObjectID { SyncObjectID(className: className, key: key) }

    /// The server's answer to `refetch` for one object: an insert with every value when the
    /// object exists (`values`) and the token with `claims` may read it (always, without
    /// rules), else a delete — which tells a device that asked about an object it may not read
    /// nothing but to drop its own copy.
    ///
    /// ```swift
    /// let image = ObjectChange.image(of: id, values: stored[id], rules: rules, claims: claims)
    /// ```
    public static func image(of id: SyncObjectID, values: [String: SyncValue]?, rules: SyncRules?,
                             claims: [String: SyncValue]) -> ObjectChange {
        guard let values, rules?.allows(.read, className: id.className, object: values, claims: claims) ?? true else {
            return ObjectChange(className: id.className, key: id.key, operation: .delete)
        }
        return ObjectChange(className: id.className, key: id.key, operation: .insert, values: values)
    }
}

/// An object's identity across devices: its class and primary key.
public struct SyncObjectID: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The class.
    public var className: String
    /// The primary key.
    public var key: SyncValue

    /// The object of `className` whose primary key is `key`.
    public init(className: String, key: SyncValue) {
        self.className = className
        self.key = key
    }

    public var description: String { "\(className)(\(key))" }
}

/// One local transaction in an upload, with the local version that committed it.
public struct UploadedTransaction: Sendable, Hashable, Codable {
    /// The realm version that committed the transaction on the client.
    public var localVersion: UInt64
    /// Its changes to synced classes, in the order the realm reported them.
    public var changes: [ObjectChange]

    /// The transaction committed at `localVersion`.
    public init(localVersion: UInt64, changes: [ObjectChange]) {
        self.localVersion = localVersion
        self.changes = changes
    }
}

/// What a client sends.
///
/// ```swift
/// let hello = ClientMessage.hello(clientID: id, protocolVersion: syncProtocolVersion, schemaVersion: 1, serverVersion: 0)
/// ```
public enum ClientMessage: Sendable, Hashable, Codable {
    /// The first message of a connection: who the client is, what it speaks, and the last
    /// server version it applied (the server streams everything after it).
    case hello(clientID: String, protocolVersion: Int, schemaVersion: UInt64, serverVersion: UInt64)
    /// Local transactions, oldest first; `throughLocalVersion` is the newest local version
    /// the batch accounts for (later versions that held no synced change included).
    case upload(transactions: [UploadedTransaction], throughLocalVersion: UInt64)
    /// Asks for the server's current image of `objects` as this connection may read them
    /// (answered by `images`): what a client restores after it discards a refused change.
    case refetch(objects: [SyncObjectID])
}

/// What the server sends.
public enum ServerMessage: Sendable, Hashable, Codable {
    /// The answer to `hello`: the newest server version, and the newest local version of this
    /// client the server has applied (a client that crashed before storing an acknowledgement
    /// learns it here and does not upload those transactions again).
    case welcome(serverVersion: UInt64, acknowledgedLocalVersion: UInt64)
    /// The upload through `localVersion` is stored (in one database transaction); its changes,
    /// as applied, are in the log at `serverVersion` (unchanged when none applied).
    case acknowledge(localVersion: UInt64, serverVersion: UInt64)
    /// Server-ordered changes after `fromVersion` through `toVersion`, each as applied: the
    /// client applies them in one write and then stores `toVersion`.
    case changes(fromVersion: UInt64, toVersion: UInt64, changes: [ObjectChange])
    /// The answer to `refetch`: each object asked for, as an insert carrying every value when
    /// the server has it and this connection may read it, else as a delete. It carries no
    /// version: the client applies it in one write, and the changes streamed after it take the
    /// objects on to the server's newest state exactly as they would without it.
    case images(objects: [ObjectChange])
    /// A refusal: a batch that breaks the server's schema (nothing of it was applied), a
    /// future schema version, or a protocol mismatch.
    case error(SyncError)
}
