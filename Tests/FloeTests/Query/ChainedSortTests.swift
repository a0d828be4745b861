import Foundation
import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

/// Sorting sorted results sorts by the new key and breaks its ties by the earlier one, as
/// realm-core does (it prepends the new sort descriptor), live and frozen alike.
@Suite struct ChainedSortTests {
    final class Critter: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var isGood = false
        @Persisted var age = 0
    }

    static func realm() async throws -> Realm {
        let realm = try await inMemoryRealm("chained-sorts", objectTypes: [Critter.self])
        try await realm.write { realm in
            let rows: [(String, Bool, Int)] = [("b", true, 1), ("d", false, 2), ("a", true, 2), ("c", false, 1), ("e", true, 1)]
            for (id, row) in rows.enumerated() { try realm.create(Critter.self, value: ["id": id, "name": row.0, "isGood": row.1, "age": row.2]) }
        }
        return realm
    }

    @Test func aLaterSortBreaksItsTiesByTheEarlierOne() async throws {
        let realm = try await Self.realm()
        let names = try await realm.read { realm in
            try realm.objects(Critter.self).sorted(byKeyPath: "name", ascending: false).sorted(byKeyPath: "isGood").map(\.name)
        }
        #expect(names == ["d", "c", "e", "b", "a"])
        let three = try await realm.read { realm in
            try realm.objects(Critter.self).sorted(byKeyPath: "name").sorted(byKeyPath: "age").sorted(byKeyPath: "isGood", ascending: false).map(\.name)
        }
        #expect(three == ["b", "e", "a", "c", "d"])
        // Sorting again by a key already there moves it to the front, with its new direction.
        let again = try await realm.read { realm in
            try realm.objects(Critter.self).sorted(byKeyPath: "name").sorted(byKeyPath: "age").sorted(byKeyPath: "name", ascending: false).map(\.name)
        }
        #expect(again == ["e", "d", "c", "b", "a"])
        let frozen = try await realm.read { realm in try realm.objects(Critter.self).freeze() }
        #expect(try frozen.sorted(byKeyPath: "name", ascending: false).sorted(byKeyPath: "isGood").map(\.name) == ["d", "c", "e", "b", "a"])
    }
}
