import Foundation

// Which `@Persisted` property a Swift key path such as `\Dog.age` reads. The wrapped property
// is computed (the property wrapper's accessor), so the key path carries no name; instead a
// probe object of the class answers it: one property at a time is bound to a source that only
// notes that it was read, the key path is read, and the property that noticed is the one.
// Answers are cached per key path.

/// A property a builder key path names.
struct QueryPropertyName: Sendable {
    /// The Swift property name, as string predicates write it.
    let name: String
    /// A list, a set or linking objects: comparisons through it mean "any element".
    let isToMany: Bool
    /// A map (`Map<String, V>`): queried through `keys`, `values` or a subscript.
    let isMap: Bool
}

enum QueryPropertyNames {
    private static let cache = Locked<[AnyKeyPath: Result<QueryPropertyName, FloeError>]>([:])

    /// The persisted property `keyPath` reads on `Root`, or why it names none.
    static func property<Root: ObjectBase, V>(_ keyPath: KeyPath<Root, V>) -> Result<QueryPropertyName, FloeError> {
        if let known = cache.withLock({ $0[keyPath] }) { return known }
        let found = probe(keyPath)
        cache.withLock { $0[keyPath] = found }
        return found
    }

    private static func probe<Root: ObjectBase, V>(_ keyPath: KeyPath<Root, V>) -> Result<QueryPropertyName, FloeError> {
        let schema: ObjectSchemaInfo
        do { schema = try SchemaDiscovery.schema(for: Root.self) } catch { return .failure(error) }
        let count = schema.properties.count
        // Probe columns lie past the real ones: no column there is a collection's, so even a
        // list's read goes to the source (and its placeholder decodes as an empty value).
        let tableBinding = TableBinding(schema: schema, table: TableHandle(index: -1, name: schema.className),
                                        columnOfProperty: Array(0..<count), columnCount: 2 * count)
        let recorder = ReadRecorder()
        let object = Root()
        object._floeBinding = ObjectBinding(source: recorder, tableBinding: tableBinding, key: 0)
        defer { object._floeBinding = nil }
        var readers: [Int] = []
        for (index, accessor) in schema.accessors.enumerated() {
            recorder.reads = 0
            accessor.bind(object, count + index)
            _ = object[keyPath: keyPath]
            accessor.bind(object, -1)
            if recorder.reads > 0 { readers.append(index) }
        }
        let written = Self.describe(keyPath)
        guard readers.count == 1, let index = readers.first else {
            let names = readers.map { schema.properties[$0].name }.joined(separator: ", ")
            let reason = readers.isEmpty
                ? "it reads no @Persisted property: only persisted properties can be queried"
                : "it reads \(names): a query names one persisted property at a time"
            return .failure(.invalidKeyPath(className: schema.className, keyPath: written, reason: reason))
        }
        let property = schema.properties[index]
        if let sentinel = sentinel(for: property.type) {
            // A computed property that reads a persisted one (`name.uppercased()`) also reads
            // only it; it gives the value back changed, so a value the type would not default
            // to tells them apart where one can be made.
            schema.accessors[index].setUnmanaged(object, _FloeValue(sentinel))
            let answer = (object[keyPath: keyPath] as? any _Persistable)?._floeEncoded.value
            if answer != sentinel {
                return .failure(.invalidKeyPath(className: schema.className, keyPath: written,
                                                reason: "it is computed from '\(property.name)': query '\(property.name)' itself"))
            }
        }
        let collection = property.type.collection
        return .success(QueryPropertyName(name: property.name, isToMany: collection == .list || collection == .set || property.isComputed,
                                          isMap: collection == .map))
    }
}

extension QueryPropertyNames {
    /// Whether `type` is a model class: the root of a key path the builder was handed, checked
    /// at run time (kept from being folded away by the compiler, which takes the generic
    /// constraints on trust).
    @inline(never) @_optimize(none)
    static func isModelClass(_ type: Any.Type) -> Bool {
        type is ObjectBase.Type
    }

    /// A value of a plain scalar property's type that is not its default (nil for links,
    /// collections, enums and mapped types, whose values cannot all be made up here).
    static func sentinel(for type: _PropertyType) -> Value? {
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

extension QueryPropertyNames {
    /// A key path as a message shows it: Swift spells a computed property's accessor with its
    /// address (`\Dog.<computed 0x… (String)>`), which says nothing to the reader.
    static func describe(_ keyPath: AnyKeyPath) -> String {
        let text = "\(keyPath)"
        guard let range = text.range(of: #"<computed 0x[0-9a-fA-F]+ \(([^)]*)\)>"#, options: .regularExpression) else { return text }
        let type = text[range].split(separator: "(").last.map { String($0.dropLast(2)) } ?? ""
        return text.replacingCharacters(in: range, with: "<a computed \(type)>")
    }
}
