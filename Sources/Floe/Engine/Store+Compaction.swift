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

    /// Called by a commit in the writer's turn once it is published: finishes a background
    /// compaction that is done, or starts one when dead bytes dominate a file over the minimum
    /// size. A file whose history is kept (a pinned version) is compacted in the turn.
    func compactAutomaticallyIfDue(file: StorageFile) {
        if let running = backgroundCompaction.withLock({ $0 }) {
            guard running.isFinished else { return }
            backgroundCompaction.withLock { $0 = nil }
            // The commit stands whatever happens here: a failed compaction leaves the file as
            // it was, and a later commit tries again.
            try? finishBackgroundCompaction(running, file: file)
            return
        }
        guard file.endOffset > options.automaticCompactionMinimumSize,
              file.deadBytes > 2 * (file.lastCommit?.liveBytes ?? 0) else { return }
        let keepsHistory = (try? pinnedHistoryVersion()) != nil
        if keepsHistory || (file.lastCommit?.liveBytes ?? 0) > Self.backgroundCompactionMaximumLiveBytes {
            // Dead bytes dominate: reclaim them now, while this writer still holds the turn.
            try? compactHoldingTurn()
        } else {
            startBackgroundCompaction(of: file)
        }
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
