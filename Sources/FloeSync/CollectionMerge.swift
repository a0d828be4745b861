/// A list's, set's or map's value on a device before a change: an update carries it beside
/// the value after (``ObjectChange/bases``), and the server merges what the device did into
/// the value it holds instead of replacing that value (see ``ConflictRules``).
///
/// ```swift
/// let change = ObjectChange(className: "Todo", key: .int(1), operation: .update,
///                           values: ["tags": .list([.string("a"), .string("b")])],
///                           bases: ["tags": .list([.string("a")])])
/// ```
public enum CollectionBase: Sendable, Hashable, Codable {
    /// A list's elements, in order.
    case list([SyncValue])
    /// A set's elements.
    case set([SyncValue])
    /// A map's entries.
    case map([String: SyncValue])

    /// What it is, for messages.
    var kindName: String {
        switch self {
        case .list: "list"
        case .set: "set"
        case .map: "map"
        }
    }
}

/// Three-way merges of collections: what a device did between its `base` and `mine`, applied
/// to the server's `current` value, which other devices may have changed since the base.
/// Pure functions: the same three values give the same result on every replica.
enum CollectionMerge {
    /// The merged value of a property whose change carries `base`; nil when `mine` is not a
    /// collection of the base's kind (the change then replaces the value, as for a scalar).
    static func merge(_ base: CollectionBase, mine: SyncValue, current: SyncValue?) -> SyncValue? {
        switch (base, mine) {
        case (.list(let base), .list(let mine)):
            return list(base: base, mine: mine, current: Self.elements(current)).map(SyncValue.list)
        case (.set(let base), .list(let mine)):
            return .list(set(base: base, mine: mine, current: Self.elements(current)))
        case (.map(let base), .map(let mine)):
            guard case .map(let current)? = current else { return .map(map(base: base, mine: mine, current: [:])) }
            return .map(map(base: base, mine: mine, current: current))
        default:
            return nil
        }
    }

    private static func elements(_ value: SyncValue?) -> [SyncValue] {
        if case .list(let elements)? = value { return elements }
        return []
    }

    /// Lists merge by position:
    /// - an element the device inserted goes where it put it: before the element that followed
    ///   it in the base (the next one still there), after what other devices inserted at the
    ///   same place first; at the end when nothing followed it;
    /// - an element it removed is removed once, wherever another device moved it; if another
    ///   device removed it first, nothing more happens;
    /// - a move is a removal and an insertion of one element; a move of an element another
    ///   device moved or removed first does nothing (the first one wins);
    /// - an element it replaced (as `list[i] = x` or an edit inside an embedded object does:
    ///   between two elements it kept, as many elements removed as inserted, paired in order)
    ///   that another device removed or replaced first stays as the first one left it; any
    ///   other insertion always survives.
    ///
    /// Elements are compared by value (a link by its target's key, an embedded object by its
    /// values): of equal elements, the first in order is taken.
    ///
    /// Nil when the stretches that differ are too long to compare cheaply (over
    /// ``comparedElements`` elements on both sides together, between their common beginning
    /// and end): the device's list then replaces the server's.
    static func list(base: [SyncValue], mine: [SyncValue], current: [SyncValue]) -> [SyncValue]? {
        if mine == base { return current }
        if current == base { return mine }
        // Where each base element is in the current list (nil: another device removed it).
        guard var aligned = alignment(of: base, in: current),
              let own = edits(from: base, to: mine) else { return nil }
        // A base element another device moved is where an equal element is new in the current
        // list: removing or replacing it still applies there; moving it again does not.
        var movedElsewhere = Set<Int>()
        do {
            var matched = [Bool](repeating: false, count: current.count)
            for position in aligned { if let position { matched[position] = true } }
            var newPositions: [SyncValue: [Int]] = [:]
            for position in current.indices where !matched[position] { newPositions[current[position], default: []].append(position) }
            for index in base.indices where aligned[index] == nil {
                guard var positions = newPositions[base[index]], !positions.isEmpty else { continue }
                aligned[index] = positions.removeFirst()
                newPositions[base[index]] = positions
                movedElsewhere.insert(index)
            }
        }
        // What the device did: removals from the base (with the insertion a move went to) and
        // insertions into its own list (with the removal a move came from).
        let removed = own.removed, inserted = own.inserted
        var keptBase: [Int] = []
        for index in base.indices where removed[index] == nil { keptBase.append(index) }
        var removedInCurrent = Set<Int>()
        for (offset, movedTo) in removed {
            if movedTo != nil && movedElsewhere.contains(offset) { continue }
            if let position = aligned[offset] { removedInCurrent.insert(position) }
        }
        // Insertions, in the device's order, stretch by stretch (what it inserted between two
        // base elements it kept), each before the current position of the first base element at
        // or after the one that followed it (current.count: at the end).
        var before: [Int: [SyncValue]] = [:]
        var offset = 0, nextKept = 0, previousKept = -1
        while true {
            var run: [Int] = []
            while offset < mine.count && inserted[offset] != nil {
                run.append(offset)
                offset += 1
            }
            let follower = nextKept < keptBase.count ? keptBase[nextKept] : base.count
            if !run.isEmpty {
                // As many plain removals as plain insertions in one stretch: each insertion
                // replaces the removal of the same rank.
                let plainRemovals = (previousKept + 1..<follower).filter { if case .some(.none) = removed[$0] { true } else { false } }
                let plainInsertions = run.filter { if case .some(.none) = inserted[$0] { true } else { false } }
                let replacing = plainRemovals.count == plainInsertions.count ? Dictionary(uniqueKeysWithValues: zip(plainInsertions, plainRemovals)) : [:]
                var anchor = current.count
                for index in follower..<base.count {
                    if let position = aligned[index] { anchor = position; break }
                }
                for insertion in run {
                    if case .some(.some(let source)) = inserted[insertion] {
                        if aligned[source] == nil || movedElsewhere.contains(source) { continue }
                    } else if let replaced = replacing[insertion], aligned[replaced] == nil {
                        continue
                    }
                    before[anchor, default: []].append(mine[insertion])
                }
            }
            guard offset < mine.count else { break }
            previousKept = keptBase[nextKept]
            nextKept += 1
            offset += 1
        }
        var merged: [SyncValue] = []
        merged.reserveCapacity(current.count + mine.count)
        for position in 0...current.count {
            if let insertions = before[position] { merged.append(contentsOf: insertions) }
            if position < current.count && !removedInCurrent.contains(position) { merged.append(current[position]) }
        }
        return merged
    }

    /// The most elements a list merge compares after their common beginning and end are set
    /// aside (the comparison's cost grows with their square).
    static let comparedElements = 4_000

    /// For each element of `base`, the position of the element of `other` it is matched with,
    /// in order (nil: `other` lacks it). Elements that occur once in each are matched first
    /// (the longest run of them in the same order), then the stretches between are matched
    /// the same way, or compared in full when short (patience diff: a device far behind the
    /// server costs what the lists' length costs, not its square). Nil when a stretch without
    /// such elements is longer than ``comparedElements``.
    static func alignment(of base: [SyncValue], in other: [SyncValue]) -> [Int?]? {
        var aligned = [Int?](repeating: nil, count: base.count)
        var stretches = [(old: 0..<base.count, new: 0..<other.count)]
        while var (old, new) = stretches.popLast() {
            // The common beginning and end.
            while !old.isEmpty && !new.isEmpty && base[old.lowerBound] == other[new.lowerBound] {
                aligned[old.lowerBound] = new.lowerBound
                old = old.dropFirst()
                new = new.dropFirst()
            }
            while !old.isEmpty && !new.isEmpty && base[old.upperBound - 1] == other[new.upperBound - 1] {
                aligned[old.upperBound - 1] = new.upperBound - 1
                old = old.dropLast()
                new = new.dropLast()
            }
            if old.isEmpty || new.isEmpty { continue }
            // Elements once in each stretch, as (old, new) pairs in old order.
            var counts: [SyncValue: (old: Int, new: Int, at: Int)] = [:]
            for index in old { counts[base[index], default: (0, 0, 0)].old += 1 }
            for index in new where counts[other[index]] != nil {
                counts[other[index]]!.new += 1
                counts[other[index]]!.at = index
            }
            var pairs: [(old: Int, new: Int)] = []
            for index in old {
                if let count = counts[base[index]], count.old == 1 && count.new == 1 { pairs.append((index, count.at)) }
            }
            if pairs.isEmpty {
                // Nothing in common: nothing to match.
                if !counts.values.contains(where: { $0.new > 0 }) { continue }
                guard old.count + new.count <= comparedElements else { return nil }
                let difference = Array(other[new]).difference(from: Array(base[old]))
                var gone = Set<Int>(), added = Set<Int>()
                for change in difference {
                    switch change {
                    case .remove(let offset, _, _): gone.insert(offset + old.lowerBound)
                    case .insert(let offset, _, _): added.insert(offset + new.lowerBound)
                    }
                }
                var position = new.lowerBound
                for index in old where !gone.contains(index) {
                    while added.contains(position) { position += 1 }
                    aligned[index] = position
                    position += 1
                }
                continue
            }
            // The longest run of pairs in increasing new order (patience sorting).
            var tails: [Int] = []            // pair index ending the best run of each length
            var previous = [Int](repeating: -1, count: pairs.count)
            for (index, pair) in pairs.enumerated() {
                var low = 0, high = tails.count
                while low < high {
                    let middle = (low + high) / 2
                    if pairs[tails[middle]].new < pair.new { low = middle + 1 } else { high = middle }
                }
                if low > 0 { previous[index] = tails[low - 1] }
                if low == tails.count { tails.append(index) } else { tails[low] = index }
            }
            var run: [(old: Int, new: Int)] = []
            var cursor = tails.last ?? -1
            while cursor >= 0 {
                run.append(pairs[cursor])
                cursor = previous[cursor]
            }
            run.reverse()
            // Match the run, and compare the stretches between its pairs on their own.
            var oldStart = old.lowerBound, newStart = new.lowerBound
            for pair in run {
                aligned[pair.old] = pair.new
                stretches.append((oldStart..<pair.old, newStart..<pair.new))
                oldStart = pair.old + 1
                newStart = pair.new + 1
            }
            stretches.append((oldStart..<old.upperBound, newStart..<new.upperBound))
        }
        return aligned
    }

    /// The base offsets `other` lacks and `other`'s offsets the base lacks; a removal and an
    /// insertion of one element (a move) name each other. Nil when the stretches that differ
    /// are longer than ``comparedElements`` together.
    private static func edits(from base: [SyncValue], to other: [SyncValue])
        -> (removed: [Int: Int?], inserted: [Int: Int?])? {
        var prefix = 0
        while prefix < base.count && prefix < other.count && base[prefix] == other[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < base.count - prefix && suffix < other.count - prefix && base[base.count - 1 - suffix] == other[other.count - 1 - suffix] {
            suffix += 1
        }
        let oldStretch = prefix..<base.count - suffix, newStretch = prefix..<other.count - suffix
        var removed: [Int: Int?] = [:], inserted: [Int: Int?] = [:]
        // Only removals, or only insertions: nothing to compare.
        if oldStretch.isEmpty || newStretch.isEmpty {
            for offset in oldStretch { removed[offset] = .some(nil) }
            for offset in newStretch { inserted[offset] = .some(nil) }
            return (removed, inserted)
        }
        guard oldStretch.count + newStretch.count <= comparedElements else { return nil }
        for change in Array(other[newStretch]).difference(from: Array(base[oldStretch])).inferringMoves() {
            switch change {
            case .remove(let offset, _, let movedTo): removed[offset + prefix] = .some(movedTo.map { $0 + prefix })
            case .insert(let offset, _, let movedFrom): inserted[offset + prefix] = .some(movedFrom.map { $0 + prefix })
            }
        }
        return (removed, inserted)
    }

    /// Sets merge as sets: the elements the device added are added, those it removed are
    /// removed, the rest is as the server holds it. An element one device adds and another
    /// removes ends as the change that reached the server last left it.
    static func set(base: [SyncValue], mine: [SyncValue], current: [SyncValue]) -> [SyncValue] {
        let before = Set(base), after = Set(mine)
        let removals = before.subtracting(after)
        var merged = current.filter { !removals.contains($0) }
        var present = Set(merged)
        for element in mine where !before.contains(element) && !present.contains(element) {
            merged.append(element)
            present.insert(element)
        }
        return merged
    }

    /// Maps merge per key: the keys the device set or removed take its values, the others keep
    /// the server's.
    static func map(base: [String: SyncValue], mine: [String: SyncValue], current: [String: SyncValue]) -> [String: SyncValue] {
        var merged = current
        for key in Set(base.keys).union(mine.keys) where base[key] != mine[key] {
            merged[key] = mine[key]
        }
        return merged
    }
}
