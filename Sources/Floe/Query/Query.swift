/// The type-safe query builder: `results.where { $0.age > 3 && $0.name.starts(with: "R") }`.
public struct Query<T> {
    let expression: QueryExpression?
    let predicate: QueryPredicate?
}

extension Query where T: ObjectBase {
    /// The predicate a `where` closure builds over objects of `T`.
    static func predicate(_ isIncluded: (Query<T>) -> Query<Bool>) throws(FloeError) -> QueryPredicate {
        throw .invalidKeyPath(className: T.className(), keyPath: "", reason: "the query builder is not built yet")
    }
}
