import Dispatch

/// Replaced versions' trees, collected by a writer and let go of away from its thread.
///
/// A commit copies the path from the root to each changed leaf; the version it replaces keeps
/// the old path, and when the last holder of that version lets go, the old path is freed node
/// by node (each 64-way inner node releasing a reference per child, each leaf its column
/// arrays). A writer that commits many times in a row (a turn of queued writes) keeps the
/// replaced roots here instead, and ``releaseInBackground()`` hands them to a background
/// queue that frees them while the writer goes on with the next write. Nodes still shared
/// with newer versions only lose a reference; nothing is read or written through them.
///
/// ```swift
/// let reclaimer = TreeReclaimer()
/// reclaimer.keep(oldSnapshot.group)   // before the snapshot is let go
/// reclaimer.releaseInBackground()     // freed on the background queue
/// ```
final class TreeReclaimer {
    private static let queue = DispatchQueue(label: "floe.tree-reclaimer", qos: .utility)

    /// The roots kept, referenced by this array alone (so whoever empties it frees them).
    private var trees: [GroupNode] = []

    /// The fewest kept trees worth handing to the background queue.
    static let backgroundMinimum = 4

    /// How many roots are kept.
    var count: Int { trees.count }

    /// Keeps `tree` alive until the next ``releaseInBackground()``.
    func keep(_ tree: GroupNode) {
        trees.append(tree)
    }

    /// Frees every kept tree on the background queue (the last references to them are there),
    /// or right here when there are fewer than ``backgroundMinimum``: waking the queue's thread
    /// costs a lone writer (a turn of one write) more than freeing one replaced path does.
    func releaseInBackground() {
        guard !trees.isEmpty else { return }
        guard trees.count >= Self.backgroundMinimum else {
            trees.removeAll(keepingCapacity: true)
            return
        }
        // Moved into a lock, not just captured: the box then holds the only reference, and the
        // lock orders this thread's writes to the nodes before their release on the queue in a
        // way the thread sanitizer sees.
        let handed = Locked<[GroupNode]>([])
        handed.withLock { swap(&$0, &trees) }
        Self.queue.async { handed.withLock { $0 = [] } }
    }
}
