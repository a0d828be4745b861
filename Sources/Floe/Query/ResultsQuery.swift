@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// What narrows and orders a `Results`: the objects it starts from, a predicate, then sorts and
/// distincts in the order they were asked for. Immutable; each `filter`, `sorted` or
/// `distinct` makes a new one (results chain).
final class ResultsQuery: Sendable {
    /// One ordering step after the predicate.
    enum Stage: Sendable, Hashable {
        case sort([SortDescriptor])
        /// Keeps the first object of each group with equal values at these key paths.
        case distinct([String])
    }

    let predicate: QueryPredicate?
    /// The objects the predicate narrows (every object of the class, or a collection's).
    let base: ResultsBase
    let stages: [Stage]

    init(predicate: QueryPredicate? = nil, base: ResultsBase = .table, stages: [Stage] = []) {
        self.predicate = predicate
        self.base = base
        self.stages = stages
    }

    convenience init(predicate: QueryPredicate?, sort: [SortDescriptor]) {
        self.init(predicate: predicate, stages: sort.isEmpty ? [] : [.sort(sort)])
    }

    /// The order asked for last.
    var sort: [SortDescriptor] {
        for case .sort(let descriptors) in stages.reversed() { return descriptors }
        return []
    }

    /// This query narrowed by `predicate` too (both must hold).
    func filtered(by predicate: QueryPredicate) -> ResultsQuery {
        ResultsQuery(predicate: self.predicate.map { .and([$0, predicate]) } ?? predicate, base: base, stages: stages)
    }

    /// This query ordered by `descriptors` first, then by the order asked for just before as
    /// the tie-breaker (as realm-core prepends a new sort): `sorted("name").sorted("isGood")`
    /// sorts by `isGood`, equal ones by `name`. A `distinct` asked for before keeps the objects
    /// it chose.
    func sorted(by descriptors: [SortDescriptor]) -> ResultsQuery {
        var stages = stages
        var earlier: [SortDescriptor] = []
        if case .sort(let previous) = stages.last {
            stages.removeLast()
            let named = Set(descriptors.map(\.keyPath))
            earlier = previous.filter { !named.contains($0.keyPath) }
        }
        return ResultsQuery(predicate: predicate, base: base, stages: stages + [.sort(descriptors + earlier)])
    }

    /// This query keeping the first object (in its order so far) of each group with equal values at `keyPaths`.
    func distinct(by keyPaths: [String]) -> ResultsQuery {
        ResultsQuery(predicate: predicate, base: base, stages: stages + [.distinct(keyPaths)])
    }

    /// The keys of the objects of `binding`'s class that match, in order.
    func keys(in binding: TableBinding, reader: any VersionReading,
              bindings: @escaping (ObjectBase.Type) throws(FloeError) -> TableBinding?) throws(FloeError) -> [Int64] {
        var keys = try QueryPlanner.matchingKeys(predicate, base: base, binding: binding, reader: reader, bindings: bindings)
        for stage in stages {
            switch stage {
            case .sort(let descriptors):
                keys = try Self.sort(keys, by: descriptors, binding: binding, reader: reader, bindings: bindings)
            case .distinct(let keyPaths):
                let paths = try keyPaths.map { (keyPath) throws(FloeError) in try QueryEvaluator.sortKey(keyPath, from: binding, bindings: bindings) }
                var seen = Set<[ValueIdentity]>()
                var kept: [Int64] = []
                for key in keys {
                    var values: [ValueIdentity] = []
                    for path in paths { values.append(ValueIdentity(try path.value(key: key, reader: reader))) }
                    if seen.insert(values).inserted { kept.append(key) }
                }
                keys = kept
            }
        }
        return keys
    }

    private static func sort(_ keys: [Int64], by sort: [SortDescriptor], binding: TableBinding, reader: any VersionReading,
                             bindings: @escaping (ObjectBase.Type) throws(FloeError) -> TableBinding?) throws(FloeError) -> [Int64] {
        let paths = try sort.map { (descriptor) throws(FloeError) in
            try QueryEvaluator.sortKey(descriptor.keyPath, from: binding, bindings: bindings)
        }
        let columns = try SortColumns.values(of: keys, paths: paths, binding: binding, reader: reader)
        return SortColumns.order(keys, columns: columns, ascending: sort.map(\.ascending))
    }

    /// Checks the predicate, sort and distinct key paths against the class now, so that a
    /// typo is an error where the query is written, not an empty result later.
    func validate(for type: ObjectBase.Type, binding: TableBinding?,
                  bindings: @escaping (ObjectBase.Type) throws(FloeError) -> TableBinding?) throws(FloeError) {
        // A class without objects yet still checks its key paths.
        let subject: TableBinding
        if let binding { subject = binding } else { subject = try QueryEvaluator.schemaOnlyBinding(for: type) }
        if let predicate { _ = try QueryEvaluator.compile(predicate, root: subject, bindings: bindings) }
        for stage in stages {
            switch stage {
            case .sort(let descriptors):
                for descriptor in descriptors { _ = try QueryEvaluator.sortKey(descriptor.keyPath, from: subject, bindings: bindings) }
            case .distinct(let keyPaths):
                for keyPath in keyPaths { _ = try QueryEvaluator.sortKey(keyPath, from: subject, bindings: bindings) }
            }
        }
    }
}

/// A sort key: a property's key path (through to-one links, `"owner.name"`) and a direction.
///
/// It is `Floe.SortDescriptor`: with `import Foundation` as well, Foundation's generic
/// `SortDescriptor<Compared>` is visible too, so spell Floe's with its module name when the
/// compiler says the name is ambiguous.
///
/// ```swift
/// let byAge = try dogs.sorted(by: [Floe.SortDescriptor(keyPath: "age", ascending: false), "name"])
/// ```
public struct SortDescriptor: Sendable, Hashable, ExpressibleByStringLiteral {
    /// The property to sort by, through to-one links.
    public let keyPath: String
    /// Whether smaller values (and nulls) come first.
    public let ascending: Bool

    /// A descriptor sorting by `keyPath`.
    public init(keyPath: String, ascending: Bool = true) {
        self.keyPath = keyPath
        self.ascending = ascending
    }

    /// A descriptor sorting by the persisted property a Swift key path reads.
    ///
    /// ```swift
    /// let oldestFirst = try dogs.sorted(by: [SortDescriptor(keyPath: \Dog.age, ascending: false)])
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` when the key path reads
    ///   no persisted property of `Root`, or computes a value from one.
    public init<Root: ObjectBase, Value>(keyPath: KeyPath<Root, Value>, ascending: Bool = true) throws {
        self.init(keyPath: try KeyPathNames.name(of: keyPath), ascending: ascending)
    }

    /// A descriptor sorting ascending by the key path a string literal names.
    public init(stringLiteral keyPath: String) {
        self.init(keyPath: keyPath)
    }

    /// The same key path, the other way round.
    public func reversed() -> SortDescriptor {
        SortDescriptor(keyPath: keyPath, ascending: !ascending)
    }
}

extension QueryEvaluator {
    /// A sort key path resolved: to-one links only (a to-many has no single value to sort by).
    static func sortHops(_ keyPath: String, from root: TableBinding,
                         bindings: (ObjectBase.Type) throws(FloeError) -> TableBinding?) throws(FloeError) -> [Hop] {
        let hops = try hops(QueryKeyPath(dotted: keyPath), from: root, bindings: bindings)
        if let toMany = hops.first(where: { $0.isToMany || $0.property.type.collection != .single }) {
            throw .invalidKeyPath(className: root.schema.className, keyPath: keyPath,
                                  reason: "'\(toMany.property.name)' is a collection: sort by a single value")
        }
        if let last = hops.last, last.property.type.columnType == .link {
            throw .invalidKeyPath(className: root.schema.className, keyPath: keyPath,
                                  reason: "'\(last.property.name)' is an object: sort by one of its properties")
        }
        return hops
    }

    static func sortValue(_ hops: [Hop], key: Int64, reader: any VersionReading) throws(FloeError) -> Value {
        var current = Value.link(key)
        for hop in hops {
            guard case .link(let linked) = current else { return .null }
            current = try reader.value(in: hop.binding.table, key: linked, column: hop.column)
        }
        return current
    }

    /// Realm's sort order, the engine's one order of values: nulls first, then numbers across
    /// kinds by value (NaN first among them), strings by Swift's `<`.
    static func sortOrder(_ lhs: Value, _ rhs: Value) -> Int {
        Value.compare(lhs, rhs)
    }
}
