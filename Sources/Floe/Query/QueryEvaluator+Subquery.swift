@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// `SUBQUERY(dogs, $dog, $dog.age > 5).@count`: how many elements of a to-many relationship
// meet a condition written on the element (its key paths start at the variable).

extension QueryEvaluator {
    /// A subquery's count as an operand: the collection's hops and the condition compiled
    /// against the elements' class.
    static func subqueryOperand(collection: QueryKeyPath, variable: String, predicate: QueryPredicate, root: TableBinding,
                                bindings: (ObjectBase.Type) throws(FloeError) -> TableBinding?) throws(FloeError) -> Operand {
        let path = try hops(collection, from: root, bindings: bindings)
        guard let last = path.last, last.isToMany, let target = last.property.type.objectType else {
            throw .invalidKeyPath(className: root.schema.className, keyPath: "SUBQUERY(\(collection), $\(variable), …)",
                                  reason: "a subquery runs over a list or a set of objects, and '\(collection)' is not one")
        }
        let elements: TableBinding
        if let existing = try bindings(target) { elements = existing } else { elements = try schemaOnlyBinding(for: target) }
        let onElement = QueryKeyPathRewriter { (keyPath) throws(FloeError) in
            guard case .variable(let name)? = keyPath.components.first, name == variable else {
                throw .invalidKeyPath(className: root.schema.className, keyPath: keyPath.description,
                                      reason: "inside SUBQUERY(\(collection), $\(variable), …) key paths start with $\(variable)")
            }
            return QueryKeyPath(Array(keyPath.components.dropFirst()))
        }
        return .subquery(path, try compile(onElement.predicate(predicate), root: elements, bindings: bindings))
    }
}
