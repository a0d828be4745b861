import Foundation
import Testing
@testable import Floe

/// Change streams of sectioned results: after random writes (new contacts, deletions, renames
/// that move a contact to another section, writes that change nothing visible), each update
/// applied to the previous sections — rows deleted, sections deleted, sections inserted, rows
/// inserted — gives the new sections, and modifications name rows written in place.
@Suite struct SectionedResultsChangeTests {
    typealias Contact = SectionedResultsTests.Contact

    /// The sections as keys and object keys.
    static func layout(_ sections: FrozenSectionedResults<String, Contact>) -> [(key: String, ids: [Int])] {
        sections.map { section in (section.key, section.map(\.id)) }
    }

    @Test func updatesTurnTheOldSectionsIntoTheNew() async throws {
        let realm = try await SectionedResultsTests.makeRealm(count: 40)
        let stream = try await realm.read { realm in try realm.objects(Contact.self).sorted(byKeyPath: "name").sectioned(by: \.firstLetter).changes }
        let writes = 40
        let consumer = Task { () -> [String] in
            var problems: [String] = []
            var previous: [(key: String, ids: [Int])] = []
            var updates = 0
            for await change in stream {
                switch change {
                case .initial(let sections):
                    previous = Self.layout(sections)
                case .update(let sections, let deletions, let insertions, let modifications, let sectionsToInsert, let sectionsToDelete):
                    updates += 1
                    let new = Self.layout(sections)
                    var state = previous
                    for path in modifications where !(state.indices.contains(path[0]) && state[path[0]].ids.indices.contains(path[1])) {
                        problems.append("modification \(path) outside the old sections")
                    }
                    for path in deletions.reversed() { state[path[0]].ids.remove(at: path[1]) }
                    for section in sectionsToDelete.reversed() { state.remove(at: section) }
                    for section in sectionsToInsert { state.insert((new[section].key, new[section].ids), at: section) }
                    for path in insertions { state[path[0]].ids.insert(new[path[0]].ids[path[1]], at: path[1]) }
                    if state.map(\.key) != new.map(\.key) || state.map(\.ids) != new.map(\.ids) {
                        problems.append("update \(updates): applying it gave \(state) instead of \(new)")
                    }
                    for path in insertions where sectionsToInsert.contains(path[0]) { problems.append("row \(path) listed in an inserted section") }
                    for path in deletions where sectionsToDelete.contains(path[0]) { problems.append("row \(path) listed in a deleted section") }
                    previous = new
                }
                if updates == writes { break }
            }
            return problems
        }
        var random = SeededGenerator(seed: 23)
        for step in 0..<writes {
            let choice = Int.random(in: 0..<4, using: &random)
            let name = SectionedResultsTests.names.randomElement(using: &random)!
            let pick = Int.random(in: 0..<1_000, using: &random)
            try await realm.asyncWrite { realm in
                let contacts = realm.objects(Contact.self)
                switch choice {
                case 0: try realm.create(Contact.self, value: ["id": 1_000 + step, "name": name])
                case 1 where !contacts.isEmpty: try realm.delete(contacts[pick % contacts.count])
                case 2 where !contacts.isEmpty: contacts[pick % contacts.count].name = name           // may change section
                default: if !contacts.isEmpty { contacts[pick % contacts.count].age += 1 }            // a modification in place
                }
            }
            // One update per write: let the consumer see each commit on its own.
            try await Task.sleep(for: .milliseconds(5))
        }
        let finished = Task { try await Task.sleep(for: .seconds(20)); consumer.cancel() }
        let problems = await consumer.value
        finished.cancel()
        #expect(problems.isEmpty, "\(problems.prefix(5))")
    }

    @Test func aRenameMovesAContactBetweenSectionsAndEmptiedSectionsGo() async throws {
        let realm = try await Realm(configuration: Realm.Configuration(inMemoryIdentifier: "sections-\(UUID())"))
        try await realm.asyncWrite { realm in
            for (id, name) in ["Ada", "Bo", "Ben"].enumerated() { try realm.create(Contact.self, value: ["id": id, "name": name]) }
        }
        let stream = try await realm.read { realm in try realm.objects(Contact.self).sectioned(by: \.firstLetter, ascending: true).changes }
        var iterator = stream.makeAsyncIterator()
        guard case .initial(let first)? = await iterator.next() else { Issue.record("no initial sections"); return }
        #expect(first.allKeys == ["A", "B"])
        try await realm.asyncWrite { realm in realm.object(ofType: Contact.self, forPrimaryKey: 0)!.name = "Cy" }   // A empties, C appears
        guard case .update(let sections, let deletions, let insertions, let modifications, let sectionsToInsert, let sectionsToDelete)? = await iterator.next() else {
            Issue.record("no update"); return
        }
        #expect(sections.allKeys == ["B", "C"])
        #expect(sectionsToDelete == IndexSet([0]) && sectionsToInsert == IndexSet([1]))
        #expect(deletions.isEmpty && insertions.isEmpty && modifications.isEmpty)
        try await realm.asyncWrite { realm in realm.object(ofType: Contact.self, forPrimaryKey: 2)!.age = 7 }        // Ben, in place
        guard case .update(_, let deletions2, let insertions2, let modifications2, let inserted2, let deleted2)? = await iterator.next() else {
            Issue.record("no second update"); return
        }
        #expect(modifications2 == [IndexPath(indexes: [0, 1])] && deletions2.isEmpty && insertions2.isEmpty && inserted2.isEmpty && deleted2.isEmpty)
    }
}
