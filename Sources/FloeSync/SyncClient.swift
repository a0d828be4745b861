import Foundation
@_spi(Sync) import Floe

/// Keeps a realm in sync with a server, both ways: it uploads the realm's changes to the
/// synced classes (read from the change feed after the last version the server acknowledged,
/// batched, in order, retried with back-off) and applies the server's changes in one write
/// each. Its cursors live in the realm's file (``FloeSyncState``), so a client that restarts —
/// or was offline for a week — resumes where it was; changes made offline wait in the file's
/// history, which compaction keeps from the acknowledged version on.
///
/// The client works through the realm alone (its one store, whether a file or in memory): it
/// opens nothing itself. An in-memory realm syncs too: it uploads what is committed after its
/// client was made (the client's ``HistoryPin`` keeps those versions in memory until the
/// server acknowledges them), and downloads as a file does.
///
/// ```swift
/// let client = try SyncClient(realm: realm, types: [Todo.self], transport: WebSocketSyncTransport(url: server))
/// try await client.start()
/// try await realm.write { realm in try realm.create(Todo.self, value: ["id": 1, "title": "milk"]) }
/// ```
public actor SyncClient {
    /// Tuning.
    public struct Options: Sendable {
        /// The most object changes one upload carries (whole transactions are never split, so a
        /// larger transaction travels alone).
        public var batchSize = 1000
        /// The first wait before reconnecting; it doubles on each failure.
        public var minimumBackoff: Duration = .milliseconds(50)
        /// The longest wait before reconnecting.
        public var maximumBackoff: Duration = .seconds(5)
        /// The schema version the client announces (the realm's `Configuration.schemaVersion` by default).
        public var schemaVersion: UInt64?
        /// Gives the token (a JWT) each connection presents; called before every connection, so
        /// it returns a fresh token when the last one expired (``SyncError/tokenExpired``).
        /// Nil: connections present no token.
        ///
        /// ```swift
        /// options.tokenProvider = { try await auth.currentToken() }
        /// ```
        public var tokenProvider: (@Sendable () async throws -> String)?

        /// The defaults.
        public init() {}
    }

    /// The model class that holds the client's cursors: list it in `Configuration.objectTypes`.
    public static var stateType: FloeSyncState.Type { FloeSyncState.self }

    let realm: Realm
    let transport: any SyncTransport
    let types: SyncedTypes
    let options: Options
    /// Keeps the versions not yet acknowledged readable (in memory; a file keeps them itself).
    let history: HistoryPin
    private var runner: Task<Void, Never>?
    private var stopped = false

    /// The client's identity towards the server.
    public private(set) var clientID = ""
    /// Every synced change up to this local version is stored by the server.
    public private(set) var acknowledgedLocalVersion: UInt64 = 0
    /// The newest server version applied to the realm.
    public private(set) var serverVersion: UInt64 = 0
    /// Whether a connection is up and its handshake done.
    public private(set) var isConnected = false
    /// The last error met (a refusal from the server, a broken connection); cleared by the next acknowledgement.
    public private(set) var lastError: SyncError?
    /// The refusal of the changes queued first (a rule or the schema refused them): they stay
    /// queued until the server accepts them or ``discardRefusedChanges()`` drops them.
    public private(set) var refusal: SyncError?
    /// The newest local version of the refused upload.
    private var refusedThrough: UInt64?
    /// The local version of the upload waiting for its acknowledgement, and how many transactions it carries.
    private var inFlightThrough: UInt64?
    private var inFlightCount = 0
    /// After a refusal, transactions travel one per upload, so that a refusal names one transaction.
    private var isolating = false
    /// Local versions the uploader has looked at with nothing left unacknowledged.
    private var settledLocalVersion: UInt64 = 0
    /// The newest server version the server announced or sent.
    private var knownServerVersion: UInt64 = 0
    /// The acknowledgement the uploader waits for, within the current connection.
    private var acknowledgedInSession: UInt64 = 0
    private var acknowledgementWaiter: (version: UInt64, continuation: CheckedContinuation<Void, any Error>)?
    /// The connection of the current session, once its handshake is done.
    private var connection: (any SyncConnection)?
    /// A discarded refusal waiting for the server's images of the objects it touched: the
    /// newest local version it covers, and those objects (asked for on every connection until
    /// the images arrive; uploads wait behind it).
    private var discarding: (through: UInt64, objects: Set<SyncObjectID>)?
    private var progressWaiters: [CheckedContinuation<Void, Never>] = []

    /// A client for `realm` that syncs the classes `types` through `transport`.
    ///
    /// - Throws: ``SyncError/noPrimaryKey(className:)`` for a class without a primary key;
    ///   ``FloeError/closed(path:)`` when the realm's store is closed.
    public init(realm: Realm, types: [Object.Type], transport: any SyncTransport, options: Options = Options()) throws {
        var byName: [String: Object.Type] = [:]
        var keys: [String: String] = [:]
        var names: [String: [String: String]] = [:]
        var collections: [String: [String: SyncProperty.Collection]] = [:]
        for type in types {
            let schema = type.init().objectSchema
            guard let key = schema.primaryKeyProperty?.name else {
                throw SyncError.noPrimaryKey(className: type.className())
            }
            byName[type.className()] = type
            keys[type.className()] = key
            for property in schema.properties where property.columnName != property.name {
                names[type.className(), default: [:]][property.columnName] = property.name
            }
            for property in schema.properties where property.isArray || property.isSet || property.isMap {
                collections[type.className(), default: [:]][property.columnName] = property.isArray ? .list : property.isSet ? .set : .map
            }
        }
        self.realm = realm
        self.transport = transport
        self.types = SyncedTypes(byName: byName, primaryKeys: keys, propertyNames: names, collections: collections)
        self.options = options
        self.history = try realm.pinHistory()
    }

    /// Loads (or makes) the client's state and starts syncing in the background. Safe to call
    /// while offline: the client keeps retrying, and the realm works on without it.
    public func start() async throws {
        guard runner == nil else { return }
        // In memory, nothing before the pin was kept: the upload starts there.
        let kept = history.oldestVersion.map(Int.init) ?? 0
        let (id, acknowledged, server) = try await realm.write { realm -> (String, Int, Int) in
            if let state = realm.object(ofType: FloeSyncState.self, forPrimaryKey: 0) {
                if state.acknowledgedLocalVersion < kept { state.acknowledgedLocalVersion = kept }
                return (state.clientID, state.acknowledgedLocalVersion, state.serverVersion)
            }
            let state = try realm.create(FloeSyncState.self, value: ["id": 0, "clientID": UUID().uuidString, "acknowledgedLocalVersion": kept])
            return (state.clientID, kept, 0)
        }
        clientID = id
        acknowledgedLocalVersion = UInt64(acknowledged)
        settledLocalVersion = history.oldestVersion == nil ? acknowledgedLocalVersion : max(settledLocalVersion, acknowledgedLocalVersion)
        serverVersion = UInt64(server)
        stopped = false
        runner = Task { await self.run() }
    }

    /// Stops syncing and closes the connection; what is not acknowledged stays queued in the file.
    public func stop() async {
        stopped = true
        runner?.cancel()
        acknowledgementWaiter.take()?.continuation.resume(throwing: CancellationError())
        await runner?.value
        runner = nil
        isConnected = false
    }

    /// Waits until every synced change committed up to the realm's current version is
    /// acknowledged by the server and the realm holds every server version the client knows of.
    public func waitUntilSynchronized() async {
        let target = realm.committedVersion
        while !(settledLocalVersion >= target || acknowledgedLocalVersion >= target) || serverVersion < knownServerVersion
                || !isConnected || discarding != nil {
            if Task.isCancelled || stopped { return }
            await withCheckedContinuation { progressWaiters.append($0) }
        }
    }

    /// Waits until the realm holds server version `version` (or later).
    public func waitForServerVersion(_ version: UInt64) async {
        while serverVersion < version {
            if Task.isCancelled || stopped { return }
            await withCheckedContinuation { progressWaiters.append($0) }
        }
    }

    private func progressed() {
        let waiters = progressWaiters
        progressWaiters = []
        for waiter in waiters { waiter.resume() }
    }

    // MARK: Sessions

    private func run() async {
        var failures = 0
        while !Task.isCancelled && !stopped {
            do {
                try await session { failures = 0 }
            } catch {
                if Task.isCancelled || stopped { break }
                if let error = error as? SyncError { lastError = error } else { lastError = .connection(detail: "\(error)") }
            }
            isConnected = false
            progressed()
            if Task.isCancelled || stopped { break }
            // An expired token is no failure: the provider gives a new one for the next connection.
            if lastError == .tokenExpired { continue }
            failures += 1
            let scale = 1 << min(failures - 1, 16)
            var wait = options.minimumBackoff * scale
            if wait > options.maximumBackoff { wait = options.maximumBackoff }
            // Up to a quarter of jitter, so that clients cut off together do not return together.
            wait += wait * Double.random(in: 0..<0.25)
            try? await Task.sleep(for: wait)
        }
        progressed()
    }

    /// One connection: handshake, then uploading and downloading side by side until either fails.
    private func session(connected: () -> Void) async throws {
        var token: String?
        if let provider = options.tokenProvider {
            do {
                token = try await provider()
            } catch {
                throw SyncError.unauthenticated(reason: "the token provider failed: \(error)")
            }
        }
        let connection = try await transport.connect(token: token)
        do {
            let schemaVersion = options.schemaVersion ?? realm.configuration.schemaVersion
            try await connection.send(.hello(clientID: clientID, protocolVersion: syncProtocolVersion,
                                             schemaVersion: schemaVersion, serverVersion: serverVersion))
            switch try await connection.receive() {
            case .welcome(let latest, let acknowledged)?:
                knownServerVersion = max(knownServerVersion, latest)
                if acknowledged > acknowledgedLocalVersion { try await storeAcknowledgement(acknowledged) }
            case .error(let error)?:
                throw error
            case let other?:
                throw SyncError.connection(detail: "expected a welcome, got \(other)")
            case nil:
                throw SyncError.connection(detail: "the server closed the connection during the handshake")
            }
            acknowledgedInSession = acknowledgedLocalVersion
            if let discarding { try await connection.send(.refetch(objects: Self.ordered(discarding.objects))) }
            self.connection = connection
            isConnected = true
            connected()
            progressed()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await self.download(connection) }
                group.addTask { try await self.upload(connection) }
                defer { group.cancelAll() }
                do {
                    try await group.next()
                    throw SyncError.connection(detail: "the server closed the connection")
                } catch {
                    await connection.close()
                    failAcknowledgementWait(error)
                    // The uploader may be waiting for a discard's restore: cancelled, then woken.
                    group.cancelAll()
                    progressed()
                    throw error
                }
            }
        } catch {
            self.connection = nil
            await connection.close()
            throw error
        }
    }

    private func failAcknowledgementWait(_ error: any Error) {
        acknowledgementWaiter.take()?.continuation.resume(throwing: error)
    }

    // MARK: Download

    private func download(_ connection: any SyncConnection) async throws {
        while let message = try await connection.receive() {
            switch message {
            case .changes(let from, let to, let changes):
                try await applyServerChanges(from: from, to: to, changes)
            case .acknowledge(let localVersion, let latest):
                knownServerVersion = max(knownServerVersion, latest)
                acknowledgedInSession = max(acknowledgedInSession, localVersion)
                if let waiter = acknowledgementWaiter, localVersion >= waiter.version {
                    acknowledgementWaiter = nil
                    waiter.continuation.resume()
                }
            case .error(let error):
                lastError = error
                // A refusal of changes discarded meanwhile is no news.
                if error.isRejection, let through = inFlightThrough, through > acknowledgedLocalVersion, discarding.map({ through > $0.through }) ?? true {
                    refusal = error
                    // Only a refusal of one transaction can be discarded: a batch of several is
                    // sent again one transaction at a time, so that the next refusal names one.
                    refusedThrough = inFlightCount == 1 ? through : nil
                    isolating = true
                }
                throw error
            case .images(let objects):
                try await restoreDiscarded(objects)
            case .welcome:
                throw SyncError.connection(detail: "a second welcome in one connection")
            }
        }
    }

    private func applyServerChanges(from: UInt64, to: UInt64, _ changes: [ObjectChange]) async throws {
        guard from == serverVersion else {
            throw SyncError.connection(detail: "the server sent versions after \(from), but the realm holds \(serverVersion)")
        }
        let applier = ServerChangeApplier(types: types)
        // One write: when any change fails, nothing of the message is kept (nor the new server version).
        do {
            try await realm.write { realm in
                try applier.apply(changes, in: realm)
                realm.object(ofType: FloeSyncState.self, forPrimaryKey: 0)?.serverVersion = Int(to)
            }
        } catch {
            throw SyncError.applyFailed(fromVersion: from, toVersion: to, detail: "\(error)")
        }
        serverVersion = to
        knownServerVersion = max(knownServerVersion, to)
        progressed()
    }

    /// Writes the server's images of a discarded refusal's objects, in the write that also
    /// stores the refusal as dealt with (so that the write is the client's own, never uploaded).
    private func restoreDiscarded(_ objects: [ObjectChange]) async throws {
        // A second answer to a request asked twice finds nothing left to restore.
        guard let pending = discarding else { return }
        let applier = ServerChangeApplier(types: types)
        do {
            try await realm.write { realm in
                try applier.apply(objects, in: realm)
                guard let state = realm.object(ofType: FloeSyncState.self, forPrimaryKey: 0) else { return }
                state.acknowledgedLocalVersion = max(state.acknowledgedLocalVersion, Int(pending.through))
            }
        } catch {
            throw SyncError.applyFailed(fromVersion: serverVersion, toVersion: serverVersion, detail: "the server's values of discarded changes: \(error)")
        }
        discarding = nil
        acknowledgedLocalVersion = max(acknowledgedLocalVersion, pending.through)
        lastError = nil
        settle(pending.through)
    }

    private static func ordered(_ objects: Set<SyncObjectID>) -> [SyncObjectID] {
        objects.sorted { $0.description < $1.description }
    }

    // MARK: Upload

    private func upload(_ connection: any SyncConnection) async throws {
        // Changes queued after a discarded refusal wait until its objects are restored.
        while discarding != nil && !Task.isCancelled { await withCheckedContinuation { progressWaiters.append($0) } }
        if Task.isCancelled { return }
        let start = uploadStart
        let feed: ChangeFeed
        do {
            feed = try realm.changeFeed(since: start, pinnedBy: history)
        } catch FloeError.versionUnavailable(_, _, let oldest, _) {
            throw SyncError.historyUnavailable(version: start, detail: "the file's history starts at version \(oldest)")
        }
        var iterator = feed.makeAsyncIterator()
        while !Task.isCancelled {
            var transactions: [UploadedTransaction] = []
            var count = 0
            var through: UInt64 = 0
            repeat {
                guard let transaction = try await iterator.next() else { return }
                through = transaction.version
                if let uploaded = uploadable(transaction) {
                    transactions.append(uploaded)
                    count += uploaded.changes.count
                }
            } while count < options.batchSize && realm.committedVersion > through && !(isolating && !transactions.isEmpty)
            if transactions.isEmpty {
                // Nothing to send: only the client's own writes (server changes, cursors).
                if acknowledgementWaiter == nil { settle(through) }
                continue
            }
            inFlightThrough = through
            inFlightCount = transactions.count
            try await connection.send(.upload(transactions: transactions, throughLocalVersion: through))
            try await waitForAcknowledgement(of: through)
            inFlightThrough = nil
            try await storeAcknowledgement(through)
            if let refused = refusedThrough, through >= refused {
                // The refused changes went through after all (the rules changed, say).
                refusal = nil
                refusedThrough = nil
                isolating = false
            }
        }
    }

    /// Drops the refused changes (``refusal``) from the upload queue: they stay in this
    /// device's realm but never reach the server, and the changes queued after them upload.
    /// Returns whether there was a refusal to drop: false also while the refusal covers an
    /// upload of several transactions, which the client is sending again one at a time (call
    /// again once ``refusal`` is set anew).
    ///
    /// ```swift
    /// if case .forbidden? = await client.refusal { await client.discardRefusedChanges() }
    /// ```
    ///
    /// The objects the discarded changes touched are then restored to the server's values, as
    /// Realm's compensating writes restore them: the client asks the server for them (at once
    /// when connected, else on its next connection) and writes what it gets; an object the
    /// server lacks, or that this user may not read, is deleted from the realm. Later local
    /// changes to those objects are overwritten too. Until the server answers, the changes
    /// queued behind stay queued, and ``waitUntilSynchronized()`` waits.
    @discardableResult
    public func discardRefusedChanges() async throws -> Bool {
        guard let refused = refusedThrough else { return false }
        // Read before anything lets go of the refused versions.
        let touched = try await objectsChanged(after: uploadStart, through: refused)
        // Meanwhile the server may have taken the changes after all (its rules changed).
        guard refusedThrough == refused else { return false }
        refusal = nil
        refusedThrough = nil
        isolating = false
        if touched.isEmpty {
            try await storeAcknowledgement(refused)
            return true
        }
        discarding = (refused, touched)
        if let connection {
            // Lost with its connection, the request is asked again by the next one.
            try? await connection.send(.refetch(objects: Self.ordered(touched)))
        }
        return true
    }

    /// The local version the queue of uploads starts after. In memory, the pin lets go of settled
    /// versions: every version up to the settled one is acknowledged or holds nothing to upload,
    /// so the queue starts there; a file keeps every version from the acknowledged one.
    private var uploadStart: UInt64 {
        history.oldestVersion == nil ? acknowledgedLocalVersion : max(acknowledgedLocalVersion, settledLocalVersion)
    }

    /// The synced objects that the local transactions after `start` through `end` changed.
    private func objectsChanged(after start: UInt64, through end: UInt64) async throws -> Set<SyncObjectID> {
        var objects: Set<SyncObjectID> = []
        guard end > start else { return objects }
        var iterator = try realm.changeFeed(since: start, pinnedBy: history).makeAsyncIterator()
        while let transaction = try await iterator.next() {
            if let uploaded = uploadable(transaction) { objects.formUnion(uploaded.changes.map(\.objectID)) }
            if transaction.version >= end { break }
        }
        return objects
    }

    /// The transaction's changes to synced classes; nil for the client's own writes (which
    /// carry server changes or cursors, and must not be sent back) and for local-only classes.
    private func uploadable(_ transaction: ChangeFeedTransaction) -> UploadedTransaction? {
        if transaction.objects.contains(where: { $0.className == FloeSyncState.className() }) { return nil }
        var changes: [ObjectChange] = []
        for object in transaction.objects where types.byName[object.className] != nil {
            switch object.operation {
            case .insert(let values):
                changes.append(ObjectChange(className: object.className, key: SyncValue(object.key), operation: .insert, values: values.mapValues(SyncValue.init)))
            case .update(let values):
                changes.append(ObjectChange(className: object.className, key: SyncValue(object.key), operation: .update, values: values.mapValues(SyncValue.init),
                                            bases: types.bases(className: object.className, values: values, before: object.before)))
            case .delete:
                changes.append(ObjectChange(className: object.className, key: SyncValue(object.key), operation: .delete))
            }
        }
        return changes.isEmpty ? nil : UploadedTransaction(localVersion: transaction.version, changes: changes)
    }

    /// Waits for the acknowledgement of `version` in this connection. A session that fails
    /// while the upload's send is still under way (its `failAcknowledgementWait` came before
    /// this wait began) cancels the uploader: the wait then ends at once, or when cancelled.
    private func waitForAcknowledgement(of version: UInt64) async throws {
        if acknowledgedInSession >= version { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                acknowledgementWaiter = (version, continuation)
            }
        } onCancel: {
            Task { await self.failAcknowledgementWait(CancellationError()) }
        }
    }

    private func settle(_ version: UInt64) {
        settledLocalVersion = max(settledLocalVersion, version)
        // In memory, the pin lets go of what no later session reads again.
        history.release(before: settledLocalVersion)
        progressed()
    }

    private func storeAcknowledgement(_ version: UInt64) async throws {
        try await realm.write { realm in
            realm.object(ofType: FloeSyncState.self, forPrimaryKey: 0)?.acknowledgedLocalVersion = Int(version)
        }
        acknowledgedLocalVersion = max(acknowledgedLocalVersion, version)
        lastError = nil
        settle(version)
    }
}
