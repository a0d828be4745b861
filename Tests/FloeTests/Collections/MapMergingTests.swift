import Foundation
import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

/// `Map.merge(_:uniquingKeysWith:)` with Swift `Dictionary` semantics, managed and unmanaged,
/// and its bad input: an invalid key makes the write throw and roll back.
@Suite struct MapMergingTests {
    final class Walker: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var visits: Map<String, Int>
    }

    @Test func unmanagedMergeMatchesDictionary() throws {
        let walker = Walker()
        walker.visits["Central"] = 1
        var expected = ["Central": 1]
        let incoming: [(key: String, value: Int)] = [("Central", 2), ("Hyde", 5), ("Hyde", 1)]
        walker.visits.merge(incoming) { $0 + $1 }
        expected.merge(incoming.map { ($0.key, $0.value) }) { $0 + $1 }
        #expect(Dictionary(uniqueKeysWithValues: walker.visits.map { ($0.key, $0.value) }) == expected)
        walker.visits.merge(["Central": 10, "Park": 7]) { old, _ in old }
        #expect(walker.visits["Central"] == 3 && walker.visits["Park"] == 7)
        #expect(!walker.visits.isEmpty && walker.visits.value(forKey: "Hyde") == 6)
        #expect(walker.visits.asKeyValueSequence().map(\.key) == ["Central", "Hyde", "Park"])
        #expect(Walker().visits.isEmpty)
    }

    @Test func managedMergeAndBadKeys() async throws {
        let realm = try await inMemoryRealm("merge")
        try await realm.asyncWrite { realm in
            let walker = try realm.create(Walker.self, value: ["id": 1, "visits": ["Central": 1]])
            let other = try realm.create(Walker.self, value: ["id": 2, "visits": ["Central": 4, "Zoo": 2]])
            walker.visits.merge(other.visits) { $0 + $1 }
            walker.visits.merge(["Hyde": 3]) { _, new in new }
        }
        let visits = try await realm.read { realm in
            realm.object(ofType: Walker.self, forPrimaryKey: 1)!.visits.map { "\($0.key)=\($0.value)" }
        }
        #expect(visits == ["Central=5", "Hyde=3", "Zoo=2"])
        // A combine that throws: nothing of the merge is written.
        struct Refused: Error {}
        await #expect(throws: Refused.self) {
            try await realm.asyncWrite { realm in
                try realm.object(ofType: Walker.self, forPrimaryKey: 1)!.visits.merge(["Zoo": 1, "New": 1]) { _, _ in throw Refused() }
            }
        }
        // An invalid key: the write throws a typed error naming class, property and key, and rolls back.
        let error = await #expect(throws: FloeError.self) {
            try await realm.asyncWrite { realm in
                let walker = realm.object(ofType: Walker.self, forPrimaryKey: 1)!
                walker.visits.merge([("ok", 1), ("bad.key", 2)]) { $0 + $1 }
            }
        }
        #expect(error == .invalidMapKey(table: "Walker", column: "visits", key: "bad.key"))
        #expect(try await realm.read { realm in realm.object(ofType: Walker.self, forPrimaryKey: 1)!.visits.count } == 3)
        // Later writes work.
        try await realm.asyncWrite { realm in realm.object(ofType: Walker.self, forPrimaryKey: 1)!.visits["ok"] = 1 }
        #expect(try await realm.read { realm in realm.object(ofType: Walker.self, forPrimaryKey: 1)!.visits.count } == 4)
    }
}

/// Realm's members around the file: `isEmpty` and `writeCopy(toFile:)`.
@Suite struct RealmFileMembersTests {
    final class Note: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var tags: List<String>
    }

    @Test func isEmptyAndWriteCopy() async throws {
        let directory = TemporaryDirectory()
        let realm = try await Realm(configuration: Realm.Configuration(fileURL: directory.url("app.floe")))
        #expect(await realm.isEmpty)
        try await realm.asyncWrite { realm in try realm.create(Note.self, value: ["id": 1, "tags": ["a", "b"]]) }
        #expect(await !realm.isEmpty)
        let copyURL = directory.url("copy.floe")
        try realm.writeCopy(toFile: copyURL)
        // The copy exists now: a second copy to the same place is refused.
        #expect(throws: FloeError.self) { try realm.writeCopy(toFile: copyURL) }
        #expect(throws: FloeError.self) { try realm.writeCopy(toFile: directory.url("x.floe"), encryptionKey: Data(count: 64)) }
        let copy = try await Realm(configuration: Realm.Configuration(fileURL: copyURL))
        #expect(try await copy.read { realm in realm.objects(Note.self).map { $0.tags.joined() } } == ["ab"])
        try await realm.asyncWrite { realm in try realm.deleteAll() }
        #expect(await realm.isEmpty)
    }
}
