@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// Collection mapping: `\Person.friends.projectTo.firstName` reads one property of each object of
// a list or set, as a collection of its values.

/// The objects of a list or set, seen through one of their properties: `projectTo` starts a key
/// path that ends at a ``ProjectedCollection``.
///
/// ```swift
/// @Projected(\Person.friends.projectTo.firstName) var friendsFirstNames: ProjectedCollection<String>
/// ```
@dynamicMemberLookup
public struct ElementMapper<Element: ObjectBase> {
    let count: () -> Int
    let element: (Int) -> Element
    /// The list or set itself, for freezing, thawing and what it answers about its realm.
    var source: ProjectedElementsSource<Element>? = nil

    /// The values of `member` of each object, in the collection's order.
    ///
    /// ```swift
    /// let names: ProjectedCollection<String> = person.friends.projectTo.firstName
    /// ```
    public subscript<V>(dynamicMember member: KeyPath<Element, V>) -> ProjectedCollection<V> {
        let count = self.count
        let element = self.element
        return ProjectedCollection(count: count, element: { element($0)[keyPath: member] },
                                   elementPath: { KeyPathProbe.path(of: member, for: .projection) },
                                   backing: source.map { source in { ProjectedCollectionBacking(mapping: member, of: element, source: source) } })
    }
}

/// One property of each object of a list or set, live: it reads the collection every time (a
/// friend appended to the list shows at once). Assigning an element inside a write assigns that
/// object's property.
///
/// ```swift
/// for name in projection.friendsFirstNames { print(name) }
/// print(projection.friendsFirstNames.count)
/// try await realm.write { realm in realm.objects(PersonProjection.self)[0].friendsFirstNames[0] = "Bee" }
/// ```
public struct ProjectedCollection<Element>: RandomAccessCollection, CustomStringConvertible {
    let countOfElements: () -> Int
    let element: (Int) -> Element
    /// The element class's property the values come from, for queries and observation.
    let elementPath: () -> Result<PropertyPath, FloeError>
    /// Writes, freezing and what the mapped collection answers, made when asked for (nil:
    /// nothing to ask).
    let makeBacking: (() -> ProjectedCollectionBacking<Element>)?

    init(count: @escaping () -> Int, element: @escaping (Int) -> Element, elementPath: @escaping () -> Result<PropertyPath, FloeError>,
         backing: (() -> ProjectedCollectionBacking<Element>)? = nil) {
        countOfElements = count
        self.element = element
        self.elementPath = elementPath
        makeBacking = backing
    }

    /// 0.
    public var startIndex: Int { 0 }
    /// The number of objects in the list or set.
    public var endIndex: Int { countOfElements() }

    /// The value of the object at `position`; assigning it (inside a write) assigns that
    /// object's property.
    ///
    /// ```swift
    /// try await realm.write { realm in realm.objects(PersonProjection.self)[0].friendsFirstNames[0] = "Bee" }
    /// ```
    public subscript(position: Int) -> Element {
        get { element(position) }
        nonmutating set { makeBacking?().write(position, newValue) }
    }

    /// The values, one a line: `ProjectedCollection<String> {\n\t[0] Bee\n}`.
    public var description: String {
        "ProjectedCollection<\(Element.self)> {\n" + enumerated().map { "\t[\($0.offset)] \($0.element)\n" }.joined() + "}"
    }
}

extension List where Element: ObjectBase {
    /// The list's objects seen through one of their properties, for a class projection's
    /// collection mapping.
    ///
    /// ```swift
    /// @Projected(\Person.friends.projectTo.firstName) var friendsFirstNames: ProjectedCollection<String>
    /// ```
    public var projectTo: ElementMapper<Element> {
        ElementMapper(count: { self.count }, element: { self[$0] }, source: .list(self))
    }
}

extension MutableSet where Element: ObjectBase {
    /// The set's objects seen through one of their properties, for a class projection's
    /// collection mapping.
    ///
    /// ```swift
    /// @Projected(\Person.clubs.projectTo.name) var clubNames: ProjectedCollection<String>
    /// ```
    public var projectTo: ElementMapper<Element> {
        ElementMapper(count: { self.count }, element: { self[self.index(self.startIndex, offsetBy: $0)] }, source: .set(self))
    }
}

extension ProjectedCollection: ElementPathCarrying {
    /// The elements' property the key-path probe adds after the mapped collection's path.
    func mappedElementPath() -> Result<PropertyPath, FloeError> { elementPath() }
}
