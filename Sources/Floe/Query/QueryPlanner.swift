@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// Chooses how a predicate finds its objects: through a search index when a term of the
/// predicate is `==` or `IN` on an indexed property (or the primary key) with values of the
/// property's own type, else by scanning the base. Index candidates are then checked against
/// the whole predicate, so the plan changes only the cost, never the result.
///
/// ```swift
/// let keys = try QueryPlanner.matchingKeys(predicate, base: .table, binding: dogs, reader: snapshot, bindings: lookup)
/// ```
enum QueryPlanner {
    static func matchingKeys(_ predicate: QueryPredicate?, base: ResultsBase, binding: TableBinding, reader: any VersionReading,
                             bindings: @escaping (ObjectBase.Type) throws(FloeError) -> TableBinding?) throws(FloeError) -> [Int64] {
        guard let predicate else { return try base.keys(in: binding, reader: reader) }
        if case .constant(true) = predicate { return try base.keys(in: binding, reader: reader) }
        if let candidates = try indexCandidates(predicate, binding: binding, reader: reader) {
            let evaluator = try QueryEvaluator(predicate, binding: binding, reader: reader, bindings: bindings)
            if base.isWholeTable { return try evaluator.matchingKeys(among: candidates) }
            let allowed = Set(candidates)
            return try evaluator.matchingKeys(among: base.keys(in: binding, reader: reader).filter(allowed.contains))
        }
        if base.isWholeTable, let scan = try ColumnScan(predicate, binding: binding, reader: reader) {
            return try scan.matchingKeys()
        }
        let evaluator = try QueryEvaluator(predicate, binding: binding, reader: reader, bindings: bindings)
        if base.isWholeTable { return try evaluator.matchingKeys() }
        return try evaluator.matchingKeys(among: base.keys(in: binding, reader: reader))
    }

    /// The keys, in key order, of every object that can satisfy `predicate` as far as its
    /// indexed terms tell; nil when no index narrows it (a scan is needed).
    static func indexCandidates(_ predicate: QueryPredicate, binding: TableBinding, reader: any VersionReading) throws(FloeError) -> [Int64]? {
        switch predicate {
        case .and(let terms):
            // The first indexed term narrows; the evaluator checks the rest on its candidates.
            for term in terms {
                if let candidates = try indexCandidates(term, binding: binding, reader: reader) { return candidates }
            }
            return nil
        case .or(let terms):
            var union = Set<Int64>()
            for term in terms {
                guard let candidates = try indexCandidates(term, binding: binding, reader: reader) else { return nil }
                union.formUnion(candidates)
            }
            return union.sorted()
        case .comparison(let comparison):
            guard comparison.options.isEmpty, comparison.quantifier == .any,
                  case .keyPath(let path) = comparison.lhs, path.components.count == 1,
                  case .property(let name) = path.components[0],
                  let propertyIndex = binding.schema.propertyIndex(named: name) else { return nil }
            let property = binding.schema.properties[propertyIndex]
            guard !property.isComputed, property.type.collection == .single, binding.table.index >= 0 else { return nil }
            let column = binding.columnOfProperty[propertyIndex]
            let spec = try reader.spec(of: binding.table).columns[column]
            guard spec.hasSearchIndex || spec.isObjectKey else { return nil }
            let values: [Value]
            switch (comparison.op, comparison.rhs) {
            case (.equal, .constant(let value)): values = [value]
            case (.in, .constant(.list(let list))): values = list
            case (.in, .list(let expressions)):
                var list: [Value] = []
                for case .constant(let value) in expressions { list.append(value) }
                guard list.count == expressions.count else { return nil }
                values = list
            default: return nil
            }
            // The index files values by their stored form: a value of another kind (3.0 for
            // an Int) or null is matched by a scan instead, with the query's own comparison.
            guard values.allSatisfy({ $0.naturalType == spec.type && spec.type != .mixed }) else { return nil }
            var keys = Set<Int64>()
            for value in values { keys.formUnion(try reader.findObjects(in: binding.table, column: column, equalTo: value)) }
            return keys.sorted()
        default:
            return nil
        }
    }
}

extension QueryEvaluator {
    /// What a sort or distinct key path reads for one object: a value through to-one links,
    /// or the count of a list, set, map or linking objects (`"dogs.@count"`, `"owners.@count"`).
    struct SortKey {
        /// To-one link hops, then (without `count`) the hop of the value itself.
        let hops: [Hop]
        let count: CountSource?

        enum CountSource {
            case collection(TableHandle, column: Int)
            /// The origin class's table (nil: it has no objects) and its link column.
            case backlinks(TableHandle?, column: Int)
        }

        func value(key: Int64, reader: any VersionReading) throws(FloeError) -> Value {
            var current = Value.link(key)
            for hop in hops {
                guard case .link(let linked) = current else { return .null }
                current = try reader.value(in: hop.binding.table, key: linked, column: hop.column)
            }
            guard let count else { return current }
            guard case .link(let object) = current else { return .null }
            switch count {
            case .collection(let table, let column):
                return .int(Int64(try reader.collectionCount(in: table, key: object, column: column)))
            case .backlinks(let table, let column):
                guard let table else { return .int(0) }
                return .int(Int64(try reader.linkingObjects(in: table, column: column, to: object).count))
            }
        }
    }

    /// A sort or distinct key path resolved: to-one links to a value, or to a collection's `@count`.
    static func sortKey(_ keyPath: String, from root: TableBinding,
                        bindings: (ObjectBase.Type) throws(FloeError) -> TableBinding?) throws(FloeError) -> SortKey {
        var components = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard components.last == "@count" else { return SortKey(hops: try sortHops(keyPath, from: root, bindings: bindings), count: nil) }
        components.removeLast()
        guard let collectionName = components.popLast(), !collectionName.isEmpty else {
            throw .invalidKeyPath(className: root.schema.className, keyPath: keyPath, reason: "@count follows a list, set, map or linking objects")
        }
        var hops: [Hop] = []
        var owner = root
        if !components.isEmpty {
            hops = try self.hops(QueryKeyPath(dotted: components.joined(separator: ".")), from: root, bindings: bindings)
            guard let last = hops.last, let target = last.property.type.objectType,
                  !hops.contains(where: { $0.isToMany || $0.property.type.collection != .single }) else {
                throw .invalidKeyPath(className: root.schema.className, keyPath: keyPath,
                                      reason: "'\(components.joined(separator: "."))' must lead through single objects to the counted collection")
            }
            if let existing = try bindings(target) { owner = existing } else { owner = try schemaOnlyBinding(for: target) }
        }
        guard let index = owner.schema.propertyIndex(named: collectionName) else {
            throw .invalidKeyPath(className: root.schema.className, keyPath: keyPath, reason: "\(owner.schema.className) has no property '\(collectionName)'")
        }
        let property = owner.schema.properties[index]
        if let origin = property.originProperty, let originType = property.type.objectType {
            let originBinding = try bindings(originType)
            let originSchema: ObjectSchemaInfo
            if let originBinding { originSchema = originBinding.schema } else { originSchema = try SchemaDiscovery.schema(for: originType) }
            guard let originIndex = originSchema.propertyIndex(named: origin) else {
                throw .invalidKeyPath(className: root.schema.className, keyPath: keyPath, reason: "\(originSchema.className) has no property '\(origin)'")
            }
            return SortKey(hops: hops, count: .backlinks(originBinding?.table, column: originBinding?.columnOfProperty[originIndex] ?? originIndex))
        }
        guard property.type.collection != .single else {
            throw .invalidKeyPath(className: root.schema.className, keyPath: keyPath,
                                  reason: "'\(collectionName)' is \(property.type.swiftName), not a collection: @count needs a list, set, map or linking objects")
        }
        return SortKey(hops: hops, count: .collection(owner.table, column: owner.columnOfProperty[index]))
    }
}
