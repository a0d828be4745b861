@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// The objects that link to an object through one property: an inverse relationship,
/// computed from the links, always current, read-only.
///
/// ```swift
/// class Person: Object {
///     @Persisted var dogs: List<Dog>
/// }
/// class Dog: Object {
///     @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
/// }
/// let owners = dog.owners.map(\.name)
/// ```
public final class LinkingObjects<Element: ObjectBase>: RandomAccessCollection {
    let parent: ObjectBinding?
    let originProperty: String

    init(parent: ObjectBinding?, originProperty: String) {
        self.parent = parent
        self.originProperty = originProperty
    }

    /// The position of the first element: always 0.
    public var startIndex: Int { 0 }
    /// The number of elements: the position one past the last element.
    public var endIndex: Int { keys().count }

    /// The element at `position`, from 0 to `count - 1`.
    public subscript(position: Int) -> Element {
        let keys = keys()
        precondition(position >= 0 && position < keys.count,
                     "Index \(position) is out of range for LinkingObjects<\(Element.className())> of \(keys.count) objects.")
        return object(for: keys[position])
    }

    /// Iterates over the linking objects as they are when iteration begins (the backlinks
    /// are read once, not at every step).
    public func makeIterator() -> IndexingIterator<[Element]> {
        keys().map(object(for:)).makeIterator()
    }

    private func object(for key: Int64) -> Element {
        guard let parent, let object = parent.source.linkedObject(Element.self, key: key) as? Element else {
            preconditionFailure("LinkingObjects<\(Element.className())>: the linking object with key \(key) is gone.")
        }
        return object
    }

    /// Whether these objects are read from a frozen object.
    public var isFrozen: Bool { parent?.source.isFrozen ?? false }

    /// Keys of the origin objects whose `originProperty` links to the parent, once per link, in key order.
    private func keys() -> [Int64] {
        guard let parent else { return [] }
        do {
            let reader = try parent.source.currentReader()
            let origin = try SchemaDiscovery.schema(for: Element.self)
            guard let table = try reader.tableIfPresent(named: origin.className),
                  let property = origin.property(named: originProperty) else { return [] }
            let spec = try reader.spec(of: table)
            guard let column = spec.columnIndex(named: property.persistedName), spec.columns[column].type == .link else { return [] }
            // The engine keeps the column's backlinks: no scan of the origin table.
            let keys = try reader.linkingObjects(in: table, column: column, to: parent.key)
            return keys
        } catch {
            return parent.source.readFailed(error, reading: "LinkingObjects<\(Element.className())>.\(originProperty)", placeholder: [])
        }
    }
}

extension LinkingObjects: _Persistable {
    public static var _floeType: _PropertyType {
        _PropertyType(columnType: .link, collection: .list, objectType: Element.self, swiftName: "LinkingObjects<\(Element.className())>")
    }

    public static func _floeDefault() -> LinkingObjects { LinkingObjects(parent: nil, originProperty: "") }

    public static func _floeDecode(_ stored: _FloeValue) -> LinkingObjects {
        guard let parent = stored.parent, stored.column >= 0, let index = parent.tableBinding.propertyOfColumn[stored.column],
              let origin = parent.tableBinding.schema.properties[index].originProperty
        else { return LinkingObjects(parent: nil, originProperty: "") }
        return LinkingObjects(parent: parent, originProperty: origin)
    }

    public var _floeEncoded: _FloeValue { _FloeValue(.null) }
}

extension Persisted {
    /// An inverse relationship: every object of the origin class whose `originProperty`
    /// links to this one. Computed, never stored, read-only.
    ///
    /// ```swift
    /// class Dog: Object {
    ///     @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
    /// }
    /// ```
    @inlinable public init<Origin: ObjectBase>(originProperty: String) where Value == LinkingObjects<Origin> {
        column = -1
        value = nil
        options = PropertyOptions(originProperty: originProperty)
    }
}
