import Synchronization
@_spi(Engine) import FloeStorage

/// The engine's shared state for one file (or one in-memory identifier): the newest
/// version, the file it lives in, the versions pinned by snapshots, and the writer's turn.
///
/// Every open of the same file in a process returns the same store, so their writes take
/// turns and each sees the others' commits.
///
/// ```swift
/// let store = try Store.open(path: "dogs.floe")
/// let transaction = try store.beginWrite()
/// let dogs = try transaction.createTable(TableSpec(name: "Dog", columns: [ColumnSpec(name: "age", type: .int)]))
/// try transaction.insertObject(into: dogs, values: [.int(3)])
/// try transaction.commit()
/// let snapshot = try store.snapshot()   // Sendable, O(1), never changes
/// ```
@_spi(Engine) public final class Store: Sendable {
    /// The file's path (or `memory:<identifier>`).
    public let path: String
    public let options: StoreOptions
    package let isInMemory: Bool
    package let gate = WriterGate()
    /// Syncs deferred commits in groups (see ``GroupCommit``).
    package let groupCommit: GroupCommit
    /// Damage that reads which cannot throw met in this store's file.
    public let damage = DamageLog()
    package let state: Locked<State>

    package struct State {
        package var root: GroupNode
        package var version: UInt64
        package var file: StorageFile?
        package var pins: [UInt64: Int] = [:]
        package var isClosed = false
        package var listeners: [UInt64: AsyncStream<UInt64>.Continuation] = [:]
        package var nextListener: UInt64 = 0
        package var commitObservers: [UInt64: CommitObserver] = [:]
        /// The file's newest commit record, changed with `file` and `version` (for history reads).
        package var newestRecord: CommitRecord?
    }

    private init(path: String, options: StoreOptions, isInMemory: Bool, file: StorageFile?, root: GroupNode, version: UInt64) {
        self.path = path
        self.options = options
        self.isInMemory = isInMemory
        let state = Locked(State(root: root, version: version, file: file, newestRecord: file?.lastCommit))
        self.state = state
        // Weakly: a sync round still running must not keep a closed store's file open.
        groupCommit = GroupCommit(durableVersion: version) { [weak state] in state?.withLock { ($0.version, $0.file) } ?? (.max, nil) }
        publishedVersion.store(version, ordering: .releasing)
    }

    deinit {
        let (file, observers) = state.withLock { state in
            for listener in state.listeners.values { listener.finish() }
            return (state.file, Array(state.commitObservers.values))
        }
        for observer in observers { observer(nil) }
        // Snapshots that outlive the store still read through the file, so it stays open; but
        // no one can write through it any more, so its lock goes and the path opens again (its
        // zeros written ahead of the commits trimmed, as a close would).
        file?.release()
    }

    // MARK: Opening

    private static let registry = Locked<[String: WeakStore]>([:])

    private struct WeakStore {
        weak var store: Store?
    }

    /// Opens the file at `path` (creating it unless read-only), or returns the store this
    /// process already has open for it.
    ///
    /// Opening reads the header and the last commit record only; nodes load on first use.
    /// Throws ``FloeError/fileLocked(path:)`` when another process has the file open,
    /// ``FloeError/notAFloeFile(path:)`` or ``FloeError/unsupportedFormatVersion(path:found:supported:)``
    /// for foreign or future files, ``FloeError/corruptFile(path:offset:detail:)`` when even
    /// the root of the newest intact commit cannot be read.
    public static func open(path: String, options: StoreOptions = StoreOptions()) throws(FloeError) -> Store {
        let canonical = FileHandle.canonicalPath(path)
        let store = try openShared(canonical: canonical, options: options)
        if let decide = options.shouldCompactOnOpen, !options.readOnly, let file = store.currentFile {
            let total = file.endOffset
            let used = file.lastCommit?.liveBytes ?? 0
            if decide(total, used) { try store.compact() }
        }
        return store
    }

    /// The store this process has open for the path, or a newly opened one. A store of this
    /// process released on another thread a moment ago may still hold the file's lock while
    /// its deinit runs: that is waited out briefly, never reported as another process's lock.
    private static func openShared(canonical: String, options: StoreOptions) throws(FloeError) -> Store {
        var attempts = 0
        while true {
            let (result, releasedHere) = registry.withLock { registry -> (Result<Store, FloeError>, Bool) in
                if let existing = registry[canonical]?.store, !existing.isClosed { return (.success(existing), false) }
                let releasedHere = registry[canonical] != nil
                let opened = Result { () throws(FloeError) -> Store in try openFile(path: canonical, options: options) }
                if case .success(let store) = opened { registry[canonical] = WeakStore(store: store) }
                return (opened, releasedHere)
            }
            if case .failure(.fileLocked) = result, releasedHere, attempts < 200 {
                attempts += 1
                usleep(1_000)
                continue
            }
            return try result.get()
        }
    }

    /// Whether this process has the file at `path` open.
    public static func isOpen(path: String) -> Bool {
        let canonical = FileHandle.canonicalPath(path)
        return registry.withLock { $0[canonical]?.store.map { !$0.isClosed } ?? false }
    }

    private static func openFile(path: String, options: StoreOptions) throws(FloeError) -> Store {
        let file = try StorageFile.open(path: path, readOnly: options.readOnly, durability: options.durability)
        var root = GroupNode(isMutable: false)
        var version: UInt64 = 0
        if let commit = file.lastCommit {
            version = commit.version
            if commit.rootRef != 0 { root = try NodeRef<GroupNode>(offset: commit.rootRef, source: file).load() }
        }
        return Store(path: path, options: options, isInMemory: false, file: file, root: root, version: version)
    }

    private static let memoryRegistry = Locked<[String: WeakStore]>([:])

    /// The in-memory store named `identifier`: shared by everyone who opens the same
    /// identifier in this process, and gone when the last of them lets go.
    public static func inMemory(identifier: String, options: StoreOptions = StoreOptions()) -> Store {
        memoryRegistry.withLock { registry in
            if let existing = registry[identifier]?.store, !existing.isClosed { return existing }
            let store = Store(path: "memory:\(identifier)", options: options, isInMemory: true, file: nil,
                              root: GroupNode(isMutable: false), version: 0)
            registry[identifier] = WeakStore(store: store)
            return store
        }
    }

    // MARK: Reading

    /// The newest committed version number (0 before the first commit). An atomic copy of
    /// the version under the lock, so that readers can check for news without locking.
    public var currentVersion: UInt64 { publishedVersion.load(ordering: .acquiring) }
    private let publishedVersion = Atomic<UInt64>(0)
    /// Moves whenever a row cached by a managed object may have gone stale (see ``ReadEpoch``).
    @usableFromInline package let readEpoch = ReadEpoch()

    package var isClosed: Bool { state.withLock { $0.isClosed } }

    package var currentFile: StorageFile? { state.withLock { $0.file } }

    /// What open found in the file (torn tail cut off, scan from the start), for diagnostics.
    public var recoveredTailBytes: UInt64 { currentFile?.recovery.discardedTailBytes ?? 0 }

    /// Of ``recoveredTailBytes``, the zeros that ended the file: space a writer extended the
    /// file by ahead of its commits (durability `.full`), never data. A writer that stops
    /// without closing (a crash) leaves them; open reads them as the end of the file.
    ///
    /// ```swift
    /// let store = try Store.open(path: path, options: StoreOptions(readOnly: true))
    /// let torn = store.recoveredTailBytes - store.recoveredZeroBytes   // a commit cut short
    /// ```
    public var recoveredZeroBytes: UInt64 { currentFile?.recovery.zeroTailBytes ?? 0 }

    /// Zeros written after the last commit, ahead of the next ones (0 when the store is closed,
    /// read-only, in memory or not `.full`). ``fileSize`` does not count them.
    ///
    /// ```swift
    /// let onDisk = store.fileSize + store.preallocatedBytes   // the file's size while open
    /// ```
    public var preallocatedBytes: UInt64 { currentFile?.preallocatedBytes ?? 0 }

    /// For a store opened read-only on a file that another process writes: takes in the
    /// commits appended since the last look, and follows the file to its compacted copy when
    /// the writer replaced it (the old file stays readable for snapshots still holding it).
    /// Returns whether the newest version changed. Writers' stores never need this.
    ///
    /// ```swift
    /// let reader = try Store.open(path: path, options: StoreOptions(readOnly: true))
    /// if try reader.refresh() { print("now at version", reader.currentVersion) }
    /// ```
    @discardableResult
    public func refresh() throws(FloeError) -> Bool {
        guard options.readOnly, let file = currentFile else { return false }
        // Read-only stores never write, so the writer's turn is free to serialize refreshes.
        gate.enter()
        defer { gate.leave() }
        if file.wasReplaced() {
            let replacement = try StorageFile.open(path: path, readOnly: true, durability: options.durability)
            guard let commit = replacement.lastCommit, commit.version >= currentVersion else { return false }
            let root = commit.rootRef == 0 ? GroupNode(isMutable: false) : try NodeRef<GroupNode>(offset: commit.rootRef, source: replacement).load()
            publish(root: root, version: commit.version, file: replacement)
            file.retire()
            return true
        }
        guard let commit = try file.followAppendedCommits() else { return false }
        let root = commit.rootRef == 0 ? GroupNode(isMutable: false) : try NodeRef<GroupNode>(offset: commit.rootRef, source: file).load()
        publish(root: root, version: commit.version, file: file)
        return true
    }

    private func publish(root: GroupNode, version: UInt64, file: StorageFile) {
        let (listeners, observers) = state.withLock { state in
            state.root = root
            state.version = version
            state.file = file
            state.newestRecord = file.lastCommit
            publishedVersion.store(version, ordering: .releasing)
            return (Array(state.listeners.values), Array(state.commitObservers.values))
        }
        readEpoch.advance()
        for listener in listeners { listener.yield(version) }
        notify(observers, version: version, root: root, changes: nil)
    }

    /// A snapshot of the newest version. O(1); pins the version until the snapshot is released.
    public func snapshot() throws(FloeError) -> Snapshot {
        // Loaded before the version: a commit after this load moves the epoch past it.
        let epoch = readEpoch.current
        let taken: (UInt64, GroupNode)? = state.withLock { state in
            guard !state.isClosed else { return nil }
            state.pins[state.version, default: 0] += 1
            return (state.version, state.root)
        }
        guard let (version, root) = taken else { throw .closed(path: path) }
        let pin = VersionPin(version: version) { [weak self] version in self?.unpin(version) }
        return Snapshot(version: version, group: root, pin: pin, damage: damage, readEpoch: epoch)
    }

    private func unpin(_ version: UInt64) {
        state.withLock { state in
            if let count = state.pins[version] {
                if count <= 1 { state.pins[version] = nil } else { state.pins[version] = count - 1 }
            }
        }
    }

    /// Versions that are alive: the newest plus every version a snapshot still holds.
    public var activeVersionCount: Int {
        state.withLock { state in
            Set(state.pins.keys).union([state.version]).count
        }
    }

    /// Bytes of the file that the newest version no longer uses (0 in memory).
    public var deadBytes: UInt64 { currentFile?.deadBytes ?? 0 }

    /// The file's size in bytes (0 in memory).
    public var fileSize: UInt64 { currentFile?.endOffset ?? 0 }

    /// Each committed version number, newest first when the consumer is slow (older ones coalesce).
    public func versions() -> AsyncStream<UInt64> {
        let (stream, continuation) = AsyncStream<UInt64>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id: UInt64? = state.withLock { state in
            guard !state.isClosed else { return nil }
            let id = state.nextListener
            state.nextListener += 1
            state.listeners[id] = continuation
            return id
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.listeners.removeValue(forKey: id) }
        }
        return stream
    }

    // MARK: Writing

    /// Begins the write transaction, waiting while another one is open.
    ///
    /// Throws ``FloeError/tooManyActiveVersions(path:active:maximum:)`` when the commit would
    /// leave more versions active than ``StoreOptions/maximumNumberOfActiveVersions``.
    public func beginWrite() throws(FloeError) -> WriteTransaction {
        try beginWrite(in: nil)
    }

    /// ``beginWrite()`` for a commit of a turn of writes: the version it replaces is kept by
    /// `turn` and freed when the turn ends (see ``TurnOfWrites``).
    package func beginWrite(in turn: TurnOfWrites?) throws(FloeError) -> WriteTransaction {
        if options.readOnly { throw .readOnly(path: path) }
        // After a failed sync the file's state on disk is unknown: no more writes until reopened.
        if let failure = groupCommit.failure { throw failure }
        gate.enter()
        let begun: Result<(UInt64, GroupNode), FloeError> = state.withLock { state in
            if state.isClosed { return .failure(.closed(path: path)) }
            if let maximum = options.maximumNumberOfActiveVersions {
                let pinned = state.pins.count
                if pinned + 1 > maximum {
                    return .failure(.tooManyActiveVersions(path: path, active: pinned + 1, maximum: maximum))
                }
            }
            return .success((state.version, state.root))
        }
        switch begun {
        case .success(let (version, root)):
            // From here reads of the writing realm see the transaction, not the version it began at.
            readEpoch.advance()
            return WriteTransaction(store: self, baseVersion: version, base: root, turn: turn)
        case .failure(let error):
            gate.leave()
            throw error
        }
    }

    /// Gives up the writer's turn of a transaction that ends without committing.
    package func endWrite() {
        readEpoch.advance()
        gate.leave()
    }

    /// Returns once `version` is on stable storage (at once for `.none` and in-memory stores, and
    /// for commits that synced themselves); commits awaited together share one `fdatasync`.
    ///
    /// ```swift
    /// let version = try transaction.commit(deferringSync: true)
    /// try await store.waitUntilDurable(version)   // now report the write as done
    /// ```
    ///
    /// - Throws: the sync's ``FloeError/io(path:operation:errno:)``; after one, the store
    ///   refuses writes until it is reopened.
    public func waitUntilDurable(_ version: UInt64) async throws(FloeError) {
        try await groupCommit.waitUntilDurable(version)
    }

    /// Calls `completion` once `version` is on stable storage (with nil), or with the sync's
    /// error: ``waitUntilDurable(_:)`` for a caller that does not suspend (a queue of writes
    /// whose writers each await their own outcome). At once when already known, else from the
    /// syncer's thread right after the round that covers it; it must return quickly.
    ///
    /// ```swift
    /// let version = try transaction.commit(deferringSync: true)
    /// store.whenDurable(version) { error in report(error) }
    /// ```
    public func whenDurable(_ version: UInt64, _ completion: @escaping @Sendable (FloeError?) -> Void) {
        groupCommit.whenDurable(version, completion)
    }

    /// How long a writer alone with its deferred commit may watch for its sync before it
    /// waits through ``whenDurable(_:_:)`` suspended (0: not at all); see
    /// `GroupCommit.outcomeWatchForLoneWriter`.
    package var outcomeWatchForLoneWriter: UInt64 { groupCommit.outcomeWatchForLoneWriter }

    package func commit(_ transaction: WriteTransaction, deferringSync: Bool) throws(FloeError) -> UInt64 {
        defer {
            // Published or failed, the transaction's rows are no longer the ones reads see.
            readEpoch.advance()
            gate.leave()
        }
        let (file, previousVersion, closed) = state.withLock { ($0.file, $0.version, $0.isClosed) }
        if closed { throw .closed(path: path) }
        precondition(previousVersion == transaction.baseVersion, "a write transaction began at version \(transaction.baseVersion) but the store is at \(previousVersion)")
        let version = previousVersion + 1
        let groupRef = NodeRef(transaction.group)
        if let file {
            var chunk: ChunkBuilder? = file.makeChunk()
            let rootOffset = groupRef.persist(into: &chunk)
            let written = chunk!.nextOffset - chunk!.start - UInt64(ChunkHeader.size)
            let previousLive = file.lastCommit?.liveBytes ?? 0
            let freed = UInt64(max(0, transaction.context.freedBytes - chunk!.keptAliveBytes))
            let live = previousLive + written - min(previousLive, freed)
            do {
                try file.append(&chunk!, version: version, rootRef: rootOffset, liveBytes: live, sync: !deferringSync,
                                extendingAhead: true)
            } catch {
                // A failed fsync may have lost bytes the kernel reported written (and retrying it
                // can wrongly succeed): no further writes until the file is reopened and recovered.
                if case .io(_, "fsync", _) = error { groupCommit.recordFailure(error) }
                throw error
            }
        } else {
            var none: ChunkBuilder?
            _ = groupRef.persist(into: &none)
        }
        let (replaced, listeners, observers) = state.withLock { state in
            let replaced = state.root
            state.root = transaction.group
            state.version = version
            state.newestRecord = file?.lastCommit
            publishedVersion.store(version, ordering: .releasing)
            return (replaced, Array(state.listeners.values), Array(state.commitObservers.values))
        }
        // In a turn of writes the replaced version is freed with the turn's others, once their
        // syncs are asked for; else when its last reader lets go (never inside the lock above).
        transaction.turn?.keep(replaced)
        for listener in listeners { listener.yield(version) }
        notify(observers, version: version, root: transaction.group, changes: observers.isEmpty ? nil : try? transaction.changeLog.changeSet())
        if !deferringSync || file == nil || options.durability != .full {
            // Synced by the append (or nothing to sync): durable, and so is every commit before it.
            groupCommit.markDurable(upTo: version)
        }
        if options.compactsAutomatically, let file, file.endOffset > options.automaticCompactionMinimumSize,
           file.deadBytes > 2 * (file.lastCommit?.liveBytes ?? 0) {
            // Dead bytes dominate: reclaim them now, while this writer still holds the turn. The
            // commit stands whatever happens here: a failed compaction leaves the file as it was,
            // and the next commit tries again. (The minimum size keeps small files from paying a
            // compaction's fixed cost, its syncs and rename, every few hundred commits.)
            try? compactHoldingTurn()
        }
        return version
    }

    // MARK: Maintenance

    /// Rewrites the file with only the newest version, then atomically replaces it.
    ///
    /// Snapshots taken before keep reading the old file's bytes, which stay reachable
    /// through its open descriptor until the last of them is released.
    public func compact() throws(FloeError) {
        if options.readOnly { throw .readOnly(path: path) }
        guard !isInMemory else { return }
        gate.enter()
        defer { gate.leave() }
        try compactHoldingTurn()
    }

    private func compactHoldingTurn() throws(FloeError) {
        guard let file = state.withLock({ $0.file }) else { return }
        let temporary = path + ".compacting"
        FileHandle.remove(temporary)
        let copy: StorageFile
        do {
            if let kept = try retainedHistory(in: file) {
                copy = try Compactor.copy(file: file, history: kept, to: temporary, reportedPath: path, durability: options.durability)
            } else {
                copy = try Compactor.copy(file: file, to: temporary, reportedPath: path, durability: options.durability)
            }
        } catch {
            FileHandle.remove(temporary)
            throw error
        }
        let root: GroupNode
        do {
            // Everything that can fail before the rename does: after it, the path names the copy.
            if let rootRef = copy.lastCommit?.rootRef, rootRef != 0 {
                root = try NodeRef<GroupNode>(offset: rootRef, source: copy).load()
            } else {
                root = GroupNode(isMutable: false)
            }
            try FileHandle.move(temporary, to: path)
        } catch {
            copy.close()
            FileHandle.remove(temporary)
            throw error
        }
        // From here the path names the copy: writing on to the old file would write to an
        // unlinked inode, lost on reopen. Switch even if the rename cannot be made durable.
        var directorySyncFailure: FloeError?
        do {
            try FileHandle.syncDirectory(of: path)
        } catch {
            directorySyncFailure = error
        }
        copy.continueExtending(after: file)
        let version = state.withLock { state in
            state.file = copy
            state.root = root
            state.newestRecord = copy.lastCommit
            return state.version
        }
        readEpoch.advance()
        // Snapshots taken before still read the old file's nodes: retire it, do not close it.
        file.retire()
        if let directorySyncFailure {
            // A crash could bring back the old file: later commits could vanish, so none are taken.
            groupCommit.recordFailure(directorySyncFailure)
            throw directorySyncFailure
        }
        if options.durability == .full { groupCommit.markDurable(upTo: version) }
    }

    /// Writes the newest version, compacted, to a new file at `destination` (which must not exist).
    public func writeCopy(to destination: String) throws(FloeError) {
        if FileHandle.exists(destination) { throw .io(path: destination, operation: "create copy", errno: EEXIST) }
        gate.enter()
        defer { gate.leave() }
        let (file, version, root) = state.withLock { ($0.file, $0.version, $0.root) }
        let copy: StorageFile
        if let file {
            copy = try Compactor.copy(file: file, to: destination, reportedPath: destination, durability: .full)
        } else {
            copy = try TreeExporter.write(root: root, version: version, to: destination)
        }
        copy.close()
    }

    /// Closes the store: later operations throw ``FloeError/closed(path:)`` and the file's lock is released.
    public func close() {
        let (file, listeners, observers) = state.withLock { state -> (StorageFile?, [AsyncStream<UInt64>.Continuation], [CommitObserver]) in
            state.isClosed = true
            let listeners = Array(state.listeners.values)
            state.listeners = [:]
            let observers = Array(state.commitObservers.values)
            state.commitObservers = [:]
            return (state.file, listeners, observers)
        }
        for listener in listeners { listener.finish() }
        for observer in observers { observer(nil) }
        file?.close()
        let forget = { (registry: inout [String: WeakStore], key: String) in
            if registry[key]?.store === self { registry[key] = nil }
        }
        if isInMemory {
            Self.memoryRegistry.withLock { forget(&$0, String(path.dropFirst("memory:".count))) }
        } else {
            Self.registry.withLock { forget(&$0, path) }
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
