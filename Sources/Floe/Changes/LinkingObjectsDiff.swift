@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// The objects linking to one object, moved on from what a commit touched: only an origin
/// object inserted, deleted, or whose link property was written can start or stop linking, so
/// each of those is looked up in the previous keys (a binary search) and its link read at the
/// new version; origins written in other properties are modifications where they stand.
/// O(k log N) for k touched origins, besides copying the keys when origins come or go.
///
/// ```swift
/// let diff = LinkingObjectsDiff.make(previous: [3, 8], link: link, changes: originChanges,
///                                    at: snapshot) { originChanges.modified[$0] != nil }
/// ```
enum LinkingObjectsDiff {
    /// Where the links live: the origin class's table and link column, and the target's key.
    struct Link {
        let origin: TableHandle
        let column: Int
        let target: Int64
        /// Whether the link column is a list or set of links (else a single link).
        let isCollection: Bool
    }

    /// The new keys and the diff from `previous` (ascending, an origin that links more than once
    /// at each of its places); nil when such an origin's links were written (then the origins
    /// are compared in full).
    static func make(previous: [Int64], link: Link, changes: ChangeSet.TableChanges, at new: Snapshot,
                     modified: (Int64) -> Bool) throws(FloeError) -> (keys: [Int64], diff: CollectionDiff)? {
        var touched = Set(changes.deleted).union(changes.inserted)
        for (key, columns) in changes.modified where columns.contains(link.column) { touched.insert(key) }
        var removed: [Int] = []      // old positions
        var added: [Int64] = []      // keys, ascending once sorted
        for key in touched.sorted() {
            let position = lowerBound(key, in: previous)
            let wasLinking = position < previous.count && previous[position] == key
            if wasLinking && position + 1 < previous.count && previous[position + 1] == key { return nil }
            var links = 0
            if !changes.deleted.contains(key) || changes.inserted.contains(key) {
                links = try count(of: link, from: key, at: new)
                if links > 1 { return nil }
            }
            let replaced = changes.deleted.contains(key) && changes.inserted.contains(key)
            if wasLinking && (links == 0 || replaced) { removed.append(position) }
            if links == 1 && (!wasLinking || replaced) { added.append(key) }
        }
        var diff = CollectionDiff()
        diff.deletions = removed
        let removedSet = Set(removed)
        for (key, _) in changes.modified where modified(key) {
            // An origin linking more than once stands at each of its positions (adjacent, the
            // keys being ascending): every one of them is modified.
            var position = lowerBound(key, in: previous)
            while position < previous.count && previous[position] == key {
                if !removedSet.contains(position) { diff.modifications.append(position) }
                position += 1
            }
        }
        diff.modifications.sort()
        guard !removed.isEmpty || !added.isEmpty else { return (previous, diff) }
        // One pass: the old keys without the removed ones, merged with the added ones.
        var keys: [Int64] = []
        keys.reserveCapacity(previous.count - removed.count + added.count)
        var next = 0, cursor = 0
        for key in added {
            while cursor < previous.count && previous[cursor] < key {
                if next < removed.count && removed[next] == cursor { next += 1 } else { keys.append(previous[cursor]) }
                cursor += 1
            }
            diff.insertions.append(keys.count)
            keys.append(key)
        }
        while cursor < previous.count {
            if next < removed.count && removed[next] == cursor { next += 1 } else { keys.append(previous[cursor]) }
            cursor += 1
        }
        return (keys, diff)
    }

    /// How many times object `key` links to the target at `snapshot`.
    private static func count(of link: Link, from key: Int64, at snapshot: Snapshot) throws(FloeError) -> Int {
        guard link.isCollection else { return try snapshot.value(in: link.origin, key: key, column: link.column) == .link(link.target) ? 1 : 0 }
        var count = 0
        for element in try snapshot.collectionElements(in: link.origin, key: key, column: link.column) where element == .link(link.target) { count += 1 }
        return count
    }

    private static func lowerBound(_ key: Int64, in keys: [Int64]) -> Int {
        var low = 0, high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] < key { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
