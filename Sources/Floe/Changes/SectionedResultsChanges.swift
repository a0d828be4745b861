import Foundation
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// A change of sectioned results, as Realm reports it: `.initial` first, then `.update` with
/// the index paths that changed (deletions and modifications in the previous sections,
/// insertions in the new ones, each sorted) and the sections that appeared or went. Objects in
/// a section that appeared or went are not listed again as insertions or deletions, as a table
/// view's batch updates expect.
///
/// ```swift
/// for await change in try contacts.sectioned(by: \.firstLetter).changes {
///     if case .update(let sections, let deletions, let insertions, _, let sectionsToInsert, let sectionsToDelete) = change {
///         print(sections.allKeys, deletions, insertions, sectionsToInsert, sectionsToDelete)
///     }
/// }
/// ```
public enum SectionedResultsChange<Collection: Sendable>: Sendable {
    /// The sections when observation began, as `freeze()` returns them.
    case initial(Collection)
    /// The sections after a change.
    case update(Collection, deletions: [IndexPath], insertions: [IndexPath], modifications: [IndexPath],
                sectionsToInsert: IndexSet, sectionsToDelete: IndexSet)
}

/// The changes of sectioned results, as a `Sendable` `AsyncSequence` of
/// ``SectionedResultsChange``. It follows the results the sections are made from (a slow
/// consumer gets one update per look) and ends when the task iterating it is cancelled.
///
/// ```swift
/// let stream = try await realm.read { realm in try realm.objects(Contact.self).sectioned(by: \.firstLetter).changes }
/// for await change in stream { print(change) }
/// ```
public struct SectionedResultsChanges<SectionKey: _Persistable & Hashable & Sendable, Root: Object>: AsyncSequence, ChangeStream {
    /// The sections as they are, then per commit the sections and rows that changed.
    public typealias Element = SectionedResultsChange<FrozenSectionedResults<SectionKey, Root>>
    /// Change streams never throw.
    public typealias Failure = Never

    let nextElement: @Sendable () async -> Element?
    /// This stream's identity, shared by its copies (and with the results' stream it follows).
    public let changeStreamID: ChangeStreamID

    /// An iterator over this stream's changes (iterate each stream from one task at a time).
    public func makeAsyncIterator() -> ChangeStreamIterator<Element> {
        ChangeStreamIterator(nextElement: nextElement)
    }
}

extension SectionedResults where Key: Sendable {
    /// These sections' changes: `.initial`, then an update per commit that inserts, deletes,
    /// moves or writes one of their objects, with index paths and the sections that came or went.
    ///
    /// ```swift
    /// for await change in try contacts.sectioned(by: \.firstLetter).changes { print(change) }
    /// ```
    ///
    /// - Throws: ``FloeError/closed(path:)`` when the realm's file was closed.
    public var changes: SectionedResultsChanges<Key, Element> {
        get throws { try changes(keyPaths: nil) }
    }

    /// These sections' changes, counting an object as modified only when a property that
    /// `keyPaths` names changed.
    ///
    /// ```swift
    /// for await change in try contacts.sectioned(by: \.firstLetter).changes(keyPaths: ["name"]) { print(change) }
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` naming the class and key path.
    public func changes(keyPaths: [String]?) throws -> SectionedResultsChanges<Key, Element> {
        let flat = try results.changes(keyPaths: keyPaths)
        let next = flat.withDeletedKeys.nextElement
        flat.withDeletedKeys.baseWanted.withLock { $0 = true }
        let sectioner = Sectioner(sectionKey: sectionKey, keyOrder: keyOrder)
        // With key paths, an object written in a property they do not name is not reported
        // modified, so its section key may change unseen: then every key is computed again.
        let incremental = keyPaths == nil
        let previous = Locked<Sectioner<Key, Element>.Layout?>(nil)
        return SectionedResultsChanges(nextElement: {
            guard let element = await next() else { return nil }
            if let base = element.measuredFrom {
                // A write skipped this stream: the update is measured from the state after it.
                let layout = sectioner.layout(of: base)
                previous.withLock { $0 = layout }
            }
            switch element.change {
            case .initial(let results):
                let layout = sectioner.layout(of: results)
                previous.withLock { $0 = layout }
                return .initial(layout.sections)
            case .update(let results, let deletions, let insertions, let modifications):
                guard let old = previous.withLock({ $0 }) else {
                    let layout = sectioner.layout(of: results)
                    previous.withLock { $0 = layout }
                    return .initial(layout.sections)
                }
                if !incremental {
                    let layout = sectioner.layout(of: results)
                    previous.withLock { $0 = layout }
                    return sectioner.update(from: old.sections, to: layout.sections, flat: (deletions, insertions, modifications))
                }
                let (layout, update) = sectioner.update(from: old, to: results, flat: (deletions, insertions, modifications))
                previous.withLock { $0 = layout }
                return update
            }
        }, changeStreamID: flat.changeStreamID)
    }
}

/// Turns the changes of the results under sections into changes of the sections.
struct Sectioner<Key: _Persistable & Hashable & Sendable, Element: Object>: Sendable {
    let sectionKey: SectionKeyFunction<Element, Key>
    let keyOrder: Bool?

    func sections(of results: FrozenResults<Element>) -> FrozenSectionedResults<Key, Element> {
        FrozenSectionedResults(results: results, sectionKey: sectionKey, keyOrder: keyOrder)
    }

    /// Sections with, for each object of the results in order, the index of its section.
    struct Layout: Sendable {
        let sections: FrozenSectionedResults<Key, Element>
        let flat: [Int64]
        let sectionOf: [Int32]
    }

    /// The results in sections, every object's section key computed.
    func layout(of results: FrozenResults<Element>) -> Layout {
        let flat = results.keys ?? results.map(\.key)
        var keys: [Key] = []
        var idOfKey: [Key: Int32] = [:]
        var ids: [Int32] = []
        ids.reserveCapacity(flat.count)
        for key in flat {
            let sectionKey = self.key(of: key, in: results)
            if let id = idOfKey[sectionKey] {
                ids.append(id)
            } else {
                idOfKey[sectionKey] = Int32(keys.count)
                ids.append(Int32(keys.count))
                keys.append(sectionKey)
            }
        }
        return layout(results: results, flat: flat, ids: ids, keys: keys)
    }

    private func key(of object: Int64, in results: FrozenResults<Element>) -> Key {
        sectionKey.key(of: Frozen<Element>(snapshot: results.snapshot, binding: results.binding!, key: object).makeModel())
    }

    /// The sections of `flat` whose objects' section ids are `ids` (ids index `keys`): each
    /// section's objects in the results' order, the sections in key order or in order of first
    /// appearance, as ``Sectioning`` makes them.
    private func layout(results: FrozenResults<Element>, flat: [Int64], ids: [Int32], keys: [Key]) -> Layout {
        var groups: [[Int64]] = keys.map { _ in [] }
        var first: [Int] = keys.map { _ in Int.max }
        for (position, id) in ids.enumerated() {
            if groups[Int(id)].isEmpty { first[Int(id)] = position }
            groups[Int(id)].append(flat[position])
        }
        var order = keys.indices.filter { !groups[$0].isEmpty }.sorted { first[$0] < first[$1] }
        if let ascending = keyOrder {
            let values = keys.map { $0._floeEncoded.value }
            order = order.enumerated().sorted { a, b in
                let comparison = QueryEvaluator.sortOrder(values[a.element], values[b.element])
                if comparison != 0 { return ascending ? comparison < 0 : comparison > 0 }
                return a.offset < b.offset
            }.map(\.element)
        }
        var indexOfId = [Int32](repeating: -1, count: keys.count)
        for (index, id) in order.enumerated() { indexOfId[id] = Int32(index) }
        let sectionOf = ids.map { indexOfId[Int($0)] }
        let sections = FrozenSectionedResults(results: results, sections: order.map { (keys[$0], groups[$0]) })
        return Layout(sections: sections, flat: flat, sectionOf: sectionOf)
    }

    /// The sections after the results' change `flat` (deletions and modifications at old
    /// positions, insertions at new), and the section-wise change. Section keys are computed
    /// only for the objects inserted or written; every other object keeps its section, and
    /// the objects that stayed keep their order, so each row's path comes from one pass over
    /// the objects' section indices (integers: no key is hashed or computed for them).
    func update(from old: Layout, to results: FrozenResults<Element>,
                flat change: (deletions: [Int], insertions: [Int], modifications: [Int])) -> (Layout, SectionedResultsChange<FrozenSectionedResults<Key, Element>>) {
        let flat = results.keys ?? results.map(\.key)
        // Section ids: the old sections' indices, then keys no old section has.
        var keys = old.sections.allKeys
        var idOfKey: [Key: Int32] = [:]
        for (index, key) in keys.enumerated() { idOfKey[key] = Int32(index) }
        func id(of object: Int64) -> Int32 {
            let sectionKey = key(of: object, in: results)
            if let id = idOfKey[sectionKey] { return id }
            idOfKey[sectionKey] = Int32(keys.count)
            keys.append(sectionKey)
            return Int32(keys.count - 1)
        }
        var ids: [Int32] = []
        ids.reserveCapacity(flat.count)
        var rewritten: [(old: Int, new: Int)] = []   // written objects that changed section
        var written: [Int] = []                      // old positions of written objects that kept it
        var oldPosition = 0
        var (d, i, m) = (0, 0, 0)
        for position in flat.indices {
            if i < change.insertions.count && change.insertions[i] == position {
                ids.append(id(of: flat[position]))
                i += 1
                continue
            }
            while d < change.deletions.count && change.deletions[d] == oldPosition {
                oldPosition += 1
                d += 1
            }
            while m < change.modifications.count && change.modifications[m] < oldPosition { m += 1 }
            guard oldPosition < old.sectionOf.count else { return fallback(from: old, to: results, change) }
            if m < change.modifications.count && change.modifications[m] == oldPosition {
                let now = id(of: flat[position])
                if now == old.sectionOf[oldPosition] { written.append(oldPosition) } else { rewritten.append((oldPosition, position)) }
                ids.append(now)
            } else {
                ids.append(old.sectionOf[oldPosition])
            }
            oldPosition += 1
        }
        while d < change.deletions.count && change.deletions[d] == oldPosition {
            oldPosition += 1
            d += 1
        }
        guard oldPosition == old.sectionOf.count, d == change.deletions.count, i == change.insertions.count else {
            return fallback(from: old, to: results, change)
        }
        let layout = self.layout(results: results, flat: flat, ids: ids, keys: keys)
        // Old ids are the old sections' indices: a section survives when any object has its id.
        var survives = [Bool](repeating: false, count: old.sections.count)
        for id in ids where Int(id) < survives.count { survives[Int(id)] = true }
        var sectionsToDelete = IndexSet()
        for (index, alive) in survives.enumerated() where !alive { sectionsToDelete.insert(index) }
        var sectionsToInsert = IndexSet()
        var oldIndexOfNew: [Int?] = []
        for section in layout.sections.sections {
            let id = Int(idOfKey[section.key]!)
            oldIndexOfNew.append(id < old.sections.count ? id : nil)
        }
        Self.sectionMoves(oldIndexOfNew, deleting: &sectionsToDelete, inserting: &sectionsToInsert)
        // Rows: deletions and modifications at old paths, insertions at new paths.
        var oldRows: [(position: Int, kind: Int)] = change.deletions.map { ($0, 0) } + rewritten.map { ($0.old, 0) } + written.map { ($0, 1) }
        oldRows.sort { $0.position < $1.position }
        var newRows = change.insertions + rewritten.map(\.new)
        newRows.sort()
        var deletions: [IndexPath] = [], insertions: [IndexPath] = [], modifications: [IndexPath] = []
        for (path, kind) in Self.paths(of: oldRows.map(\.position), sectionOf: old.sectionOf).enumerated().map({ ($0.element, oldRows[$0.offset].kind) })
        where !sectionsToDelete.contains(path[0]) {
            if kind == 0 { deletions.append(path) } else { modifications.append(path) }
        }
        for path in Self.paths(of: newRows, sectionOf: layout.sectionOf) where !sectionsToInsert.contains(path[0]) { insertions.append(path) }
        let update = SectionedResultsChange<FrozenSectionedResults<Key, Element>>.update(
            layout.sections, deletions: deletions.sorted(), insertions: insertions.sorted(), modifications: modifications.sorted(),
            sectionsToInsert: sectionsToInsert, sectionsToDelete: sectionsToDelete)
        return (layout, update)
    }

    /// The change computed from every object's section key (a flat change that does not fit).
    private func fallback(from old: Layout, to results: FrozenResults<Element>,
                          _ change: (deletions: [Int], insertions: [Int], modifications: [Int])) -> (Layout, SectionedResultsChange<FrozenSectionedResults<Key, Element>>) {
        let layout = self.layout(of: results)
        return (layout, update(from: old.sections, to: layout.sections, flat: change))
    }

    /// Sections gone (old indices not in `oldIndexOfNew`, the old index of each new section or
    /// nil for a new one) go in `deleting`, new ones in `inserting`; a section that survived but
    /// changed place among the others (sections in order of first appearance) is both deleted
    /// and inserted, as a table view cannot move a section within batch updates of its rows.
    static func sectionMoves(_ oldIndexOfNew: [Int?], deleting: inout IndexSet, inserting: inout IndexSet) {
        var surviving: [(new: Int, old: Int)] = []
        for (newIndex, oldIndex) in oldIndexOfNew.enumerated() {
            if let oldIndex { surviving.append((newIndex, oldIndex)) } else { inserting.insert(newIndex) }
        }
        let staying = CollectionDiff.longestIncreasingRun(surviving.map(\.old))
        for (index, pair) in surviving.enumerated() where !staying.contains(index) {
            deleting.insert(pair.old)
            inserting.insert(pair.new)
        }
    }

    /// The (section, row) path of each of `positions` (ascending) in results whose objects'
    /// sections are `sectionOf`: one pass counting each section's rows.
    private static func paths(of positions: [Int], sectionOf: [Int32]) -> [IndexPath] {
        guard !positions.isEmpty else { return [] }
        var counts = [Int](repeating: 0, count: Int(sectionOf.max() ?? 0) + 1)
        var paths: [IndexPath] = []
        paths.reserveCapacity(positions.count)
        var next = 0
        for (position, section) in sectionOf.enumerated() {
            if position == positions[next] {
                paths.append(IndexPath(indexes: [Int(section), counts[Int(section)]]))
                next += 1
                if next == positions.count { break }
            }
            counts[Int(section)] += 1
        }
        return paths
    }

    /// The section-wise change from `old` to `new`, given the flat change of the results.
    func update(from old: FrozenSectionedResults<Key, Element>, to new: FrozenSectionedResults<Key, Element>,
                flat: (deletions: [Int], insertions: [Int], modifications: [Int])) -> SectionedResultsChange<FrozenSectionedResults<Key, Element>> {
        let oldKeys = old.results.keys ?? old.results.map(\.key)
        let newKeys = new.results.keys ?? new.results.map(\.key)
        // Positions outside the states are ignored rather than trusted (the diff of the keys
        // themselves still gives every deletion and insertion).
        let modified = Set(flat.modifications.lazy.filter { oldKeys.indices.contains($0) }.map { oldKeys[$0] })
        // An object deleted and another made with its key in one commit: gone, and come.
        let replaced = Set(flat.deletions.lazy.filter { oldKeys.indices.contains($0) }.map { oldKeys[$0] })
            .intersection(flat.insertions.lazy.filter { newKeys.indices.contains($0) }.map { newKeys[$0] })
        var newSection: [Key: Int] = [:]
        for (index, section) in new.sections.enumerated() { newSection[section.key] = index }
        var oldSection: [Key: Int] = [:]
        for (index, section) in old.sections.enumerated() { oldSection[section.key] = index }
        var deletions: [IndexPath] = [], insertions: [IndexPath] = [], modifications: [IndexPath] = []
        var sectionsToDelete = IndexSet(), sectionsToInsert = IndexSet()
        Self.sectionMoves(new.sections.map { oldSection[$0.key] }, deleting: &sectionsToDelete, inserting: &sectionsToInsert)
        for (oldIndex, section) in old.sections.enumerated() {
            guard let newIndex = newSection[section.key], !sectionsToDelete.contains(oldIndex) else {
                sectionsToDelete.insert(oldIndex)
                continue
            }
            let diff = CollectionDiff.keyed(old: section.keys, new: new.sections[newIndex].keys, replaced: replaced) { modified.contains($0) }
            deletions += diff.deletions.map { IndexPath(indexes: [oldIndex, $0]) }
            insertions += diff.insertions.map { IndexPath(indexes: [newIndex, $0]) }
            modifications += diff.modifications.map { IndexPath(indexes: [oldIndex, $0]) }
        }
        return .update(new, deletions: deletions.sorted(), insertions: insertions.sorted(), modifications: modifications.sorted(),
                       sectionsToInsert: sectionsToInsert, sectionsToDelete: sectionsToDelete)
    }
}
