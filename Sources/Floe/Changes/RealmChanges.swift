@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// One commit to a realm's file, as ``Realm/changes`` reports it.
///
/// ```swift
/// for await change in try realm.changes { print(change.version, change.changedClassNames) }
/// ```
public struct RealmChange: Sendable {
    /// The version the commit made (for a slow consumer, the newest of those it missed).
    public let version: UInt64
    /// The classes whose objects (or schema) the commits changed, sorted; empty when unknown
    /// (commits another process appended to a file this realm only reads).
    public let changedClassNames: [String]
}

/// A realm's commits, as a `Sendable` `AsyncSequence` of ``RealmChange``: one per commit, or,
/// for a consumer slower than the writes, one per look carrying the newest version. It ends
/// when the task iterating it is cancelled or the realm's file is closed.
///
/// ```swift
/// let stream = try realm.changes
/// Task { for await change in stream { print("now at", change.version) } }
/// ```
public struct RealmChanges: AsyncSequence, ChangeStream {
    /// One commit of the realm: its version and the classes it changed.
    public typealias Element = RealmChange
    /// Change streams never throw.
    public typealias Failure = Never

    let channel: ChangeChannel<RealmDiffer>

    /// This stream's identity, shared by its copies.
    public var changeStreamID: ChangeStreamID { ChangeStreamID(channel: channel) }

    /// An iterator over this stream's changes (iterate each stream from one task at a time).
    public func makeAsyncIterator() -> ChangeStreamIterator<RealmChange> {
        let channel = self.channel
        return ChangeStreamIterator { await channel.next() }
    }
}

extension Realm {
    /// This realm's commits (by any realm of the file in this process), from now on: an
    /// `AsyncSequence` of ``RealmChange`` carrying each new version.
    ///
    /// ```swift
    /// for await change in try realm.changes { print("committed", change.version) }
    /// ```
    ///
    /// - Throws: ``FloeError/closed(path:)`` when the realm's file was closed.
    public nonisolated var changes: RealmChanges {
        get throws {
            RealmChanges(channel: try ChangeChannel<RealmDiffer>.open(store: store, observedTables: nil) { _ in RealmDiffer() })
        }
    }
}

/// Every commit is news to the realm's stream.
struct RealmDiffer: ChangeDiffer {
    var observedTables: Set<String>? { nil }

    func initial(at base: Snapshot) -> RealmChange? { nil }

    func rebase(to base: Snapshot) {}

    func diff(from old: Snapshot, to new: Snapshot, changes: ChangeSet?) -> (element: RealmChange?, ended: Bool) {
        let names = changes.map { $0.tables.filter { !$0.value.isEmpty }.keys.sorted() } ?? []
        return (RealmChange(version: new.version, changedClassNames: names), false)
    }
}
