@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// An ordered collection of values or objects, a property of a model class.
///
/// Unmanaged, a list holds its elements itself; managed, it reads and writes its object's
/// stored list (changes need a write transaction). Duplicates are allowed.
///
/// ```swift
/// class Person: Object {
///     @Persisted var dogs: List<Dog>
///     @Persisted var nicknames: List<String>
/// }
/// try realm.write {
///     person.dogs.append(rex)
///     person.nicknames.insert("Jo", at: 0)
/// }
/// ```
public final class List<Element: _Persistable>: RandomAccessCollection {
    private var unmanagedElements: [Element]
    let parent: ObjectBinding?
    let column: Int
    /// Set for a list nested in a mixed property (then `Element` is `AnyRealmValue`).
    let nested: NestedLocation?

    /// An empty, unmanaged list.
    public init() {
        unmanagedElements = []
        parent = nil
        column = -1
        nested = nil
    }

    init(parent: ObjectBinding, column: Int) {
        unmanagedElements = []
        self.parent = parent
        self.column = column
        nested = nil
    }

    init(nestedIn location: NestedLocation) {
        unmanagedElements = []
        parent = nil
        column = -1
        nested = location
    }

    /// An element's stored form inside a nested collection, with the class of an object not
    /// yet in any realm that it holds (so that the write refuses it).
    static func nestedValue(_ element: Element) -> (value: Value, unmanagedClass: String?) {
        (element as? AnyRealmValue)?.nestedEncoding ?? (element._floeEncoded.value, nil)
    }

    private var nestedValues: [Value] {
        if case .list(let values) = nested!.read() { return values }
        return []
    }

    private func nestedElement(_ value: Value, at index: Int) -> Element {
        let location = nested!
        return Element._floeDecode(.nested(value, at: location.appending(.index(index))))
    }

    /// Changes a nested list: checks the index, then rewrites the property.
    private func modifyNested(index: Int, allowEnd: Bool, operation: String, holding unmanagedClass: String? = nil,
                              _ change: @escaping (inout [Value]) -> Void) {
        let location = nested!
        let count = nestedValues.count
        precondition(index >= 0 && (index < count || (allowEnd && index == count)),
                     "Index \(index) is out of range for the list nested in '\(location.name)', which holds \(count) elements (\(operation)).")
        location.modify(holding: unmanagedClass) { value in
            guard case .list(var values) = value else { return }
            change(&values)
            value = .list(values)
        }
    }

    /// The position of the first element: always 0.
    public var startIndex: Int { 0 }
    /// The number of elements: the position one past the last element.
    public var endIndex: Int { count }

    /// The number of elements now.
    public var count: Int {
        if nested != nil { return nestedValues.count }
        guard let parent else { return unmanagedElements.count }
        return ManagedCollection.count(parent, column)
    }

    /// The element at `position`, from 0 to `count - 1`.
    public subscript(position: Int) -> Element {
        get {
            if nested != nil {
                let values = nestedValues
                precondition(position >= 0 && position < values.count, "Index \(position) is out of range for the list nested in '\(nested!.name)', which holds \(values.count) elements.")
                return nestedElement(values[position], at: position)
            }
            guard let parent else { return unmanagedElements[position] }
            return Element._floeDecode(ManagedCollection.element(parent, column, at: position, kind: "List"))
        }
        set { replace(index: position, object: newValue) }
    }

    /// Whether this list belongs to a frozen object.
    public var isFrozen: Bool { (parent ?? nested?.parent)?.source.isFrozen ?? false }

    /// Whether the object owning this list was deleted.
    public var isInvalidated: Bool { parent.map { !$0.exists } ?? false }

    /// Appends an element (an unmanaged object is added to the realm).
    public func append(_ element: Element) {
        if nested != nil {
            let (value, unmanagedClass) = Self.nestedValue(element)
            return modifyNested(index: 0, allowEnd: true, operation: "append", holding: unmanagedClass) { $0.append(value) }
        }
        guard let parent else { return unmanagedElements.append(element) }
        ManagedCollection.change(parent, column) { editor throws(FloeError) in try editor.append(element._floeEncoded) }
    }

    /// Appends every element of a sequence (in one pass over a managed list).
    public func append<S: Sequence>(objectsIn elements: S) where S.Element == Element {
        guard let parent else {
            for element in elements { append(element) }
            return
        }
        if Element.self is any ListLeafReadable.Type {
            // Scalars are stored as they encode: nothing to resolve per element.
            let values = elements.map { $0._floeEncoded.value }
            ManagedCollection.change(parent, column) { editor throws(FloeError) in try editor.append(storedValues: values) }
            return
        }
        let encoded = elements.map { $0._floeEncoded }
        ManagedCollection.change(parent, column) { editor throws(FloeError) in try editor.append(contentsOf: encoded) }
    }

    /// Iterates over the elements as they are when iteration begins (a managed list is read
    /// leaf by leaf, once, not element by element).
    public func makeIterator() -> IndexingIterator<[Element]> {
        if nested != nil || parent == nil { return (0..<count).map { self[$0] }.makeIterator() }
        let parent = parent!
        do {
            if let elements = try typedElements(parent) { return elements.makeIterator() }
            let values = try parent.source.currentReader().collectionElements(in: parent.tableBinding.table, key: parent.key, column: column)
            return values.map { Element._floeDecode(.element($0, parent: parent, collectionColumn: column)) }.makeIterator()
        } catch {
            return parent.source.readFailed(error, reading: ManagedCollection.name(parent, column), placeholder: [Element]().makeIterator())
        }
    }

    /// Appends every element of a sequence.
    public func append<S: Sequence>(contentsOf elements: S) where S.Element == Element {
        append(objectsIn: elements)
    }

    /// Inserts an element at `index` (0...count).
    public func insert(_ element: Element, at index: Int) {
        if nested != nil {
            let (value, unmanagedClass) = Self.nestedValue(element)
            return modifyNested(index: index, allowEnd: true, operation: "insert", holding: unmanagedClass) { $0.insert(value, at: index) }
        }
        guard let parent else { return unmanagedElements.insert(element, at: index) }
        ManagedCollection.checkIndex(parent, column, index, allowEnd: true, operation: "insert")
        ManagedCollection.change(parent, column) { editor throws(FloeError) in try editor.insert(element._floeEncoded, at: index) }
    }

    /// Removes the element at `index`.
    public func remove(at index: Int) {
        if nested != nil { return modifyNested(index: index, allowEnd: false, operation: "remove") { $0.remove(at: index) } }
        guard let parent else { unmanagedElements.remove(at: index); return }
        ManagedCollection.checkIndex(parent, column, index, allowEnd: false, operation: "remove")
        ManagedCollection.change(parent, column) { editor throws(FloeError) in try editor.remove(at: index) }
    }

    /// Removes the last element.
    public func removeLast() {
        precondition(count > 0, "Cannot remove the last element of an empty list.")
        remove(at: count - 1)
    }

    /// Removes every element.
    public func removeAll() {
        if nested != nil { return modifyNested(index: 0, allowEnd: true, operation: "removeAll") { $0.removeAll() } }
        guard let parent else { return unmanagedElements.removeAll() }
        ManagedCollection.change(parent, column) { editor throws(FloeError) in try editor.removeAll() }
    }

    /// Moves the element at `from` to `to`.
    public func move(from: Int, to: Int) {
        if nested != nil {
            return modifyNested(index: from, allowEnd: false, operation: "move") { values in
                let value = values.remove(at: from)
                values.insert(value, at: Swift.min(to, values.count))
            }
        }
        guard let parent else {
            let element = unmanagedElements.remove(at: from)
            unmanagedElements.insert(element, at: to)
            return
        }
        ManagedCollection.checkIndex(parent, column, from, allowEnd: false, operation: "move from")
        ManagedCollection.checkIndex(parent, column, to, allowEnd: false, operation: "move to")
        ManagedCollection.change(parent, column) { editor throws(FloeError) in try editor.move(from: from, to: to) }
    }

    /// Exchanges the elements at two indexes.
    public func swapAt(_ index1: Int, _ index2: Int) {
        guard index1 != index2 else { return }
        let first = self[index1], second = self[index2]
        replace(index: index1, object: second)
        replace(index: index2, object: first)
    }

    /// Replaces the element at `index`.
    public func replace(index: Int, object: Element) {
        if nested != nil {
            let (value, unmanagedClass) = Self.nestedValue(object)
            return modifyNested(index: index, allowEnd: false, operation: "replace", holding: unmanagedClass) { $0[index] = value }
        }
        guard let parent else { unmanagedElements[index] = object; return }
        ManagedCollection.checkIndex(parent, column, index, allowEnd: false, operation: "replace")
        ManagedCollection.change(parent, column) { editor throws(FloeError) in try editor.set(object._floeEncoded, at: index) }
    }

    /// The index of the first element equal to `element` (objects: the same stored object).
    public func index(of element: Element) -> Int? {
        let wanted = element._floeEncoded
        return indices.first { index in ManagedCollection.same(self[index]._floeEncoded, wanted) }
    }
}

extension List: _Persistable {
    public static var _floeType: _PropertyType {
        var type = Element._floeType
        type.collection = .list
        // A type projection to an embedded object reads a missing single object as a default
        // one, so it stores a nullable link; a collection of them holds objects only.
        if type.isMapped && type.columnType == .link { type.isOptional = false }
        type.swiftName = "List<\(type.swiftName)>"
        type.persistedSwiftName = type.persistedSwiftName.map { "List<\($0)>" }
        return type
    }

    public static func _floeDefault() -> List { List() }

    public static func _floeDecode(_ stored: _FloeValue) -> List {
        if let parent = stored.parent, stored.column >= 0 { return List(parent: parent, column: stored.column) }
        let list = List()
        list.unmanagedElements = (stored.elements ?? []).map { Element._floeDecode($0) }
        return list
    }

    public var _floeEncoded: _FloeValue {
        .elements(map(\._floeEncoded))
    }
}

extension List: CustomStringConvertible {
    /// The elements, one a line, as Realm prints a collection.
    public var description: String { describe(indent: 0) }
}
