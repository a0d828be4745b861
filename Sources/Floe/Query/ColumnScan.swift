@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// A predicate over plain columns of the queried class (no links followed, no collections),
/// evaluated leaf by leaf over the engine's column arrays: each leaf's columns are read once
/// and compared row by row, with integers compared as machine words. No object, and no tree
/// lookup, per row; a count keeps no keys at all.
///
/// ```swift
/// if let scan = try ColumnScan(predicate, binding: dogs, reader: snapshot) { print(try scan.count()) }
/// ```
struct ColumnScan {
    private let reader: any VersionReading
    private let binding: TableBinding
    private let node: Node
    /// The columns the predicate reads, and the slot each has in a leaf's loaded columns.
    private let columns: [Int]

    indirect enum Node {
        case constant(Bool)
        case and([Node]), or([Node]), not(Node)
        /// An integer column against an integer: word comparisons.
        case integer(slot: Int, QueryOperator, Int64)
        /// Any other column: the query's own comparison on the stored value.
        case compare(slot: Int, QueryOperator, [Value], QueryStringOptions)
        case between(slot: Int, Value, Value)
        /// A string column's `BEGINSWITH` or `==` without options: Swift's own comparisons on
        /// the stored strings, as the general evaluator does.
        /// `ascii`: the prefix's UTF-8 bytes when all are ASCII (made once, not per leaf).
        case prefix(slot: Int, String, ascii: [UInt8]?)
        case stringEqual(slot: Int, String, negated: Bool)
    }

    /// Nil when the predicate reads anything but plain columns of the class (then the general
    /// evaluator runs it).
    init?(_ predicate: QueryPredicate, binding: TableBinding, reader: any VersionReading) throws(FloeError) {
        guard binding.table.index >= 0 else { return nil }
        var columns: [Int] = []
        guard let node = Self.compile(predicate, binding: binding, columns: &columns) else { return nil }
        // Checks types and operators the same way the general evaluator does.
        _ = try QueryEvaluator.compile(predicate, root: binding) { _ throws(FloeError) in nil }
        self.reader = reader
        self.binding = binding
        self.node = node
        self.columns = columns
    }

    func matchingKeys() throws(FloeError) -> [Int64] {
        var keys: [Int64] = []
        try forEachMatch { leaf, row in keys.append(leaf.keys[row]) }
        return keys
    }

    func count() throws(FloeError) -> Int {
        var count = 0
        try forEachMatch { _, _ in count += 1 }
        return count
    }

    private func forEachMatch(_ body: (ClusterNode, Int) -> Void) throws(FloeError) {
        let spec = try reader.spec(of: binding.table)
        var storages: [ColumnStorage] = []
        storages.reserveCapacity(columns.count)
        var mask: [Bool] = []
        try ClusterTree.forEachLeaf(in: reader.tableNode(binding.table).root) { leaf throws(FloeError) in
            storages.removeAll(keepingCapacity: true)
            for column in columns { storages.append(try leaf.column(column, expected: spec.columns[column]).storage) }
            mask.removeAll(keepingCapacity: true)
            mask.append(contentsOf: repeatElement(true, count: leaf.keys.count))
            Self.narrow(node, storages, &mask)
            for row in mask.indices where mask[row] { body(leaf, row) }
            return true
        }
    }

    /// Clears the rows of `mask` where `node` fails, testing only rows still set: each term
    /// runs as one loop over a leaf's column, and `AND` narrows what the next term reads.
    /// Columns are read in place (`storages[slot].…`): a local copy of a storage would
    /// retain all its arrays.
    private static func narrow(_ node: Node, _ storages: [ColumnStorage], _ mask: inout [Bool]) {
        switch node {
        case .constant(let value):
            if !value { for row in mask.indices { mask[row] = false } }
        case .and(let terms):
            for term in terms { narrow(term, storages, &mask) }
        case .or(let terms):
            var union = [Bool](repeating: false, count: mask.count)
            for term in terms {
                var branch = mask
                narrow(term, storages, &branch)
                for row in union.indices where branch[row] { union[row] = true }
            }
            mask = union
        case .not(let term):
            var inner = mask
            narrow(term, storages, &inner)
            for row in mask.indices where inner[row] { mask[row] = false }
        case .integer(let slot, let op, let constant):
            let nulls = storages[slot].nulls
            storages[slot].words.withUnsafeBufferPointer { words in
                mask.withUnsafeMutableBufferPointer { mask in
                    // One loop per operator: no switch per row.
                    func apply(_ test: (Int64) -> Bool) {
                        for row in mask.indices where mask[row] {
                            if let nulls, nulls[row] { mask[row] = op == .notEqual; continue }
                            mask[row] = test(Int64(bitPattern: words[row]))
                        }
                    }
                    switch op {
                    case .equal, .in: apply { $0 == constant }
                    case .notEqual: apply { $0 != constant }
                    case .less: apply { $0 < constant }
                    case .lessOrEqual: apply { $0 <= constant }
                    case .greater: apply { $0 > constant }
                    case .greaterOrEqual: apply { $0 >= constant }
                    default: apply { _ in false }
                    }
                }
            }
        case .prefix(let slot, let prefix, let ascii):
            let nulls = storages[slot].nulls
            storages[slot].strings.withUnsafeBufferPointer { strings in
                mask.withUnsafeMutableBufferPointer { mask in
                    for row in mask.indices where mask[row] {
                        if let nulls, nulls[row] { mask[row] = false; continue }
                        if let ascii, let answer = asciiPrefix(strings[row], ascii) {
                            mask[row] = answer
                        } else {
                            mask[row] = strings[row].hasPrefix(prefix)
                        }
                    }
                }
            }
        case .stringEqual(let slot, let string, let negated):
            let nulls = storages[slot].nulls
            for row in mask.indices where mask[row] {
                if let nulls, nulls[row] { mask[row] = negated; continue }
                mask[row] = (storages[slot].strings[row] == string) != negated
            }
        case .compare(let slot, let op, let constants, let options):
            for row in mask.indices where mask[row] {
                let value = storages[slot].value(at: row)
                if op == .in {
                    mask[row] = constants.contains { ValueComparison.compare(value, .equal, $0, options: options) }
                } else {
                    mask[row] = ValueComparison.compare(value, op, constants[0], options: options)
                }
            }
        case .between(let slot, let low, let high):
            for row in mask.indices where mask[row] {
                let value = storages[slot].value(at: row)
                mask[row] = ValueComparison.compare(value, .greaterOrEqual, low, options: []) && ValueComparison.compare(value, .lessOrEqual, high, options: [])
            }
        }
    }

    /// Swift's `hasPrefix` (whole Characters).
    static func hasPrefix(_ string: String, _ prefix: String) -> Bool {
        if prefix.utf8.allSatisfy({ $0 < 0x80 }), let answer = asciiPrefix(string, Array(prefix.utf8)) { return answer }
        return string.hasPrefix(prefix)
    }

    /// Whether `string` has the ASCII `prefix`, decided on UTF-8 bytes where they can decide:
    /// a differing ASCII byte means a differing Character, and equal bytes followed by an
    /// ASCII byte (other than a line feed after a carriage return) end a Character where the
    /// prefix ends. Nil otherwise (a non-ASCII byte may still be the same Character: U+212A
    /// KELVIN SIGN is "K"), and for strings not stored contiguously.
    @inline(__always)
    static func asciiPrefix(_ string: borrowing String, _ prefix: [UInt8]) -> Bool? {
        // Borrowed, not copied: no reference counting of the string per row.
        let decided = string.utf8.withContiguousStorageIfAvailable { bytes -> Bool? in
            guard bytes.count >= prefix.count else { return false }
            for index in 0..<prefix.count where bytes[index] != prefix[index] { return bytes[index] < 0x80 ? false : nil }
            guard bytes.count > prefix.count else { return true }
            let next = bytes[prefix.count]
            return next < 0x80 && !(next == 0x0A && prefix.last == 0x0D) ? true : nil
        }
        return decided ?? nil
    }

    private static func compile(_ predicate: QueryPredicate, binding: TableBinding, columns: inout [Int]) -> Node? {
        func slot(_ expression: QueryExpression) -> (slot: Int, type: ColumnType)? {
            guard case .keyPath(let path) = expression, path.components.count == 1, case .property(let name) = path.components[0],
                  let index = binding.schema.propertyIndex(named: name) else { return nil }
            let property = binding.schema.properties[index]
            guard !property.isComputed, property.type.collection == .single, property.type.columnType != .mixed else { return nil }
            let column = binding.columnOfProperty[index]
            if let existing = columns.firstIndex(of: column) { return (existing, property.type.columnType) }
            columns.append(column)
            return (columns.count - 1, property.type.columnType)
        }
        switch predicate {
        case .constant(let value): return .constant(value)
        case .and(let terms):
            var nodes: [Node] = []
            for term in terms {
                guard let node = compile(term, binding: binding, columns: &columns) else { return nil }
                nodes.append(node)
            }
            return .and(nodes)
        case .or(let terms):
            var nodes: [Node] = []
            for term in terms {
                guard let node = compile(term, binding: binding, columns: &columns) else { return nil }
                nodes.append(node)
            }
            return .or(nodes)
        case .not(let term):
            return compile(term, binding: binding, columns: &columns).map(Node.not)
        case .between(let subject, .constant(let low), .constant(let high), let quantifier):
            guard quantifier == .any, let (slot, _) = slot(subject) else { return nil }
            return .between(slot: slot, low, high)
        case .between, .geoWithin:
            return nil
        case .comparison(let comparison):
            guard comparison.quantifier == .any else { return nil }
            var lhs = comparison.lhs, rhs = comparison.rhs, op = comparison.op
            if case .constant = lhs, case .keyPath = rhs {
                swap(&lhs, &rhs)
                op = op.mirrored
            }
            guard let (slot, type) = slot(lhs) else { return nil }
            switch rhs {
            case .constant(.list(let values)) where op == .in:
                return .compare(slot: slot, .in, values, comparison.options)
            case .list(let expressions) where op == .in:
                var values: [Value] = []
                for case .constant(let value) in expressions { values.append(value) }
                guard values.count == expressions.count else { return nil }
                return .compare(slot: slot, .in, values, comparison.options)
            case .constant(let value) where op != .in:
                if type == .int, case .int(let int) = value { return .integer(slot: slot, op, int) }
                if type == .string, case .string(let string) = value, comparison.options.isEmpty {
                    switch op {
                    case .beginsWith: return .prefix(slot: slot, string, ascii: string.utf8.allSatisfy { $0 < 0x80 } ? Array(string.utf8) : nil)
                    case .equal: return .stringEqual(slot: slot, string, negated: false)
                    case .notEqual: return .stringEqual(slot: slot, string, negated: true)
                    default: break
                    }
                }
                return .compare(slot: slot, op, [value], comparison.options)
            default:
                return nil
            }
        }
    }
}
