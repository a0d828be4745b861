import Foundation
import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

/// Forms of Realm's string predicates that Realm programs use: `BETWEEN %@` with a two-element
/// array, and `@allKeys` / `@allValues` as synonyms of `@keys` / `@values`.
@Suite struct RealmPredicateFormsTests {
    final class Shelf: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var age = 0
        @Persisted var prices: Map<String, Int>
    }

    static func realm() async throws -> Realm {
        let realm = try await inMemoryRealm("predicate-forms", objectTypes: [Shelf.self])
        try await realm.write { realm in
            for id in 0..<5 {
                let shelf = try realm.create(Shelf.self, value: ["id": id, "age": id * 10])
                shelf.prices["item\(id)"] = id
            }
        }
        return realm
    }

    @Test func betweenTakesATwoElementArray() async throws {
        let realm = try await Self.realm()
        let ids = try await realm.read { realm in try realm.objects(Shelf.self).filter("age BETWEEN %@", [10, 30]).map(\.id) }
        #expect(ids == [1, 2, 3])
        let braces = try await realm.read { realm in try realm.objects(Shelf.self).filter("age BETWEEN {10, 30}").map(\.id) }
        #expect(braces == ids)
        await #expect(throws: FloeError.self) { _ = try await realm.read { realm in try realm.objects(Shelf.self).filter("age BETWEEN %@", [10]).count } }
    }

    @Test func allKeysAndAllValuesAreSynonyms() async throws {
        let realm = try await Self.realm()
        let keys = try await realm.read { realm in try realm.objects(Shelf.self).filter("prices.@allKeys == 'item2'").map(\.id) }
        #expect(keys == [2])
        let values = try await realm.read { realm in try realm.objects(Shelf.self).filter("prices.@allValues > 2").map(\.id) }
        #expect(values == [3, 4])
        let short = try await realm.read { realm in try realm.objects(Shelf.self).filter("prices.@values > 2").map(\.id) }
        #expect(short == values)
    }
}

extension RealmPredicateFormsTests {
    final class Pet: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var owner: Keeper?
    }

    @Test func objectsManagedOrFrozenAreArguments() async throws {
        let realm = try await inMemoryRealm("object-arguments", objectTypes: [Keeper.self, Pet.self])
        try await realm.write { realm in
            for id in 0..<3 { try realm.create(Keeper.self, value: ["id": id, "name": "k\(id)"]) }
            for id in 0..<6 { try realm.create(Pet.self, value: ["id": id, "owner": ["id": id % 3]], update: .modified) }
        }
        let frozen = try await realm.read { realm in try realm.object(ofType: Keeper.self, forPrimaryKey: 1)!.freeze() }
        let byFrozen = try await realm.read { realm in try realm.objects(Pet.self).filter("owner == %@", frozen).map(\.id) }
        #expect(byFrozen == [1, 4])
        let byManaged = try await realm.read { realm in
            let keepers = realm.objects(Keeper.self).filter { $0.id != 1 }
            return try realm.objects(Pet.self).filter("owner IN %@", Array(keepers)).map(\.id)
        }
        #expect(byManaged == [0, 2, 3, 5])
        let frozenKeepers = try await realm.read { realm in try realm.objects(Keeper.self).freeze() }
        let byFrozenList = try await realm.read { realm in try realm.objects(Pet.self).filter("owner IN %@", Array(frozenKeepers.prefix(1))).map(\.id) }
        #expect(byFrozenList == [0, 3])
    }
}
