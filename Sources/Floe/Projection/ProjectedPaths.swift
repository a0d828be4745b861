// Which properties of the root a projection's key path reads (`\Person.address?.city` →
// `address.city`), for queries and observation. Key paths carry no names, so a graph of probe
// objects answers: the root and, behind each to-one link, an object of the linked class (a few
// levels deep). One property of the graph at a time is bound to a source that notes reads; the
// key path is read; the property that noticed, and the links leading to it, are the path.

/// The root's properties a projected key path reads, by name.
struct ProjectedPath: Sendable, Equatable {
    /// Property names from the root (`["address", "city"]`).
    var components: [String]
    /// How many leading components reach through the first list or set (nil: none).
    var toManyPrefix: Int?

    var dotted: String { components.joined(separator: ".") }
}

enum ProjectedPaths {
    private static let cache = Locked<[AnyKeyPath: Result<ProjectedPath, FloeError>]>([:])
    /// How many links deep the probe graph follows (cycles such as `Person.bestFriend` stop here).
    static let maximumDepth = 4

    /// The path `keyPath` reads on `Root`, or why it reads none.
    static func path<Root: ObjectBase, V>(of keyPath: KeyPath<Root, V>) -> Result<ProjectedPath, FloeError> {
        path(ofPartial: keyPath)
    }

    /// The path a key path of any value type reads on `Root` (`\Dog.toy?.name` → `toy.name`).
    static func path<Root: ObjectBase>(ofPartial keyPath: PartialKeyPath<Root>) -> Result<ProjectedPath, FloeError> {
        if let known = cache.withLock({ $0[keyPath] }) { return known }
        let found = probe(keyPath)
        cache.withLock { $0[keyPath] = found }
        return found
    }

    private static func probe<Root: ObjectBase>(_ keyPath: PartialKeyPath<Root>) -> Result<ProjectedPath, FloeError> {
        let root: ProbeNode
        do { root = try ProbeNode(type: Root.self, depth: 0) } catch { return .failure(error) }
        // Swift names no property in a key path's description: a stored one shows its offset,
        // a computed one its type (`\Person.<a computed String>`).
        let written = QueryPropertyNames.describe(keyPath)
        var readers: [(node: ProbeNode, property: Int)] = []
        for node in root.allNodes {
            for index in node.candidateProperties {
                node.recorder.reads = 0
                node.schema.accessors[index].bind(node.object, node.schema.properties.count + index)
                _ = (root.object as! Root)[keyPath: keyPath]
                node.schema.accessors[index].bind(node.object, -1)
                if node.recorder.reads > 0 { readers.append((node, index)) }
            }
        }
        let refusal = { (reason: String) in FloeError.invalidKeyPath(className: root.schema.className, keyPath: written, reason: reason) }
        var path: ProjectedPath
        if readers.isEmpty {
            // A key path that ends at a link reads no bound property: it answers a probe object.
            let answer = (root.object as! Root)[keyPath: keyPath]
            guard let linked = Self.object(in: answer), let node = root.allNodes.first(where: { $0.object === linked }), node !== root else {
                return .failure(refusal("it reads no @Persisted property: only persisted properties can be projected or observed"))
            }
            path = node.path
        } else {
            guard readers.count == 1, let (node, index) = readers.first else {
                let names = readers.map { ($0.node.path.components + [$0.node.schema.properties[$0.property].name]).joined(separator: ".") }
                return .failure(refusal("it reads \(names.joined(separator: ", ")): a projected property shows one persisted property"))
            }
            let property = node.schema.properties[index]
            path = node.path
            path.components.append(property.name)
            if path.toManyPrefix == nil, property.type.collection == .list || property.type.collection == .set || property.isComputed {
                path.toManyPrefix = path.components.count
            }
        }
        // Collection mapping: the elements' own property follows the list's.
        if let mapped = (root.object as! Root)[keyPath: keyPath] as? any ElementPathCarrying {
            switch mapped.mappedElementPath() {
            case .success(let element): path.components += element.components
            case .failure(let error): return .failure(error)
            }
        }
        return .success(path)
    }

    private static func object(in answer: Any) -> ObjectBase? {
        if let object = answer as? ObjectBase { return object }
        if let optional = answer as? ObjectBase? { return optional }
        return nil
    }
}

/// A ``ProjectedCollection`` seen without its element type.
protocol ElementPathCarrying {
    func mappedElementPath() -> Result<ProjectedPath, FloeError>
}

extension ProjectedCollection: ElementPathCarrying {
    func mappedElementPath() -> Result<ProjectedPath, FloeError> { elementPath() }
}

/// One object of the probe graph.
private final class ProbeNode {
    let object: ObjectBase
    let schema: ObjectSchemaInfo
    let recorder = ProbeReadRecorder()
    let path: ProjectedPath
    /// The objects behind this one's to-one links.
    private(set) var children: [ProbeNode] = []
    /// Properties probed by binding them (to-one links are followed instead, unless too deep).
    private(set) var candidateProperties: [Int] = []

    init(type: ObjectBase.Type, depth: Int, path: ProjectedPath = ProjectedPath(components: [])) throws(FloeError) {
        schema = try SchemaDiscovery.schema(for: type)
        self.path = path
        object = type.init()
        let count = schema.properties.count
        // Probe columns lie past the real ones: no column there is a collection's, so a list's
        // read goes to the source too.
        let tableBinding = TableBinding(schema: schema, table: TableHandle(index: -1, name: schema.className),
                                        columnOfProperty: Array(0..<count), columnCount: 2 * count, mappedPropertiesAfter: count)
        object._floeBinding = ObjectBinding(source: recorder, tableBinding: tableBinding, key: 0)
        for (index, property) in schema.properties.enumerated() {
            if property.type.collection == .single, let target = property.type.objectType, depth < ProjectedPaths.maximumDepth {
                let child = try ProbeNode(type: target, depth: depth + 1,
                                          path: ProjectedPath(components: path.components + [property.name], toManyPrefix: path.toManyPrefix))
                schema.accessors[index].setUnmanaged(object, child.object._floeEncoded)
                children.append(child)
            } else {
                candidateProperties.append(index)
            }
        }
    }

    var allNodes: [ProbeNode] { [self] + children.flatMap(\.allNodes) }
}

/// The source of a probe object: every read fails as if the bytes were damaged, which makes
/// the object answer a placeholder and report the read here.
private final class ProbeReadRecorder: ObjectSource {
    var reads = 0

    func currentReader() throws(FloeError) -> any VersionReading {
        throw .io(path: "", operation: "projection key path probe", errno: 0)
    }

    var isFrozen: Bool { true }
    func write(_ value: _FloeValue, binding: ObjectBinding, column: Int) {}
    func linkedObject(_ type: ObjectBase.Type, key: Int64) -> ObjectBase? { nil }
    func modelType(named className: String) -> ObjectBase.Type? { nil }
    func changeCollection(binding: ObjectBinding, column: Int, _ change: (any CollectionEditing) throws(FloeError) -> Void) {}
    func frozenSnapshot() throws(FloeError) -> Snapshot { throw .io(path: "", operation: "projection key path probe", errno: 0) }
    var storeIdentity: ObjectIdentifier? { nil }
    var owner: AnyObject? { nil }
    func recordReadFailure(_ error: FloeError) { reads += 1 }
    func recordInvalidValue(_ error: FloeError) {}
    var hasRecordedDamage: Bool { true }
}
