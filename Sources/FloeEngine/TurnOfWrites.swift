@_spi(Engine) import FloeStorage

/// One writer's run of commits whose syncs are asked for together (a turn of queued writes,
/// group commit's unit), and the trees of the versions those commits replace, freed together
/// when the turn ends.
///
/// A commit copies the path from the root to each changed leaf; the version it replaces keeps
/// the old path, and when the last holder of that version lets go, the old path is freed node
/// by node (each inner node releasing a reference per child, each leaf its column arrays). A
/// commit made in a turn hands the root it replaced to the turn instead (``Store/commit``), and
/// ``end()`` frees them once the turn's commits wait for their sync: the freeing then runs
/// while the disk syncs, not before the sync round is asked for. Every
/// ``replacedTreesPerRelease`` commits the kept trees are freed anyway, so a long turn does
/// not hold every version it replaced.
///
/// The writer frees them itself. Freeing on a background queue was measured (W8: 100 tasks of
/// durable one-object writes): that queue's frees went to the writer's `malloc` arena and
/// contended for its lock with the writer's own allocations, and waking the queue's thread out
/// of that lock cost the writer about a tenth of its time, more than the freeing saved it.
///
/// ```swift
/// let turn = TurnOfWrites()
/// let transaction = try store.beginWrite(in: turn)
/// let version = try transaction.commit(deferringSync: true)   // the replaced root goes to `turn`
/// turn.end()                                                 // freed here, once the syncs are asked for
/// ```
package final class TurnOfWrites {
    /// The roots kept, referenced by this array alone (so whoever empties it frees them).
    private var replacedTrees: [GroupNode] = []

    /// How many replaced trees a turn keeps before freeing them.
    package static let replacedTreesPerRelease = 64

    package init() {}

    /// How many roots are kept now.
    package var keptTreeCount: Int { replacedTrees.count }

    /// Keeps `tree`, the root a commit of this turn replaced, alive until the turn ends (or
    /// the turn has kept ``replacedTreesPerRelease`` of them).
    package func keep(_ tree: GroupNode) {
        replacedTrees.append(tree)
        if replacedTrees.count >= Self.replacedTreesPerRelease { replacedTrees.removeAll(keepingCapacity: true) }
    }

    /// Frees every kept tree (unless a snapshot still holds it).
    package func end() {
        replacedTrees.removeAll(keepingCapacity: true)
    }
}
