import Foundation
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// Results split into sections by a key computed from each object, such as contacts by the
/// first letter of their name. Live: read again, the sections show the realm's current
/// version (they are recomputed only when a commit changed it).
///
/// ```swift
/// extension Contact { var firstLetter: String { name.first.map(String.init) ?? "" } }
/// let byLetter = try realm.objects(Contact.self).sorted(byKeyPath: "name").sectioned(by: \.firstLetter)
/// for section in byLetter { print(section.key, section.map(\.name)) }   // "L" ["Larry", "Liam", "Lisa"]
/// ```
public struct SectionedResults<Key: _Persistable & Hashable, Element: Object>: RandomAccessCollection {
    let results: Results<Element>
    let sectionKey: SectionKeyFunction<Element, Key>
    /// Sections ordered by key (true: ascending, false: descending), or nil: in the order
    /// their first object appears.
    let keyOrder: Bool?
    private let cache = SectionCache<Key>()

    init(results: Results<Element>, sectionKey: @escaping (Element) -> Key, keyOrder: Bool?) {
        self.results = results
        self.sectionKey = SectionKeyFunction(sectionKey)
        self.keyOrder = keyOrder
    }

    /// The position of the first element: always 0.
    public var startIndex: Int { 0 }
    /// The number of sections: the position one past the last section.
    public var endIndex: Int { sections.count }

    /// The section at `position`.
    public subscript(position: Int) -> ResultsSection<Key, Element> {
        let all = sections
        precondition(all.indices.contains(position), "Section \(position) is out of bounds for SectionedResults<\(Key.self), \(Element.className())> of \(all.count) sections.")
        // Sections hold objects only when the class's table exists.
        let binding = (try? results.context.tableBinding(for: results.elementType)) ?? nil
        return ResultsSection(key: all[position].key, keys: all[position].keys, context: results.context, binding: binding)
    }

    /// The object at `indexPath` (its section, then its position in the section).
    public subscript(indexPath: IndexPath) -> Element {
        self[indexPath[0]][indexPath[1]]
    }

    /// Every section's key, in section order.
    public var allKeys: [Key] { sections.map(\.key) }

    /// Live sectioned results are never frozen.
    public var isFrozen: Bool { false }

    /// A frozen, `Sendable` copy of the sections at the realm's last committed version.
    ///
    /// ```swift
    /// let frozen = try byLetter.freeze()
    /// Task.detached { print(frozen.allKeys) }
    /// ```
    ///
    /// - Throws: ``FloeError`` when the realm's version cannot be read.
    public func freeze() throws -> FrozenSectionedResults<Key, Element> where Key: Sendable {
        FrozenSectionedResults(results: try results.freeze(), sectionKey: sectionKey, keyOrder: keyOrder)
    }


    /// The sections of the current version (computed again only after a change).
    private var sections: [(key: Key, keys: [Int64])] {
        let context = results.context
        do {
            let reader = try context.currentReader()
            if let cached = cache.sections(for: reader) { return cached }
            // The iterator re-points one object from row to row: no object per row.
            var grouping = Sectioning.Grouping<Key>()
            for object in results { grouping.add(object._floeBinding!.key, sectionKey.key(of: object)) }
            let sections = grouping.sections(keyOrder: keyOrder)
            cache.store(sections, for: reader)
            return sections
        } catch {
            return context.readFailed(error, reading: "SectionedResults<\(Element.className())>", placeholder: [])
        }
    }
}

/// The objects of one section of ``SectionedResults``, as they were when the section was read.
///
/// ```swift
/// let section = byLetter[0]
/// print(section.key, section.count, section[0].name)
/// ```
public struct ResultsSection<Key: _Persistable & Hashable, Element: Object>: RandomAccessCollection {
    /// The key every object of this section has.
    public let key: Key
    let keys: [Int64]
    let context: ObjectContext
    let binding: TableBinding?

    /// The position of the first element: always 0.
    public var startIndex: Int { 0 }
    /// The number of elements: the position one past the last element.
    public var endIndex: Int { keys.count }

    /// The object at `position` in the section.
    public subscript(position: Int) -> Element {
        guard let binding, keys.indices.contains(position) else {
            preconditionFailure("Index \(position) is out of bounds for the section '\(key)' of \(keys.count) objects.")
        }
        return context.materialize(Element.self, key: keys[position], binding: binding)
    }
}

/// Frozen sectioned results: the sections at one version, `Sendable` and unchanging.
///
/// ```swift
/// let frozen = try byLetter.freeze()
/// await Task.detached { print(frozen[0].key, frozen[0].map(\.name)) }.value
/// ```
public struct FrozenSectionedResults<Key: _Persistable & Hashable & Sendable, Element: Object>: RandomAccessCollection, Sendable {
    let results: FrozenResults<Element>
    let sections: [FrozenResultsSection<Key, Element>]

    init(results: FrozenResults<Element>, sections: [(key: Key, keys: [Int64])]) {
        self.results = results
        self.sections = sections.map { FrozenResultsSection(key: $0.key, keys: $0.keys, results: results) }
    }

    /// `results` in sections by `sectionKey`, computed on frozen objects.
    init(results: FrozenResults<Element>, sectionKey: SectionKeyFunction<Element, Key>, keyOrder: Bool?) {
        self.init(results: results, sections: Sectioning.sections(keys: results.keys ?? results.map(\.key), keyOrder: keyOrder) { key in
            sectionKey.key(of: Frozen<Element>(snapshot: results.snapshot, binding: results.binding!, key: key).makeModel())
        })
    }

    /// The position of the first element: always 0.
    public var startIndex: Int { 0 }
    /// The number of sections: the position one past the last section.
    public var endIndex: Int { sections.count }
    /// The section at `position`.
    public subscript(position: Int) -> FrozenResultsSection<Key, Element> { sections[position] }
    /// The object at `indexPath` (its section, then its position in the section).
    public subscript(indexPath: IndexPath) -> Frozen<Element> { sections[indexPath[0]][indexPath[1]] }
    /// Every section's key, in section order.
    public var allKeys: [Key] { sections.map(\.key) }
    /// Always true.
    public var isFrozen: Bool { true }
}

/// One section of ``FrozenSectionedResults``.
///
/// ```swift
/// let names = frozen[0].map(\.name)
/// ```
public struct FrozenResultsSection<Key: _Persistable & Hashable & Sendable, Element: Object>: RandomAccessCollection, Sendable {
    /// The key every object of this section has.
    public let key: Key
    let keys: [Int64]
    let results: FrozenResults<Element>

    /// The position of the first element: always 0.
    public var startIndex: Int { 0 }
    /// The number of elements: the position one past the last element.
    public var endIndex: Int { keys.count }
    /// The object at `position` in the section.
    public subscript(position: Int) -> Frozen<Element> {
        Frozen(snapshot: results.snapshot, binding: results.binding!, key: keys[position])
    }
}

enum Sectioning {
    static func sections<Key: _Persistable & Hashable>(keys: [Int64], keyOrder: Bool?, sectionKey: (Int64) -> Key) -> [(key: Key, keys: [Int64])] {
        group(keys: keys, sectionKeys: keys.map(sectionKey), keyOrder: keyOrder)
    }

    /// Objects grouped by key, each group in the objects' order; groups in key order or in
    /// order of first appearance.
    static func group<Key: _Persistable & Hashable>(keys: [Int64], sectionKeys: [Key], keyOrder: Bool?) -> [(key: Key, keys: [Int64])] {
        var grouping = Grouping<Key>()
        for (key, sectionKey) in zip(keys, sectionKeys) { grouping.add(key, sectionKey) }
        return grouping.sections(keyOrder: keyOrder)
    }

    /// Objects gathered into sections as they come.
    struct Grouping<Key: _Persistable & Hashable> {
        private var sections: [(key: Key, keys: [Int64])] = []
        private var indexOfKey: [Key: Int] = [:]
        /// String keys (the common case: first letters) are looked up in a dictionary of
        /// strings, hashed and compared by code made for strings rather than through `Key`'s
        /// generic conformance.
        private var indexOfString: [String: Int] = [:]
        private let keysAreStrings = Key.self == String.self
        /// The section the previous object went to: runs of equal keys skip the hash lookup.
        private var last = -1

        mutating func add(_ key: Int64, _ sectionKey: Key) {
            if keysAreStrings {
                // `Key` is `String`: the cast reinterprets a value of the same type.
                addString(key, unsafeBitCast(sectionKey, to: String.self), sectionKey)
                return
            }
            if last >= 0, sections[last].key == sectionKey {
                sections[last].keys.append(key)
            } else if let index = indexOfKey[sectionKey] {
                sections[index].keys.append(key)
                last = index
            } else {
                indexOfKey[sectionKey] = sections.count
                last = sections.count
                sections.append((sectionKey, [key]))
            }
        }

        private mutating func addString(_ key: Int64, _ string: String, _ sectionKey: Key) {
            if let index = indexOfString[string] {
                sections[index].keys.append(key)
            } else {
                indexOfString[string] = sections.count
                sections.append((sectionKey, [key]))
            }
        }

        func sections(keyOrder: Bool?) -> [(key: Key, keys: [Int64])] {
            Sectioning.ordered(sections, keyOrder: keyOrder)
        }
    }

    static func ordered<Key: _Persistable & Hashable>(_ sections: [(key: Key, keys: [Int64])], keyOrder: Bool?) -> [(key: Key, keys: [Int64])] {
        guard let ascending = keyOrder else { return sections }
        let values = sections.map { $0.key._floeEncoded.value }
        let order = sections.indices.sorted { first, second in
            let comparison = QueryEvaluator.sortOrder(values[first], values[second])
            if comparison != 0 { return ascending ? comparison < 0 : comparison > 0 }
            return first < second
        }
        return order.map { sections[$0] }
    }
}

/// The sections of the version last computed.
final class SectionCache<Key: Hashable> {
    private var sections: [(key: Key, keys: [Int64])]?
    private var group: GroupNode?
    private var mutationCount = 0

    func sections(for reader: any VersionReading) -> [(key: Key, keys: [Int64])]? {
        guard let sections, group === reader.group, mutationCount == reader.mutationCount else { return nil }
        return sections
    }

    func store(_ sections: [(key: Key, keys: [Int64])], for reader: any VersionReading) {
        self.sections = sections
        group = reader.group
        mutationCount = reader.mutationCount
    }
}

extension Results {
    /// These objects in sections by the key a key path reads (a persisted or a computed
    /// property), sections in key order; within a section, objects keep these results' order.
    ///
    /// ```swift
    /// let byLetter = try realm.objects(Contact.self).sorted(byKeyPath: "name").sectioned(by: \.firstLetter)
    /// ```
    ///
    /// - Throws: ``FloeError`` when the realm's version cannot be read.
    public func sectioned<Key: _Persistable & Hashable>(by keyPath: KeyPath<Element, Key>, ascending: Bool = true) throws -> SectionedResults<Key, Element> {
        _ = try context.tableBinding(for: elementType)
        return SectionedResults(results: self, sectionKey: { $0[keyPath: keyPath] }, keyOrder: ascending)
    }

    /// These objects sorted by `sortDescriptors`, then in sections by the key `block`
    /// computes, sections in the order their first object appears (sort by what the key
    /// derives from so that each key forms one run).
    ///
    /// ```swift
    /// let byLetter = try contacts.sectioned(by: { String($0.name.prefix(1)) }, sortDescriptors: ["name"])
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` for a sort key path
    ///   the class does not have.
    public func sectioned<Key: _Persistable & Hashable>(by block: @escaping (Element) -> Key,
                                                         sortDescriptors: [SortDescriptor]) throws -> SectionedResults<Key, Element> {
        let sorted = sortDescriptors.isEmpty ? self : try self.sorted(by: sortDescriptors)
        return SectionedResults(results: sorted, sectionKey: block, keyOrder: nil)
    }

    /// These objects sorted by `sortDescriptors`, then in sections by the key a key path
    /// reads, sections in the order their first object appears.
    ///
    /// ```swift
    /// let byAge = try dogs.sectioned(by: \.age, sortDescriptors: [Floe.SortDescriptor(keyPath: "age", ascending: false)])
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` for a sort key path
    ///   the class does not have.
    public func sectioned<Key: _Persistable & Hashable>(by keyPath: KeyPath<Element, Key>,
                                                         sortDescriptors: [SortDescriptor]) throws -> SectionedResults<Key, Element> {
        try sectioned(by: { $0[keyPath: keyPath] }, sortDescriptors: sortDescriptors)
    }
}

extension _ObjectResultsConvertible {
    /// The collection's objects in sections by the key a key path reads, sections in key
    /// order; within a section, objects keep the collection's order.
    ///
    /// ```swift
    /// let dogsByAge = try person.dogs.sectioned(by: \.age)
    /// ```
    ///
    /// - Throws: ``FloeError/invalidOperation(className:detail:)`` for an unmanaged collection.
    public func sectioned<Key: _Persistable & Hashable>(by keyPath: KeyPath<_QueriedObject, Key>, ascending: Bool = true) throws -> SectionedResults<Key, _QueriedObject> {
        try _objectResults().sectioned(by: keyPath, ascending: ascending)
    }

    /// The collection's objects sorted by `sortDescriptors`, then in sections by the key
    /// `block` computes, in the order their first object appears.
    ///
    /// ```swift
    /// let byLetter = try person.dogs.sectioned(by: { String($0.name.prefix(1)) }, sortDescriptors: ["name"])
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` for a sort key path
    ///   the class does not have; ``FloeError/invalidOperation(className:detail:)`` for an
    ///   unmanaged collection.
    public func sectioned<Key: _Persistable & Hashable>(by block: @escaping (_QueriedObject) -> Key,
                                                         sortDescriptors: [SortDescriptor]) throws -> SectionedResults<Key, _QueriedObject> {
        try _objectResults().sectioned(by: block, sortDescriptors: sortDescriptors)
    }
}

/// The function that gives an object its section's key. It is called on the realm's actor for
/// live sections and, for change streams, on frozen objects from the task that iterates the
/// stream, as Realm computes sections on a background thread: the key should depend on the
/// object alone.
struct SectionKeyFunction<Element: Object, Key>: @unchecked Sendable {
    // @unchecked: a section key is computed from one object's properties (a key path, or a
    // block such as `{ $0.name.prefix(1) }`); Floe calls it only with objects of one version.
    private let function: (Element) -> Key

    init(_ function: @escaping (Element) -> Key) {
        self.function = function
    }

    func key(of object: Element) -> Key { function(object) }
}
