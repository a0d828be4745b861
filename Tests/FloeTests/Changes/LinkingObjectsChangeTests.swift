import Foundation
import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

/// Linking objects' change streams, moved on from the origins each commit touched: random
/// writes that link, unlink, relink, rename, delete and replace origins (through a to-one link
/// and a list of links); after every update, the diff applied to the previous state gives the
/// new one, which equals the linking objects read afresh — also for a consumer that looks only
/// every third commit and gets them coalesced.
@Suite struct LinkingObjectsChangeTests {
    final class Walker: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var pet: Pet?
        @Persisted var pets: List<Pet>
    }

    final class Pet: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted(originProperty: "pet") var owners: LinkingObjects<Walker>
        @Persisted(originProperty: "pets") var listers: LinkingObjects<Walker>
    }

    static func apply(_ deletions: [Int], _ insertions: [Int], to previous: [Int], new: [Int]) -> [Int] {
        var state = previous
        for index in deletions.reversed() { state.remove(at: index) }
        for index in insertions { state.insert(new[index], at: index) }
        return state
    }

    /// One random write to the walkers; returns the ids it wrote in place (not created or deleted).
    static func randomWrite(_ realm: Realm, random: inout SeededGenerator, nextID: inout Int) async throws -> Set<Int> {
        let operations = (0..<Int.random(in: 1...5, using: &random)).map { _ in
            (Int.random(in: 0..<9, using: &random), Int.random(in: 0..<max(nextID, 1), using: &random), Int.random(in: 0..<4, using: &random))
        }
        let base = nextID
        nextID += operations.count
        return try await realm.write { realm in
            var written = Set<Int>()
            for (offset, (operation, id, petID)) in operations.enumerated() {
                let pet = petID == 3 ? nil : realm.object(ofType: Pet.self, forPrimaryKey: petID)
                if operation == 0 {
                    let walker = try realm.create(Walker.self, value: ["id": base + offset, "name": "w\(base + offset)"])
                    walker.pet = pet
                    if let pet { walker.pets.append(pet) }
                    continue
                }
                guard let walker = realm.object(ofType: Walker.self, forPrimaryKey: id) else { continue }
                switch operation {
                case 1:
                    try realm.delete(walker)
                    written.remove(id)
                case 2: walker.pet = pet; written.insert(id)
                case 3: walker.name = "n\(petID)"; written.insert(id)
                case 4:
                    // Each pet once per list: a walker listing a pet twice is compared in full.
                    if let pet, !walker.pets.contains(where: { $0.id == pet.id }) {
                        walker.pets.append(pet)
                        written.insert(id)
                    }
                case 5:
                    if !walker.pets.isEmpty {
                        walker.pets.remove(at: 0)
                        written.insert(id)
                    }
                case 6:
                    // Deleted and made again under the same key: gone and come, not modified.
                    try realm.delete(walker)
                    written.remove(id)
                    _ = try realm.create(Walker.self, value: ["id": id, "name": "again", "pet": pet as Any])
                case 7: walker.pet = walker.pet; written.insert(id)   // an equal value: a modification
                default:
                    if !walker.pets.isEmpty {
                        walker.pets.removeAll()
                        written.insert(id)
                    }
                }
            }
            return written
        }
    }

    static func fresh(_ realm: Realm) async throws -> [[Int]] {
        try await realm.read { realm in
            let pet = realm.object(ofType: Pet.self, forPrimaryKey: 0)!
            return [pet.owners.map(\.id), pet.listers.map(\.id)]
        }
    }

    @Test(arguments: [1, 3])
    func randomWritesRebuildEveryStateFromTheDiffs(lookEvery: Int) async throws {
        let realm = try await inMemoryRealm("linking-changes")
        try await realm.write { realm in
            for id in 0..<3 { try realm.create(Pet.self, value: ["id": id, "name": "p\(id)"]) }
            for id in 0..<12 {
                let pet = realm.object(ofType: Pet.self, forPrimaryKey: id % 4 == 3 ? 1 : id % 3)
                _ = try realm.create(Walker.self, value: ["id": id, "name": "w\(id)", "pet": pet as Any, "pets": pet.map { [$0] } ?? []])
            }
        }
        let streams = try await realm.read { realm in
            let pet = realm.object(ofType: Pet.self, forPrimaryKey: 0)!
            return [try pet.owners.changes, try pet.listers.changes]
        }
        var iterators = streams.map { $0.makeAsyncIterator() }
        var states: [[Int]] = []
        for index in iterators.indices {
            guard case .initial(let initial) = await iterators[index].next() else { Issue.record("expected .initial"); return }
            states.append(initial.map(\.id))
        }
        #expect(states == (try await Self.fresh(realm)))
        var random = SeededGenerator(seed: UInt64(70 + lookEvery))
        var nextID = 12
        var writtenSinceLook = Set<Int>()
        var updates = 0
        for round in 0..<150 {
            writtenSinceLook.formUnion(try await Self.randomWrite(realm, random: &random, nextID: &nextID))
            guard round % lookEvery == lookEvery - 1 else { continue }
            let wanted = try await Self.fresh(realm)
            for index in iterators.indices {
                let written = writtenSinceLook.filter { states[index].contains($0) && wanted[index].contains($0) }
                guard states[index] != wanted[index] || !written.isEmpty else { continue }
                guard case .update(let walkers, let deletions, let insertions, let modifications) = await iterators[index].next() else {
                    Issue.record("expected .update"); return
                }
                updates += 1
                let new = walkers.map(\.id)
                #expect(new == wanted[index], "stream \(index), round \(round)")
                #expect(Self.apply(deletions, insertions, to: states[index], new: new) == new, "stream \(index), round \(round)")
                #expect(deletions == deletions.sorted() && insertions == insertions.sorted() && modifications == modifications.sorted())
                #expect(Set(modifications).isDisjoint(with: deletions))
                if lookEvery == 1 {
                    // Every origin written in place that stayed is reported modified, and only those.
                    let reported = Set(modifications.map { states[index][$0] })
                    let stayed = Set(states[index]).subtracting(deletions.map { states[index][$0] })
                    #expect(reported == written.intersection(stayed), "stream \(index), round \(round)")
                }
                states[index] = new
            }
            writtenSinceLook = []
        }
        #expect(updates >= 20)
    }

    /// As Realm reports it: one last update in which every linking object goes, then the end.
    @Test func deletingTheTargetEndsTheStream() async throws {
        let realm = try await inMemoryRealm("linking-end")
        try await realm.write { realm in
            let pet = try realm.create(Pet.self, value: ["id": 0])
            _ = try realm.create(Walker.self, value: ["id": 1, "pet": pet])
        }
        var owners = try await realm.read { realm in try realm.object(ofType: Pet.self, forPrimaryKey: 0)!.owners.changes }.makeAsyncIterator()
        _ = await owners.next()
        try await realm.write { realm in try realm.delete(realm.object(ofType: Pet.self, forPrimaryKey: 0)!) }
        guard case .update(let emptied, let deletions, let insertions, _) = await owners.next() else {
            Issue.record("no last update")
            return
        }
        #expect(emptied.isEmpty && deletions == [0] && insertions.isEmpty)
        #expect(await owners.next() == nil)
    }

    /// An origin that lists the target twice stands twice among its linking objects: writing
    /// it modifies both places (as a list holding an object twice reports both).
    @Test func anOriginLinkingTwiceIsModifiedAtEveryPlace() async throws {
        let realm = try await inMemoryRealm("linking")
        try await realm.write { realm in
            let rex = try realm.create(Pet.self, value: ["id": 0, "name": "Rex"])
            let ann = try realm.create(Walker.self, value: ["id": 0, "name": "Ann"])
            ann.pets.append(rex)
            ann.pets.append(rex)
            let bob = try realm.create(Walker.self, value: ["id": 1, "name": "Bob"])
            bob.pets.append(rex)
        }
        let stream = try await realm.read { realm in try realm.object(ofType: Pet.self, forPrimaryKey: 0)!.listers.changes }
        var iterator = stream.makeAsyncIterator()
        guard case .initial(let listers)? = await iterator.next() else { Issue.record("no initial state"); return }
        #expect(listers.map(\.id) == [0, 0, 1])
        try await realm.write { realm in realm.object(ofType: Walker.self, forPrimaryKey: 0)!.name = "Anne" }
        guard case .update(let after, let deletions, let insertions, let modifications)? = await iterator.next() else { Issue.record("no update"); return }
        #expect(after.map(\.id) == [0, 0, 1])
        #expect(modifications == [0, 1])
        #expect(deletions.isEmpty && insertions.isEmpty)
        try await realm.write { realm in realm.object(ofType: Walker.self, forPrimaryKey: 1)!.name = "Bobby" }
        guard case .update(_, _, _, let modifications2)? = await iterator.next() else { Issue.record("no second update"); return }
        #expect(modifications2 == [2])
    }
}
