@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// Realm-style descriptions of lists, sets and maps, element by element.

extension List: DescribableCollection {
    func describe(indent: Int) -> String {
        ObjectDescription.collection(named: "List<\(Element.self)>", identity: self,
                                     elements: enumerated().map { ("\($0.offset)", $0.element) }, indent: indent)
    }
}

extension MutableSet: DescribableCollection {
    func describe(indent: Int) -> String {
        ObjectDescription.collection(named: "MutableSet<\(Element.self)>", identity: self,
                                     elements: enumerated().map { ("\($0.offset)", $0.element) }, indent: indent)
    }
}

extension Map: DescribableCollection {
    func describe(indent: Int) -> String {
        ObjectDescription.collection(named: "Map<\(Key.self), \(Value.self)>", identity: self,
                                     elements: map { ("\($0.key)", $0.value) }, indent: indent)
    }
}

extension Results: CustomStringConvertible {
    /// `Results<Dog> <0x…> ( [0] Dog { … } )`, the first 100 objects, like Realm's.
    public var description: String {
        ObjectDescription.collection(named: "Results<\(Element.className())>", identity: context,
                                     elements: prefix(100).enumerated().map { ("\($0.offset)", $0.element) }, indent: 0, objectsInFull: true)
    }
}

extension LinkingObjects: CustomStringConvertible {
    /// `LinkingObjects<Person> <0x…> ( [0] Person { … } )`.
    public var description: String {
        ObjectDescription.collection(named: "LinkingObjects<\(Element.className())>", identity: self,
                                     elements: enumerated().map { ("\($0.offset)", $0.element) }, indent: 0, objectsInFull: true)
    }
}

extension FrozenList: CustomStringConvertible {
    /// The list as it was at this version, like a live list's description.
    public var description: String {
        let parent = ObjectBinding(source: FrozenSource(snapshot: snapshot), tableBinding: binding, key: key)
        return List<Element>(parent: parent, column: column).describe(indent: 0)
    }
}

extension FrozenSet: CustomStringConvertible {
    /// The set as it was at this version, like a live set's description.
    public var description: String {
        let parent = ObjectBinding(source: FrozenSource(snapshot: elements.snapshot), tableBinding: elements.binding, key: elements.key)
        return MutableSet<Element>(parent: parent, column: elements.column).describe(indent: 0)
    }
}

extension FrozenMap: CustomStringConvertible {
    /// The map as it was at this version, like a live map's description.
    public var description: String {
        Map<Key, Value>(parent: ObjectBinding(source: FrozenSource(snapshot: snapshot), tableBinding: binding, key: key), column: column)
            .describe(indent: 0)
    }
}
