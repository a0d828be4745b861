@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// A collection of distinct values or objects, a property of a model class.
///
/// Managed sets keep their elements in a fixed order (Floe's order of values; objects by
/// key), so indexes are stable between changes.
///
/// ```swift
/// class Dog: Object {
///     @Persisted var citiesVisited: MutableSet<String>
/// }
/// try realm.write {
///     dog.citiesVisited.insert(objectsIn: ["New York", "Toronto"])
/// }
/// ```
public final class MutableSet<Element: _Persistable>: RandomAccessCollection {
    private var unmanagedElements: [Element]
    let parent: ObjectBinding?
    let column: Int

    /// An empty, unmanaged set.
    public init() {
        unmanagedElements = []
        parent = nil
        column = -1
    }

    init(parent: ObjectBinding, column: Int) {
        unmanagedElements = []
        self.parent = parent
        self.column = column
    }

    /// The position of the first element: always 0.
    public var startIndex: Int { 0 }
    /// The number of elements: the position one past the last element.
    public var endIndex: Int { count }

    /// The number of elements now.
    public var count: Int {
        guard let parent else { return unmanagedElements.count }
        return ManagedCollection.count(parent, column)
    }

    /// The element at `position`, from 0 to `count - 1`.
    public subscript(position: Int) -> Element {
        guard let parent else { return unmanagedElements[position] }
        return Element._floeDecode(ManagedCollection.element(parent, column, at: position, kind: "MutableSet"))
    }

    /// Whether this set belongs to a frozen object.
    public var isFrozen: Bool { parent?.source.isFrozen ?? false }

    /// Whether the object owning this set was deleted.
    public var isInvalidated: Bool { parent.map { !$0.exists } ?? false }

    /// Whether the set holds `element` (objects: the same stored object).
    public func contains(_ element: Element) -> Bool {
        let wanted = element._floeEncoded
        guard let parent else { return unmanagedElements.contains { ManagedCollection.same($0._floeEncoded, wanted) } }
        if wanted.object != nil && wanted.value == .null { return false }  // an unmanaged object is in no managed set
        do {
            return try parent.source.currentReader().setContains(wanted.value, in: parent.tableBinding.table, key: parent.key, column: column)
        } catch {
            return parent.source.readFailed(error, reading: ManagedCollection.name(parent, column), placeholder: false)
        }
    }

    /// Adds `element` unless it is already there.
    public func insert(_ element: Element) {
        guard let parent else {
            if !contains(element) { unmanagedElements.append(element) }
            return
        }
        ManagedCollection.change(parent, column) { editor throws(FloeError) in try editor.setInsert(element._floeEncoded) }
    }

    /// Adds every element of a sequence.
    public func insert<S: Sequence>(objectsIn elements: S) where S.Element == Element {
        for element in elements { insert(element) }
    }

    /// Removes `element` if it is there.
    public func remove(_ element: Element) {
        guard let parent else {
            let wanted = element._floeEncoded
            unmanagedElements.removeAll { ManagedCollection.same($0._floeEncoded, wanted) }
            return
        }
        ManagedCollection.change(parent, column) { editor throws(FloeError) in try editor.setRemove(element._floeEncoded) }
    }

    /// Removes every element.
    public func removeAll() {
        guard let parent else { return unmanagedElements.removeAll() }
        ManagedCollection.change(parent, column) { editor throws(FloeError) in try editor.removeAll() }
    }

    /// Adds every element of `other`.
    public func formUnion(_ other: MutableSet<Element>) {
        insert(objectsIn: Array(other))
    }

    /// Keeps only the elements that are also in `other`.
    public func formIntersection(_ other: MutableSet<Element>) {
        for element in Array(self) where !other.contains(element) { remove(element) }
    }

    /// Removes every element that is in `other`.
    public func subtract(_ other: MutableSet<Element>) {
        for element in Array(other) { remove(element) }
    }

    /// Whether every element of this set is in `other`.
    public func isSubset(of other: MutableSet<Element>) -> Bool {
        allSatisfy { other.contains($0) }
    }

    /// Whether this set and `other` share an element.
    public func intersects(_ other: MutableSet<Element>) -> Bool {
        contains { other.contains($0) }
    }
}

extension MutableSet: _Persistable {
    public static var _floeType: _PropertyType {
        var type = Element._floeType
        type.collection = .set
        // A type projection to an embedded object reads a missing single object as a default
        // one, so it stores a nullable link; a collection of them holds objects only.
        if type.isMapped && type.columnType == .link { type.isOptional = false }
        type.swiftName = "MutableSet<\(type.swiftName)>"
        type.persistedSwiftName = type.persistedSwiftName.map { "MutableSet<\($0)>" }
        return type
    }

    public static func _floeDefault() -> MutableSet { MutableSet() }

    public static func _floeDecode(_ stored: _FloeValue) -> MutableSet {
        if let parent = stored.parent, stored.column >= 0 { return MutableSet(parent: parent, column: stored.column) }
        let set = MutableSet()
        for element in stored.elements ?? [] { set.insert(Element._floeDecode(element)) }
        return set
    }

    public var _floeEncoded: _FloeValue {
        .elements(map(\._floeEncoded))
    }
}

extension MutableSet: CustomStringConvertible {
    /// The elements, one a line, as Realm prints a collection.
    public var description: String { describe(indent: 0) }
}
