@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// A projected property compiled to the root's columns: `@Projected(\Person.firstName)` reads
// `Person.firstName`'s column through the same call its `@Persisted` getter makes
// (`ObjectBinding.read(column:as:)`, typed for the plain types), and `\Person.address?.city`
// follows the `address` link first. No key path is applied on the way.

/// How one projected property reads its value from a managed root object, found once per
/// key path (the compiled form is shared by every projection of that key path).
@usableFromInline
final class ProjectedRead<Value>: @unchecked Sendable {
    // @unchecked: immutable after init; the decode closure captures no state.
    /// The links followed from the root, in order: each hop's property index in its class
    /// and the class it links to.
    let links: [(property: Int, target: ObjectBase.Type)]
    /// Whether the property is the root's own (no links to follow).
    @usableFromInline let isDirect: Bool
    /// The property read at the end of the links (its index in that class's schema).
    @usableFromInline let property: Int
    /// The `@Persisted` getter's read of a column (`ObjectBinding.read(column:as:)` for the
    /// property's type); nil when the key path cannot be compiled (the projection then applies
    /// the key path to the root object).
    @usableFromInline let readColumn: ((ObjectBinding, Int) -> Value)?
    /// ``property`` when the read is compiled and needs no links, else -1: what a projected
    /// field keeps to read the root's own property with no call through ``readColumn``.
    @usableFromInline let directProperty: Int

    init(links: [(property: Int, target: ObjectBase.Type)], property: Int, readColumn: ((ObjectBinding, Int) -> Value)?) {
        self.links = links
        isDirect = links.isEmpty
        self.property = property
        self.readColumn = readColumn
        directProperty = links.isEmpty && readColumn != nil ? property : -1
    }

    /// Whether reads go to columns (false: the key path is applied to the root).
    var isCompiled: Bool { readColumn != nil }

    /// The value read from `binding`'s row (and the rows its links lead to), or nil when a
    /// link on the way is nil or the property is not compiled: the caller then applies the
    /// key path, which answers what Swift's optional chaining does.
    @inlinable
    func read(from binding: ObjectBinding) -> Value? {
        guard let readColumn else { return nil }
        // The root's own property: exactly the `@Persisted` getter's read.
        if isDirect { return readColumn(binding, binding.column(ofProperty: property)) }
        return readThroughLinks(from: binding, readColumn)
    }

    /// ``read(from:)`` for a property behind links.
    @usableFromInline
    func readThroughLinks(from binding: ObjectBinding, _ readColumn: (ObjectBinding, Int) -> Value) -> Value? {
        var current = binding
        for link in links {
            let stored = current.read(column: current.tableBinding.columnOfProperty[link.property])
            guard case .link(let key) = stored.value, let object = current.source.linkedObject(link.target, key: key),
                  let next = object._floeBinding else { return nil }
            current = next
        }
        return readColumn(current, current.tableBinding.columnOfProperty[property])
    }
}

enum ProjectedReads {
    private static let cache = Locked<[AnyKeyPath: AnyObject]>([:])

    /// The compiled read of `keyPath` (one per key path, shared).
    static func read<Root: ObjectBase, Value>(of keyPath: KeyPath<Root, Value>) -> ProjectedRead<Value> {
        if let known = cache.withLock({ $0[keyPath] }) as? ProjectedRead<Value> { return known }
        let compiled = compile(keyPath)
        cache.withLock { $0[keyPath] = compiled }
        return compiled
    }

    /// Compiles a key path that reads one stored property of the root, directly or through
    /// to-one links and embedded objects, whose value type is the property's own (or its
    /// optional, after an optional link). Anything else (lists mapped with `projectTo`,
    /// linking objects) stays a key path.
    private static func compile<Root: ObjectBase, Value>(_ keyPath: KeyPath<Root, Value>) -> ProjectedRead<Value> {
        let refused = ProjectedRead<Value>(links: [], property: -1, readColumn: nil)
        guard case .success(let path) = KeyPathProbe.path(of: keyPath, for: .projection), path.toManyPrefix == nil, !path.components.isEmpty,
              let persistable = Value.self as? any _Persistable.Type else { return refused }
        var links: [(property: Int, target: ObjectBase.Type)] = []
        var type: ObjectBase.Type = Root.self
        for (step, name) in path.components.enumerated() {
            guard let schema = try? SchemaDiscovery.schema(for: type), let index = schema.propertyIndex(named: name) else { return refused }
            let property = schema.properties[index]
            guard !property.isComputed else { return refused }
            if step == path.components.count - 1 {
                let decode = decoder(persistable, as: Value.self)
                let read = ProjectedRead(links: links, property: index, readColumn: columnReader(persistable, as: Value.self))
                guard property.type.collection == .single, !property.type.isMapped, property.type.acceptsValue == nil,
                      persistable._floeType.columnType == property.type.columnType,
                      readsProperty(keyPath, links: links, property: property, decode: decode) else { return refused }
                return read
            }
            guard property.type.collection == .single, let target = property.type.objectType else { return refused }
            links.append((index, target))
            type = target
        }
        return refused
    }

    /// Whether `keyPath` answers the property's own value: the key path may go on past the
    /// property the probe saw it read (`\Person.name.count`) or be a computed property of the
    /// root that transforms it (`var shout: String { name.uppercased() }`). On unmanaged
    /// objects linked as the path says, the property is set to sample values and the key
    /// path must answer each unchanged.
    private static func readsProperty<Root: ObjectBase, V>(_ keyPath: KeyPath<Root, V>, links: [(property: Int, target: ObjectBase.Type)],
                                                          property: PropertyInfo, decode: (_FloeValue) -> V) -> Bool {
        let samples: [Value]
        switch property.type.columnType {
        case .string: samples = [.string("Floe ✓ probe"), .string("x")]
        case .int: samples = [.int(-7), .int(100)]
        case .double: samples = [.double(-2.75), .double(1e300)]
        case .float: samples = [.float(-2.75), .float(3.5)]
        case .bool: samples = [.bool(true), .bool(false)]
        case .timestamp: samples = [.timestamp(-12_345.5), .timestamp(1_500_000_000.25)]
        default: return false
        }
        let root = Root()
        var object: ObjectBase = root
        for link in links {
            guard let schema = try? SchemaDiscovery.schema(for: type(of: object)) else { return false }
            let next = link.target.init()
            schema.accessors[link.property].setUnmanaged(object, next._floeEncoded)
            object = next
        }
        for sample in samples {
            property.accessor.setUnmanaged(object, _FloeValue(sample))
            guard let answered = root[keyPath: keyPath] as? AnyHashable, let expected = decode(_FloeValue(sample)) as? AnyHashable,
                  answered == expected else { return false }
        }
        return true
    }

    /// `P._floeDecode`, the `@Persisted` getter's decoding, as a function answering `Value`
    /// (`P` is `Value`: the function is cast once here, not each value it decodes).
    /// The `@Persisted` getter's column read for `P`, as a read of `Value` (the same type).
    private static func columnReader<P: _Persistable, Value>(_ type: P.Type, as value: Value.Type) -> (ObjectBinding, Int) -> Value {
        let read: (ObjectBinding, Int) -> P = { binding, column in binding.read(column: column, as: P.self) }
        return read as! (ObjectBinding, Int) -> Value
    }

    private static func decoder<P: _Persistable, Value>(_ type: P.Type, as value: Value.Type) -> (_FloeValue) -> Value {
        let decode: (_FloeValue) -> P = P._floeDecode
        return decode as! (_FloeValue) -> Value
    }
}
