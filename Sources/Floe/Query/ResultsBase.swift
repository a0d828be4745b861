@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// Where a query's candidates come from before its predicate narrows them: every object of
/// the class, the objects one object's list, set or map holds, or the objects linking to one
/// object. Plain data (a table, a key, a column), so frozen results carry it across tasks and
/// a live one reads it again at each version.
enum ResultsBase: Sendable, Hashable {
    /// Every object of the queried class, in key order.
    case table
    /// The objects held by `column` (a list, set or map of links) of object `key` of `owner`,
    /// in the collection's order; a list holding an object twice yields it twice.
    case collection(owner: TableHandle, key: Int64, column: Int)
    /// The objects of the queried class whose link `column` points at `target`, in key order.
    case backlinks(column: Int, target: Int64)

    /// The candidate keys at `reader`'s version. A collection whose owner was deleted holds nothing.
    func keys(in binding: TableBinding, reader: any VersionReading) throws(FloeError) -> [Int64] {
        switch self {
        case .table:
            return try reader.objectKeys(in: binding.table)
        case .collection(let owner, let key, let column):
            guard try reader.contains(key, in: owner) else { return [] }
            var keys: [Int64] = []
            for case .link(let linked) in try reader.collectionElements(in: owner, key: key, column: column) { keys.append(linked) }
            return keys
        case .backlinks(let column, let target):
            return try reader.linkingObjects(in: binding.table, column: column, to: target)
        }
    }

    /// Whether the candidates are every object in key order (then whole-table shortcuts apply).
    var isWholeTable: Bool { self == .table }
}
