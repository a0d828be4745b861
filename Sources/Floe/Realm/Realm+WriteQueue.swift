@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// The awaited writes waiting for a realm's actor (``Realm/write(_:)-(sending(borrowing Transaction)->Result)``).
///
/// A writer puts its write here and, unless another writer is already draining the queue, hops
/// onto the actor and runs every queued write back to back: each in its own transaction with
/// its own commit and rollback, as if each writer had hopped on in turn, but without leaving
/// and retaking the actor between them. Each write's outcome reaches its writer once the sync
/// round that covers its commit returns (group commit), never before.
final class WriteQueue: Sendable {
    private struct State {
        var writes: [any QueuedWrite] = []
        var isDraining = false
    }

    private let state = Locked(State())

    /// Writes run per turn on the actor before other work queued on it gets a turn.
    static let turnLength = 64

    /// Queues `write`; answers whether the caller must drain the queue (no one else is).
    func enqueue(_ write: any QueuedWrite) -> Bool {
        state.withLock { state in
            state.writes.append(write)
            if state.isDraining { return false }
            state.isDraining = true
            return true
        }
    }

    /// Whether no write is queued (a drain under way may still be running its turn).
    var isEmpty: Bool { state.withLock { $0.writes.isEmpty } }

    /// The next writes to run, oldest first; none when the queue is empty, which ends the drain.
    func next() -> ArraySlice<any QueuedWrite> {
        state.withLock { state in
            if state.writes.isEmpty {
                state.isDraining = false
                return []
            }
            let count = min(Self.turnLength, state.writes.count)
            let taken = state.writes[..<count]
            state.writes.removeFirst(count)
            return taken
        }
    }
}

/// One queued write, as its drain sees it.
protocol QueuedWrite: AnyObject, Sendable {
    /// Runs the write in its own transaction. A failed write's writer gets its error at once;
    /// for a committed one, answers the version its writer waits to see durable. Called once,
    /// on the realm's actor.
    func run(in context: ObjectContext, access: _RealmAccess) -> UInt64?
    /// Gives the writer its outcome once `version` (which ``run(in:access:)`` answered) is durable.
    /// `alone`: the write was its turn's only one, with nothing queued behind it.
    func awaitDurability(of version: UInt64, in store: Store, alone: Bool)
}

/// A queued write returning `Value`, and its writer's wait for the outcome.
final class TypedQueuedWrite<Value: Sendable>: QueuedWrite, @unchecked Sendable {
    // @unchecked: `block` is lent by a writer that sent it and touched only by `run`, once, on
    // the realm's actor, and `committed` only by `run` and `awaitDurability`, on the actor too;
    // everything else is under `state`'s lock.
    private var block: ((borrowing Realm.Transaction) throws -> Value)?

    private struct State {
        var outcome: Result<Value, any Error>?
        var writer: CheckedContinuation<Value, any Error>?
        var isCancelled = false
        /// How long the writer watches for its outcome before it suspends (0: not at all), as
        /// the store allows a lone write (`Store.outcomeWatchForLoneWriter`).
        var outcomeWatch: UInt64 = 0
    }

    private let state = Locked(State())

    init(_ block: @escaping (borrowing Realm.Transaction) throws -> Value) {
        self.block = block
    }

    /// Marks the write cancelled: if it has not committed yet, it rolls back (or never begins).
    func cancel() {
        state.withLock { $0.isCancelled = true }
    }

    private var isCancelled: Bool { state.withLock { $0.isCancelled } }

    /// The committed write's result, kept from ``run(in:access:)`` until its commit is durable.
    private var committed: Value?

    func run(in context: ObjectContext, access: _RealmAccess) -> UInt64? {
        // The block is run and let go of before the writer can learn the outcome: the writer
        // lends it without letting it escape (see ``Realm/queuedWrite(_:)``).
        switch attempt(in: context, access: access) {
        case .failure(let error):
            finish(.failure(error))
            return nil
        case .success(let (result, version)):
            committed = result
            return version
        }
    }

    func awaitDurability(of version: UInt64, in store: Store, alone: Bool) {
        guard let result = committed else { return }
        committed = nil
        if alone {
            let watch = store.outcomeWatchForLoneWriter
            if watch > 0 { state.withLock { $0.outcomeWatch = watch } }
        }
        store.whenDurable(version) { [self] error in
            finish(error.map { .failure($0) } ?? .success(result))
        }
    }

    @inline(never)
    private func attempt(in context: ObjectContext, access: _RealmAccess) -> Result<(Value, UInt64), any Error> {
        guard let block else { return .failure(CancellationError()) }
        self.block = nil
        if isCancelled { return .failure(CancellationError()) }
        do {
            return .success(try context.write(deferringSync: true) {
                let result = try block(Realm.Transaction(_access: access))
                // Cancelled before the commit: roll back rather than publish.
                if isCancelled { throw CancellationError() }
                return result
            })
        } catch {
            return .failure(error)
        }
    }

    /// The outcome if it comes within `nanoseconds`, yielding the core meanwhile (to the
    /// syncer thread, among others).
    private func watchForOutcome(nanoseconds: UInt64) -> Result<Value, any Error>? {
        var outcome: Result<Value, any Error>?
        _ = BriefWatch.until(nanoseconds: nanoseconds) {
            outcome = state.withLock { $0.outcome }
            return outcome != nil
        }
        return outcome
    }

    private func finish(_ outcome: Result<Value, any Error>) {
        let writer = state.withLock { state -> CheckedContinuation<Value, any Error>? in
            guard let writer = state.writer else {
                state.outcome = outcome
                return nil
            }
            state.writer = nil
            return writer
        }
        writer?.resume(with: outcome)
    }

    /// The write's result once it is durable, or its error.
    func outcome() async throws -> Value {
        let watch = state.withLock { $0.outcomeWatch }
        if watch > 0, let outcome = watchForOutcome(nanoseconds: watch) { return try outcome.get() }
        return try await withCheckedThrowingContinuation { (writer: CheckedContinuation<Value, any Error>) in
            let outcome = state.withLock { state -> Result<Value, any Error>? in
                if let outcome = state.outcome { return outcome }
                state.writer = writer
                return nil
            }
            if let outcome { writer.resume(with: outcome) }
        }
    }
}

extension Realm {
    /// Queues `block` as a write of its own and returns its result once it is durable.
    /// The block is lent to the queue, not kept: whichever writer drains the queue runs it and
    /// lets go of it before this writer gets its outcome.
    nonisolated func queuedWrite<Value: Sendable>(_ block: sending (borrowing Transaction) throws -> Value) async throws -> Value {
        try Task.checkCancellation()
        return try await withoutActuallyEscaping(block) { block in
            let write = TypedQueuedWrite(block)
            return try await withTaskCancellationHandler {
                if writeQueue.enqueue(write) { await drainQueuedWrites() }
                return try await write.outcome()
            } onCancel: {
                write.cancel()
            }
        }
    }

    /// Runs the queued writes until none are left, a turn of them at a time: between turns
    /// other work waiting for the actor runs.
    private func drainQueuedWrites() async {
        var writes = writeQueue.next()
        while !writes.isEmpty {
            // The turn's writes commit back to back first, and only then wait for a sync: one
            // round then covers the whole turn (asking for each write's sync as it committed
            // woke the syncer per commit, and a slow commit then got a sync of its own).
            // The versions they replace are freed together after that, while the disk syncs.
            var committed: [(write: any QueuedWrite, version: UInt64)] = []
            context.beginTurnOfWrites()
            for write in writes {
                if let version = write.run(in: context, access: access) { committed.append((write, version)) }
            }
            let alone = committed.count == 1 && writeQueue.isEmpty
            for (write, version) in committed { write.awaitDurability(of: version, in: store, alone: alone) }
            context.endTurnOfWrites()
            writes = writeQueue.next()
            if !writes.isEmpty { await Task.yield() }
        }
    }
}
