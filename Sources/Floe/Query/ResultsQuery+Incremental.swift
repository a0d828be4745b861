@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// What a change stream needs to keep a query's answer up to date from the objects a commit
/// touched, without evaluating the query again over every object: which columns can change
/// whether an object matches or where it sorts, the sort columns and directions, and the
/// predicate to evaluate on the touched objects alone.
///
/// Only queries over every object of one class whose predicate and sort read that class's own
/// plain columns qualify (no links, collections, mixed values, subqueries or `distinct`): then
/// an object's membership and place depend on its own row alone, and the order is total —
/// equal sort values keep key order, as the sort is stable over objects in key order.
///
/// ```swift
/// if let plan = try query.incrementalPlan(binding: dogs, bindings: lookup) {
///     let matching = try plan.matching([4, 9], binding: dogs, reader: snapshot, bindings: lookup)
/// }
/// ```
struct IncrementalQueryPlan: Sendable {
    let predicate: QueryPredicate?
    /// The columns the predicate reads.
    let predicateColumns: Set<Int>
    /// The sort columns, the first deciding first (empty: key order).
    let sortColumns: [Int]
    let ascending: [Bool]
    /// The predicate over values read by ``readColumns`` (nil: every object matches).
    let test: RowTest?

    /// The columns whose writes can change whether an object is in the answer or where.
    var watchedColumns: Set<Int> { predicateColumns.union(sortColumns) }

    /// The columns read to place an object that may enter: the sort columns first, then the
    /// predicate's other columns (``RowTest`` slots index this).
    var readColumns: [Int] { sortColumns + predicateColumns.subtracting(sortColumns).sorted() }

    /// Those of `candidates` (present at `reader`'s version, in any order) that match, in their order.
    func matching(_ candidates: [Int64], binding: TableBinding, reader: any VersionReading,
                  bindings: @escaping (ObjectBase.Type) throws(FloeError) -> TableBinding?) throws(FloeError) -> [Int64] {
        guard let predicate, !candidates.isEmpty else { return candidates }
        return try QueryEvaluator(predicate, binding: binding, reader: reader, bindings: bindings).matchingKeys(among: candidates)
    }

    /// The sort values of `key` at `reader`'s version, one per sort column.
    func sortValues(of key: Int64, table: TableHandle, reader: any VersionReading) throws(FloeError) -> [Value] {
        var values: [Value] = []
        values.reserveCapacity(sortColumns.count)
        for column in sortColumns { values.append(try reader.value(in: table, key: key, column: column)) }
        return values
    }

    /// The answer's order between two objects: negative when (`a`, `aKey`) comes first.
    func order(_ a: [Value], _ aKey: Int64, _ b: [Value], _ bKey: Int64) -> Int {
        for index in sortColumns.indices {
            let comparison = QueryEvaluator.sortOrder(a[index], b[index])
            if comparison != 0 { return ascending[index] ? comparison : -comparison }
        }
        return aKey == bKey ? 0 : (aKey < bKey ? -1 : 1)
    }
}

/// A predicate over one object's own plain columns, evaluated on values already read (one
/// read of the object's row serves the predicate and the sort), as ``QueryEvaluator`` would
/// evaluate it on the stored object: each operand is a single value, so ANY and ALL test it
/// and NONE negates the test.
///
/// ```swift
/// let test = RowTest.compare(.slot(0), .greaterOrEqual, .constant(.int(50)), [], .any)
/// test.matches { slot in row[slot] }
/// ```
indirect enum RowTest: Sendable {
    case constant(Bool)
    case and([RowTest]), or([RowTest]), not(RowTest)
    case compare(RowOperand, QueryOperator, RowOperand, QueryStringOptions, QueryQuantifier)
    case between(RowOperand, Value, Value, QueryQuantifier)

    /// An operand: a read column's slot, a constant, or a list of constants.
    enum RowOperand: Sendable {
        case slot(Int)
        case constant(Value)
        case list([Value])
    }

    /// Whether the object whose read values `value` gives matches.
    func matches(_ value: (Int) -> Value) -> Bool {
        switch self {
        case .constant(let result): return result
        case .and(let terms):
            for term in terms where !term.matches(value) { return false }
            return true
        case .or(let terms):
            for term in terms where term.matches(value) { return true }
            return false
        case .not(let term): return !term.matches(value)
        case .between(let subject, let low, let high, let quantifier):
            return Self.quantify(subject, value, quantifier) { candidate in
                ValueComparison.compare(candidate, .greaterOrEqual, low, options: []) && ValueComparison.compare(candidate, .lessOrEqual, high, options: [])
            }
        case .compare(let lhs, let op, let rhs, let options, let quantifier):
            let comparing: QueryOperator = op == .in ? .equal : op
            return Self.quantify(lhs, value, quantifier) { candidate in
                switch rhs {
                case .slot(let slot): return ValueComparison.compare(candidate, comparing, value(slot), options: options)
                case .constant(let constant): return ValueComparison.compare(candidate, comparing, constant, options: options)
                case .list(let constants): return constants.contains { ValueComparison.compare(candidate, comparing, $0, options: options) }
                }
            }
        }
    }

    private static func quantify(_ operand: RowOperand, _ value: (Int) -> Value, _ quantifier: QueryQuantifier, _ test: (Value) -> Bool) -> Bool {
        switch operand {
        case .slot(let slot): return quantifier == .none ? !test(value(slot)) : test(value(slot))
        case .constant(let constant): return quantifier == .none ? !test(constant) : test(constant)
        case .list(let constants):
            switch quantifier {
            case .any: return constants.contains(where: test)
            case .all: return constants.allSatisfy(test)
            case .none: return !constants.contains(where: test)
            }
        }
    }
}

extension ResultsQuery {
    /// The plan that keeps this query's answer up to date incrementally, or nil when the
    /// answer can depend on more than each object's own row (see ``IncrementalQueryPlan``).
    func incrementalPlan(binding: TableBinding,
                         bindings: @escaping (ObjectBase.Type) throws(FloeError) -> TableBinding?) throws(FloeError) -> IncrementalQueryPlan? {
        guard base == .table else { return nil }
        var sortColumns: [Int] = []
        var ascending: [Bool] = []
        for (index, stage) in stages.enumerated() {
            // Only the last sort decides the order; a distinct makes membership depend on other objects.
            guard case .sort(let descriptors) = stage, index == stages.count - 1 else { return nil }
            for descriptor in descriptors {
                let key = try QueryEvaluator.sortKey(descriptor.keyPath, from: binding, bindings: bindings)
                guard key.count == nil, key.hops.count == 1, let hop = key.hops.first, Self.isPlain(hop) else { return nil }
                sortColumns.append(hop.column)
                ascending.append(descriptor.ascending)
            }
        }
        var columns = Set<Int>()
        var test: RowTest?
        if let predicate {
            let node = try QueryEvaluator.compile(predicate, root: binding, bindings: bindings)
            guard Self.collectPlainColumns(node, into: &columns) else { return nil }
            let read = sortColumns + columns.subtracting(sortColumns).sorted()
            var slots: [Int: Int] = [:]
            for (slot, column) in read.enumerated() where slots[column] == nil { slots[column] = slot }
            guard let made = Self.rowTest(node, slots: slots) else { return nil }
            test = made
        }
        return IncrementalQueryPlan(predicate: predicate, predicateColumns: columns, sortColumns: sortColumns, ascending: ascending, test: test)
    }

    /// Whether the query's answer depends on each object's own row alone (checked on the
    /// class's schema, before it has objects).
    func readsOwnRowsOnly(of type: ObjectBase.Type) -> Bool {
        guard let binding = try? QueryEvaluator.schemaOnlyBinding(for: type) else { return false }
        return (try? incrementalPlan(binding: binding) { (other) throws(FloeError) in try QueryEvaluator.schemaOnlyBinding(for: other) }) != nil
    }

    /// The classes whose objects this query over `type` can read — the class itself, the
    /// classes its predicate, sorts and distincts reach through links, lists, sets, maps and
    /// linking objects, and the collection it starts from — so that a commit touching none of
    /// them cannot change its answer; nil when that cannot be said (a mixed value can link to
    /// any class).
    ///
    /// ```swift
    /// query.readClassNames(of: Dog.self)   // ["Dog", "Person"] for "owner.name == 'Ann'"
    /// ```
    func readClassNames(of type: ObjectBase.Type) -> Set<String>? {
        guard let binding = try? QueryEvaluator.schemaOnlyBinding(for: type) else { return nil }
        let bindings: (ObjectBase.Type) throws(FloeError) -> TableBinding? = { (other) throws(FloeError) in try QueryEvaluator.schemaOnlyBinding(for: other) }
        var names: Set<String> = [binding.schema.className]
        switch base {
        case .table, .backlinks: break
        case .collection(let owner, _, _): names.insert(owner.name)
        }
        if let predicate {
            guard let node = try? QueryEvaluator.compile(predicate, root: binding, bindings: bindings),
                  Self.collectClasses(node, into: &names) else { return nil }
        }
        for stage in stages {
            let keyPaths: [String]
            switch stage {
            case .sort(let descriptors): keyPaths = descriptors.map(\.keyPath)
            case .distinct(let paths): keyPaths = paths
            }
            for keyPath in keyPaths {
                guard let key = try? QueryEvaluator.sortKey(keyPath, from: binding, bindings: bindings),
                      Self.collectClasses(key.hops, into: &names) else { return nil }
                switch key.count {
                case nil: break
                case .collection(let table, _)?: names.insert(table.name)
                case .backlinks(let table?, _)?: names.insert(table.name)
                case .backlinks(nil, _)?: return nil
                }
            }
        }
        return names
    }

    private static func collectClasses(_ node: QueryEvaluator.Node, into names: inout Set<String>) -> Bool {
        switch node {
        case .constant: return true
        case .and(let terms), .or(let terms): return terms.allSatisfy { collectClasses($0, into: &names) }
        case .not(let term): return collectClasses(term, into: &names)
        case .between(let operand, _, _, _), .geoWithin(let operand, _): return collectClasses(operand, into: &names)
        case .compare(let lhs, _, let rhs, _, _): return collectClasses(lhs, into: &names) && collectClasses(rhs, into: &names)
        }
    }

    private static func collectClasses(_ operand: QueryEvaluator.Operand, into names: inout Set<String>) -> Bool {
        switch operand {
        case .constant, .list: return true
        case .path(let hops): return collectClasses(hops, into: &names)
        case .aggregate(let collection, _, let inner): return collectClasses(collection, into: &names) && collectClasses(inner, into: &names)
        case .subquery(let collection, let condition): return collectClasses(collection, into: &names) && collectClasses(condition, into: &names)
        }
    }

    private static func collectClasses(_ hops: [QueryEvaluator.Hop], into names: inout Set<String>) -> Bool {
        for hop in hops {
            guard hop.property.type.columnType != .mixed else { return false }
            names.insert(hop.binding.schema.className)
            if let origin = hop.origin { names.insert(origin.binding.schema.className) }
            if let linked = hop.property.type.objectType { names.insert(linked.className()) }
        }
        return true
    }

    private static func isPlain(_ hop: QueryEvaluator.Hop) -> Bool {
        let type = hop.property.type
        return hop.origin == nil && hop.steps.isEmpty && !hop.property.isComputed && type.collection == .single
            && type.columnType != .link && type.columnType != .mixed
    }

    /// The predicate as a ``RowTest`` over the read columns' `slots` (nil: it reads more than
    /// the object's own plain columns).
    private static func rowTest(_ node: QueryEvaluator.Node, slots: [Int: Int]) -> RowTest? {
        switch node {
        case .constant(let value): return .constant(value)
        case .and(let terms), .or(let terms):
            var tests: [RowTest] = []
            for term in terms {
                guard let test = rowTest(term, slots: slots) else { return nil }
                tests.append(test)
            }
            if case .and = node { return .and(tests) }
            return .or(tests)
        case .not(let term): return rowTest(term, slots: slots).map(RowTest.not)
        case .between(let operand, let low, let high, let quantifier):
            return rowOperand(operand, slots: slots).map { .between($0, low, high, quantifier) }
        case .compare(let lhs, let op, let rhs, let options, let quantifier):
            guard let left = rowOperand(lhs, slots: slots), let right = rowOperand(rhs, slots: slots) else { return nil }
            return .compare(left, op, right, options, quantifier)
        case .geoWithin: return nil
        }
    }

    private static func rowOperand(_ operand: QueryEvaluator.Operand, slots: [Int: Int]) -> RowTest.RowOperand? {
        switch operand {
        case .constant(let value): return .constant(value)
        case .list(let values): return .list(values)
        case .path(let hops):
            guard hops.count == 1, isPlain(hops[0]), let slot = slots[hops[0].column] else { return nil }
            return .slot(slot)
        case .aggregate, .subquery: return nil
        }
    }

    private static func collectPlainColumns(_ node: QueryEvaluator.Node, into columns: inout Set<Int>) -> Bool {
        switch node {
        case .constant: return true
        case .and(let terms), .or(let terms): return terms.allSatisfy { collectPlainColumns($0, into: &columns) }
        case .not(let term): return collectPlainColumns(term, into: &columns)
        case .between(let operand, _, _, _): return collectPlainColumns(operand, into: &columns)
        case .compare(let lhs, _, let rhs, _, _): return collectPlainColumns(lhs, into: &columns) && collectPlainColumns(rhs, into: &columns)
        case .geoWithin: return false
        }
    }

    private static func collectPlainColumns(_ operand: QueryEvaluator.Operand, into columns: inout Set<Int>) -> Bool {
        switch operand {
        case .constant, .list: return true
        case .path(let hops):
            guard hops.count == 1, isPlain(hops[0]) else { return false }
            columns.insert(hops[0].column)
            return true
        case .aggregate, .subquery: return false
        }
    }
}
