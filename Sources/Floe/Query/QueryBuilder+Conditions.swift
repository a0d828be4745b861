@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// Conditions combined (`&&`, `||`, `!`), a builder closure turned into the predicate tree, and
// a condition over a to-many relationship counted as a subquery.

extension Query where T == Bool {
    /// Both conditions hold.
    ///
    /// ```swift
    /// try dogs.where { $0.age > 3 && $0.name.starts(with: "R") }
    /// ```
    public static func && (lhs: Query<Bool>, rhs: Query<Bool>) -> Query<Bool> {
        lhs.combined(with: rhs) { left, right in
            if case .and(let terms) = left { return .and(terms + [right]) }
            return .and([left, right])
        }
    }

    /// Either condition holds.
    ///
    /// ```swift
    /// try dogs.where { $0.age < 1 || $0.age > 12 }
    /// ```
    public static func || (lhs: Query<Bool>, rhs: Query<Bool>) -> Query<Bool> {
        lhs.combined(with: rhs) { left, right in
            if case .or(let terms) = left { return .or(terms + [right]) }
            return .or([left, right])
        }
    }

    /// The condition does not hold.
    ///
    /// ```swift
    /// try dogs.where { !$0.isGood }
    /// ```
    public static prefix func ! (query: Query<Bool>) -> Query<Bool> {
        switch query.condition {
        case .failure(let error): return Query<Bool>(.invalid(error), className: query.className)
        case .success(let (predicate, collections)): return Query<Bool>(.predicate(.not(predicate), collections: collections), className: query.className)
        }
    }

    /// How many elements of a list, set or linking objects meet every term of this condition
    /// together (a subquery). Each term must go through the same to-many relationship.
    ///
    /// ```swift
    /// // People with more than one dog older than 5 whose name starts with R.
    /// try people.where { ($0.dogs.age > 5 && $0.dogs.name.starts(with: "R")).count > 1 }
    /// ```
    public var count: Query<Int> {
        switch condition {
        case .failure(let error): return Query<Int>(.invalid(error), className: className)
        case .success(let (predicate, collections)):
            guard collections.count == 1, let collection = collections.first else {
                let through = collections.map(\.description).sorted().joined(separator: ", ")
                let reason = collections.isEmpty
                    ? "count a condition on a list, set or linking objects, such as ($0.dogs.age > 5).count"
                    : "a counted condition goes through one list or set, and this one goes through \(through)"
                return Query<Int>(.invalid(refusal("\(predicate)", reason)), className: className)
            }
            let variable = "element"
            do throws(FloeError) {
                let relative = try QueryKeyPathRewriter.relative(to: collection, variable: variable, className: className).predicate(predicate)
                return Query<Int>(.computed(.subqueryCount(collection: collection, variable: variable, predicate: relative), collection: nil),
                                  className: className)
            } catch {
                return Query<Int>(.invalid(error), className: className)
            }
        }
    }

    /// This side as a condition: a `Bool` property reads as `property == true`.
    var condition: Result<(QueryPredicate, Set<QueryKeyPath>), FloeError> {
        switch node {
        case .predicate(let predicate, let collections): return .success((predicate, collections))
        case .keyPath(let path, let collection) where !path.components.isEmpty:
            return .success((.comparison(QueryComparison(lhs: .keyPath(path), op: .equal, rhs: .constant(.bool(true)))), collection.map { [$0] } ?? []))
        case .invalid(let error): return .failure(error)
        default: return .failure(refusal(written, "this is not a condition"))
        }
    }

    func combined(with other: Query<Bool>, _ make: (QueryPredicate, QueryPredicate) -> QueryPredicate) -> Query<Bool> {
        switch (condition, other.condition) {
        case (.failure(let error), _), (_, .failure(let error)): return Query<Bool>(.invalid(error), className: className)
        case (.success(let (left, leftCollections)), .success(let (right, rightCollections))):
            return Query<Bool>(.predicate(make(left, right), collections: leftCollections.union(rightCollections)), className: className)
        }
    }

    /// The predicate a builder closure makes for objects of `Root`.
    static func predicate<Root: ObjectBase>(for root: Root.Type, _ isIncluded: (Query<Root>) -> Query<Bool>) throws(FloeError) -> QueryPredicate {
        let start = Query<Root>(.keyPath(QueryKeyPath([]), collection: nil), className: Root.className())
        switch isIncluded(start).condition {
        case .success(let (predicate, _)): return predicate
        case .failure(let error): throw error
        }
    }
}

/// Rewrites every key path of a condition (a subquery's paths to and from its variable).
struct QueryKeyPathRewriter {
    let rewrite: (QueryKeyPath) throws(FloeError) -> QueryKeyPath

    /// Paths through `collection` made to start at `variable` instead (for a counted condition).
    static func relative(to collection: QueryKeyPath, variable: String, className: String) -> QueryKeyPathRewriter {
        QueryKeyPathRewriter { (path) throws(FloeError) in
            let prefix = collection.components
            guard path.components.count > prefix.count, Array(path.components.prefix(prefix.count)) == prefix else {
                throw .invalidKeyPath(className: className, keyPath: path.description,
                                      reason: "a counted condition compares only properties of \(collection)'s elements")
            }
            return QueryKeyPath([.variable(variable)] + path.components.dropFirst(prefix.count))
        }
    }

    func predicate(_ predicate: QueryPredicate) throws(FloeError) -> QueryPredicate {
        switch predicate {
        case .constant: return predicate
        case .and(let terms): return .and(try terms.map { (term) throws(FloeError) in try self.predicate(term) })
        case .or(let terms): return .or(try terms.map { (term) throws(FloeError) in try self.predicate(term) })
        case .not(let term): return .not(try self.predicate(term))
        case .comparison(var comparison):
            comparison.lhs = try expression(comparison.lhs)
            comparison.rhs = try expression(comparison.rhs)
            return .comparison(comparison)
        case .between(let subject, let low, let high, let quantifier):
            return .between(try expression(subject), low: low, high: high, quantifier: quantifier)
        case .geoWithin(let path, let shape):
            return .geoWithin(try rewrite(path), shape)
        }
    }

    func expression(_ expression: QueryExpression) throws(FloeError) -> QueryExpression {
        switch expression {
        case .constant, .list: return expression
        case .keyPath(let path): return .keyPath(try rewrite(path))
        case .aggregate(let path, let aggregate, let of): return .aggregate(try rewrite(path), aggregate, of: of)
        case .subqueryCount(let inner, let innerVariable, let predicate):
            // The inner subquery's own paths start at its own variable: only its collection moves.
            return .subqueryCount(collection: try rewrite(inner), variable: innerVariable, predicate: predicate)
        }
    }
}
