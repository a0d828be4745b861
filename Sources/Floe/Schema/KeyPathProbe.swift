// Which `@Persisted` properties a Swift key path such as `\Dog.age` or `\Person.address?.city`
// reads, for queries, sorts, aggregates, projections and observation alike. A wrapped property
// is computed (the property wrapper's accessor), so the key path carries no name; a graph of
// probe objects answers instead: an object of the root class and, behind each to-one link or
// embedded object (a few levels deep, where the use follows links), an object of the linked
// class. One property of the graph at a time is bound to a source that only notes that it was
// read; the key path is read; the property that noticed, and the links leading to it, are the
// path. Answers are cached per key path and use.

import Foundation
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// The persisted properties a key path reads, by name from its root.
struct PropertyPath: Sendable, Equatable {
    /// Property names from the root (`["address", "city"]`).
    var components: [String]
    /// How many leading components reach through the first list, set or linking objects
    /// (nil: none). A comparison through them means "any element".
    var toManyPrefix: Int?

    var dotted: String { components.joined(separator: ".") }
}

/// What a key path is named for, which decides how far the probe looks and what it refuses.
enum KeyPathUse: Hashable, Sendable {
    /// A query, sort, aggregate or section key: one property of the root class (links are not
    /// followed); a value computed from a property is refused.
    case query
    /// A projected property or an observed key path: through to-one links and embedded objects,
    /// ending at a property or at a link; a collection mapped to one property of its elements
    /// goes on with that property.
    case projection

    /// How many links deep the probe graph follows (cycles such as `Person.bestFriend` stop here).
    var linkDepth: Int {
        switch self {
        case .query: 0
        case .projection: 4
        }
    }

    /// Why a key path that reads no persisted property is refused.
    var noPropertyReason: String {
        switch self {
        case .query: "only persisted properties can be queried"
        case .projection: "only persisted properties can be projected or observed"
        }
    }

    /// Why a key path that reads several persisted properties is refused.
    var severalPropertiesReason: String {
        switch self {
        case .query: "a query names one persisted property at a time"
        case .projection: "a projected property shows one persisted property"
        }
    }
}

/// A value a key path answers whose path goes on past the property the probe found: a
/// collection mapped to one property of its elements (`\Person.friends.projectTo.firstName`)
/// adds that property's path (the projection floor's `ProjectedCollection` is one).
protocol ElementPathCarrying {
    func mappedElementPath() -> Result<PropertyPath, FloeError>
}

/// The one key-path probe of the library.
///
/// ```swift
/// let path = try KeyPathProbe.path(of: \Person.address?.city, for: .projection).get()   // address.city
/// ```
enum KeyPathProbe {
    private struct CacheKey: Hashable {
        let keyPath: AnyKeyPath
        let use: KeyPathUse
    }

    private static let cache = Locked<[CacheKey: Result<PropertyPath, FloeError>]>([:])

    /// The path `keyPath` reads on `Root`, or a typed error naming the class and the key path
    /// and saying why it names no usable property.
    static func path<Root: ObjectBase>(of keyPath: PartialKeyPath<Root>, for use: KeyPathUse) -> Result<PropertyPath, FloeError> {
        let key = CacheKey(keyPath: keyPath, use: use)
        if let known = cache.withLock({ $0[key] }) { return known }
        let found = probe(keyPath, for: use)
        cache.withLock { $0[key] = found }
        return found
    }

    private static func probe<Root: ObjectBase>(_ keyPath: PartialKeyPath<Root>, for use: KeyPathUse) -> Result<PropertyPath, FloeError> {
        let root: ProbeNode
        do { root = try ProbeNode(type: Root.self, depth: use.linkDepth) } catch { return .failure(error) }
        let object = root.object as! Root
        let written = describe(keyPath)
        let refusal = { (reason: String) in FloeError.invalidKeyPath(className: root.schema.className, keyPath: written, reason: reason) }
        var readers: [(node: ProbeNode, property: Int)] = []
        for node in root.allNodes {
            for index in node.candidateProperties {
                node.recorder.reads = 0
                node.schema.accessors[index].bind(node.object, node.schema.properties.count + index)
                _ = object[keyPath: keyPath]
                node.schema.accessors[index].bind(node.object, -1)
                if node.recorder.reads > 0 { readers.append((node, index)) }
            }
        }
        var path: PropertyPath
        if readers.isEmpty {
            // A key path that ends at a followed link reads no bound property: it answers a probe object.
            guard let linked = Self.object(in: object[keyPath: keyPath]), let node = root.allNodes.first(where: { $0.object === linked }),
                  node !== root else {
                return .failure(refusal("it reads no @Persisted property: \(use.noPropertyReason)"))
            }
            path = node.path
        } else {
            guard readers.count == 1, let (node, index) = readers.first else {
                let names = readers.map { ($0.node.path.components + [$0.node.schema.properties[$0.property].name]).joined(separator: ".") }
                return .failure(refusal("it reads \(names.joined(separator: ", ")): \(use.severalPropertiesReason)"))
            }
            let property = node.schema.properties[index]
            if use == .query, let computed = computedValue(of: keyPath, on: object, reading: index, of: node.schema) {
                return .failure(refusal(computed))
            }
            path = node.path
            path.components.append(property.name)
            if path.toManyPrefix == nil, property.type.collection == .list || property.type.collection == .set || property.isComputed {
                path.toManyPrefix = path.components.count
            }
        }
        if use == .projection, let mapped = object[keyPath: keyPath] as? any ElementPathCarrying {
            // A collection mapping: the elements' own property follows the list's.
            switch mapped.mappedElementPath() {
            case .success(let element): path.components += element.components
            case .failure(let error): return .failure(error)
            }
        }
        return .success(path)
    }

    /// Why a key path that reads only the root's property at `index` is refused because it
    /// computes a value from it (`name.uppercased()`), or nil when it gives the value back as
    /// read. A value the type would not default to tells them apart where one can be made.
    private static func computedValue<Root: ObjectBase>(of keyPath: PartialKeyPath<Root>, on object: Root, reading index: Int,
                                                        of schema: ObjectSchemaInfo) -> String? {
        let property = schema.properties[index]
        guard let sentinel = sentinel(for: property.type) else { return nil }
        schema.accessors[index].setUnmanaged(object, _FloeValue(sentinel))
        let answer = (object[keyPath: keyPath] as? any _Persistable)?._floeEncoded.value
        return answer == sentinel ? nil : "it is computed from '\(property.name)': query '\(property.name)' itself"
    }

    /// A value of a plain scalar property's type that is not its default (nil for links,
    /// collections, enums and mapped types, whose values cannot all be made up here).
    private static func sentinel(for type: _PropertyType) -> Value? {
        guard type.collection == .single, type.objectType == nil else { return nil }
        let plain = type.swiftName.hasSuffix("?") ? String(type.swiftName.dropLast()) : type.swiftName
        switch plain {
        case "String": return .string("\u{1}probe")
        case "Int", "Int8", "Int16", "Int32", "Int64": return .int(97)
        case "Double": return .double(97.25)
        case "Float": return .float(97.25)
        case "Bool": return .bool(true)
        default: return nil
        }
    }

    private static func object(in answer: Any) -> ObjectBase? {
        if let object = answer as? ObjectBase { return object }
        if let optional = answer as? ObjectBase? { return optional }
        return nil
    }

    /// A key path as a message shows it: Swift names no property in a key path's description
    /// (a stored one shows its offset) and spells a computed property's accessor with its
    /// address (`\Dog.<computed 0x… (String)>`), which says nothing to the reader.
    static func describe(_ keyPath: AnyKeyPath) -> String {
        let text = "\(keyPath)"
        guard let range = text.range(of: #"<computed 0x[0-9a-fA-F]+ \(([^)]*)\)>"#, options: .regularExpression) else { return text }
        let type = text[range].split(separator: "(").last.map { String($0.dropLast(2)) } ?? ""
        return text.replacingCharacters(in: range, with: "<a computed \(type)>")
    }
}

/// One object of the probe graph.
private final class ProbeNode {
    let object: ObjectBase
    let schema: ObjectSchemaInfo
    let recorder = ReadRecorder()
    let path: PropertyPath
    /// The objects behind this one's to-one links.
    private(set) var children: [ProbeNode] = []
    /// Properties probed by binding them (to-one links are followed instead, while `depth` allows).
    private(set) var candidateProperties: [Int] = []

    /// - Parameter depth: how many more links to follow from this object.
    init(type: ObjectBase.Type, depth: Int, path: PropertyPath = PropertyPath(components: [])) throws(FloeError) {
        schema = try SchemaDiscovery.schema(for: type)
        self.path = path
        object = type.init()
        let count = schema.properties.count
        // Probe columns lie past the real ones: no column there is a collection's, so even a
        // list's read goes to the source (and its placeholder decodes as an empty value); each
        // type-projected property's column names it, so a failable mapping that meets a
        // placeholder finds the property's declared value.
        let tableBinding = TableBinding(schema: schema, table: TableHandle(index: -1, name: schema.className),
                                        columnOfProperty: Array(0..<count), columnCount: 2 * count, mappedPropertiesAfter: count)
        object._floeBinding = ObjectBinding(source: recorder, tableBinding: tableBinding, key: 0)
        for (index, property) in schema.properties.enumerated() {
            if property.type.collection == .single, let target = property.type.objectType, depth > 0 {
                let child = try ProbeNode(type: target, depth: depth - 1,
                                          path: PropertyPath(components: path.components + [property.name], toManyPrefix: path.toManyPrefix))
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
private final class ReadRecorder: ObjectSource {
    var reads = 0

    func currentReader() throws(FloeError) -> any VersionReading {
        throw .io(path: "", operation: "key path probe", errno: 0)
    }

    var isFrozen: Bool { true }
    func write(_ value: _FloeValue, binding: ObjectBinding, column: Int) {}
    func linkedObject(_ type: ObjectBase.Type, key: Int64) -> ObjectBase? { nil }
    func modelType(named className: String) -> ObjectBase.Type? { nil }
    func changeCollection(binding: ObjectBinding, column: Int, _ change: (any CollectionEditing) throws(FloeError) -> Void) {}
    func frozenSnapshot() throws(FloeError) -> Snapshot { throw .io(path: "", operation: "key path probe", errno: 0) }
    var storeIdentity: ObjectIdentifier? { nil }
    var owner: AnyObject? { nil }
    func recordReadFailure(_ error: FloeError) { reads += 1 }
    func recordInvalidValue(_ error: FloeError) {}
    var hasRecordedDamage: Bool { true }
}
