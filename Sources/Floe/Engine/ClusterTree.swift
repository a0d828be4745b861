/// Operations on a table's cluster tree: a B+tree keyed by object key whose leaves hold
/// objects column by column.
///
/// Read operations work on any version. Mutations path-copy through a ``WriteContext``:
/// they copy each node they change that belongs to a committed version, so a one-object
/// update writes one leaf, one column and the path above them.
enum ClusterTree {
    /// Objects per leaf at most.
    static let leafCapacity = 256
    /// Children per inner node at most.
    static let innerCapacity = 64
}
