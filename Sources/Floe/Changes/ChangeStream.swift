@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// What every change stream is: a `Sendable` `AsyncSequence` of changes with an identity that
/// its copies share, so that a write can skip it (see ``Realm/write(withoutNotifying:_:)-(_,(Transaction)->Result)``).
///
/// ```swift
/// let stream = try dog.changes
/// let copy = stream
/// copy.changeStreamID == stream.changeStreamID   // true
/// ```
public protocol ChangeStream: Sendable {
    /// The stream's identity: equal for every copy of one stream.
    var changeStreamID: ChangeStreamID { get }
}

/// The identity of a change stream (see ``ChangeStream``).
public struct ChangeStreamID: Sendable, Hashable {
    let channel: any SkippableChannel

    /// Whether two identities belong to copies of one stream.
    public static func == (lhs: ChangeStreamID, rhs: ChangeStreamID) -> Bool { lhs.channel === rhs.channel }
    /// Hashes the stream's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(channel)) }
}

/// A channel that a write can tell to skip the commit it is about to make.
protocol SkippableChannel: AnyObject, Sendable {
    var store: Store { get }
    func skip(version: UInt64)
    func unskip(version: UInt64)
}

/// Turns what commits changed into one stream's elements, on the consumer's side.
protocol ChangeDiffer: Sendable {
    associatedtype Element: Sendable
    /// The tables whose changes matter (nil: every commit matters).
    var observedTables: Set<String>? { get }
    /// The first element, describing `base` (nil: streams that start with the first change).
    mutating func initial(at base: Snapshot) throws(FloeError) -> Element?
    /// The element for going from `old` to `new`, which `changes` did (nil: unknown); nil when
    /// nothing this stream reports changed. `ended`: the stream ends after this element.
    mutating func diff(from old: Snapshot, to new: Snapshot, changes: ChangeSet?) throws(FloeError) -> (element: Element?, ended: Bool)
    /// The stream skipped the changes up to `base`: later diffs start from there.
    mutating func rebase(to base: Snapshot) throws(FloeError)
}

/// The pipe between the committing thread and one stream's consumer.
///
/// The writer only merges what a commit changed into the pending news (never waits, never
/// computes a diff); the consumer turns the news into one element when it asks for the next,
/// so a slow consumer gets one coalesced element instead of a queue. Memory stays bounded: the
/// merged change set (at most every object of the observed tables once) and one old root.
final class ChangeChannel<Differ: ChangeDiffer>: SkippableChannel, @unchecked Sendable {
    // @unchecked: every mutable field lives in `state`, behind its lock.
    let store: Store

    /// News since the consumer last looked: changes merged up to `end`, which starts from
    /// `rebase` when a write skipped this stream.
    struct Segment {
        var rebase: Snapshot?
        var changes: ChangeSet?
        var end: Snapshot
    }

    struct State {
        var segments: [Segment] = []
        var waiter: CheckedContinuation<Void, Never>?
        var finished = false
        var observer: UInt64?
        var skipped: Set<UInt64> = []
        var baseline: Snapshot?
        var differ: Differ?
        var sentInitial = false
    }

    /// Segments kept apart by skipped writes before the oldest are merged (and the skip lost).
    static var maximumSegments: Int { 4 }

    let state = Locked(State())
    let observedTables: Set<String>?

    private init(store: Store, observedTables: Set<String>?) {
        self.store = store
        self.observedTables = observedTables
    }

    /// A channel that hears every commit from now on, with the differ made from the version it starts at.
    static func open(store: Store, observedTables: Set<String>?, differ: (Snapshot) throws(FloeError) -> Differ) throws(FloeError) -> ChangeChannel {
        let channel = ChangeChannel(store: store, observedTables: observedTables)
        let (id, base) = try store.observeCommits { [weak channel] commit in channel?.absorb(commit) }
        do {
            let made = try differ(base)
            channel.state.withLock { state in
                state.observer = id
                state.baseline = base
                state.differ = made
            }
        } catch {
            store.stopObserving(id)
            throw error
        }
        return channel
    }

    deinit {
        if let id = state.withLock({ $0.observer }) { store.stopObserving(id) }
    }

    // MARK: The writer's side

    private func absorb(_ commit: CommittedChanges?) {
        let waiter: CheckedContinuation<Void, Never>? = state.withLock { state in
            guard let commit else {
                state.finished = true
                return state.waiter.take()
            }
            if state.skipped.remove(commit.version) != nil {
                state.segments.append(Segment(rebase: commit.snapshot, changes: ChangeSet(), end: commit.snapshot))
                coalesce(&state)
                return nil
            }
            var relevant: ChangeSet?
            if let changes = commit.changes {
                guard let narrowed = relevantPart(of: changes) else { return nil }
                relevant = narrowed
            }
            if state.segments.isEmpty {
                state.segments.append(Segment(rebase: nil, changes: relevant, end: commit.snapshot))
            } else {
                let last = state.segments.count - 1
                if let relevant, state.segments[last].changes != nil {
                    state.segments[last].changes!.merge(relevant)
                } else {
                    state.segments[last].changes = nil
                }
                state.segments[last].end = commit.snapshot
            }
            return state.waiter.take()
        }
        waiter?.resume()
    }

    /// The part of a commit's changes this stream observes, nil when none. When the commit
    /// touched only observed tables, the commit's own change set is shared, not copied: every
    /// observer of a table holds the one set the commit made.
    private func relevantPart(of changes: ChangeSet) -> ChangeSet? {
        guard let observedTables else { return changes }
        var touched = 0
        for name in observedTables where changes.tables[name].map({ !$0.isEmpty }) == true { touched += 1 }
        if touched == 0 { return nil }
        return touched == changes.tables.count ? changes : changes.restricted(to: observedTables)
    }

    private func coalesce(_ state: inout State) {
        guard state.segments.count > Self.maximumSegments else { return }
        let second = state.segments.remove(at: 1)
        if let changes = second.changes, state.segments[0].changes != nil {
            state.segments[0].changes!.merge(changes)
        } else {
            state.segments[0].changes = nil
        }
        state.segments[0].end = second.end
    }

    func skip(version: UInt64) {
        _ = state.withLock { $0.skipped.insert(version) }
    }

    func unskip(version: UInt64) {
        _ = state.withLock { $0.skipped.remove(version) }
    }

    // MARK: The consumer's side

    /// The next element, waiting for a commit that changes something this stream reports; nil
    /// once the stream ended (the object was deleted, the store closed, or the task was cancelled).
    func next() async -> Differ.Element? {
        while true {
            if Task.isCancelled { return finish() }
            let step: Step = state.withLock { state in
                guard let differ = state.differ, let baseline = state.baseline else { return .end }
                if !state.sentInitial {
                    state.sentInitial = true
                    return .initial(differ: differ, base: baseline)
                }
                if !state.segments.isEmpty {
                    let segment = state.segments.removeFirst()
                    state.differ = nil   // taken while the consumer works outside the lock
                    return .segment(segment, differ: differ, base: baseline)
                }
                if state.finished { return .end }
                return .wait
            }
            switch step {
            case .end:
                return finish()
            case .wait:
                await waitForNews()
            case .initial(var differ, let base):
                let element = try? differ.initial(at: base)
                state.withLock { $0.differ = differ }
                if let element { return element }
            case .segment(let segment, var differ, var base):
                var produced: (element: Differ.Element?, ended: Bool) = (nil, false)
                do throws(FloeError) {
                    if let rebase = segment.rebase {
                        try differ.rebase(to: rebase)
                        base = rebase
                    }
                    if segment.end.version != base.version {
                        produced = try differ.diff(from: base, to: segment.end, changes: segment.changes)
                    }
                } catch {
                    // Damage met while computing the change: the stream cannot go on truthfully.
                    produced = (nil, true)
                }
                let ended = produced.ended
                state.withLock { state in
                    state.differ = differ
                    state.baseline = segment.end
                    if ended { state.finished = true; state.segments = []; state.differ = nil }
                }
                if ended { stopObserving() }
                if let element = produced.element { return element }
                if ended { return nil }
            }
        }
    }

    private enum Step {
        case end, wait
        case initial(differ: Differ, base: Snapshot)
        case segment(Segment, differ: Differ, base: Snapshot)
    }

    private func waitForNews() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if !state.segments.isEmpty || state.finished || Task.isCancelled { return true }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiter.take() }?.resume()
        }
    }

    private func finish() -> Differ.Element? {
        state.withLock { state in
            state.finished = true
            state.segments = []
            state.differ = nil
        }
        stopObserving()
        return nil
    }

    private func stopObserving() {
        if let id = state.withLock({ $0.observer.take() }) { store.stopObserving(id) }
    }
}

/// The iterator every change stream hands out: it asks the stream's channel for the next element.
public struct ChangeStreamIterator<Element: Sendable>: AsyncIteratorProtocol {
    let nextElement: @Sendable () async -> Element?

    /// The next change; nil once the stream ended.
    public mutating func next() async -> Element? {
        await nextElement()
    }
}
