import Foundation

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
        let sectioner = Sectioner(sectionKey: sectionKey, keyOrder: keyOrder)
        let previous = Locked<FrozenSectionedResults<Key, Element>?>(nil)
        return SectionedResultsChanges(nextElement: {
            guard let change = await next()?.change else { return nil }
            switch change {
            case .initial(let results):
                let sections = sectioner.sections(of: results)
                previous.withLock { $0 = sections }
                return .initial(sections)
            case .update(let results, let deletions, let insertions, let modifications):
                let sections = sectioner.sections(of: results)
                guard let old = previous.withLock({ state in defer { state = sections }; return state }) else { return .initial(sections) }
                return sectioner.update(from: old, to: sections, flat: (deletions, insertions, modifications))
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

    /// The section-wise change from `old` to `new`, given the flat change of the results.
    func update(from old: FrozenSectionedResults<Key, Element>, to new: FrozenSectionedResults<Key, Element>,
                flat: (deletions: [Int], insertions: [Int], modifications: [Int])) -> SectionedResultsChange<FrozenSectionedResults<Key, Element>> {
        let oldKeys = old.results.keys ?? old.results.map(\.key)
        let newKeys = new.results.keys ?? new.results.map(\.key)
        let modified = Set(flat.modifications.map { oldKeys[$0] })
        // An object deleted and another made with its key in one commit: gone, and come.
        let replaced = Set(flat.deletions.map { oldKeys[$0] }).intersection(flat.insertions.map { newKeys[$0] })
        var newSection: [Key: Int] = [:]
        for (index, section) in new.sections.enumerated() { newSection[section.key] = index }
        var oldSection: [Key: Int] = [:]
        for (index, section) in old.sections.enumerated() { oldSection[section.key] = index }
        var deletions: [IndexPath] = [], insertions: [IndexPath] = [], modifications: [IndexPath] = []
        var sectionsToDelete = IndexSet(), sectionsToInsert = IndexSet()
        for (oldIndex, section) in old.sections.enumerated() {
            guard let newIndex = newSection[section.key] else {
                sectionsToDelete.insert(oldIndex)
                continue
            }
            let diff = CollectionDiff.keyed(old: section.keys, new: new.sections[newIndex].keys, replaced: replaced) { modified.contains($0) }
            deletions += diff.deletions.map { IndexPath(indexes: [oldIndex, $0]) }
            insertions += diff.insertions.map { IndexPath(indexes: [newIndex, $0]) }
            modifications += diff.modifications.map { IndexPath(indexes: [oldIndex, $0]) }
        }
        for (newIndex, section) in new.sections.enumerated() where oldSection[section.key] == nil {
            sectionsToInsert.insert(newIndex)
        }
        return .update(new, deletions: deletions.sorted(), insertions: insertions.sorted(), modifications: modifications.sorted(),
                       sectionsToInsert: sectionsToInsert, sectionsToDelete: sectionsToDelete)
    }
}
