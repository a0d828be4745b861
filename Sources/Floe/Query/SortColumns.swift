@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// The values a sort compares, one array per sort key (no array per object), and the
/// stable ordering over them. Values of plain columns are read leaf by leaf when the keys
/// come in key order (a whole table, a filter's matches); otherwise object by object. A
/// single key of integers or floating-point numbers is compared as machine numbers.
///
/// ```swift
/// let columns = try SortColumns.values(of: keys, paths: paths, binding: dogs, reader: snapshot)
/// let ordered = SortColumns.order(keys, columns: columns, ascending: [true])
/// ```
enum SortColumns {
    static func values(of keys: [Int64], paths: [QueryEvaluator.SortKey], binding: TableBinding,
                       reader: any VersionReading) throws(FloeError) -> [[Value]] {
        let plain = paths.allSatisfy { $0.count == nil && $0.hops.count == 1 }
        if plain, binding.table.index >= 0, isAscending(keys), let columns = try leafValues(of: keys, columns: paths.map { $0.hops[0].column }, binding: binding, reader: reader) {
            return columns
        }
        var columns: [[Value]] = paths.map { _ in [] }
        for index in paths.indices { columns[index].reserveCapacity(keys.count) }
        for key in keys {
            for (index, path) in paths.enumerated() { columns[index].append(try path.value(key: key, reader: reader)) }
        }
        return columns
    }

    private static func isAscending(_ keys: [Int64]) -> Bool {
        var previous = Int64.min
        for key in keys {
            if key <= previous { return false }
            previous = key
        }
        return true
    }

    /// The columns' values for `keys` (ascending), walking the leaves once; nil when a key is
    /// not in the table (then the caller reads object by object and reports it).
    private static func leafValues(of keys: [Int64], columns: [Int], binding: TableBinding, reader: any VersionReading) throws(FloeError) -> [[Value]]? {
        var values: [[Value]] = columns.map { _ in [] }
        for index in columns.indices { values[index].reserveCapacity(keys.count) }
        let spec = try reader.spec(of: binding.table)
        var next = 0
        var missing = false
        try ClusterTree.forEachLeaf(in: reader.tableNode(binding.table).root) { leaf throws(FloeError) in
            guard next < keys.count, let last = leaf.keys.last, keys[next] <= last else { return next < keys.count }
            var storages: [ColumnStorage] = []
            for column in columns { storages.append(try leaf.column(column, expected: spec.columns[column]).storage) }
            var row = 0
            while next < keys.count && keys[next] <= last {
                while row < leaf.keys.count && leaf.keys[row] < keys[next] { row += 1 }
                guard row < leaf.keys.count, leaf.keys[row] == keys[next] else {
                    missing = true
                    return false
                }
                for (index, storage) in storages.enumerated() { values[index].append(storage.value(at: row)) }
                next += 1
            }
            return next < keys.count
        }
        return missing || next < keys.count ? nil : values
    }

    /// `keys` ordered by the columns (the first deciding first), stable: equal values keep
    /// their order. Realm's order: nulls first, numbers across kinds, strings by Swift's `<`.
    static func order(_ keys: [Int64], columns: [[Value]], ascending: [Bool]) -> [Int64] {
        if columns.count == 1, let numbers = numbers(columns[0]) {
            let up = ascending[0]
            let order = keys.indices.sorted { a, b in
                let (x, y) = (numbers[a], numbers[b])
                if x != y {
                    // Nulls (nil) first ascending.
                    guard let x else { return up }
                    guard let y else { return !up }
                    return up ? x < y : x > y
                }
                return a < b
            }
            return order.map { keys[$0] }
        }
        let order = keys.indices.sorted { a, b in
            for (index, column) in columns.enumerated() {
                let comparison = QueryEvaluator.sortOrder(column[a], column[b])
                if comparison != 0 { return ascending[index] ? comparison < 0 : comparison > 0 }
            }
            return a < b
        }
        return order.map { keys[$0] }
    }

    /// The values as one kind of machine number (with nil for null), when they all are.
    private static func numbers(_ values: [Value]) -> [Double?]? {
        var numbers: [Double?] = []
        numbers.reserveCapacity(values.count)
        for value in values {
            switch value {
            case .null: numbers.append(nil)
            case .double(let double) where !double.isNaN: numbers.append(double)
            case .float(let float) where !float.isNaN: numbers.append(Double(float))
            case .int(let int) where int.magnitude < 1 << 53: numbers.append(Double(int))
            default: return nil
            }
        }
        return numbers
    }
}
