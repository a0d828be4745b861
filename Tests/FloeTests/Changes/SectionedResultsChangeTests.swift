import Foundation
import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

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
        let realm = try await inMemoryRealm("sections")
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

    /// The sections' streams under test: by key path in ascending and descending key order
    /// (moving in name order), in order of first appearance (moving in age order), and with
    /// key paths (every section key computed again).
    static let streams: [@Sendable (borrowing Realm.ReadTransaction) throws -> SectionedResultsChanges<String, Contact>] = [
        { try $0.objects(Contact.self).sorted(byKeyPath: "name").sectioned(by: \.firstLetter).changes },
        { try $0.objects(Contact.self).sectioned(by: \.firstLetter, ascending: false).changes },
        { try $0.objects(Contact.self).sectioned(by: { $0.firstLetter }, sortDescriptors: [Floe.SortDescriptor(keyPath: "age", ascending: false)]).changes },
        { try $0.objects(Contact.self).filter("age < 8").sectioned(by: \.firstLetter).changes(keyPaths: ["name", "age"]) },
    ]

    static let fresh: [@Sendable (borrowing Realm.ReadTransaction) throws -> [(key: String, ids: [Int])]] = [
        { try $0.objects(Contact.self).sorted(byKeyPath: "name").sectioned(by: \.firstLetter).map { ($0.key, $0.map(\.id)) } },
        { try $0.objects(Contact.self).sectioned(by: \.firstLetter, ascending: false).map { ($0.key, $0.map(\.id)) } },
        { try $0.objects(Contact.self).sectioned(by: { $0.firstLetter }, sortDescriptors: [Floe.SortDescriptor(keyPath: "age", ascending: false)]).map { ($0.key, $0.map(\.id)) } },
        { try $0.objects(Contact.self).filter("age < 8").sectioned(by: \.firstLetter).map { ($0.key, $0.map(\.id)) } },
    ]

    /// Random writes; a consumer that looks after every write and one that looks every fourth
    /// (its updates coalesced): each update applied to the previous sections gives the new ones,
    /// which equal the sections read afresh.
    @Test(arguments: [1, 4])
    func randomWritesRebuildEverySectionLayout(lookEvery: Int) async throws {
        let realm = try await SectionedResultsTests.makeRealm(count: 60)
        let streams = try await realm.read { realm in try Self.streams.map { try $0(realm) } }
        var iterators = streams.map { $0.makeAsyncIterator() }
        var states: [[(key: String, ids: [Int])]] = []
        for index in iterators.indices {
            guard case .initial(let sections)? = await iterators[index].next() else { Issue.record("expected .initial"); return }
            states.append(Self.layout(sections))
        }
        var random = SeededGenerator(seed: UInt64(90 + lookEvery))
        var nextID = 1_000
        var changedSinceLook = [Bool](repeating: false, count: streams.count)
        for round in 0..<120 {
            let choice = Int.random(in: 0..<5, using: &random)
            let name = SectionedResultsTests.names.randomElement(using: &random)!
            let pick = Int.random(in: 0..<1_000, using: &random)
            let age = Int.random(in: 0...9, using: &random)
            nextID += 1
            let id = nextID
            try await realm.write { realm in
                let contacts = realm.objects(Contact.self)
                switch choice {
                case 0: try realm.create(Contact.self, value: ["id": id, "name": name, "age": age])
                case 1 where !contacts.isEmpty: try realm.delete(contacts[pick % contacts.count])
                case 2 where !contacts.isEmpty: contacts[pick % contacts.count].name = name
                case 3 where !contacts.isEmpty: contacts[pick % contacts.count].age = age
                default:
                    // Two objects at once, one of them replaced under its key.
                    if contacts.count > 2 {
                        let first = contacts[pick % contacts.count]
                        let (key, age) = (first.id, first.age)
                        try realm.delete(first)
                        try realm.create(Contact.self, value: ["id": key, "name": name, "age": age])
                        contacts[(pick + 1) % contacts.count].name = name
                    }
                }
            }
            let wanted = try await realm.read { realm in try Self.fresh.map { try $0(realm) } }
            for index in streams.indices where wanted[index].map(\.ids) != states[index].map(\.ids) || wanted[index].map(\.key) != states[index].map(\.key) {
                changedSinceLook[index] = true
            }
            guard round % lookEvery == lookEvery - 1 else { continue }
            for index in iterators.indices where changedSinceLook[index] {
                guard case .update(let sections, let deletions, let insertions, let modifications, let sectionsToInsert, let sectionsToDelete)? = await iterators[index].next() else {
                    Issue.record("expected .update"); return
                }
                let new = Self.layout(sections)
                var state = states[index]
                for path in modifications {
                    #expect(state.indices.contains(path[0]) && state[path[0]].ids.indices.contains(path[1]), "stream \(index), round \(round): \(path)")
                }
                for path in deletions.reversed() { state[path[0]].ids.remove(at: path[1]) }
                for section in sectionsToDelete.reversed() { state.remove(at: section) }
                for section in sectionsToInsert { state.insert((new[section].key, new[section].ids), at: section) }
                for path in insertions { state[path[0]].ids.insert(new[path[0]].ids[path[1]], at: path[1]) }
                #expect(state.map(\.key) == new.map(\.key) && state.map(\.ids) == new.map(\.ids), "stream \(index), round \(round)")
                #expect(new.map(\.key) == wanted[index].map(\.key) && new.map(\.ids) == wanted[index].map(\.ids), "stream \(index), round \(round)")
                #expect(insertions.allSatisfy { !sectionsToInsert.contains($0[0]) } && deletions.allSatisfy { !sectionsToDelete.contains($0[0]) })
                states[index] = new
                changedSinceLook[index] = false
            }
        }
    }

    /// A write that skips the stream: the next update is measured from the sections after it.
    @Test func anUpdateAfterASkippedWriteIsMeasuredFromTheStateAfterIt() async throws {
        let realm = try await inMemoryRealm("sections")
        try await realm.write { realm in
            for (id, name) in ["Alice", "Bob"].enumerated() { try realm.create(Contact.self, value: ["id": id, "name": name]) }
        }
        let stream = try await realm.read { realm in try realm.objects(Contact.self).sorted(byKeyPath: "name").sectioned(by: \.firstLetter).changes }
        var iterator = stream.makeAsyncIterator()
        guard case .initial(let first)? = await iterator.next() else { Issue.record("no initial sections"); return }
        #expect(first.allKeys == ["A", "B"])
        try await realm.write(withoutNotifying: [stream]) { realm in
            try realm.create(Contact.self, value: ["id": 2, "name": "Carl"])
            try realm.create(Contact.self, value: ["id": 3, "name": "Aaron"])
            return ()
        }
        try await realm.write { realm in realm.object(ofType: Contact.self, forPrimaryKey: 0)!.age = 30 }   // Alice, now at [0, 1]
        guard case .update(let sections, let deletions, let insertions, let modifications, let sectionsToInsert, let sectionsToDelete)? = await iterator.next() else {
            Issue.record("no update"); return
        }
        #expect(Self.layout(sections).map(\.key) == ["A", "B", "C"])
        #expect(Self.layout(sections).map(\.ids) == [[3, 0], [1], [2]])
        #expect(modifications == [IndexPath(indexes: [0, 1])])
        #expect(deletions.isEmpty && insertions.isEmpty && sectionsToInsert.isEmpty && sectionsToDelete.isEmpty)
    }

    /// Random writes, about one in three skipping the streams (at most two in a row): every
    /// update applied to the sections after the previous write gives the new sections, which
    /// equal the sections read afresh. Every write reaches every stream (no filter, and the key
    /// paths name each property a write sets), so each normal write is one update.
    @Test func randomSkippedWritesKeepUpdatesApplicable() async throws {
        let realm = try await SectionedResultsTests.makeRealm(count: 40)
        let makers: [@Sendable (borrowing Realm.ReadTransaction) throws -> SectionedResultsChanges<String, Contact>] = [Self.streams[0], Self.streams[1], Self.streams[2],
                      { try $0.objects(Contact.self).sectioned(by: \.firstLetter).changes(keyPaths: ["name", "age"]) }]
        let fresh: [@Sendable (borrowing Realm.ReadTransaction) throws -> [(key: String, ids: [Int])]] = [Self.fresh[0], Self.fresh[1], Self.fresh[2],
                     { try $0.objects(Contact.self).sectioned(by: \.firstLetter).map { ($0.key, $0.map(\.id)) } }]
        let streams = try await realm.read { realm in try makers.map { try $0(realm) } }
        let skippable: [any ChangeStream] = streams
        var iterators = streams.map { $0.makeAsyncIterator() }
        var states: [[(key: String, ids: [Int])]] = []
        for index in iterators.indices {
            guard case .initial(let sections)? = await iterators[index].next() else { Issue.record("expected .initial"); return }
            states.append(Self.layout(sections))
        }
        var random = SeededGenerator(seed: 61)
        var nextID = 1_000
        var skippedInARow = 0
        var (skipped, updates) = (0, 0)
        for round in 0..<90 {
            let choice = Int.random(in: 0..<5, using: &random)
            let name = SectionedResultsTests.names.randomElement(using: &random)!
            let pick = Int.random(in: 0..<1_000, using: &random)
            let age = Int.random(in: 0...9, using: &random)
            let skip = Int.random(in: 0..<3, using: &random) == 0 && skippedInARow < 2
            nextID += 1
            let id = nextID
            let write = { @Sendable (realm: borrowing Realm.Transaction) throws in
                let contacts = realm.objects(Contact.self)
                switch choice {
                case 0: try realm.create(Contact.self, value: ["id": id, "name": name, "age": age])
                case 1: try realm.delete(contacts[pick % contacts.count])
                case 2: contacts[pick % contacts.count].name = name
                case 3: contacts[pick % contacts.count].age = age
                default:
                    let first = contacts[pick % contacts.count]
                    let (key, age) = (first.id, first.age)
                    try realm.delete(first)
                    try realm.create(Contact.self, value: ["id": key, "name": name, "age": age])
                    contacts[(pick + 1) % contacts.count].name = name
                }
            }
            if skip {
                try await realm.write(withoutNotifying: skippable) { realm in try write(realm) }
            } else {
                try await realm.write { realm in try write(realm) }
            }
            let wanted = try await realm.read { realm in try fresh.map { try $0(realm) } }
            if skip {
                // The streams report nothing for this write: their next update starts here.
                states = wanted
                skippedInARow += 1
                skipped += 1
                continue
            }
            skippedInARow = 0
            updates += 1
            for index in iterators.indices {
                guard case .update(let sections, let deletions, let insertions, let modifications, let sectionsToInsert, let sectionsToDelete)? = await iterators[index].next() else {
                    Issue.record("expected .update"); return
                }
                let new = Self.layout(sections)
                var state = states[index]
                for path in modifications + deletions {
                    #expect(state.indices.contains(path[0]) && state[path[0]].ids.indices.contains(path[1]), "stream \(index), round \(round): \(path)")
                }
                for path in deletions.reversed() where state.indices.contains(path[0]) && state[path[0]].ids.indices.contains(path[1]) {
                    state[path[0]].ids.remove(at: path[1])
                }
                for section in sectionsToDelete.reversed() where state.indices.contains(section) { state.remove(at: section) }
                for section in sectionsToInsert where section <= state.count { state.insert((new[section].key, new[section].ids), at: section) }
                for path in insertions where state.indices.contains(path[0]) && path[1] <= state[path[0]].ids.count {
                    state[path[0]].ids.insert(new[path[0]].ids[path[1]], at: path[1])
                }
                #expect(state.map(\.key) == new.map(\.key) && state.map(\.ids) == new.map(\.ids), "stream \(index), round \(round)")
                #expect(new.map(\.key) == wanted[index].map(\.key) && new.map(\.ids) == wanted[index].map(\.ids), "stream \(index), round \(round)")
                states[index] = new
            }
        }
        #expect(skipped > 10 && updates > 40)
    }

    /// The Swift key-path form: a write to a property the key paths do not read is no
    /// modification, one to a property they read is.
    @Test func swiftKeyPathsRestrictModifications() async throws {
        let realm = try await inMemoryRealm("sections")
        try await realm.write { realm in
            for (id, name) in ["Ada", "Al", "Bo"].enumerated() { try realm.create(Contact.self, value: ["id": id, "name": name]) }
        }
        let stream = try await realm.read { realm in
            try realm.objects(Contact.self).sorted(byKeyPath: "name").sectioned(by: \.firstLetter).changes(keyPaths: [\Contact.name])
        }
        var iterator = stream.makeAsyncIterator()
        guard case .initial? = await iterator.next() else { Issue.record("no initial sections"); return }
        try await realm.write { realm in realm.object(ofType: Contact.self, forPrimaryKey: 0)!.age = 5 }       // Ada: not watched
        try await realm.write { realm in realm.object(ofType: Contact.self, forPrimaryKey: 1)!.name = "Alf" }  // Al, in place
        guard case .update(let sections, let deletions, let insertions, let modifications, let sectionsToInsert, let sectionsToDelete)? = await iterator.next() else {
            Issue.record("no update"); return
        }
        #expect(Self.layout(sections).map(\.ids) == [[0, 1], [2]])
        #expect(modifications == [IndexPath(indexes: [0, 1])])
        #expect(deletions.isEmpty && insertions.isEmpty && sectionsToInsert.isEmpty && sectionsToDelete.isEmpty)
    }
}
