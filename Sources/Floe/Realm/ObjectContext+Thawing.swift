@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// Thawing: the live counterpart, in this realm, of a frozen object, results or collection.

extension ObjectContext {
    /// The live counterpart of a frozen object, or nil if it was deleted since.
    func thaw<T: ObjectBase>(_ frozen: Frozen<T>) -> T? {
        // The frozen object's own class: `T` may be a base class of it.
        guard let binding = try? tableBinding(for: frozen.binding.schema.type),
              let reader = try? currentReader(),
              (try? reader.contains(frozen.key, in: binding.table)) == true
        else { return nil }
        return materialize(T.self, key: frozen.key, binding: binding)
    }

    /// The live counterpart of frozen results: the same class, filter and order, now.
    func thaw<T: Object>(_ frozen: FrozenResults<T>) -> Results<T> {
        Results(context: self, query: frozen.query, elementType: frozen.elementType)
    }

    /// The live counterpart of a frozen list, or nil if its object was deleted since.
    func thaw<Element>(_ frozen: FrozenList<Element>) -> List<Element>? {
        guard let property = frozen.binding.propertyOfColumn[frozen.column],
              frozen.binding.schema.properties[property].type.collection == .list,
              let reader = try? currentReader(), (try? reader.contains(frozen.key, in: frozen.binding.table)) == true
        else { return nil }
        return List(parent: ObjectBinding(source: self, tableBinding: frozen.binding, key: frozen.key), column: frozen.column)
    }

    /// The live counterpart of a frozen set, or nil if its object was deleted since.
    func thaw<Element>(_ frozen: FrozenSet<Element>) -> MutableSet<Element>? {
        let list = frozen.elements
        guard let reader = try? currentReader(), (try? reader.contains(list.key, in: list.binding.table)) == true else { return nil }
        return MutableSet(parent: ObjectBinding(source: self, tableBinding: list.binding, key: list.key), column: list.column)
    }

    /// The live counterpart of a frozen map, or nil if its object was deleted since.
    func thaw<Key, Value>(_ frozen: FrozenMap<Key, Value>) -> Map<Key, Value>? {
        guard let reader = try? currentReader(), (try? reader.contains(frozen.key, in: frozen.binding.table)) == true else { return nil }
        return Map(parent: ObjectBinding(source: self, tableBinding: frozen.binding, key: frozen.key), column: frozen.column)
    }
}
