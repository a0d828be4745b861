/// Parses Realm's string predicates (the NSPredicate dialect) into a ``QueryPredicate``.
enum PredicateParser {
    /// Parses `format`, substituting `%@` (values) and `%K` (key paths) from `arguments` in order.
    static func parse(_ format: String, arguments: [Any]) throws(FloeError) -> QueryPredicate {
        throw .invalidPredicate(predicate: format, position: 0, token: "", reason: "string predicates are not parsed yet")
    }
}
