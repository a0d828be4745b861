import Foundation
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// The one predicate tree the query front ends produce — the string parser today
// (`filter("age > %@", 3)`), the type-safe builder (`where { $0.age > 3 }`) next — and the
// evaluator consumes. Names in key paths are the model's Swift property names as
// written; they are resolved against the schema when the query runs, so a typo surfaces as
// a typed error that names the class and the key path.

/// A predicate over the objects of one class.
indirect enum QueryPredicate: Sendable, Hashable {
    /// `TRUEPREDICATE` / `FALSEPREDICATE`.
    case constant(Bool)
    case and([QueryPredicate])
    case or([QueryPredicate])
    case not(QueryPredicate)
    /// `lhs op rhs`. When `lhs` (or `rhs`) goes through a to-many relationship, `quantifier`
    /// says how many elements must match (`ANY` is the default, as in Realm).
    case comparison(QueryComparison)
    /// `lhs BETWEEN {low, high}` (both ends included).
    case between(QueryExpression, low: QueryExpression, high: QueryExpression, quantifier: QueryQuantifier)
    /// `location GEOWITHIN %@`: the GeoJSON point the key path leads to lies within the shape.
    case geoWithin(QueryKeyPath, GeoShape)
}

/// One comparison of a predicate.
struct QueryComparison: Sendable, Hashable {
    var lhs: QueryExpression
    var op: QueryOperator
    var rhs: QueryExpression
    var options: QueryStringOptions = []
    var quantifier: QueryQuantifier = .any
}

/// Comparison operators. `in` takes a list (or a to-many key path) on its right.
enum QueryOperator: String, Sendable, Hashable {
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    case beginsWith = "BEGINSWITH"
    case endsWith = "ENDSWITH"
    case contains = "CONTAINS"
    case like = "LIKE"
    case `in` = "IN"
}

/// `[c]`, `[d]`, `[cd]`.
struct QueryStringOptions: OptionSet, Sendable, Hashable {
    let rawValue: UInt8
    static let caseInsensitive = QueryStringOptions(rawValue: 1)
    static let diacriticInsensitive = QueryStringOptions(rawValue: 2)
}

/// How many elements of a to-many key path must satisfy a comparison.
enum QueryQuantifier: Sendable, Hashable {
    case any, all, none
}

/// One side of a comparison.
indirect enum QueryExpression: Sendable, Hashable {
    /// A property path from the queried class (or from a subquery's variable).
    case keyPath(QueryKeyPath)
    /// A literal, or a `%@` argument, in stored form (an object as a link to its key).
    case constant(Value)
    /// `{a, b, c}` (for `IN` and `BETWEEN`).
    case list([QueryExpression])
    /// `dogs.@count`, `dogs.@sum.age`, `scores.@max`: an aggregate over a to-many key path;
    /// `of` is the element property aggregated (empty for a collection of values).
    case aggregate(QueryKeyPath, QueryAggregate, of: [String])
    /// `SUBQUERY(collection, $variable, predicate).@count`.
    case subqueryCount(collection: QueryKeyPath, variable: String, predicate: QueryPredicate)
}

/// `@count`, `@min`, `@max`, `@sum`, `@avg`.
enum QueryAggregate: String, Sendable, Hashable {
    case count = "@count"
    case min = "@min"
    case max = "@max"
    case sum = "@sum"
    case average = "@avg"
}

/// A path of property names, as written in the query.
struct QueryKeyPath: Sendable, Hashable, CustomStringConvertible {
    var components: [QueryKeyPathComponent]

    init(_ components: [QueryKeyPathComponent]) { self.components = components }

    /// A plain dotted path: `"owner.name"`.
    init(dotted: String) {
        components = dotted.split(separator: ".").map { .property(String($0)) }
    }

    var description: String {
        var text = ""
        for component in components {
            switch component {
            case .property(let name): text += text.isEmpty ? name : "." + name
            case .variable(let name): text += "$" + name
            case .links(let className, let property): text += (text.isEmpty ? "" : ".") + "@links.\(className).\(property)"
            case .mapKey(let key): text += "['\(key)']"
            case .index(let index): text += "[\(index)]"
            case .allKeys: text += ".@keys"
            case .allValues: text += ".@values"
            case .anyElement: text += "[*]"
            case .size: text += ".@size"
            case .type: text += ".@type"
            }
        }
        return text
    }
}

/// One step of a key path.
enum QueryKeyPathComponent: Sendable, Hashable {
    /// A property of the current class (`name`, `owner`, `dogs`).
    case property(String)
    /// A subquery's variable (`$dog`), only as a first component.
    case variable(String)
    /// `@links.Person.dogs`: the objects of `className` whose `property` links here.
    case links(className: String, property: String)
    /// `map['key']` / `map[key]` in the builder; also a key into an `AnyRealmValue` dictionary.
    case mapKey(String)
    /// `mixed[2]`: an element of an `AnyRealmValue` list.
    case index(Int)
    /// `map.@keys`.
    case allKeys
    /// `map.@values`.
    case allValues
    /// `mixed[*]`: every element of an `AnyRealmValue` list or dictionary.
    case anyElement
    /// `string.@size` / `data.@size` / `list.@size`.
    case size
    /// `mixed.@type`.
    case type
}
