import Foundation
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// A predicate bound to one class's table: key paths resolved to columns (typos and operators
/// that do not fit a property's type are typed errors here), then evaluated object by object
/// on stored values — no model object is built per row.
///
/// ```swift
/// let query = try QueryEvaluator(predicate, binding: dogs, reader: snapshot, bindings: lookup)
/// let keys = try query.matchingKeys()
/// ```
struct QueryEvaluator {
    let reader: any VersionReading
    let root: TableBinding
    private let node: Node
    /// The binding of a linked class, by class (the realm's or the snapshot's).
    let bindings: (ObjectBase.Type) throws(FloeError) -> TableBinding?

    init(_ predicate: QueryPredicate, binding: TableBinding, reader: any VersionReading,
         bindings: @escaping (ObjectBase.Type) throws(FloeError) -> TableBinding?) throws(FloeError) {
        self.reader = reader
        root = binding
        self.bindings = bindings
        node = try Self.compile(predicate, root: binding, bindings: bindings)
    }

    /// Keys of the objects that match, in key order.
    func matchingKeys() throws(FloeError) -> [Int64] {
        var keys: [Int64] = []
        for key in try reader.objectKeys(in: root.table) where try matches(node, key) { keys.append(key) }
        return keys
    }

    /// Those of `candidates` that match, in their order.
    func matchingKeys(among candidates: [Int64]) throws(FloeError) -> [Int64] {
        var keys: [Int64] = []
        for key in candidates where try matches(node, key) { keys.append(key) }
        return keys
    }

    // MARK: Compiled form

    /// One hop of a key path: a column of a table; to-many when it is a list or set.
    struct Hop {
        let binding: TableBinding
        let column: Int
        let property: PropertyInfo
        /// Subscripts after a map or mixed property (`['key']`, `[0]`, `@keys`, `[*]`).
        var steps: [QueryKeyPathComponent] = []
        /// For linking objects: the origin class's binding and the column of its link.
        var origin: (binding: TableBinding, column: Int)? = nil
        var isToMany: Bool { reachesMany }
    }

    indirect enum Node {
        case constant(Bool)
        case and([Node]), or([Node]), not(Node)
        case compare(Operand, QueryOperator, Operand, QueryStringOptions, QueryQuantifier)
        case between(Operand, Value, Value, QueryQuantifier)
        /// The operand reads a GeoJSON point's coordinates (longitude first).
        case geoWithin(Operand, GeoRegion)
    }

    enum Operand {
        case path([Hop])
        case constant(Value)
        case list([Value])
        case aggregate([Hop], QueryAggregate, [Hop])
        /// How many elements of the collection the hops reach meet the condition.
        case subquery([Hop], Node)
    }

    static func compile(_ predicate: QueryPredicate, root: TableBinding,
                        bindings: (ObjectBase.Type) throws(FloeError) -> TableBinding?) throws(FloeError) -> Node {
        switch predicate {
        case .constant(let value): return .constant(value)
        case .and(let terms): return .and(try terms.map { (term) throws(FloeError) in try compile(term, root: root, bindings: bindings) })
        case .or(let terms): return .or(try terms.map { (term) throws(FloeError) in try compile(term, root: root, bindings: bindings) })
        case .not(let term): return .not(try compile(term, root: root, bindings: bindings))
        case .between(let subject, let low, let high, let quantifier):
            let operand = try operand(subject, root: root, bindings: bindings)
            guard case .constant(let lower) = low, case .constant(let upper) = high else {
                throw .invalidKeyPath(className: root.schema.className, keyPath: "\(subject)", reason: "BETWEEN takes two values")
            }
            return .between(operand, lower, upper, quantifier)
        case .geoWithin(let path, let shape):
            return try geoWithin(path, within: shape, root: root, bindings: bindings)
        case .comparison(let comparison):
            var lhs = try operand(comparison.lhs, root: root, bindings: bindings)
            var rhs = try operand(comparison.rhs, root: root, bindings: bindings)
            var op = comparison.op
            if case .constant = lhs, case .path = rhs {
                // `3 < age` reads as `age > 3`.
                swap(&lhs, &rhs)
                op = op.mirrored
            }
            try check(lhs, op, rhs, options: comparison.options, root: root)
            return .compare(lhs, op, rhs, comparison.options, comparison.quantifier)
        }
    }

    static func operand(_ expression: QueryExpression, root: TableBinding,
                        bindings: (ObjectBase.Type) throws(FloeError) -> TableBinding?) throws(FloeError) -> Operand {
        switch expression {
        case .constant(let value):
            if case .list(let values) = value { return .list(values) }
            return .constant(value)
        case .list(let elements):
            var values: [Value] = []
            for element in elements {
                guard case .constant(let value) = element else {
                    throw .invalidKeyPath(className: root.schema.className, keyPath: "\(element)", reason: "a list in a predicate holds values only")
                }
                values.append(value)
            }
            return .list(values)
        case .keyPath(let path):
            return .path(try hops(path, from: root, bindings: bindings))
        case .aggregate(let path, let aggregate, let of):
            let collection = try hops(path, from: root, bindings: bindings)
            guard let last = collection.last, last.property.type.collection != .single || last.property.isComputed else {
                throw .invalidKeyPath(className: root.schema.className, keyPath: "\(path)", reason: "\(aggregate.rawValue) needs a list or a set")
            }
            var inner: [Hop] = []
            if !of.isEmpty {
                guard let target = last.property.type.objectType, let targetBinding = try bindings(target) else {
                    throw .invalidKeyPath(className: root.schema.className, keyPath: "\(path).\(aggregate.rawValue).\(of.joined(separator: "."))",
                                          reason: "'\(last.property.name)' holds values, not objects with properties")
                }
                inner = try hops(QueryKeyPath(of.map { .property($0) }), from: targetBinding, bindings: bindings)
            }
            // @sum and @avg add numbers, @min and @max order numbers and dates: anything else
            // is an error, not a comparison that never holds.
            let element = inner.last?.valueType ?? last.valueType
            let numeric: Set<ColumnType> = [.int, .float, .double, .decimal128, .mixed]
            let fits = switch aggregate {
            case .count: true
            case .sum, .average: numeric.contains(element.columnType)
            case .min, .max: numeric.contains(element.columnType) || element.columnType == .timestamp
            }
            guard fits, inner.isEmpty || element.collection == .single else {
                let written = ([path.description, aggregate.rawValue] + of).joined(separator: ".")
                let property = inner.last?.property.name ?? last.property.name
                throw .invalidKeyPath(className: root.schema.className, keyPath: written,
                                      reason: "\(aggregate.rawValue) takes numbers\(aggregate == .min || aggregate == .max ? " or dates" : ""): '\(property)' holds \(element.swiftName)")
            }
            return .aggregate(collection, aggregate, inner)
        case .subqueryCount(let collection, let variable, let predicate):
            return try subqueryOperand(collection: collection, variable: variable, predicate: predicate, root: root, bindings: bindings)
        }
    }

    /// Resolves `path` from `root`, property by property, through links.
    static func hops(_ path: QueryKeyPath, from root: TableBinding,
                     bindings: (ObjectBase.Type) throws(FloeError) -> TableBinding?) throws(FloeError) -> [Hop] {
        var hops: [Hop] = []
        var current: TableBinding? = root
        for (index, component) in path.components.enumerated() {
            if !hops.isEmpty, try appendStep(component, to: &hops[hops.count - 1], path: path, root: root) { continue }
            if case .links(let className, let originName) = component {
                guard let binding = current else {
                    throw .invalidKeyPath(className: root.schema.className, keyPath: "\(path)",
                                          reason: "'\(hops.last!.property.name)' holds values, not objects that others link to")
                }
                let (hop, origin) = try backlinkHop(from: binding, className: className, property: originName, path: path, root: root, bindings: bindings)
                hops.append(hop)
                current = origin
                continue
            }
            guard case .property(let name) = component else {
                throw .invalidKeyPath(className: root.schema.className, keyPath: "\(path)", reason: "this form of key path is not supported yet")
            }
            guard let binding = current else {
                throw .invalidKeyPath(className: root.schema.className, keyPath: "\(path)",
                                      reason: "'\(hops.last!.property.name)' holds values, not objects with properties")
            }
            guard let propertyIndex = binding.schema.propertyIndex(named: name) else {
                throw .invalidKeyPath(className: root.schema.className, keyPath: "\(path)", reason: "\(binding.schema.className) has no property '\(name)'")
            }
            let property = binding.schema.properties[propertyIndex]
            if property.type.columnType == .mixed, index + 1 < path.components.count, case .property = path.components[index + 1] {
                throw .invalidKeyPath(className: root.schema.className, keyPath: "\(path)",
                                      reason: "'\(binding.schema.className).\(name)' (\(property.type.swiftName)) has no properties: use [index], ['key'] or [*]")
            }
            hops.append(Hop(binding: binding, column: binding.columnOfProperty[propertyIndex], property: property,
                            origin: try linkOrigin(of: property, bindings: bindings)))
            if let target = property.type.objectType {
                // A linked class with no objects yet: its properties still resolve (and no link
                // leads to it, so evaluation never reads its missing table).
                if let existing = try bindings(target) {
                    current = existing
                } else {
                    current = try schemaOnlyBinding(for: target)
                }
            } else {
                current = nil
            }
        }
        return hops
    }

    /// A binding for a class whose table does not exist yet: enough to resolve key paths.
    static func schemaOnlyBinding(for type: ObjectBase.Type) throws(FloeError) -> TableBinding {
        let schema = try SchemaDiscovery.schema(for: type)
        return TableBinding(schema: schema, table: TableHandle(index: -1, name: schema.className),
                            columnOfProperty: Array(schema.properties.indices), columnCount: schema.properties.count)
    }

    /// Operators and constants that cannot apply to a property's type are errors, not empty results.
    static func check(_ lhs: Operand, _ op: QueryOperator, _ rhs: Operand, options: QueryStringOptions, root: TableBinding) throws(FloeError) {
        guard case .path(let hops) = lhs, let last = hops.last else { return }
        let type = last.valueType
        let name = hops.map(\.property.name).joined(separator: ".")
        func refuse(_ reason: String) -> FloeError { .invalidKeyPath(className: root.schema.className, keyPath: name, reason: reason) }
        switch op {
        case .beginsWith, .endsWith, .contains, .like:
            guard type.columnType == .string || type.columnType == .mixed else {
                throw refuse("\(op.rawValue) applies to strings, and '\(name)' is \(type.swiftName)")
            }
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            guard type.columnType != .bool && type.columnType != .link else {
                throw refuse("\(op.rawValue) does not order \(type.swiftName) values")
            }
        case .equal, .notEqual, .in:
            break
        }
        // The key path is fine; the value is what does not fit: say so as for any bad value.
        func misfit(_ value: Value) -> FloeError {
            .typeMismatch(table: root.schema.className, column: name, expected: "\(type.swiftName) (to compare with \(name))", value: value.debugText)
        }
        if case .constant(let value) = rhs, value != .null, !fits(value, type.columnType) {
            throw misfit(value)
        }
        if case .list(let values) = rhs, let value = values.first(where: { $0 != .null && !fits($0, type.columnType) }) {
            throw misfit(value)
        }
    }

    static func fits(_ value: Value, _ column: ColumnType) -> Bool {
        switch (value, column) {
        case (_, .mixed): return true
        case (_, .int), (_, .float), (_, .double), (_, .decimal128):
            // Numbers compare by value across kinds: a Decimal128 against an Int property too.
            return value.isNumber
        case (.timestamp, .timestamp), (.string, .string), (.bool, .bool), (.binary, .binary), (.objectId, .objectId),
             (.uuid, .uuid), (.link, .link):
            return true
        default:
            return false
        }
    }

    // MARK: Evaluation

    private func matches(_ node: Node, _ key: Int64) throws(FloeError) -> Bool {
        switch node {
        case .constant(let value): return value
        case .and(let terms):
            for term in terms where !(try matches(term, key)) { return false }
            return true
        case .or(let terms):
            for term in terms where try matches(term, key) { return true }
            return false
        case .not(let term): return !(try matches(term, key))
        case .between(let subject, let low, let high, let quantifier):
            let (values, toMany) = try self.values(subject, key)
            return Self.quantify(values, toMany: toMany, quantifier) { value in
                ValueComparison.compare(value, .greaterOrEqual, low, options: []) && ValueComparison.compare(value, .lessOrEqual, high, options: [])
            }
        case .geoWithin(let coordinates, let region):
            let (values, _) = try self.values(coordinates, key)
            guard values.count >= 2, case .double(let longitude) = values[0], case .double(let latitude) = values[1] else { return false }
            return region.contains(longitude: longitude, latitude: latitude)
        case .compare(let lhs, let op, let rhs, let options, let quantifier):
            let (left, toMany) = try values(lhs, key)
            let (right, _) = try values(rhs, key)
            return Self.quantify(left, toMany: toMany, quantifier) { value in
                if op == .in { return right.contains { ValueComparison.compare(value, .equal, $0, options: options) } }
                return right.contains { ValueComparison.compare(value, op, $0, options: options) }
            }
        }
    }

    /// ANY (the default), ALL and NONE over a to-many path's values; ALL and NONE of nothing hold.
    private static func quantify(_ values: [Value], toMany: Bool, _ quantifier: QueryQuantifier, _ test: (Value) -> Bool) -> Bool {
        switch quantifier {
        case .any: return values.contains(where: test)
        case .all: return values.allSatisfy(test)
        case .none: return !values.contains(where: test)
        }
    }

    /// An operand's values for one object: several when the path goes through a list or set.
    private func values(_ operand: Operand, _ key: Int64) throws(FloeError) -> ([Value], Bool) {
        switch operand {
        case .constant(let value): return ([value], false)
        case .list(let values): return (values, false)
        case .path(let hops): return try follow(hops, from: [key])
        case .aggregate(let collection, let aggregate, let inner):
            let (elements, _) = try follow(collection, from: [key])
            var values = elements
            if !inner.isEmpty {
                values = []
                for case .link(let linked) in elements { values.append(contentsOf: try follow(inner, from: [linked]).0) }
            }
            return ([ValueComparison.aggregate(aggregate, values)], false)
        case .subquery(let collection, let condition):
            var count: Int64 = 0
            for case .link(let element) in try follow(collection, from: [key]).0 where try matches(condition, element) { count += 1 }
            return ([.int(count)], false)
        }
    }

    /// Follows hops from objects of the first hop's table; returns the last hop's values.
    private func follow(_ hops: [Hop], from keys: [Int64]) throws(FloeError) -> ([Value], Bool) {
        var current = keys.map(Value.link)
        var toMany = false
        for hop in hops {
            var next: [Value] = []
            for case .link(let key) in current {
                if hop.readsItself {
                    let (values, many) = try ownValues(hop, key)
                    toMany = toMany || many
                    next.append(contentsOf: values)
                } else if hop.isToMany {
                    toMany = true
                    next.append(contentsOf: try reader.collectionElements(in: hop.binding.table, key: key, column: hop.column))
                } else {
                    next.append(try reader.value(in: hop.binding.table, key: key, column: hop.column))
                }
            }
            // A null link ends the path with null (for `owner.name == nil`).
            if !toMany && next.isEmpty { next = [.null] }
            current = next
        }
        return (current, toMany)
    }
}

extension QueryOperator {
    /// The operator with its sides swapped.
    var mirrored: QueryOperator {
        switch self {
        case .less: return .greater
        case .lessOrEqual: return .greaterOrEqual
        case .greater: return .less
        case .greaterOrEqual: return .lessOrEqual
        default: return self
        }
    }
}
