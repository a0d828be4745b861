import Foundation
import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

/// Managed objects remember where their row is, across writes that move no rows: every read
/// after a write of the same object, of a neighbour in the same leaf, or after rows moved
/// (inserts, deletes, a new leaf) must still see the current value.
@Suite struct AccessorPositionTests {
    final class Pet: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var age = 0
        @Persisted var weight = 0.0
    }

    /// More objects than one leaf holds, so walks cross leaves.
    static let count = 1_000

    static func makeRealm() async throws -> Realm {
        let realm = try await inMemoryRealm("positions")
        try await realm.asyncWrite { realm in
            for id in 0..<count {
                let pet = Pet()
                pet.id = id
                pet.name = "pet\(id)"
                pet.age = id % 10
                pet.weight = Double(id) / 2
                try realm.add(pet)
            }
        }
        return realm
    }

    @Test func writingEveryObjectWhileIteratingSeesEachWrite() async throws {
        let realm = try await Self.makeRealm()
        let seen = try await realm.write { realm in
            var seen = 0
            for pet in realm.objects(Pet.self) {
                pet.age += 1
                pet.age += 1
                pet.weight = Double(pet.age)
                pet.name = "renamed\(pet.id)"
                seen += pet.age
            }
            return seen
        }
        let expected = (0..<Self.count).reduce(0) { $0 + $1 % 10 + 2 }
        #expect(seen == expected)
        let read = try await realm.read { realm in
            realm.objects(Pet.self).map { "\($0.id):\($0.age):\($0.weight):\($0.name)" }
        }
        #expect(read == (0..<Self.count).map { "\($0):\($0 % 10 + 2):\(Double($0 % 10 + 2)):renamed\($0)" })
    }

    @Test func aNeighbourWrittenInTheSameLeafIsSeenByAnObjectReadBefore() async throws {
        let realm = try await Self.makeRealm()
        let ages = try await realm.write { realm in
            let first = realm.object(ofType: Pet.self, forPrimaryKey: 10)!
            let second = realm.object(ofType: Pet.self, forPrimaryKey: 11)!
            _ = (first.age, second.age)   // both remember their row in the leaf as it was
            second.age = 50               // the leaf is copied: the first's position is stale
            first.age = 40
            second.age += 1
            return [first.age, second.age, realm.object(ofType: Pet.self, forPrimaryKey: 10)!.age]
        }
        #expect(ages == [40, 51, 40])
    }

    @Test func rowsMovedByInsertsAndDeletesAreFoundAgain() async throws {
        let realm = try await Self.makeRealm()
        let values = try await realm.write { realm in
            let pet = realm.object(ofType: Pet.self, forPrimaryKey: 500)!
            pet.age = 7
            // Inserting many rows in front splits leaves: the row moves to another leaf.
            for id in -600 ..< 0 {
                let other = Pet()
                other.id = id
                try realm.add(other)
            }
            pet.age += 1
            let afterInserts = pet.age
            for id in 0..<400 { try realm.delete(realm.object(ofType: Pet.self, forPrimaryKey: id)!) }
            pet.name = "moved"
            return [afterInserts, pet.age, pet.name == "moved" ? 1 : 0]
        }
        #expect(values == [8, 8, 1])
        let stored = try await realm.read { realm in
            (realm.object(ofType: Pet.self, forPrimaryKey: 500)?.age, realm.objects(Pet.self).count)
        }
        #expect(stored.0 == 8)
        #expect(stored.1 == Self.count + 600 - 400)
    }

    @Test func aWriteRolledBackLeavesObjectsReadingTheCommittedValues() async throws {
        let realm = try await Self.makeRealm()
        struct Stop: Error {}
        await #expect(throws: Stop.self) {
            try await realm.write { realm in
                for pet in realm.objects(Pet.self) { pet.age = 99 }
                throw Stop()
            }
        }
        let ages = try await realm.read { realm in realm.objects(Pet.self).reduce(0) { $0 + $1.age } }
        #expect(ages == (0..<Self.count).reduce(0) { $0 + $1 % 10 })
    }

    /// Keys above every key the table holds skip the search for a duplicate; the others,
    /// and the largest key of all, must still find it.
    @Test func duplicatePrimaryKeysAreRefusedInAnyOrder() async throws {
        let realm = try await inMemoryRealm("keys")
        for ids in [[10, 3, 10], [10, 3, 3], [Int.max, Int.max], [-5, -5], [1, 2, 3, 2]] {
            let error = await #expect(throws: FloeError.self, "\(ids)") {
                try await realm.write { realm in
                    for id in ids {
                        let pet = Pet()
                        pet.id = id
                        try realm.add(pet)
                    }
                }
            }
            guard case .duplicatePrimaryKey(_, let column, let value)? = error else {
                Issue.record("\(ids): \(String(describing: error))")
                continue
            }
            #expect(column == "id")
            #expect(value == "\(ids.last!)")
        }
        try await realm.write { realm in
            for id in [10, 3, 11, Int.max] {
                let pet = Pet()
                pet.id = id
                try realm.add(pet)
            }
        }
        let ids = try await realm.read { realm in realm.objects(Pet.self).map(\.id) }
        #expect(ids == [3, 10, 11, Int.max])
    }
}
