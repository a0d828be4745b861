@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

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

    /// Sort values to place objects by, in both forms, row-major: object `i`'s value for sort
    /// column `c` at `i * width + c` (its number valid while the column is numeric).
    private struct Probes {
        var values: [Value]
        var numbers: [Double]
        let width: Int
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

    /// The probes for `values` (row-major, one per sort column for each object); a numeric
    /// column meeting a value it cannot hold as a number turns into values first (once).
    private func probes(_ values: [Value]) -> Probes {
        let width = numeric.count
        var numbers = [Double](repeating: 0, count: values.count)
        guard width > 0 else { return Probes(values: values, numbers: numbers, width: width) }
        for column in 0..<width where numeric[column] {
            var index = column
            while index < values.count {
                guard let number = Self.number(values[index]) else {
                    self.values[column] = self.numbers[column].map { $0.isNaN ? .null : .double($0) }
                    self.numbers[column] = []
                    numeric[column] = false
                    break
                }
                numbers[index] = number
                index += width
            }
        }
        return Probes(values: values, numbers: numbers, width: width)
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

        // Objects that may leave or move: found in the previous answer by their old values.
        var leaving: [Int64] = Array(changes.deleted)
        var entering: [Int64] = Array(changes.inserted)
        var written: [Int64] = []   // written objects whose place cannot change
        for (key, columns) in changes.modified {
            if columns.isDisjoint(with: watched) {
                if modified(key) { written.append(key) }
            } else {
                leaving.append(key)
                entering.append(key)
            }
        }
        // In key order: their rows are read leaf by leaf, each leaf once.
        leaving.sort()
        entering.sort()
        written.sort()
        let oldProbes = probes(try Self.read(plan.sortColumns, of: leaving, table: oldBinding.table, reader: old))
        var oldPositions: [Int64: Int] = [:]
        oldPositions.reserveCapacity(leaving.count)
        var removed: [Int] = []
        removed.reserveCapacity(leaving.count)
        for (index, key) in leaving.enumerated() {
            let position = lowerBound(oldProbes, index, key)
            if position < keys.count && keys[position] == key {
                oldPositions[key] = position
                removed.append(position)
            }
        }
        removed.sort()

        // Objects that may come or stay: those that match at the new version (the predicate
        // tested on the same read of their rows as their new sort values), placed by those values.
        let width = plan.sortColumns.count
        let read = plan.readColumns
        let rows = try Self.read(read, of: entering, table: newBinding.table, reader: new)
        var matching: [Int64] = []
        var matchingValues: [Value] = []
        matching.reserveCapacity(entering.count)
        matchingValues.reserveCapacity(entering.count * width)
        for (index, key) in entering.enumerated() {
            let row = index * read.count
            if let test = plan.test, !test.matches({ rows[row + $0] }) { continue }
            matching.append(key)
            matchingValues.append(contentsOf: rows[row..<(row + width)])
        }
        let newProbes = probes(matchingValues)
        var entries: [Entry] = []
        entries.reserveCapacity(matching.count)
        for (index, key) in matching.enumerated() {
            entries.append(Entry(key: key, probe: index, bound: lowerBound(newProbes, index, key)))
        }
        entries.sort { a, b in
            a.bound != b.bound ? a.bound < b.bound : compare(newProbes, a.probe, a.key, b.probe, b.key) < 0
        }
        var added: [Int] = []   // new positions, ascending
        added.reserveCapacity(entries.count)
        var below = 0   // removed positions below the current bound (bounds ascend)
        for (index, entry) in entries.enumerated() {
            while below < removed.count && removed[below] < entry.bound { below += 1 }
            added.append(entry.bound - below + index)
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
        diff.deletions = stayingOld.isEmpty ? removed : removed.filter { !stayingOld.contains($0) }
        diff.insertions = stayingNew.isEmpty ? added : added.filter { !stayingNew.contains($0) }
        if !written.isEmpty {
            // Their sort values did not change: the new ones are the old ones.
            let writtenProbes = probes(try Self.read(plan.sortColumns, of: written, table: newBinding.table, reader: new))
            for (index, key) in written.enumerated() {
                let position = lowerBound(writtenProbes, index, key)
                if position < keys.count && keys[position] == key { diff.modifications.append(position) }
            }
        }
        diff.modifications.sort()

        if diff.deletions.isEmpty && diff.insertions.isEmpty {
            // Nothing came, went or moved: the objects that stayed only take their new values.
            for entry in entries {
                guard let position = oldPositions[entry.key] else { continue }
                for column in numeric.indices {
                    let slot = entry.probe * width + column
                    if numeric[column] { numbers[column][position] = newProbes.numbers[slot] } else { values[column][position] = newProbes.values[slot] }
                }
            }
        } else {
            rebuild(removing: removed, inserting: entries, probes: newProbes)
        }
        return diff
    }

    /// The values of `columns` of the objects `keys` (ascending, each present) at `reader`'s
    /// version, row-major. Many keys are read in one walk over the leaves (each leaf's columns
    /// found once); a few, one search from the root each. A search from the root costs a few
    /// cache misses, stepping over a leaf in the walk about one: with leaves of up to 256
    /// objects, the walk wins from about one key per 512 objects.
    private static func read(_ columns: [Int], of keys: [Int64], table: TableHandle, reader: any VersionReading) throws(FloeError) -> [Value] {
        var values: [Value] = []
        guard !keys.isEmpty, !columns.isEmpty else { return values }
        values.reserveCapacity(keys.count * columns.count)
        let node = try reader.tableNode(table)
        let specs = node.spec.columns
        if keys.count * 512 < (try reader.objectCount(in: table)) {
            for key in keys {
                guard let (leaf, row) = try ClusterTree.find(key, in: node.root) else { throw .noSuchObject(table: node.spec.name, key: key) }
                for column in columns { values.append(try leaf.column(column, expected: specs[column]).value(at: row)) }
            }
            return values
        }
        var next = 0
        var storages: [ColumnStorage] = []
        storages.reserveCapacity(columns.count)
        try ClusterTree.forEachLeaf(in: node.root) { leaf throws(FloeError) in
            guard let last = leaf.keys.last, keys[next] <= last else { return true }
            storages.removeAll(keepingCapacity: true)
            for column in columns { storages.append(try leaf.column(column, expected: specs[column]).storage) }
            var row = 0
            while next < keys.count && keys[next] <= last {
                var end = leaf.keys.count
                while row < end {
                    let middle = (row + end) / 2
                    if leaf.keys[middle] < keys[next] { row = middle + 1 } else { end = middle }
                }
                guard row < leaf.keys.count, leaf.keys[row] == keys[next] else { throw .noSuchObject(table: node.spec.name, key: keys[next]) }
                for storage in storages { values.append(storage.value(at: row)) }
                next += 1
            }
            return next < keys.count
        }
        guard next == keys.count else { throw .noSuchObject(table: node.spec.name, key: keys[next]) }
        return values
    }

    /// An object that enters the answer (or stays in it, written): its probe's index, and where
    /// it goes in the previous answer (`bound`: the first position whose object comes after it).
    private struct Entry {
        let key: Int64
        let probe: Int
        let bound: Int
    }

    /// The answer's order between two probed objects: negative when (`a`, `aKey`) comes first.
    private func compare(_ probes: Probes, _ a: Int, _ aKey: Int64, _ b: Int, _ bKey: Int64) -> Int {
        for column in numeric.indices {
            var comparison = numeric[column] ? Self.order(probes.numbers[a * probes.width + column], probes.numbers[b * probes.width + column])
                : QueryEvaluator.sortOrder(probes.values[a * probes.width + column], probes.values[b * probes.width + column])
            if comparison != 0 {
                if !ascending[column] { comparison = -comparison }
                return comparison
            }
        }
        return aKey == bKey ? 0 : (aKey < bKey ? -1 : 1)
    }

    /// The answer without the objects at `removed` (ascending) and with `entries` (in order)
    /// at their places: one pass, copying the runs between them whole.
    private func rebuild(removing removed: [Int], inserting entries: [Entry], probes: Probes) {
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
                let slot = entry.probe * probes.width + index
                if numeric[index] { newNumbers[index].append(probes.numbers[slot]) } else { newValues[index].append(probes.values[slot]) }
            }
        }
        copy(upTo: keys.count)
        keys = newKeys
        numbers = newNumbers
        values = newValues
    }

    /// The first position in the answer whose object comes at or after (`probe`, `key`).
    private func lowerBound(_ probes: Probes, _ probe: Int, _ key: Int64) -> Int {
        let keys = self.keys
        var low = 0, high = keys.count
        if numeric.count == 1 && numeric[0] {
            // One numeric sort column, the common case: compared as machine numbers.
            let column = numbers[0], target = probes.numbers[probe], up = ascending[0]
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
                comparison = numeric[index] ? Self.order(numbers[index][middle], probes.numbers[probe * probes.width + index])
                    : QueryEvaluator.sortOrder(values[index][middle], probes.values[probe * probes.width + index])
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
