import Foundation
import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

/// A list, set, map or linking-objects stream whose owner is deleted tells its consumer that the
/// elements are gone, as Realm does: one update deleting every element (the collection it carries
/// is empty), then the stream ends.
@Suite struct OwnerDeletedChangeTests {
    final class Shelter: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var names: List<String>
        @Persisted var pets: List<Pup>
        @Persisted var tags: MutableSet<Int>
        @Persisted var rooms: Map<String, Int>
    }

    final class Pup: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted(originProperty: "pets") var shelters: LinkingObjects<Shelter>
    }

    static func realm() async throws -> Realm {
        let realm = try await inMemoryRealm("owner-deleted", objectTypes: [Shelter.self, Pup.self])
        try await realm.write { realm in
            let shelter = try realm.create(Shelter.self, value: ["id": 1, "names": ["a", "b", "c"], "tags": [1, 2]])
            shelter.rooms["x"] = 1
            shelter.rooms["y"] = 2
            for id in 0..<2 { shelter.pets.append(try realm.create(Pup.self, value: ["id": id])) }
            try realm.create(Shelter.self, value: ["id": 2])
        }
        return realm
    }

    static func deleteShelter(_ realm: Realm, _ id: Int) async throws {
        try await realm.write { realm in
            if let shelter = realm.object(ofType: Shelter.self, forPrimaryKey: id) { try realm.delete(shelter) }
        }
    }

    @Test func listSetAndObjectListEndWithEveryElementDeleted() async throws {
        let realm = try await Self.realm()
        let (names, pets, tags) = try await realm.read { realm in
            let shelter = realm.object(ofType: Shelter.self, forPrimaryKey: 1)!
            return (try shelter.names.changes, try shelter.pets.changes, try shelter.tags.changes)
        }
        var namesIterator = names.makeAsyncIterator(), petsIterator = pets.makeAsyncIterator(), tagsIterator = tags.makeAsyncIterator()
        guard case .initial = await namesIterator.next(), case .initial = await petsIterator.next(), case .initial = await tagsIterator.next() else {
            Issue.record("no initial states"); return
        }
        try await Self.deleteShelter(realm, 1)
        guard case .update(let list, let deletions, let insertions, let modifications) = await namesIterator.next() else { Issue.record("no last update for the list"); return }
        #expect(list.isEmpty && deletions == [0, 1, 2] && insertions.isEmpty && modifications.isEmpty)
        #expect(await namesIterator.next() == nil)
        guard case .update(let pupList, let pupDeletions, _, _) = await petsIterator.next() else { Issue.record("no last update for the objects"); return }
        #expect(pupList.count == 0 && pupDeletions == [0, 1])
        #expect(await petsIterator.next() == nil)
        guard case .update(let set, let setDeletions, _, _) = await tagsIterator.next() else { Issue.record("no last update for the set"); return }
        #expect(set.isEmpty && setDeletions == [0, 1])
        #expect(await tagsIterator.next() == nil)
    }

    @Test func mapEndsWithEveryKeyRemoved() async throws {
        let realm = try await Self.realm()
        let rooms = try await realm.read { realm in try realm.object(ofType: Shelter.self, forPrimaryKey: 1)!.rooms.changes }
        var iterator = rooms.makeAsyncIterator()
        guard case .initial = await iterator.next() else { Issue.record("no initial state"); return }
        try await Self.deleteShelter(realm, 1)
        guard case .update(let map, let deletions, let insertions, let modifications) = await iterator.next() else { Issue.record("no last update"); return }
        #expect(map.count == 0 && map.keys.isEmpty && Array(map).isEmpty && map["x"] == nil)
        #expect(deletions == ["x", "y"] && insertions.isEmpty && modifications.isEmpty)
        #expect(await iterator.next() == nil)
    }

    @Test func anEmptyCollectionJustEnds() async throws {
        let realm = try await Self.realm()
        let names = try await realm.read { realm in try realm.object(ofType: Shelter.self, forPrimaryKey: 2)!.names.changes }
        var iterator = names.makeAsyncIterator()
        guard case .initial = await iterator.next() else { Issue.record("no initial state"); return }
        try await Self.deleteShelter(realm, 2)
        #expect(await iterator.next() == nil)
    }

    @Test func linkingObjectsEndWithEveryOriginDeleted() async throws {
        let realm = try await inMemoryRealm("owner-deleted-links", objectTypes: [Shelter.self, Pup.self])
        try await realm.write { realm in
            let pup = try realm.create(Pup.self, value: ["id": 7])
            for id in 0..<2 { try realm.create(Shelter.self, value: ["id": id]).pets.append(pup) }
        }
        let shelters = try await realm.read { realm in try realm.object(ofType: Pup.self, forPrimaryKey: 7)!.shelters.changes }
        var iterator = shelters.makeAsyncIterator()
        guard case .initial(let first) = await iterator.next() else { Issue.record("no initial state"); return }
        #expect(first.count == 2)
        try await realm.write { realm in try realm.delete(realm.object(ofType: Pup.self, forPrimaryKey: 7)!) }
        guard case .update(let origins, let deletions, _, _) = await iterator.next() else { Issue.record("no last update"); return }
        #expect(origins.isEmpty && deletions == [0, 1])
        #expect(await iterator.next() == nil)
    }
}
