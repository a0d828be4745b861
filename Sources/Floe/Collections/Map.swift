@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// A dictionary from strings to values or objects, a property of a model class.
///
/// Keys may not contain `.`, start with `$`, or be longer than 16 MiB (such keys are refused
/// with ``FloeError/invalidMapKey(table:column:key:)``); the empty key is allowed, as in Realm.
/// Managed maps iterate in key order.
///
/// ```swift
/// class Dog: Object {
///     @Persisted var favoriteParksByCity: Map<String, String>
/// }
/// try realm.write {
///     dog.favoriteParksByCity["New York"] = "Central Park"
/// }
/// ```
public final class Map<Key: Hashable & Comparable, Value: _Persistable>: Sequence {
    private var unmanagedEntries: [String: Value]
    let parent: ObjectBinding?
    let column: Int
    /// Set for a dictionary nested in a mixed property (then `Value` is `AnyRealmValue`).
    let nested: NestedLocation?

    /// An empty, unmanaged map.
    public init() {
        precondition(Key.self == String.self, "Map keys are strings: use Map<String, \(Value.self)>")
        unmanagedEntries = [:]
        parent = nil
        column = -1
        nested = nil
    }

    init(parent: ObjectBinding, column: Int) {
        unmanagedEntries = [:]
        self.parent = parent
        self.column = column
        nested = nil
    }

    init(nestedIn location: NestedLocation) {
        unmanagedEntries = [:]
        parent = nil
        column = -1
        nested = location
    }

    private var nestedEntries: [FloeEngine.Value.MapEntry] {
        if case .dictionary(let entries) = nested!.read() { return entries }
        return []
    }

    private func nestedValue(_ stored: FloeEngine.Value, key: String) -> Value {
        let location = nested!
        return Value._floeDecode(.nested(stored, at: location.appending(.key(key))))
    }

    /// Changes a nested dictionary and rewrites the property; keys are checked as for maps.
    private func modifyNested(holding unmanagedClass: String? = nil, _ change: @escaping (inout [FloeEngine.Value.MapEntry]) -> Void) {
        nested!.modify(holding: unmanagedClass) { value in
            guard case .dictionary(var entries) = value else { return }
            change(&entries)
            value = .dictionary(entries)
        }
    }

    /// The number of entries now.
    public var count: Int {
        if nested != nil { return nestedEntries.count }
        guard let parent else { return unmanagedEntries.count }
        return ManagedCollection.count(parent, column)
    }

    /// Whether this map belongs to a frozen object.
    public var isFrozen: Bool { (parent ?? nested?.parent)?.source.isFrozen ?? false }

    /// Whether the object owning this map was deleted.
    public var isInvalidated: Bool { parent.map { !$0.exists } ?? false }

    /// The value for `key`, or nil; setting nil removes the entry.
    public subscript(key: Key) -> Value? {
        get {
            let key = key as! String
            if nested != nil { return nestedEntries.first { $0.key == key }.map { nestedValue($0.value, key: key) } }
            guard let parent else { return unmanagedEntries[key] }
            do {
                guard let stored = try parent.source.currentReader().mapValue(forKey: key, in: parent.tableBinding.table, key: parent.key, column: column) else {
                    return nil
                }
                return Value._floeDecode(.element(stored, parent: parent, collectionColumn: column))
            } catch {
                return parent.source.readFailed(error, reading: ManagedCollection.name(parent, column), placeholder: nil)
            }
        }
        set {
            if let newValue { updateValue(newValue, forKey: key) } else { removeObject(for: key) }
        }
    }

    /// Sets the value for `key`.
    public func updateValue(_ value: Value, forKey key: Key) {
        let key = key as! String
        if nested != nil {
            let (stored, unmanagedClass) = (value as? AnyRealmValue)?.nestedEncoding ?? (value._floeEncoded.value, nil)
            return modifyNested(holding: unmanagedClass) { entries in
                if let position = entries.firstIndex(where: { $0.key == key }) {
                    entries[position].value = stored
                } else {
                    entries.append(FloeEngine.Value.MapEntry(key: key, value: stored))
                    entries.sort { $0.key < $1.key }
                }
            }
        }
        guard let parent else {
            unmanagedEntries[key] = value
            return
        }
        ManagedCollection.change(parent, column) { editor throws(FloeError) in try editor.mapSet(value._floeEncoded, forKey: key) }
    }

    /// Sets the value for `key` (Realm's name for `updateValue(_:forKey:)`).
    public func setValue(_ value: Value, forKey key: String) {
        updateValue(value, forKey: key as! Key)
    }

    /// Removes the entry for `key`.
    public func removeObject(for key: Key) {
        let key = key as! String
        if nested != nil { return modifyNested { $0.removeAll { $0.key == key } } }
        guard let parent else {
            unmanagedEntries[key] = nil
            return
        }
        ManagedCollection.change(parent, column) { editor throws(FloeError) in try editor.mapRemove(forKey: key) }
    }

    /// Removes every entry.
    public func removeAll() {
        if nested != nil { return modifyNested { $0.removeAll() } }
        guard let parent else { return unmanagedEntries.removeAll() }
        ManagedCollection.change(parent, column) { editor throws(FloeError) in try editor.removeAll() }
    }

    /// Adds every entry of a sequence of pairs, replacing the values of keys already there.
    public func merge<S: Sequence>(_ sequence: S) where S.Element == (key: Key, value: Value) {
        for (key, value) in sequence { updateValue(value, forKey: key) }
    }

    /// Adds every entry of a dictionary, replacing the values of keys already there.
    public func merge(_ dictionary: [Key: Value]) {
        for key in dictionary.keys.sorted() { updateValue(dictionary[key]!, forKey: key) }
    }

    /// The keys, in order.
    public var keys: [Key] { entries().map { $0.key } }

    /// The values, in key order, as a collection generic code over `RealmCollection` accepts.
    public var values: MapValues<Value> { MapValues(elements: entries().map { $0.value }, isFrozen: isFrozen, owner: parent, column: column) }

    /// The entries in key order, as `(key:value:)` pairs.
    public func makeIterator() -> IndexingIterator<[(key: Key, value: Value)]> {
        entries().makeIterator()
    }

    private func entries() -> [(key: Key, value: Value)] {
        if nested != nil { return nestedEntries.map { ($0.key as! Key, nestedValue($0.value, key: $0.key)) } }
        guard let parent else {
            return unmanagedEntries.keys.sorted().map { ($0 as! Key, unmanagedEntries[$0]!) }
        }
        do {
            return try parent.source.currentReader().mapEntries(in: parent.tableBinding.table, key: parent.key, column: column)
                .map { ($0.key as! Key, Value._floeDecode(.element($0.value, parent: parent, collectionColumn: column))) }
        } catch {
            return parent.source.readFailed(error, reading: ManagedCollection.name(parent, column), placeholder: [])
        }
    }
}

extension Map: _Persistable {
    public static var _floeType: _PropertyType {
        var type = Value._floeType
        type.collection = .map
        type.swiftName = "Map<String, \(type.swiftName)>"
        type.persistedSwiftName = type.persistedSwiftName.map { "Map<String, \($0)>" }
        return type
    }

    public static func _floeDefault() -> Map { Map() }

    public static func _floeDecode(_ stored: _FloeValue) -> Map {
        if let parent = stored.parent, stored.column >= 0 { return Map(parent: parent, column: stored.column) }
        let map = Map()
        for (key, element) in zip(stored.keys ?? [], stored.elements ?? []) { map.updateValue(Value._floeDecode(element), forKey: key as! Key) }
        return map
    }

    public var _floeEncoded: _FloeValue {
        let entries = entries()
        return .elements(entries.map { $0.value._floeEncoded }, keys: entries.map { $0.key as! String })
    }
}

extension Map: CustomStringConvertible {
    /// The elements, one a line, as Realm prints a collection.
    public var description: String { describe(indent: 0) }
}
