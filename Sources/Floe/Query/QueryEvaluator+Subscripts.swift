@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// Key paths into maps (`prices['a']`, `prices.@keys`, `prices.@values`), into mixed values
// (`companion[0]`, `companion['key']`, `companion[*]`) and through linking objects.

extension QueryEvaluator.Hop {
    /// Whether this hop reads several values per object (the quantifiers apply to them).
    var reachesMany: Bool {
        if property.isComputed { return true }
        switch property.type.collection {
        case .list, .set: return true
        case .map: return steps.first?.mapKey == nil
        case .single: return steps.contains(.anyElement)
        }
    }


    /// Whether following this hop takes more than one column read or collection read.
    var readsItself: Bool { property.isComputed || property.type.collection == .map || !steps.isEmpty }

    /// The type of the values this hop ends with (a map's keys are strings).
    var valueType: _PropertyType {
        switch steps.last {
        case .allKeys?, .type?: return _PropertyType(columnType: .string, swiftName: "String")
        case .size?: return _PropertyType(columnType: .int, swiftName: "Int")
        default: return property.type
        }
    }
}

extension QueryEvaluator {
    /// Adds a subscript to the hop before it; false when `component` is a property (the usual path).
    static func appendStep(_ component: QueryKeyPathComponent, to hop: inout Hop, path: QueryKeyPath, root: TableBinding) throws(FloeError) -> Bool {
        if case .property = component { return false }
        let isMap = hop.property.type.collection == .map, isMixed = hop.property.type.columnType == .mixed
        func refuse(_ reason: String) -> FloeError {
            .invalidKeyPath(className: root.schema.className, keyPath: "\(path)", reason: reason)
        }
        switch component {
        case .mapKey, .allKeys, .allValues:
            if isMap {
                guard hop.steps.isEmpty else { throw refuse("a map takes one subscript, @keys or @values") }
                break
            }
            guard isMixed, hop.property.type.collection == .single, component.mapKey != nil else { throw refuse(noSubscript(component, hop)) }
        case .index, .anyElement, .size:
            guard isMixed, hop.property.type.collection == .single, hop.steps.last != .type, hop.steps.last != .size else {
                throw refuse(noSubscript(component, hop))
            }
        case .type:
            // A mixed value's type (or that of an element reached by subscripts).
            guard isMixed, hop.property.type.collection == .single, hop.steps.last != .type, hop.steps.last != .size else {
                throw refuse(noSubscript(component, hop))
            }
        default:
            throw refuse(noSubscript(component, hop))
        }
        hop.steps.append(component)
        return true
    }

    private static func noSubscript(_ component: QueryKeyPathComponent, _ hop: Hop) -> String {
        "'\(hop.property.name)' (\(hop.property.type.swiftName)) takes no \(QueryKeyPath([component]).description.drop { $0 == "." })"
    }

    /// The origin of a linking-objects property: its class's binding and link column (nil
    /// while that class has no objects, so nothing links here).
    static func linkOrigin(of property: PropertyInfo, bindings: (ObjectBase.Type) throws(FloeError) -> TableBinding?)
        throws(FloeError) -> (binding: TableBinding, column: Int)? {
        guard let originName = property.originProperty, let originType = property.type.objectType,
              let origin = try bindings(originType), let index = origin.schema.propertyIndex(named: originName) else { return nil }
        return (origin, origin.columnOfProperty[index])
    }

    /// The hop of `@links.Class.property` from `binding`'s objects: the objects of `Class` whose
    /// `property` links to them, read as linking objects are; and the binding the path goes on in.
    static func backlinkHop(from binding: TableBinding, className: String, property originName: String, path: QueryKeyPath,
                            root: TableBinding, bindings: (ObjectBase.Type) throws(FloeError) -> TableBinding?)
        throws(FloeError) -> (Hop, TableBinding) {
        func refuse(_ reason: String) -> FloeError { .invalidKeyPath(className: root.schema.className, keyPath: "\(path)", reason: reason) }
        let candidates = SchemaDiscovery.types(named: className)
        guard !candidates.isEmpty else { throw refuse("there is no model class named '\(className)'") }
        // Of the classes of that name (a program may have several), the one whose property links here.
        var found: (ObjectBase.Type, ObjectSchemaInfo, Int)?
        var hasProperty = false
        for candidate in candidates {
            let schema = try SchemaDiscovery.schema(for: candidate)
            guard let index = schema.propertyIndex(named: originName) else { continue }
            hasProperty = true
            let link = schema.properties[index]
            if link.type.objectType == binding.schema.type, !link.isComputed { found = (candidate, schema, index); break }
        }
        guard let (originType, originSchema, index) = found else {
            throw refuse(hasProperty ? "'\(className).\(originName)' does not link to \(binding.schema.className)"
                                     : "\(className) has no property '\(originName)'")
        }
        let link = originSchema.properties[index]
        var type = link.type
        type.collection = .list
        type.objectType = originType
        type.swiftName = "LinkingObjects<\(className)>"
        let property = PropertyInfo(name: "@links.\(className).\(originName)", persistedName: link.persistedName, type: type,
                                    isPrimaryKey: false, isIndexed: false, accessor: link.accessor, originProperty: originName)
        // No table for the origin class yet: nothing links here, and the hop reads no objects.
        let originBinding = try bindings(originType)
        let hop = Hop(binding: binding, column: -1, property: property,
                      origin: originBinding.map { ($0, $0.columnOfProperty[index]) })
        if let originBinding { return (hop, originBinding) }
        return (hop, try schemaOnlyBinding(for: originType))
    }

    /// What a hop that reads itself yields for one object, and whether that is several values.
    func ownValues(_ hop: Hop, _ key: Int64) throws(FloeError) -> ([Value], Bool) {
        if hop.property.isComputed {
            guard let origin = hop.origin else { return ([], true) }
            return (try reader.linkingObjects(in: origin.binding.table, column: origin.column, to: key).map(Value.link), true)
        }
        if hop.property.type.collection == .map {
            switch hop.steps.first {
            case .mapKey(let mapKey)?:
                return ([try reader.mapValue(forKey: mapKey, in: hop.binding.table, key: key, column: hop.column) ?? .null], false)
            case .allKeys?:
                return (try reader.mapEntries(in: hop.binding.table, key: key, column: hop.column).map { .string($0.key) }, true)
            default:
                return (try reader.mapEntries(in: hop.binding.table, key: key, column: hop.column).map(\.value), true)
            }
        }
        var values = [try reader.value(in: hop.binding.table, key: key, column: hop.column)]
        var many = false
        for step in hop.steps {
            var next: [Value] = []
            for value in values {
                switch (step, value) {
                case (.index(let index), .list(let elements)):
                    // `[LAST]` is -1: positions from the end.
                    let position = index < 0 ? elements.count + index : index
                    if elements.indices.contains(position) { next.append(elements[position]) }
                case (.type, _): next.append(.string(QueryTypeNames.name(of: value)))
                case (.size, .list(let elements)): next.append(.int(Int64(elements.count)))
                case (.size, .dictionary(let entries)): next.append(.int(Int64(entries.count)))
                case (.mapKey(let mapKey), .dictionary(let entries)): next.append(contentsOf: entries.filter { $0.key == mapKey }.map(\.value))
                case (.anyElement, .list(let elements)): next.append(contentsOf: elements)
                case (.anyElement, .dictionary(let entries)): next.append(contentsOf: entries.map(\.value))
                default: break
                }
            }
            if step == .anyElement { many = true }
            // A missing element reads as null, as a null link does (`companion[3] == nil`).
            if !many && next.isEmpty { next = [.null] }
            values = next
        }
        return (values, many)
    }
}

extension QueryKeyPathComponent {
    /// The key of a `['key']` subscript.
    var mapKey: String? {
        if case .mapKey(let key) = self { return key }
        return nil
    }
}
