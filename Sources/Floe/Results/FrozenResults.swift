@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// Frozen results: every object of a class at one version, `Sendable` and unchanging.
///
/// ```swift
/// let frozenDogs = try await realm.read { realm in try realm.objects(Dog.self).freeze() }
/// await withTaskGroup(of: Void.self) { group in
///     group.addTask { print(frozenDogs.count) }
/// }
/// ```
public struct FrozenResults<Element: Object>: RandomAccessCollection, Sendable {
    let snapshot: Snapshot
    /// The class whose objects these are (see ``Results``).
    let elementType: Element.Type
    let binding: TableBinding?
    /// The predicate and order these results were frozen with.
    let query: ResultsQuery?
    /// For filtered or sorted results: the matching keys, chosen once (the version never changes).
    let keys: [Int64]?

    /// Every object of the class at `snapshot`, narrowed and ordered by `query`.
    init(snapshot: Snapshot, query: ResultsQuery? = nil, elementType: Element.Type = Element.self) throws(FloeError) {
        self.snapshot = snapshot
        self.query = query
        self.elementType = elementType
        let binding = try FrozenSource.binding(for: elementType, in: snapshot)
        self.binding = binding
        if let query, let binding {
            keys = try query.keys(in: binding, reader: snapshot) { (type) throws(FloeError) in try FrozenSource.binding(for: type, in: snapshot) }
        } else {
            keys = query == nil ? nil : []
        }
    }

    /// The results of `query` at `snapshot` whose keys, in order, are already known (a change
    /// stream derived them from the previous version's).
    init(snapshot: Snapshot, query: ResultsQuery, keys: [Int64], elementType: Element.Type = Element.self) throws(FloeError) {
        self.snapshot = snapshot
        self.query = query
        self.elementType = elementType
        let binding = try FrozenSource.binding(for: elementType, in: snapshot)
        self.binding = binding
        self.keys = binding == nil ? [] : keys
    }

    /// No objects (a class that does not match the frozen file).
    init(empty snapshot: Snapshot) {
        self.snapshot = snapshot
        elementType = Element.self
        binding = nil
        query = nil
        keys = []
    }

    /// The position of the first element: always 0.
    public var startIndex: Int { 0 }
    /// The number of elements: the position one past the last element.
    public var endIndex: Int { count }

    /// The number of objects at this version.
    public var count: Int {
        if let keys { return keys.count }
        guard let binding else { return 0 }
        do {
            return try snapshot.objectCount(in: binding.table)
        } catch {
            snapshot.damage.record(error)
            return 0
        }
    }

    /// The frozen object at `position` (from 0 to `count - 1`), readable from any task.
    public subscript(position: Int) -> Frozen<Element> {
        if let keys, let binding {
            precondition(keys.indices.contains(position), "Index \(position) is out of bounds for FrozenResults<\(Element.className())> of \(keys.count) objects.")
            return Frozen(snapshot: snapshot, binding: binding, key: keys[position])
        }
        let found: Int64?
        do {
            found = try binding.flatMap { binding throws(FloeError) in try snapshot.objectKey(at: position, in: binding.table) }
        } catch {
            // Damaged: an object that reads as placeholders; checkIntegrity() reports the damage.
            snapshot.damage.record(error)
            found = .min
        }
        guard let binding, let key = found else {
            preconditionFailure("Index \(position) is out of bounds for FrozenResults<\(Element.className())> of \(count) objects.")
        }
        return Frozen(snapshot: snapshot, binding: binding, key: key)
    }

    /// Always true.
    public var isFrozen: Bool { true }

    /// The version these results show.
    public var version: UInt64 { snapshot.version }
}
