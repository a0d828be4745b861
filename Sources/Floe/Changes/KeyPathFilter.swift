@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// Which properties a stream watches, from key paths such as `["name", "toy.name",
/// "children.toys.name", "owners.name"]`: a property itself, and through links (to-one, lists,
/// sets and maps of objects, embedded objects, `LinkingObjects`) the watched properties of the
/// objects it reaches, any number of levels deep.
struct KeyPathFilter: Sendable {
    let schema: ObjectSchemaInfo
    /// Watched properties by index; the filter of the objects each one reaches, when the key
    /// path goes on through it.
    var properties: [Int: KeyPathFilter?] = [:]

    init(schema: ObjectSchemaInfo) {
        self.schema = schema
    }

    /// The filter for `keyPaths` on `schema`'s class.
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` naming the class and the
    ///   key path when a component names no property or goes on through a property that is not a link.
    init(schema: ObjectSchemaInfo, keyPaths: [String]) throws(FloeError) {
        self.init(schema: schema)
        for keyPath in keyPaths {
            let components = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            try add(components[...], keyPath: keyPath, root: schema.className)
        }
    }

    private mutating func add(_ components: ArraySlice<String>, keyPath: String, root: String) throws(FloeError) {
        guard let name = components.first, !name.isEmpty else {
            throw .invalidKeyPath(className: root, keyPath: keyPath, reason: "it has an empty component")
        }
        guard let index = schema.propertyIndex(named: name) else {
            throw .invalidKeyPath(className: root, keyPath: keyPath, reason: "'\(schema.className)' has no persisted property '\(name)'")
        }
        let rest = components.dropFirst()
        guard !rest.isEmpty else {
            if properties[index] == nil { properties[index] = .some(nil) }
            return
        }
        guard let target = schema.properties[index].type.objectType else {
            throw .invalidKeyPath(className: root, keyPath: keyPath, reason: "'\(schema.className).\(name)' is not a link, so the path cannot go on through it")
        }
        let targetSchema = try SchemaDiscovery.schema(for: target)
        var next = (properties[index] ?? nil) ?? KeyPathFilter(schema: targetSchema)
        try next.add(rest, keyPath: keyPath, root: root)
        properties[index] = next
    }

    /// Whether only this class's own stored properties are watched (no path goes through a link).
    var watchesOwnRowsOnly: Bool {
        properties.allSatisfy { index, sub in sub == nil && !schema.properties[index].isComputed }
    }

    /// Every class the watched paths reach, this one included.
    var classNames: Set<String> {
        var names: Set<String> = [schema.className]
        for case let sub? in properties.values { names.formUnion(sub.classNames) }
        return names
    }

    /// The watched properties of object `key` (of this filter's class) that `changes` touched
    /// between `old` and `new`: written, or, through links, reaching a touched object.
    func touchedProperties(of key: Int64, old: Snapshot, new: Snapshot, changes: ChangeSet, depth: Int = 0) throws(FloeError) -> [Int] {
        guard let binding = try FrozenSource.binding(for: schema.type, in: new) else { return [] }
        let written = changes.tables[schema.className]?.modified[key] ?? []
        var touched: [Int] = []
        for (index, sub) in properties.sorted(by: { $0.key < $1.key }) {
            let property = schema.properties[index]
            if property.isComputed {
                let before = try origins(of: key, through: property, in: old)
                let after = try origins(of: key, through: property, in: new)
                if Set(before) != Set(after) { touched.append(index); continue }
                if let sub, depth < 32, try sub.anyTouched(after, old: old, new: new, changes: changes, depth: depth + 1) { touched.append(index) }
                continue
            }
            let column = binding.columnOfProperty[index]
            if written.contains(column) { touched.append(index); continue }
            guard let sub, depth < 32 else { continue }
            let targets = try linkTargets(of: key, column: column, in: new)
            if try sub.anyTouched(targets, old: old, new: new, changes: changes, depth: depth + 1) { touched.append(index) }
        }
        return touched
    }

    private func anyTouched(_ keys: [Int64], old: Snapshot, new: Snapshot, changes: ChangeSet, depth: Int) throws(FloeError) -> Bool {
        guard let table = changes.tables[schema.className] else {
            // Nothing of this class changed: only a deeper class can have.
            guard properties.values.contains(where: { $0 != nil }) || properties.keys.contains(where: { schema.properties[$0].isComputed }) else { return false }
            for key in keys where try !touchedProperties(of: key, old: old, new: new, changes: changes, depth: depth).isEmpty { return true }
            return false
        }
        for key in keys {
            if table.inserted.contains(key) { return true }
            if try !touchedProperties(of: key, old: old, new: new, changes: changes, depth: depth).isEmpty { return true }
        }
        return false
    }

    /// The keys of the objects a link property of object `key` points at.
    private func linkTargets(of key: Int64, column: Int, in snapshot: Snapshot) throws(FloeError) -> [Int64] {
        guard let binding = try FrozenSource.binding(for: schema.type, in: snapshot),
              try snapshot.contains(key, in: binding.table) else { return [] }
        let values = binding.isCollectionColumn[column]
            ? try snapshot.collectionElements(in: binding.table, key: key, column: column)
            : [try snapshot.value(in: binding.table, key: key, column: column)]
        return values.compactMap { if case .link(let target) = $0 { target } else { nil } }
    }

    /// The objects whose link named by a `LinkingObjects` property points at object `key`.
    private func origins(of key: Int64, through property: PropertyInfo, in snapshot: Snapshot) throws(FloeError) -> [Int64] {
        guard let originType = property.type.objectType, let originName = property.originProperty,
              let origin = try FrozenSource.binding(for: originType, in: snapshot),
              let originIndex = origin.schema.propertyIndex(named: originName) else { return [] }
        return try snapshot.linkingObjects(in: origin.table, column: origin.columnOfProperty[originIndex], to: key)
    }
}
