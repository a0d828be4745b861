/// Replaced versions' trees, kept by a writer until its turn of queued writes has handed every
/// commit to the syncer, then freed together.
///
/// A commit copies the path from the root to each changed leaf; the version it replaces keeps
/// the old path, and when the last holder of that version lets go, the old path is freed node
/// by node (each inner node releasing a reference per child, each leaf its column arrays). A
/// writer that commits many times in a row (a turn of queued writes) keeps the replaced roots
/// here instead, and frees them with ``releaseAll()`` once the turn's commits wait for their
/// sync: the freeing then runs while the disk syncs, not before the sync round is asked for.
///
/// The writer frees them itself. Freeing on a background queue was measured (W8: 100 tasks of
/// durable one-object writes): that queue's frees went to the writer's `malloc` arena and
/// contended for its lock with the writer's own allocations, and waking the queue's thread out
/// of that lock cost the writer about a tenth of its time, more than the freeing saved it.
///
/// ```swift
/// let reclaimer = TreeReclaimer()
/// reclaimer.keep(oldSnapshot.group)   // before the snapshot is let go
/// reclaimer.releaseAll()              // freed here, once the turn's syncs are asked for
/// ```
final class TreeReclaimer {
    /// The roots kept, referenced by this array alone (so whoever empties it frees them).
    private var trees: [GroupNode] = []

    /// How many roots are kept.
    var count: Int { trees.count }

    /// Keeps `tree` alive until the next ``releaseAll()``.
    func keep(_ tree: GroupNode) {
        trees.append(tree)
    }

    /// Frees every kept tree (unless a snapshot still holds it).
    func releaseAll() {
        trees.removeAll(keepingCapacity: true)
    }
}
