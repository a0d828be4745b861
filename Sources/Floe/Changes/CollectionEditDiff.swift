@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// A list or set's diff from the positional edits a commit (or several, in order) made to it,
/// without reading its elements: O(e·(i + d)) for e edits leaving i insertions and d
/// deletions, whatever the collection's size.
///
/// It keeps the inserted elements' current positions and the removed elements' old
/// positions, both sorted. The elements that stayed keep their relative order (a move is a
/// removal and an insertion), so the r-th element that stayed is the r-th old element not
/// removed: an edit's current position maps to an old one by two binary searches.
///
/// ```swift
/// var diff = CollectionEditDiff(oldCount: 3)
/// diff.apply(.remove(at: 0)); diff.apply(.set(at: 1))
/// diff.result   // deletions [0], insertions [], modifications [2]
/// ```
struct CollectionEditDiff {
    /// Current positions of elements inserted by the edits so far, ascending.
    private(set) var inserted: [Int] = []
    /// Old positions of elements removed, ascending.
    private(set) var deleted: [Int] = []
    /// Old positions of elements that stayed and were replaced in place.
    private(set) var replaced: Set<Int> = []
    let oldCount: Int
    /// The collection's count after the edits so far.
    private(set) var count: Int

    init(oldCount: Int) {
        self.oldCount = oldCount
        count = oldCount
    }

    /// Applies one edit; false when it does not fit the collection (then the edits do not
    /// describe it, and it must be compared in full).
    @discardableResult
    mutating func apply(_ edit: CollectionEdit) -> Bool {
        switch edit {
        case .insert(let position, let added):
            guard position >= 0, position <= count, added >= 0 else { return false }
            let index = Self.lowerBound(position, in: inserted)
            for shifted in index..<inserted.count { inserted[shifted] += added }
            inserted.insert(contentsOf: position..<(position + added), at: index)
            count += added
        case .remove(let position):
            guard position >= 0, position < count else { return false }
            let index = Self.lowerBound(position, in: inserted)
            if index < inserted.count && inserted[index] == position {
                inserted.remove(at: index)
            } else {
                let old = oldPosition(ofSurvivor: position - index)
                deleted.insert(old, at: Self.lowerBound(old, in: deleted))
                replaced.remove(old)
            }
            for shifted in index..<inserted.count { inserted[shifted] -= 1 }
            count -= 1
        case .set(let position):
            guard position >= 0, position < count else { return false }
            let index = Self.lowerBound(position, in: inserted)
            if index == inserted.count || inserted[index] != position {
                replaced.insert(oldPosition(ofSurvivor: position - index))
            }
        case .removeAll:
            inserted = []
            deleted = Array(0..<oldCount)
            replaced = []
            count = 0
        }
        return true
    }

    /// Whether the old element at `position` is still there (not removed).
    func survives(_ position: Int) -> Bool {
        let index = Self.lowerBound(position, in: deleted)
        return index == deleted.count || deleted[index] != position
    }

    /// Deletions (old positions), insertions (new) and modifications (old: elements replaced
    /// in place, and those `modifiedOld` adds), each ascending.
    func result(modifiedOld: [Int] = []) -> CollectionDiff {
        var modifications = replaced
        modifications.formUnion(modifiedOld)
        return CollectionDiff(deletions: deleted, insertions: inserted, modifications: modifications.sorted())
    }

    /// The old position of the `rank`-th element (from 0) that has not been removed: before
    /// the j-th removed position (ascending) lie `deleted[j] - j` such elements.
    private func oldPosition(ofSurvivor rank: Int) -> Int {
        var low = 0, high = deleted.count
        while low < high {
            let middle = (low + high) / 2
            if deleted[middle] - middle <= rank { low = middle + 1 } else { high = middle }
        }
        return rank + low
    }

    private static func lowerBound(_ value: Int, in sorted: [Int]) -> Int {
        var low = 0, high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
