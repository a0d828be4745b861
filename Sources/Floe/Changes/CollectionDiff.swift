@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// The positions that changed between two states of a collection.
struct CollectionDiff: Equatable {
    var deletions: [Int] = []
    var insertions: [Int] = []
    var modifications: [Int] = []

    var isEmpty: Bool { deletions.isEmpty && insertions.isEmpty && modifications.isEmpty }

    /// The diff of two orders of distinct object keys: objects that left or came, objects that
    /// moved (those outside a longest run kept in order), and, among the rest, those `modified`
    /// says changed. `replaced` keys were deleted and taken by a new object: gone and come.
    static func keyed(old: [Int64], new: [Int64], replaced: Set<Int64>, modified: (Int64) -> Bool) -> CollectionDiff {
        var newPositions: [Int64: Int] = [:]
        newPositions.reserveCapacity(new.count)
        for (position, key) in new.enumerated() { newPositions[key] = position }
        // Old positions of the objects in both states, with their new positions, in old order.
        var kept: [(old: Int, new: Int)] = []
        var diff = CollectionDiff()
        for (position, key) in old.enumerated() {
            if let newPosition = newPositions[key], !replaced.contains(key) {
                kept.append((position, newPosition))
            } else {
                diff.deletions.append(position)
            }
        }
        let staying = longestIncreasingRun(kept.map(\.new))
        var stays = Set<Int>()   // new positions of objects that did not move
        for (index, pair) in kept.enumerated() {
            if staying.contains(index) {
                stays.insert(pair.new)
                if modified(old[pair.old]) { diff.modifications.append(pair.old) }
            } else {
                diff.deletions.append(pair.old)
            }
        }
        diff.deletions.sort()
        for position in new.indices where !stays.contains(position) { diff.insertions.append(position) }
        return diff
    }

    /// The diff of two sequences of values (lists and sets): the fewest removals and
    /// insertions, and, among the elements that stayed, those `modified` says changed.
    static func unkeyed(old: [Value], new: [Value], modified: (Value) -> Bool) -> CollectionDiff {
        let difference = new.difference(from: old)
        var diff = CollectionDiff()
        var removed = Set<Int>()
        for change in difference {
            switch change {
            case .remove(let offset, _, _):
                diff.deletions.append(offset)
                removed.insert(offset)
            case .insert(let offset, _, _):
                diff.insertions.append(offset)
            }
        }
        diff.deletions.sort()
        diff.insertions.sort()
        for (position, value) in old.enumerated() where !removed.contains(position) && modified(value) {
            diff.modifications.append(position)
        }
        return diff
    }

    /// Indexes (into `values`) of one longest strictly increasing subsequence, in O(n log n).
    static func longestIncreasingRun(_ values: [Int]) -> Set<Int> {
        var tails: [Int] = []          // index into values of the smallest tail of each length
        var previous = [Int](repeating: -1, count: values.count)
        for (index, value) in values.enumerated() {
            var low = 0, high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[index] = tails[low - 1] }
            if low == tails.count { tails.append(index) } else { tails[low] = index }
        }
        var run = Set<Int>()
        var index = tails.last ?? -1
        while index >= 0 {
            run.insert(index)
            index = previous[index]
        }
        return run
    }
}
