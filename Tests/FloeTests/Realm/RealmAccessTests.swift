import Foundation
import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

/// One implementation behind the realm's synchronous API: the write and read transactions and
/// the actor reach the same members (`RealmReading`, `RealmWriting`), so generic code written
/// once works in `write { }`, in `read { }` and inside the actor.
@Suite struct RealmAccessTests {
    final class Kennel: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var size = 0
    }

    static func names(in realm: borrowing some RealmReading & ~Copyable) -> [String] {
        realm.objects(Kennel.self).map(\.name)
    }

    static func build(_ count: Int, in realm: borrowing some RealmWriting & ~Copyable) throws {
        for id in 0..<count { try realm.create(Kennel.self, value: ["id": id, "name": "k\(id)", "size": id * 10]) }
    }

    @Test func genericCodeRunsInWritesReadsAndInsideTheActor() async throws {
        let realm = try await inMemoryRealm("access")
        let written = try await realm.write { realm in
            try Self.build(3, in: realm)
            return Self.names(in: realm)                  // a write reads its own changes
        }
        #expect(written == ["k0", "k1", "k2"])
        #expect(try await realm.read { realm in Self.names(in: realm) } == ["k0", "k1", "k2"])
        let insideTheActor = try await realm.addKennelAndCount(id: 3)
        #expect(insideTheActor == 4)
        #expect(try await realm.read { realm in realm.isEmpty } == false)
    }

    @Test func everyViewDeletesAndLooksUpAlike() async throws {
        let realm = try await inMemoryRealm("access")
        try await realm.write { realm in try Self.build(4, in: realm) }
        try await realm.write { realm in
            if let first = realm.object(ofType: Kennel.self, forPrimaryKey: 0) { try realm.delete(first) }
            try realm.delete(realm.objects(Kennel.self).filter("size >= 20"))
        }
        #expect(try await realm.read { realm in Self.names(in: realm) } == ["k1"])
        try await realm.write { realm in try realm.deleteAll() }
        #expect(try await realm.read { realm in realm.isEmpty })
    }

    /// Thawing frozen results keeps their filter and order (they used to thaw into every object).
    @Test func thawedResultsKeepTheirQuery() async throws {
        let realm = try await inMemoryRealm("access")
        try await realm.write { realm in try Self.build(6, in: realm) }
        let frozen = try await realm.read { realm in
            try realm.objects(Kennel.self).filter("size > 15").sorted(byKeyPath: "size", ascending: false).freeze()
        }
        #expect(frozen.map(\.name) == ["k5", "k4", "k3", "k2"])
        let thawed = try await realm.write { realm in
            try realm.create(Kennel.self, value: ["id": 9, "name": "k9", "size": 90])
            return realm.thaw(frozen).map(\.name)
        }
        #expect(thawed == ["k9", "k5", "k4", "k3", "k2"])
        let thawedOnTheActor = await realm.thawedNames(frozen)
        #expect(thawedOnTheActor == ["k9", "k5", "k4", "k3", "k2"])
    }
}

extension Realm {
    /// The realm's own synchronous API, as an application's `Realm` extension uses it.
    fileprivate func addKennelAndCount(id: Int) throws -> Int {
        try write { try create(RealmAccessTests.Kennel.self, value: ["id": id, "name": "k\(id)"]) }
        return objects(RealmAccessTests.Kennel.self).count
    }

    fileprivate func thawedNames(_ frozen: FrozenResults<RealmAccessTests.Kennel>) -> [String] {
        thaw(frozen).map(\.name)
    }
}
