import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

// The laws every Floe collection keeps, checked once for all (as swift-collections'
// `_CollectionsTestSupport` checks its own): a test builds a collection, says which elements
// it must hold, and hands both to one of these. Each law that breaks is recorded as an issue
// at the caller's line, naming the law. A managed collection's frozen forms are checked
// too, unless `freezing` is false: inside a write, `freeze()` captures the last commit, not
// the write's own changes.

/// A collection that says whether it is a frozen view (every Floe collection does).
protocol FrozenStateReporting {
    var isFrozen: Bool { get }
}

extension List: FrozenStateReporting {}
extension MutableSet: FrozenStateReporting {}
extension Map: FrozenStateReporting {}
extension LinkingObjects: FrozenStateReporting {}
extension Results: FrozenStateReporting {}
extension FrozenResults: FrozenStateReporting {}
extension FrozenList: FrozenStateReporting {}
extension FrozenSet: FrozenStateReporting {}
extension FrozenMap: FrozenStateReporting {}
extension AnyRealmCollection: FrozenStateReporting {}
extension FrozenAnyRealmCollection: FrozenStateReporting {}
extension MapValues: FrozenStateReporting {}

/// Checks the laws of a random-access collection against the elements it must hold, each
/// element seen through `key` (an object's primary key, say; a value itself).
///
/// - count, `isEmpty` and `underestimatedCount` agree with the elements;
/// - iterating twice gives the same elements (the collection is multi-pass);
/// - walking `index(after:)` from `startIndex` reaches `endIndex` in `count` steps, and the
///   subscript at each step answers what iteration answered there; `indices`,
///   `index(_:offsetBy:)`, `distance(from:to:)` and a walk back with `index(before:)` agree;
/// - `first`, `last`, `reversed()`, `map`, `prefix`, `dropFirst` and `firstIndex(where:)`
///   agree with iteration;
/// - the elements are `expected`, in that order when `ordered` (else as a multiset);
/// - `isFrozen` is as given, when given.
func checkCollectionLaws<C: RandomAccessCollection, Key: Equatable>(
    _ collection: C, expected: [Key], ordered: Bool = true, isFrozen: Bool? = nil,
    by key: (C.Element) -> Key, sourceLocation: SourceLocation = #_sourceLocation
) {
    func law(_ holds: Bool, _ name: String) {
        if !holds { Issue.record("collection law broken: \(name)", sourceLocation: sourceLocation) }
    }
    let count = collection.count
    law(count == expected.count, "count is \(count), expected \(expected.count)")
    law(collection.isEmpty == expected.isEmpty, "isEmpty is \(collection.isEmpty)")
    law(collection.underestimatedCount <= count, "underestimatedCount \(collection.underestimatedCount) exceeds count \(count)")

    var iterated: [Key] = []
    for element in collection { iterated.append(key(element)) }
    var again: [Key] = []
    for element in collection { again.append(key(element)) }
    law(iterated.count == count, "iteration gave \(iterated.count) elements, count is \(count)")
    law(again == iterated, "a second iteration gave other elements")

    var walked: [C.Index] = []
    var index = collection.startIndex
    while index != collection.endIndex && walked.count <= count {
        walked.append(index)
        index = collection.index(after: index)
    }
    law(walked.count == count, "index(after:) reached endIndex in \(walked.count) steps, count is \(count)")
    law(walked.map { key(collection[$0]) } == iterated, "the subscript disagrees with iteration")
    law(Array(collection.indices) == walked, "indices disagree with the index(after:) walk")
    law(collection.distance(from: collection.startIndex, to: collection.endIndex) == count, "distance(startIndex, endIndex) is not count")
    law(walked.indices.allSatisfy { collection.index(collection.startIndex, offsetBy: $0) == walked[$0] },
        "index(_:offsetBy:) disagrees with the walk")
    var back: [C.Index] = []
    index = collection.endIndex
    while index != collection.startIndex && back.count <= count {
        index = collection.index(before: index)
        back.append(index)
    }
    law(back == walked.reversed(), "index(before:) does not walk the same positions back")

    law(collection.first.map(key) == iterated.first, "first disagrees with iteration")
    law(collection.last.map(key) == iterated.last, "last disagrees with iteration")
    law(collection.reversed().map(key) == iterated.reversed(), "reversed() disagrees with iteration")
    law(collection.map(key) == iterated, "map disagrees with iteration")
    let half = count / 2
    law(collection.prefix(half).map(key) == Array(iterated.prefix(half)), "prefix(\(half)) disagrees with iteration")
    law(collection.dropFirst(half).map(key) == Array(iterated.dropFirst(half)), "dropFirst(\(half)) disagrees with iteration")
    for (offset, element) in iterated.enumerated() {
        let found = collection.firstIndex { key($0) == element }
        let firstOffset = iterated.firstIndex(of: element)!
        law(found == walked[firstOffset], "firstIndex(where:) of the element at offset \(offset) is not its first position")
    }

    if ordered {
        law(iterated == expected, "the elements are \(iterated), expected \(expected)")
    } else {
        law(isPermutation(iterated, of: expected), "the elements are \(iterated), expected \(expected) in any order")
    }
    if let isFrozen {
        let reported = (collection as? any FrozenStateReporting)?.isFrozen
        law(reported == isFrozen, "isFrozen is \(reported.map(String.init(describing:)) ?? "not reported"), expected \(isFrozen)")
    }
}

/// The laws for a collection of `Equatable` values, each compared as itself.
func checkCollectionLaws<C: RandomAccessCollection>(
    _ collection: C, expected: [C.Element], ordered: Bool = true, isFrozen: Bool? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) where C.Element: Equatable {
    checkCollectionLaws(collection, expected: expected, ordered: ordered, isFrozen: isFrozen, by: { $0 }, sourceLocation: sourceLocation)
    for element in expected where !collection.contains(element) {
        Issue.record("collection law broken: contains(\(element)) is false", sourceLocation: sourceLocation)
    }
}

/// The laws of a list: those of a collection, `index(of:)` answering each element's first
/// position, and (for a managed list) the same laws for its `freeze()` and for the list
/// behind `AnyRealmCollection`.
func checkListLaws<Element: _Persistable & Equatable>(
    _ list: List<Element>, expected: [Element], freezing: Bool = true, sourceLocation: SourceLocation = #_sourceLocation
) throws {
    checkCollectionLaws(list, expected: expected, isFrozen: false, sourceLocation: sourceLocation)
    for element in expected where list.index(of: element) != expected.firstIndex(of: element) {
        Issue.record("collection law broken: index(of: \(element)) is not its first position", sourceLocation: sourceLocation)
    }
    checkCollectionLaws(AnyRealmCollection(list), expected: expected, isFrozen: false, sourceLocation: sourceLocation)
    guard freezing, list.realm != nil else { return }
    checkCollectionLaws(try list.freeze(), expected: expected, isFrozen: true, sourceLocation: sourceLocation)
    checkCollectionLaws(try AnyRealmCollection(list).freeze(), expected: expected, isFrozen: true, sourceLocation: sourceLocation)
}

/// The laws of a list of objects, each seen through `key`, and of its frozen forms.
func checkListLaws<Element: Object, Key: Equatable>(
    _ list: List<Element>, expected: [Key], by key: KeyPath<Element, Key>, freezing: Bool = true, sourceLocation: SourceLocation = #_sourceLocation
) throws {
    checkCollectionLaws(list, expected: expected, isFrozen: false, by: { $0[keyPath: key] }, sourceLocation: sourceLocation)
    for (offset, element) in list.enumerated() where list.index(of: element) != expected.firstIndex(of: element[keyPath: key]) {
        Issue.record("collection law broken: index(of:) of the object at \(offset) is not its first position", sourceLocation: sourceLocation)
    }
    checkCollectionLaws(AnyRealmCollection(list), expected: expected, isFrozen: false, by: { $0[keyPath: key] }, sourceLocation: sourceLocation)
    guard freezing, list.realm != nil else { return }
    checkCollectionLaws(try list.freeze(), expected: expected, isFrozen: true, by: { $0[keyPath: key] }, sourceLocation: sourceLocation)
}

/// The laws of a set: those of a collection in any order (a set keeps its own), `contains`
/// true for each element and false for each of `absent`, and the same for its `freeze()`.
func checkSetLaws<Element: _Persistable & Equatable>(
    _ set: MutableSet<Element>, expected: [Element], absent: [Element] = [], freezing: Bool = true, sourceLocation: SourceLocation = #_sourceLocation
) throws {
    checkCollectionLaws(set, expected: expected, ordered: false, isFrozen: false, sourceLocation: sourceLocation)
    for element in absent where set.contains(element) {
        Issue.record("collection law broken: contains(\(element)) is true for an absent element", sourceLocation: sourceLocation)
    }
    checkCollectionLaws(AnyRealmCollection(set), expected: expected, ordered: false, isFrozen: false, sourceLocation: sourceLocation)
    guard freezing, set.realm != nil else { return }
    let frozen = try set.freeze()
    checkCollectionLaws(frozen, expected: expected, ordered: false, isFrozen: true, sourceLocation: sourceLocation)
    law(Array(frozen) == Array(set), "a frozen set keeps another order than the set", sourceLocation)
    for element in expected where !frozen.contains(element) {
        Issue.record("collection law broken: a frozen set's contains(\(element)) is false", sourceLocation: sourceLocation)
    }
    for element in absent where frozen.contains(element) {
        Issue.record("collection law broken: a frozen set's contains(\(element)) is true for an absent element", sourceLocation: sourceLocation)
    }
}

/// The laws of a set of objects, each seen through `key`, and of its frozen form.
func checkSetLaws<Element: Object, Key: Equatable>(
    _ set: MutableSet<Element>, expected: [Key], by key: KeyPath<Element, Key>, freezing: Bool = true, sourceLocation: SourceLocation = #_sourceLocation
) throws {
    checkCollectionLaws(set, expected: expected, ordered: false, isFrozen: false, by: { $0[keyPath: key] }, sourceLocation: sourceLocation)
    for element in set where !set.contains(element) {
        Issue.record("collection law broken: contains is false for an element the set iterates", sourceLocation: sourceLocation)
    }
    guard freezing, set.realm != nil else { return }
    checkCollectionLaws(try set.freeze(), expected: expected, ordered: false, isFrozen: true, by: { $0[keyPath: key] }, sourceLocation: sourceLocation)
}

/// The laws of a map: iteration gives its entries in key order, `keys` and `values` agree
/// with iteration (and `values` keeps the collection laws), the subscript answers each
/// entry's value and nil for each of `absent`, the entries are `expected`, and the same for
/// its `freeze()`.
func checkMapLaws<Value: _Persistable & Equatable>(
    _ map: Map<String, Value>, expected: [String: Value], absent: [String] = [], freezing: Bool = true, sourceLocation: SourceLocation = #_sourceLocation
) throws {
    checkMapLaws(count: map.count, entries: Array(map), keys: map.keys, values: map.values, isFrozen: map.isFrozen, lookup: { map[$0] },
                 expected: expected, absent: absent, frozen: false, sourceLocation: sourceLocation)
    guard freezing, map.realm != nil else { return }
    let frozen = try map.freeze()
    checkMapLaws(count: frozen.count, entries: Array(frozen), keys: frozen.keys, values: frozen.values, isFrozen: frozen.isFrozen,
                 lookup: { frozen[$0] }, expected: expected, absent: absent, frozen: true, sourceLocation: sourceLocation)
}

private func checkMapLaws<Value: _Persistable & Equatable>(
    count: Int, entries: [(key: String, value: Value)], keys: [String], values: MapValues<Value>, isFrozen: Bool,
    lookup: (String) -> Value?, expected: [String: Value], absent: [String], frozen: Bool, sourceLocation: SourceLocation
) {
    let form = frozen ? "a frozen map's" : "a map's"
    let expectedKeys = expected.keys.sorted()
    law(count == expected.count, "\(form) count is \(count), expected \(expected.count)", sourceLocation)
    law(entries.map(\.key) == expectedKeys, "\(form) entries' keys are \(entries.map(\.key)), expected \(expectedKeys) in order", sourceLocation)
    law(entries.allSatisfy { expected[$0.key] == $0.value }, "\(form) entries' values are not the expected ones", sourceLocation)
    law(keys == entries.map(\.key), "\(form) keys disagree with iteration", sourceLocation)
    law(isFrozen == frozen, "\(form) isFrozen is \(isFrozen)", sourceLocation)
    checkCollectionLaws(values, expected: entries.map(\.value), isFrozen: frozen, sourceLocation: sourceLocation)
    for key in expectedKeys where lookup(key) != expected[key] {
        Issue.record("collection law broken: \(form) subscript[\(key)] is not the entry's value", sourceLocation: sourceLocation)
    }
    for key in absent where lookup(key) != nil {
        Issue.record("collection law broken: \(form) subscript[\(key)] is not nil for an absent key", sourceLocation: sourceLocation)
    }
}

/// The laws of results, each object seen through `key`: those of a collection in the
/// results' order, `index(of:)` answering each object's position, and the same for the
/// results behind `AnyRealmCollection` and for their `freeze()` (whose elements are frozen
/// objects, read through the same key path).
func checkResultsLaws<Element: Object, Key: Equatable>(
    _ results: Results<Element>, expected: [Key], by key: KeyPath<Element, Key>, freezing: Bool = true, sourceLocation: SourceLocation = #_sourceLocation
) throws {
    checkCollectionLaws(results, expected: expected, isFrozen: false, by: { $0[keyPath: key] }, sourceLocation: sourceLocation)
    let objects = Array(results)
    for (offset, object) in objects.enumerated() where results.index(of: object) != expected.firstIndex(of: object[keyPath: key]) {
        Issue.record("collection law broken: index(of:) of the object at \(offset) is not its position", sourceLocation: sourceLocation)
    }
    checkCollectionLaws(AnyRealmCollection(results), expected: expected, isFrozen: false, by: { $0[keyPath: key] }, sourceLocation: sourceLocation)
    guard freezing else { return }
    let frozen = try results.freeze()
    checkCollectionLaws(frozen, expected: expected, isFrozen: true, by: { $0[dynamicMember: key] }, sourceLocation: sourceLocation)
    checkCollectionLaws(try AnyRealmCollection(results).freeze(), expected: expected, isFrozen: true, by: { $0[keyPath: key] },
                        sourceLocation: sourceLocation)
}

/// The laws of linking objects, each seen through `key` (in the order the engine keeps,
/// compared as a multiset), and of their `freeze()`.
func checkLinkingObjectsLaws<Element: ObjectBase, Key: Equatable>(
    _ linking: LinkingObjects<Element>, expected: [Key], by key: KeyPath<Element, Key>, freezing: Bool = true, sourceLocation: SourceLocation = #_sourceLocation
) throws {
    checkCollectionLaws(linking, expected: expected, ordered: false, by: { $0[keyPath: key] }, sourceLocation: sourceLocation)
    checkCollectionLaws(AnyRealmCollection(linking), expected: expected, ordered: false, by: { $0[keyPath: key] }, sourceLocation: sourceLocation)
    guard freezing, linking.realm != nil else { return }
    let frozen = try linking.freeze()
    checkCollectionLaws(frozen, expected: linking.map { $0[keyPath: key] }, by: { $0[dynamicMember: key] }, sourceLocation: sourceLocation)
}

private func law(_ holds: Bool, _ name: String, _ sourceLocation: SourceLocation) {
    if !holds { Issue.record("collection law broken: \(name)", sourceLocation: sourceLocation) }
}

/// Whether `a` holds the same elements as `b`, as many times each, in any order.
private func isPermutation<T: Equatable>(_ a: [T], of b: [T]) -> Bool {
    guard a.count == b.count else { return false }
    var rest = b
    for element in a {
        guard let found = rest.firstIndex(of: element) else { return false }
        rest.remove(at: found)
    }
    return true
}
