/// A filtered or sorted results' answer, kept from one version to the next from what the
/// commits touched: the keys in order and, beside them, their sort values.
///
/// A commit that touched k objects of the class moves the answer on in O(k log N) searches:
/// each deleted object, or one whose predicate or sort columns were written, is found in the
/// previous answer by a binary search on its old sort values (ties in key order); the touched
/// objects that still exist are checked against the predicate at the new version, and those
/// that match are placed by a binary search on their new values. An object whose place among
/// the untouched objects did not change is a modification, not a move. The new key array is
/// built only when objects came, went or moved: one pass that copies the untouched runs whole.
///
/// ```swift
/// let answer = IncrementalResults(type: Dog.self, query: query)
/// _ = try answer.reset(at: base)
/// let diff = try answer.advance(from: base, to: next, changes: tableChanges) { _ in true }
/// ```
final class IncrementalResults: @unchecked Sendable {
    // @unchecked: one stream's differ owns it, and the stream's channel hands the differ to one
    // consumer at a time under its lock. A class, so that moving the answer on updates its
    // arrays in place instead of copying them out of a copied differ.
    let type: ObjectBase.Type
    let query: ResultsQuery
    /// The answer at the version last seen (valid when `plan` is set).
    private(set) var keys: [Int64] = []
    /// The sort values of `keys`, one array per sort column: as machine numbers (null as NaN)
    /// while every value of the column is a number that converts exactly, so that comparing and
    /// copying them costs no reference counting; otherwise as values (the other array is empty).
    private var numbers: [[Double]] = []
    private var values: [[Value]] = []
    private var numeric: [Bool] = []
    private var ascending: [Bool] = []
    private var plan: IncrementalQueryPlan?

    /// Sort values to place an object by, in both forms.
    private struct Probe {
        var values: [Value]
        var numbers: [Double]
    }

    init(type: ObjectBase.Type, query: ResultsQuery) {
        self.type = type
        self.query = query
    }

    /// Whether the answer is known and can be moved on incrementally.
    var isReady: Bool { plan != nil }

    /// Evaluates the query in full at `snapshot` (O(N log N)); false when it does not qualify.
    @discardableResult
    func reset(at snapshot: Snapshot) throws(FloeError) -> Bool {
        plan = nil
        let bindings: (ObjectBase.Type) throws(FloeError) -> TableBinding? = { (type) throws(FloeError) in try FrozenSource.binding(for: type, in: snapshot) }
        guard let binding = try FrozenSource.binding(for: type, in: snapshot) else {
            // No objects of the class yet: nothing matches, and the plan waits for the table.
            return false
        }
        guard let made = try query.incrementalPlan(binding: binding, bindings: bindings) else { return false }
        let matching = try QueryPlanner.matchingKeys(made.predicate, base: .table, binding: binding, reader: snapshot, bindings: bindings)
        ascending = made.ascending
        guard !made.sortColumns.isEmpty else {
            keys = matching
            (self.numbers, self.values, numeric) = ([], [], [])
            plan = made
            return true
        }
        let paths = try query.sort.map { (descriptor) throws(FloeError) in
            try QueryEvaluator.sortKey(descriptor.keyPath, from: binding, bindings: bindings)
        }
        let values = try SortColumns.values(of: matching, paths: paths, binding: binding, reader: snapshot)
        let order = matching.indices.sorted { a, b in
            for index in values.indices {
                let comparison = QueryEvaluator.sortOrder(values[index][a], values[index][b])
                if comparison != 0 { return made.ascending[index] ? comparison < 0 : comparison > 0 }
            }
            return matching[a] < matching[b]
        }
        keys = order.map { matching[$0] }
        (self.numbers, self.values, numeric) = ([], [], [])
        for column in values {
            let ordered = order.map { column[$0] }
            var converted: [Double] = []
            converted.reserveCapacity(ordered.count)
            for value in ordered {
                guard let number = Self.number(value) else { break }
                converted.append(number)
            }
            let exact = converted.count == ordered.count
            self.numbers.append(exact ? converted : [])
            self.values.append(exact ? [] : ordered)
            numeric.append(exact)
        }
        plan = made
        return true
    }

    /// A sort value as a machine number ordering as the sort does (null as NaN, first), or nil.
    private static func number(_ value: Value) -> Double? {
        switch value {
        case .null: return .nan
        case .double(let double) where !double.isNaN: return double
        case .float(let float) where !float.isNaN: return Double(float)
        case .int(let int) where int.magnitude < 1 << 53: return Double(int)
        default: return nil
        }
    }

    /// The probe for `values`; a numeric column meeting a value it cannot hold as a number
    /// turns into values first (once).
    private func probe(_ values: [Value]) -> Probe {
        var numbers = [Double](repeating: 0, count: values.count)
        for index in values.indices where numeric[index] {
            if let number = Self.number(values[index]) {
                numbers[index] = number
            } else {
                self.values[index] = self.numbers[index].map { $0.isNaN ? .null : .double($0) }
                self.numbers[index] = []
                numeric[index] = false
            }
        }
        return Probe(values: values, numbers: numbers)
    }

    /// Forgets the answer (a skipped write or an unknown commit: the next look evaluates again).
    func invalidate() {
        plan = nil
        keys = []
        (numbers, values, numeric) = ([], [], [])
    }

    /// The diff from the answer at `old` to the one at `new`, which `changes` (this class's
    /// changes between them) made; the answer moves on to `new`. `modified` says whether a
    /// written object counts as modified (a key-path filter's say).
    func advance(from old: Snapshot, to new: Snapshot, changes: ChangeSet.TableChanges,
                 modified: (Int64) -> Bool) throws(FloeError) -> CollectionDiff {
        guard let plan else { preconditionFailure("IncrementalResults.advance before reset") }
        guard let oldBinding = try FrozenSource.binding(for: type, in: old),
              let newBinding = try FrozenSource.binding(for: type, in: new) else {
            preconditionFailure("IncrementalResults.advance without the class's table")
        }
        let watched = plan.watchedColumns
        let sorted = !plan.sortColumns.isEmpty

        // Objects that may leave or move: found in the previous answer by their old values.
        var leaving: [Int64] = Array(changes.deleted)
        var entering: [Int64] = Array(changes.inserted)
        var written: [Int64] = []   // written objects whose place cannot change
        for (key, columns) in changes.modified {
            if columns.isDisjoint(with: watched) { written.append(key) } else { leaving.append(key); entering.append(key) }
        }
        // In key order, so that one search after another walks the tree's leaves in order.
        leaving.sort()
        written.sort()
        var oldPositions: [Int64: Int] = [:]
        var removed: [Int] = []
        for key in leaving {
            let position = lowerBound(probe(sorted ? try plan.sortValues(of: key, table: oldBinding.table, reader: old) : []), key)
            if position < keys.count && keys[position] == key {
                oldPositions[key] = position
                removed.append(position)
            }
        }
        removed.sort()

        // Objects that may come or stay: those that match at the new version, placed by their new values.
        entering.sort()
        let matching = try plan.matching(entering, binding: newBinding, reader: new) { (type) throws(FloeError) in try FrozenSource.binding(for: type, in: new) }
        var entries: [Entry] = []
        entries.reserveCapacity(matching.count)
        for key in matching {
            let probe = probe(sorted ? try plan.sortValues(of: key, table: newBinding.table, reader: new) : [])
            entries.append(Entry(key: key, probe: probe, bound: lowerBound(probe, key)))
        }
        entries.sort { a, b in
            a.bound != b.bound ? a.bound < b.bound : plan.order(a.probe.values, a.key, b.probe.values, b.key) < 0
        }
        var added: [Int] = []   // new positions, ascending
        added.reserveCapacity(entries.count)
        for (index, entry) in entries.enumerated() {
            added.append(entry.bound - Self.count(of: removed, below: entry.bound) + index)
        }

        // Objects in both answers stay (a modification) when their place among the untouched
        // objects is the same and they keep their order among themselves; the rest move.
        var candidates: [(old: Int, new: Int)] = []
        for (index, entry) in entries.enumerated() {
            guard let oldPosition = oldPositions[entry.key], !changes.deleted.contains(entry.key) else { continue }
            let newPosition = added[index]
            if oldPosition - Self.count(of: removed, below: oldPosition) == newPosition - Self.count(of: added, below: newPosition) {
                candidates.append((oldPosition, newPosition))
            }
        }
        candidates.sort { $0.old < $1.old }
        let run = CollectionDiff.longestIncreasingRun(candidates.map(\.new))
        var stayingOld = Set<Int>(), stayingNew = Set<Int>()
        var diff = CollectionDiff()
        for index in run {
            stayingOld.insert(candidates[index].old)
            stayingNew.insert(candidates[index].new)
            if modified(keys[candidates[index].old]) { diff.modifications.append(candidates[index].old) }
        }
        diff.deletions = removed.filter { !stayingOld.contains($0) }
        diff.insertions = added.filter { !stayingNew.contains($0) }
        for key in written where modified(key) {
            // Its sort values did not change: the old ones are the new ones.
            let position = lowerBound(probe(sorted ? try plan.sortValues(of: key, table: newBinding.table, reader: new) : []), key)
            if position < keys.count && keys[position] == key { diff.modifications.append(position) }
        }
        diff.modifications.sort()

        if diff.deletions.isEmpty && diff.insertions.isEmpty {
            // Nothing came, went or moved: the objects that stayed only take their new values.
            for entry in entries {
                guard let position = oldPositions[entry.key] else { continue }
                for column in numeric.indices {
                    if numeric[column] { numbers[column][position] = entry.probe.numbers[column] } else { values[column][position] = entry.probe.values[column] }
                }
            }
        } else {
            rebuild(removing: removed, inserting: entries)
        }
        return diff
    }

    /// An object that enters the answer (or stays in it, written): where it goes in the
    /// previous answer (`bound`: the first position whose object comes after it).
    private struct Entry {
        let key: Int64
        let probe: Probe
        let bound: Int
    }

    /// The answer without the objects at `removed` (ascending) and with `entries` (in order)
    /// at their places: one pass, copying the runs between them whole.
    private func rebuild(removing removed: [Int], inserting entries: [Entry]) {
        let count = keys.count - removed.count + entries.count
        var newKeys: [Int64] = []
        newKeys.reserveCapacity(count)
        var newNumbers: [[Double]] = numeric.map { _ in [] }
        var newValues: [[Value]] = numeric.map { _ in [] }
        for index in numeric.indices {
            if numeric[index] { newNumbers[index].reserveCapacity(count) } else { newValues[index].reserveCapacity(count) }
        }
        var cursor = 0
        var next = 0   // into removed
        func copy(upTo end: Int) {
            while cursor < end {
                while next < removed.count && removed[next] < cursor { next += 1 }
                let stop = next < removed.count ? min(removed[next], end) : end
                if stop > cursor {
                    newKeys.append(contentsOf: keys[cursor..<stop])
                    for index in numeric.indices {
                        if numeric[index] { newNumbers[index].append(contentsOf: numbers[index][cursor..<stop]) } else { newValues[index].append(contentsOf: values[index][cursor..<stop]) }
                    }
                    cursor = stop
                }
                if next < removed.count && removed[next] == cursor && cursor < end { cursor += 1 }
            }
        }
        for entry in entries {
            copy(upTo: entry.bound)
            newKeys.append(entry.key)
            for index in numeric.indices {
                if numeric[index] { newNumbers[index].append(entry.probe.numbers[index]) } else { newValues[index].append(entry.probe.values[index]) }
            }
        }
        copy(upTo: keys.count)
        keys = newKeys
        numbers = newNumbers
        values = newValues
    }

    /// The first position in the answer whose object comes at or after (`probe`, `key`).
    private func lowerBound(_ probe: Probe, _ key: Int64) -> Int {
        let keys = self.keys
        var low = 0, high = keys.count
        if numeric.count == 1 && numeric[0] {
            // One numeric sort column, the common case: compared as machine numbers.
            let column = numbers[0], target = probe.numbers[0], up = ascending[0]
            while low < high {
                let middle = (low + high) / 2
                var comparison = Self.order(column[middle], target)
                if !up { comparison = -comparison }
                if comparison == 0 { comparison = keys[middle] == key ? 0 : (keys[middle] < key ? -1 : 1) }
                if comparison < 0 { low = middle + 1 } else { high = middle }
            }
            return low
        }
        let numbers = self.numbers, values = self.values, numeric = self.numeric, ascending = self.ascending
        while low < high {
            let middle = (low + high) / 2
            var comparison = 0
            for index in numeric.indices {
                comparison = numeric[index] ? Self.order(numbers[index][middle], probe.numbers[index])
                    : QueryEvaluator.sortOrder(values[index][middle], probe.values[index])
                if comparison != 0 {
                    if !ascending[index] { comparison = -comparison }
                    break
                }
            }
            if comparison == 0 { comparison = keys[middle] == key ? 0 : (keys[middle] < key ? -1 : 1) }
            if comparison < 0 { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The sort's order of two numbers (NaN standing for null, which comes first).
    private static func order(_ a: Double, _ b: Double) -> Int {
        if a.isNaN || b.isNaN { return a.isNaN == b.isNaN ? 0 : (a.isNaN ? -1 : 1) }
        return a == b ? 0 : (a < b ? -1 : 1)
    }

    /// How many of `positions` (ascending) are below `bound`.
    private static func count(of positions: [Int], below bound: Int) -> Int {
        var low = 0, high = positions.count
        while low < high {
            let middle = (low + high) / 2
            if positions[middle] < bound { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
