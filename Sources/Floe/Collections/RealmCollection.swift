@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// What every Floe collection offers, so generic code works on any of them: `Results`,
/// `List`, `MutableSet`, `LinkingObjects` and `AnyRealmCollection`.
///
/// ```swift
/// func operateOn<C: RealmCollection>(collection: C) {
///     // Collection could be either Results or List
///     print("operating on collection containing \(collection.count) objects")
/// }
/// ```
public protocol RealmCollection: RandomAccessCollection where Index == Int, Element == ElementType {
    /// The type of the elements (Realm's name for `Element`).
    associatedtype ElementType
    /// Whether this collection is a frozen view.
    var isFrozen: Bool { get }
}

/// A marker Realm's generic constraints used (`RealmCollection & _ObjcBridgeable`); every
/// Floe collection has it, so such code compiles unchanged.
public protocol _ObjcBridgeable {}

extension List: RealmCollection, _ObjcBridgeable {
    /// The type of the collection's elements (Realm's name for `Element`).
    public typealias ElementType = Element
}

extension MutableSet: RealmCollection, _ObjcBridgeable {
    /// The type of the collection's elements (Realm's name for `Element`).
    public typealias ElementType = Element
}

extension LinkingObjects: RealmCollection, _ObjcBridgeable {
    /// The type of the collection's elements (Realm's name for `Element`).
    public typealias ElementType = Element
}

/// Any `RealmCollection` of one element type, behind one type: a property or a variable can
/// hold results, a list or a set alike.
///
/// ```swift
/// class ViewController {
///     let collection: AnyRealmCollection<MyModel>
///     init<C: RealmCollection & _ObjcBridgeable>(collection: C) where C.ElementType == MyModel {
///         self.collection = AnyRealmCollection(collection)
///     }
/// }
/// ```
public struct AnyRealmCollection<Element>: RealmCollection, _ObjcBridgeable {
    /// The type of the collection's elements (Realm's name for `Element`).
    public typealias ElementType = Element

    private let countOfElements: () -> Int
    private let elementAt: (Int) -> Element
    private let frozen: () -> Bool
    /// The wrapped collection (for its queries and aggregates).
    let base: Any

    /// Wraps `base`; the wrapper reads it live.
    public init<C: RealmCollection>(_ base: C) where C.ElementType == Element {
        self.base = base
        countOfElements = { base.count }
        elementAt = { base[$0] }
        frozen = { base.isFrozen }
    }

    /// The position of the first element: always 0.
    public var startIndex: Int { 0 }
    /// The number of elements: the position one past the last element.
    public var endIndex: Int { countOfElements() }
    /// The element at `position`, from 0 to `count - 1`.
    public subscript(position: Int) -> Element { elementAt(position) }
    /// Whether the wrapped collection is frozen.
    public var isFrozen: Bool { frozen() }
}

/// A map's values, in key order, as they were when `values` was read.
///
/// ```swift
/// let parks = dog.favoriteParksByCity.values
/// print(AnyRealmCollection(parks).count)
/// ```
public struct MapValues<Element>: RealmCollection, _ObjcBridgeable {
    /// The type of the collection's elements (Realm's name for `Element`).
    public typealias ElementType = Element
    let elements: [Element]
    /// Whether the map was frozen.
    public let isFrozen: Bool
    /// The managed map's object and column (for queries over its objects).
    var owner: ObjectBinding? = nil
    var column = -1

    /// The position of the first element: always 0.
    public var startIndex: Int { 0 }
    /// The number of elements: the position one past the last element.
    public var endIndex: Int { elements.count }
    /// The element at `position`, from 0 to `count - 1`.
    public subscript(position: Int) -> Element { elements[position] }
}
