@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// Frozen objects and results describe what they hold, as their live counterparts do.

extension Frozen: CustomStringConvertible {
    /// The object's class and every persisted property at this version.
    public var description: String { makeModel().description }
}

extension FrozenResults: CustomStringConvertible {
    /// `Results<Dog> <0x…> ( [0] Dog { … } )` at this version, the first 100 objects.
    public var description: String {
        ObjectDescription.collection(named: "Results<\(Element.className())>", identity: snapshot,
                                     elements: prefix(100).enumerated().map { ("\($0.offset)", $0.element.makeModel()) }, indent: 0, objectsInFull: true)
    }
}

extension FrozenRealm: CustomStringConvertible {
    /// The file and the version this realm was frozen at.
    public var description: String {
        "FrozenRealm(\(configuration.fileURL?.path ?? configuration.inMemoryIdentifier.map { "in memory: \($0)" } ?? "?"), version \(version))"
    }
}
