@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// The frozen form of an ``AnyRealmCollection``: the wrapped results, list, set or linking
/// objects at one version, `Sendable`, readable from any task, never changing. Its elements
/// are read from that version (objects come back bound to it, as a frozen list's do).
///
/// ```swift
/// let dogs = AnyRealmCollection(realm.objects(Dog.self))
/// let frozen = try dogs.freeze()
/// Task.detached { print(frozen.count) }
/// ```
public struct FrozenAnyRealmCollection<Element>: RandomAccessCollection, Sendable {
    private let storage: any FrozenAnyStorage<Element>

    init(storage: any FrozenAnyStorage<Element>) {
        self.storage = storage
    }

    /// The position of the first element: always 0.
    public var startIndex: Int { 0 }
    /// The number of elements: the position one past the last element.
    public var endIndex: Int { storage.count }
    /// The element at `position`, from 0 to `count - 1`, as it was at the frozen version.
    public subscript(position: Int) -> Element { storage.item(at: position) }
    /// Always true.
    public var isFrozen: Bool { true }
}

/// A frozen collection a ``FrozenAnyRealmCollection`` can hold.
protocol FrozenAnyStorage<Item>: Sendable {
    associatedtype Item
    var count: Int { get }
    func item(at position: Int) -> Item
}

extension FrozenAnyStorage {
    /// This collection behind the type-erased frozen form.
    var erased: FrozenAnyRealmCollection<Item> { FrozenAnyRealmCollection(storage: self) }
}

extension FrozenList: FrozenAnyStorage {
    func item(at position: Int) -> Element { self[position] }
}

extension FrozenSet: FrozenAnyStorage {
    func item(at position: Int) -> Element { self[position] }
}

extension FrozenResults: FrozenAnyStorage {
    func item(at position: Int) -> Element { self[position].makeModel() }
}

/// A frozen object that can be read as its model class.
protocol FrozenModelReading: Sendable {
    associatedtype Model
    func makeModel() -> Model
}

extension Frozen: FrozenModelReading {}

extension Array: FrozenAnyStorage where Element: FrozenModelReading {
    func item(at position: Int) -> Element.Model { self[position].makeModel() }
}

/// A collection an ``AnyRealmCollection`` can freeze.
protocol AnyRealmCollectionFreezing<Element> {
    associatedtype Element
    func freezeAny() throws -> FrozenAnyRealmCollection<Element>
}

extension Results: AnyRealmCollectionFreezing {
    func freezeAny() throws -> FrozenAnyRealmCollection<Element> { try freeze().erased }
}

extension List: AnyRealmCollectionFreezing {
    func freezeAny() throws -> FrozenAnyRealmCollection<Element> { try freeze().erased }
}

extension MutableSet: AnyRealmCollectionFreezing {
    func freezeAny() throws -> FrozenAnyRealmCollection<Element> { try freeze().erased }
}

extension LinkingObjects: AnyRealmCollectionFreezing {
    func freezeAny() throws -> FrozenAnyRealmCollection<Element> { try freeze().erased }
}

extension AnyRealmCollection: AnyRealmCollectionFreezing {
    func freezeAny() throws -> FrozenAnyRealmCollection<Element> { try freeze() }

    /// A frozen, `Sendable` view of the wrapped collection at its realm's last committed
    /// version (results keep their predicate and order; a list or set its order).
    ///
    /// ```swift
    /// let dogs = AnyRealmCollection(person.dogs)
    /// let frozen = try dogs.freeze()
    /// Task.detached { print(frozen.map(\.name)) }
    /// ```
    ///
    /// - Throws: ``FloeError/invalidOperation(className:detail:)`` when the wrapped collection
    ///   is unmanaged or cannot be frozen (a map's values).
    public func freeze() throws -> FrozenAnyRealmCollection<Element> {
        guard let base = base as? any AnyRealmCollectionFreezing<Element> else {
            throw FloeError.invalidOperation(className: "AnyRealmCollection<\(Element.self)>",
                                             detail: "a collection wrapping \(type(of: self.base)) cannot be frozen; wrap results, a list, a set or linking objects")
        }
        return try base.freezeAny()
    }
}
