@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// A projected collection's writes, freezing and thawing, and what it answers about its realm:
// each goes to the list or set it maps (`friends` for `\Person.friends.projectTo.firstName`).

/// The list or set an ``ElementMapper`` maps.
enum ProjectedElementsSource<Element: ObjectBase> {
    case list(List<Element>)
    case set(MutableSet<Element>)

    var isFrozen: Bool {
        switch self {
        case .list(let list): list.isFrozen
        case .set(let set): set.isFrozen
        }
    }

    var isInvalidated: Bool {
        switch self {
        case .list(let list): list.isInvalidated
        case .set(let set): set.isInvalidated
        }
    }

    var realm: Realm? {
        switch self {
        case .list(let list): list.realm
        case .set(let set): set.realm
        }
    }

    func freeze() throws -> FrozenProjectedElements<Element> {
        switch self {
        case .list(let list):
            let frozen = try list.freeze()
            return FrozenProjectedElements(count: frozen.count, element: { frozen[$0] }, version: frozen.version,
                                           thaw: { context in context.thaw(frozen)?.projectTo })
        case .set(let set):
            let frozen = try set.freeze()
            return FrozenProjectedElements(count: frozen.count, element: { frozen[$0] }, version: frozen.elements.version,
                                           thaw: { context in context.thaw(frozen)?.projectTo })
        }
    }
}

/// The objects of a frozen list or set, and how to find the live collection again.
struct FrozenProjectedElements<Element: ObjectBase>: Sendable {
    let count: Int
    /// The object at a position, bound to the frozen version.
    let element: @Sendable (Int) -> Element
    let version: UInt64
    /// The live collection's mapper in a realm, or nil when its object was deleted since.
    let thaw: @Sendable (ObjectContext) -> ElementMapper<Element>?
}

/// A key path applied only to objects bound to a frozen version, from any task.
struct FrozenMemberKeyPath<Root, Value>: @unchecked Sendable {
    // @unchecked: the key path is immutable and only reads.
    let keyPath: KeyPath<Root, Value>
}

/// What a ``ProjectedCollection`` does beyond reading: its values' writes, and its list's or set's
/// answers, seen through the mapped property.
struct ProjectedCollectionBacking<Value> {
    let write: (Int, Value) -> Void
    let isFrozen: () -> Bool
    let isInvalidated: () -> Bool
    let realm: () -> Realm?
    let freeze: () throws -> FrozenProjectedCollection<Value>

    /// The backing of `member` of each object of `source`.
    init<Object: ObjectBase>(mapping member: KeyPath<Object, Value>, of element: @escaping (Int) -> Object, source: ProjectedElementsSource<Object>) {
        write = { position, newValue in
            let object = element(position)
            if let writable = member as? ReferenceWritableKeyPath<Object, Value> {
                object[keyPath: writable] = newValue
            } else {
                ProjectedWrite.assign(newValue, through: member, of: object, in: "ProjectedCollection<\(Value.self)>")
            }
        }
        isFrozen = { source.isFrozen }
        isInvalidated = { source.isInvalidated }
        realm = { source.realm }
        freeze = {
            let elements = try source.freeze()
            let mapped = FrozenMemberKeyPath(keyPath: member)
            return FrozenProjectedCollection(count: elements.count, value: { elements.element($0)[keyPath: mapped.keyPath] },
                                             version: elements.version,
                                             thaw: { context in elements.thaw(context)?[dynamicMember: mapped.keyPath] })
        }
    }
}

extension ProjectedCollection {
    /// Whether the values are read from a frozen version (the collection of a frozen
    /// projection's root).
    ///
    /// ```swift
    /// if !projection.friendsFirstNames.isFrozen { print("live") }
    /// ```
    public var isFrozen: Bool { makeBacking?().isFrozen() ?? false }

    /// Whether the object holding the mapped list or set was deleted.
    ///
    /// ```swift
    /// if projection.friendsFirstNames.isInvalidated { return }
    /// ```
    public var isInvalidated: Bool { makeBacking?().isInvalidated() ?? false }

    /// The realm managing the mapped list or set (nil while its object is unmanaged).
    ///
    /// ```swift
    /// let realm = projection.friendsFirstNames.realm
    /// ```
    public var realm: Realm? { makeBacking?().realm() }

    /// A frozen, `Sendable` snapshot of these values at the realm's newest version.
    ///
    /// ```swift
    /// let names = try await realm.read { realm in try realm.objects(PersonProjection.self)[0].friendsFirstNames.freeze() }
    /// Task.detached { print(Array(names)) }
    /// ```
    ///
    /// - Throws: ``FloeError/invalidOperation(className:detail:)`` when the mapped list's or
    ///   set's object is unmanaged.
    public func freeze() throws -> FrozenProjectedCollection<Element> {
        guard let backing = makeBacking?() else {
            throw FloeError.invalidOperation(className: "ProjectedCollection<\(Element.self)>", detail: "this collection maps no list or set, so it cannot be frozen")
        }
        return try backing.freeze()
    }
}

/// A frozen ``ProjectedCollection``: the mapped property of each object of a list or set at
/// one version, `Sendable`, readable from any task, never changing.
///
/// ```swift
/// let names = try projection.friendsFirstNames.freeze()
/// Task.detached { print(names.first ?? "") }
/// try await realm.write { realm in realm.thaw(names)?[0] = "Bee" }
/// ```
public struct FrozenProjectedCollection<Element>: RandomAccessCollection, Sendable, CustomStringConvertible {
    let elementCount: Int
    let value: @Sendable (Int) -> Element
    /// The version these values were frozen at.
    ///
    /// ```swift
    /// print(try projection.friendsFirstNames.freeze().version)
    /// ```
    public let version: UInt64
    let thawing: @Sendable (ObjectContext) -> ProjectedCollection<Element>?

    init(count: Int, value: @escaping @Sendable (Int) -> Element, version: UInt64, thaw: @escaping @Sendable (ObjectContext) -> ProjectedCollection<Element>?) {
        elementCount = count
        self.value = value
        self.version = version
        thawing = thaw
    }

    /// 0.
    public var startIndex: Int { 0 }
    /// The number of values at the frozen version.
    public var endIndex: Int { elementCount }

    /// The value at `position`, as it was at the frozen version.
    ///
    /// ```swift
    /// let first = frozenNames[0]
    /// ```
    public subscript(position: Int) -> Element {
        precondition(position >= 0 && position < elementCount, "Index \(position) is out of bounds (count \(elementCount))")
        return value(position)
    }

    /// Always true.
    public var isFrozen: Bool { true }

    /// Itself: it is already frozen.
    ///
    /// ```swift
    /// let same = frozenNames.freeze()
    /// ```
    public func freeze() -> FrozenProjectedCollection<Element> { self }

    /// The values, one a line, as ``ProjectedCollection`` shows them.
    public var description: String {
        "ProjectedCollection<\(Element.self)> {\n" + enumerated().map { "\t[\($0.offset)] \($0.element)\n" }.joined() + "}"
    }
}

extension RealmReading where Self: ~Copyable {
    /// The live projected collection of a frozen one, or nil if the object holding the mapped
    /// list or set was deleted since.
    ///
    /// ```swift
    /// try await realm.write { realm in realm.thaw(frozenNames)?[0] = "Bee" }
    /// ```
    public func thaw<Element>(_ frozen: FrozenProjectedCollection<Element>) -> ProjectedCollection<Element>? {
        frozen.thawing(_access.context)
    }

    /// The live projection results of frozen ones: every object of the root class now, with the
    /// same filter and sort.
    ///
    /// ```swift
    /// let frozen = try await realm.read { realm in try realm.objects(PersonProjection.self).freeze() }
    /// try await realm.write { realm in realm.thaw(frozen).first?.firstName = "Ana" }
    /// ```
    public func thaw<P: ProjectionObservable>(_ frozen: FrozenProjectionResults<P>) -> ProjectionResults<P> where P.Root: Object {
        ProjectionResults(rootResults: thaw(frozen.rootResults))
    }
}

extension Realm {
    /// The live projected collection of a frozen one, or nil if its object was deleted since.
    ///
    /// ```swift
    /// let names = realm.thaw(frozenNames)
    /// ```
    public func thaw<Element>(_ frozen: FrozenProjectedCollection<Element>) -> ProjectedCollection<Element>? {
        access.thaw(frozen)
    }

    /// The live projection results of frozen ones (same filter and sort, evaluated now).
    ///
    /// ```swift
    /// let people = realm.thaw(frozenPeople)
    /// ```
    public func thaw<P: ProjectionObservable>(_ frozen: FrozenProjectionResults<P>) -> ProjectionResults<P> where P.Root: Object {
        access.thaw(frozen)
    }
}

extension FrozenProjectionResults {
    /// Always true.
    ///
    /// ```swift
    /// let frozen = try realm.objects(PersonProjection.self).freeze()
    /// assert(frozen.isFrozen)
    /// ```
    public var isFrozen: Bool { true }

    /// The version these projections were frozen at.
    ///
    /// ```swift
    /// print(try realm.objects(PersonProjection.self).freeze().version)
    /// ```
    public var version: UInt64 { rootResults.version }

    /// Itself: frozen results are already frozen.
    ///
    /// ```swift
    /// let same = frozenPeople.freeze()
    /// ```
    public func freeze() -> FrozenProjectionResults<Element> { self }
}
