@_spi(Engine) import FloeStorage

/// Operations on a table's cluster tree: a B+tree keyed by object key whose leaves hold
/// objects column by column.
///
/// Read operations work on any version. Mutations path-copy through a ``WriteContext``:
/// they copy each node they change that belongs to a committed version, so a one-object
/// update writes one leaf, one column and the path above them.
@usableFromInline package enum ClusterTree {
    /// Objects per leaf at most, as this writer fills them: a leaf past it splits. A commit
    /// that changes several rows of a leaf, or inserts inside it, writes the leaf's columns
    /// whole, so their size is what such a commit costs (256 objects cost a random one-object
    /// insert half again as much as 128; iterating, bulk inserts and bulk updates pay a few
    /// per cent for the smaller leaves: `Docs/Performance.md`).
    @usableFromInline package static let leafCapacity = 128
    /// Objects per leaf at most, as the file format allows and readers accept (files written
    /// with larger leaves read and grow as they are).
    package static let maximumLeafObjects = 256
    /// Children per inner node at most, as this writer fills them: an inner node past it
    /// splits. Every commit writes the inner nodes on the path to each leaf it changed, child
    /// references and all, so their size is what every commit pays; 32 children keep a table of
    /// up to 32,768 objects two levels deep, and a million three, as 64 do.
    package static let innerCapacity = 32
    /// Children per inner node at most, as the file format allows and readers accept (files
    /// written with larger inner nodes read and grow as they are).
    package static let maximumInnerChildren = 64
}
