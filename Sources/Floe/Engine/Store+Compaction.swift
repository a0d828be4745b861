import Foundation

/// A compaction whose copy is written away from the writer's turn (see
/// ``Store/startBackgroundCompaction(of:)``): the newest version at its start is copied and
/// synced on a background thread while writers go on committing; the writer that finds it done
/// adds the nodes committed meanwhile, seals, syncs and renames it in its turn.
final class BackgroundCompaction: @unchecked Sendable {
    // @unchecked: `outcome` is guarded by `condition`; the rest is immutable or atomic.
    /// The file being copied.
    let source: StorageFile
    private let condition = NSCondition()
    private var outcome: Result<PendingCopy, FloeError>?
    private let cancelled = Locked(false)

    init(source: StorageFile) {
        self.source = source
    }

    /// Whether the copy is written (or failed); a writer finishes only a finished one.
    var isFinished: Bool {
        condition.lock()
        defer { condition.unlock() }
        return outcome != nil
    }

    var isCancelled: Bool { cancelled.withLock { $0 } }

    /// Asks the copy to stop at its next node.
    func cancel() { cancelled.withLock { $0 = true } }

    func finish(with result: Result<PendingCopy, FloeError>) {
        condition.lock()
        outcome = result
        condition.broadcast()
        condition.unlock()
    }

    /// The copy's outcome, once there is one.
    func wait() -> Result<PendingCopy, FloeError> {
        condition.lock()
        defer { condition.unlock() }
        while outcome == nil { condition.wait() }
        return outcome!
    }
}

extension Store {
    /// The file a compaction writes before it replaces the store's file.
    var compactionTemporaryPath: String { path + ".compacting" }

    /// Files whose newest version takes more than this are compacted in the writer's turn, as
    /// before: the background copy remembers every copied node's offset (about 40 bytes a node).
    static let backgroundCompactionMaximumLiveBytes: UInt64 = 256 << 20

    /// Called by a commit in the writer's turn once it is published: compacts a file over the
    /// minimum size whose dead bytes exceed twice its live ones, copying off the turn when it
    /// can. A background copy starts while the file is still a little short of that bound
    /// (``backgroundCompactionHeadroom(live:)`` bytes of commits away), so that it is usually
    /// done before the bound is reached; a later commit finishes it once it is done. The bound
    /// is kept as it was: a commit that reaches it waits for a copy still running (never longer
    /// than copying in its turn would take) and finishes it, or, with none running (a file that
    /// just grew over the minimum size, a kept history, a failed copy), compacts in its turn.
    func compactAutomaticallyIfDue(file: StorageFile) {
        let live = file.lastCommit?.liveBytes ?? 0
        let (size, dead, minimum) = (file.endOffset, file.deadBytes, options.automaticCompactionMinimumSize)
        let overBound = size > minimum && dead > 2 * live
        if let running = backgroundCompaction.withLock({ $0 }) {
            guard running.isFinished || overBound else { return }
            backgroundCompaction.withLock { $0 = nil }
            // The commit stands whatever happens here: a failed compaction leaves the file as
            // it was, and a later commit tries again.
            try? finishBackgroundCompaction(running, file: file)
            return
        }
        if overBound {
            try? compactHoldingTurn()
            return
        }
        let headroom = Self.backgroundCompactionHeadroom(live: live, minimum: minimum)
        guard size + headroom > minimum, dead + headroom > 2 * live,
              live <= Self.backgroundCompactionMaximumLiveBytes, (try? pinnedHistoryVersion()) == nil else { return }
        startBackgroundCompaction(of: file)
    }

    /// How many bytes of commits short of the bound a background copy starts: a quarter of the
    /// live data (copying takes time in proportion to it), at least a sixteenth of the minimum
    /// size. A compaction then comes at most that much sooner than it did in the turn.
    static func backgroundCompactionHeadroom(live: UInt64, minimum: UInt64) -> UInt64 {
        max(live / 4, minimum / 16)
    }

    /// Copies the newest version of `file` on a background thread (a thread, not the
    /// cooperative pool: the copy reads, writes and syncs). The next commit after it is done
    /// finishes it.
    func startBackgroundCompaction(of file: StorageFile) {
        guard let base = file.lastCommit else { return }
        let compaction = BackgroundCompaction(source: file)
        backgroundCompaction.withLock { $0 = compaction }
        let temporary = compactionTemporaryPath
        let (path, durability) = (path, options.durability)
        FileHandle.remove(temporary)
        Thread.detachNewThread {
            do throws(FloeError) {
                let pending = try Compactor.beginCopy(file: file, commit: base, to: temporary, reportedPath: path,
                                                      durability: durability, isCancelled: { compaction.isCancelled })
                compaction.finish(with: .success(pending))
            } catch {
                FileHandle.remove(temporary)
                compaction.finish(with: .failure(error))
            }
        }
    }

    /// Ends a background compaction that will not be finished (the store closes, or compacts
    /// in the turn): stops its copy, waits for its thread and removes its file.
    func abandonBackgroundCompaction() {
        guard let running = backgroundCompaction.withLock({ compaction in
            defer { compaction = nil }
            return compaction
        }) else { return }
        running.cancel()
        if case .success(let pending) = running.wait() {
            pending.abandon()
            FileHandle.remove(compactionTemporaryPath)
        }
    }

    /// In the writer's turn: adds the nodes committed since the background copy began, seals
    /// and syncs the copy, and puts it in the file's place. Nothing changes if anything fails
    /// before the rename (the copy is removed); a compaction that is no longer right (the file
    /// was replaced meanwhile, or a version got pinned) is dropped.
    func finishBackgroundCompaction(_ compaction: BackgroundCompaction, file: StorageFile) throws(FloeError) {
        let temporary = compactionTemporaryPath
        guard case .success(var pending) = compaction.wait() else { return }
        guard compaction.source === file, let newest = file.lastCommit, (try? pinnedHistoryVersion()) == nil else {
            pending.abandon()
            FileHandle.remove(temporary)
            return
        }
        let copy: StorageFile
        do {
            copy = try Compactor.finishCopy(&pending, file: file, commit: newest)
        } catch {
            pending.abandon()
            FileHandle.remove(temporary)
            throw error
        }
        try install(copy, from: temporary, replacing: file)
    }
}
