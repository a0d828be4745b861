import Foundation
import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

/// A primary-key lookup inside a read or a write re-points the object the previous lookup
/// answered when nothing else holds it. These tests pin what must not change under the
/// caller: every lookup answers its own object (in any key order, across leaves), a missing
/// key answers nil, an object the caller keeps (strongly or weakly) keeps its key, lookups
/// in a write see the write's own changes and deletions, and a wrong key type still fails.
@Suite struct LookupReuseTests {
    final class Hare: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var age = 0
    }

    final class Lynx: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var marks: List<Int>
    }

    /// More hares than one leaf holds, so lookups cross leaves; only even keys exist.
    static let hares = 1_500

    static func makeRealm() async throws -> Realm {
        let realm = try await inMemoryRealm("lookup-reuse")
        try await realm.write { realm in
            for index in 0..<hares {
                let hare = Hare()
                hare.id = index * 2
                hare.name = "hare\(index * 2)"
                hare.age = index % 9
                try realm.add(hare)
            }
            for id in 0..<10 {
                let lynx = Lynx()
                lynx.id = id * 2
                lynx.name = "lynx\(id * 2)"
                lynx.marks.append(objectsIn: [id, id * 10])
                try realm.add(lynx)
            }
        }
        return realm
    }

    @Test func lookupsInAnyOrderAnswerEachTheirOwnObject() async throws {
        let realm = try await Self.makeRealm()
        // Ascending (mostly within a leaf), a scrambled order (a new leaf almost every time),
        // odd keys that do not exist between them, and keys past both ends.
        var keys = Array(0..<(Self.hares * 2))
        keys += (0..<(Self.hares * 2)).map { ($0 * 7919) % (Self.hares * 2) }
        keys += [-1, Self.hares * 2, Self.hares * 2 + 1, Int.max, Int.min]
        let answers = try await realm.read { realm in
            keys.map { key in realm.object(ofType: Hare.self, forPrimaryKey: key).map { "\($0.id) \($0.name)" } }
        }
        let expected = keys.map { key in key >= 0 && key < Self.hares * 2 && key % 2 == 0 ? "\(key) hare\(key)" : nil }
        #expect(answers == expected)
    }

    @Test func objectsTheCallerKeepsKeepTheirKeys() async throws {
        let realm = try await Self.makeRealm()
        let names = try await realm.read { realm in
            var kept: [Hare] = []
            for key in stride(from: 0, to: 40, by: 2) {
                // Every other one is kept; the ones between are let go at once.
                if let hare = realm.object(ofType: Hare.self, forPrimaryKey: key), key % 4 == 0 { kept.append(hare) }
                _ = realm.object(ofType: Hare.self, forPrimaryKey: key + 1000)?.name
            }
            return kept.map(\.name)
        }
        #expect(names == stride(from: 0, to: 40, by: 4).map { "hare\($0)" })
    }

    @Test func anObjectHeldWeaklyIsNotRepointed() async throws {
        let realm = try await Self.makeRealm()
        let (first, second) = try await realm.read { realm in
            weak let first = realm.object(ofType: Hare.self, forPrimaryKey: 10)
            let second = realm.object(ofType: Hare.self, forPrimaryKey: 12)?.name
            return (first?.name, second)
        }
        // The weak reference may outlive the object or not, but never sees another one.
        #expect(first == nil || first == "hare10")
        #expect(second == "hare12")
    }

    @Test func aListTheCallerKeepsStaysWithItsObject() async throws {
        let realm = try await Self.makeRealm()
        let (marks, next) = try await realm.read { realm in
            // The list holds its object's binding, not the object: the binding is not shared.
            let marks = realm.object(ofType: Lynx.self, forPrimaryKey: 6)!.marks
            let next = realm.object(ofType: Lynx.self, forPrimaryKey: 8)?.name
            return (Array(marks), next)
        }
        #expect(marks == [3, 30])
        #expect(next == "lynx8")
    }

    @Test func lookupsOfTwoClassesDoNotMix() async throws {
        let realm = try await Self.makeRealm()
        let names = try await realm.read { realm in
            (0..<10).flatMap { id in
                [realm.object(ofType: Hare.self, forPrimaryKey: id * 2)?.name, realm.object(ofType: Lynx.self, forPrimaryKey: id * 2)?.name]
            }
        }
        #expect(names == (0..<10).flatMap { ["hare\($0 * 2)", "lynx\($0 * 2)"] })
    }

    @Test func lookupsInAWriteSeeItsChangesAndDeletions() async throws {
        let realm = try await Self.makeRealm()
        let seen = try await realm.write { realm -> [String?] in
            var seen: [String?] = []
            for key in stride(from: 0, to: 20, by: 2) {
                realm.object(ofType: Hare.self, forPrimaryKey: key)!.name = "renamed\(key)"
            }
            try realm.delete(realm.object(ofType: Hare.self, forPrimaryKey: 4)!)
            let hare = Hare()
            hare.id = 5
            hare.name = "new5"
            try realm.add(hare)
            for key in 0..<8 { seen.append(realm.object(ofType: Hare.self, forPrimaryKey: key)?.name) }
            return seen
        }
        #expect(seen == ["renamed0", nil, "renamed2", nil, nil, "new5", "renamed6", nil])
        let after = try await realm.read { realm in (0..<8).map { realm.object(ofType: Hare.self, forPrimaryKey: $0)?.name } }
        #expect(after == seen)
    }

    @Test func aRolledBackWriteIsNotSeenByTheNextLookup() async throws {
        let realm = try await Self.makeRealm()
        struct Abandon: Error {}
        await #expect(throws: Abandon.self) {
            try await realm.write { realm in
                realm.object(ofType: Hare.self, forPrimaryKey: 8)!.name = "gone"
                try realm.delete(realm.object(ofType: Hare.self, forPrimaryKey: 10)!)
                throw Abandon()
            }
        }
        let names = try await realm.read { realm in [8, 10].map { realm.object(ofType: Hare.self, forPrimaryKey: $0)?.name } }
        #expect(names == ["hare8", "hare10"])
    }

    @Test func aWrongKeyTypeIsStillATypedError() async throws {
        let realm = try await Self.makeRealm()
        await #expect(throws: FloeError.self) {
            try await realm.read { realm in
                _ = realm.object(ofType: Hare.self, forPrimaryKey: 4)?.name
                _ = realm.object(ofType: Hare.self, forPrimaryKey: "4")
            }
        }
    }

    @Test func theReadDropsTheObjectItKeptForTheNextLookup() async throws {
        let realm = try await Self.makeRealm()
        // Kept during the read (its binding holds the realm's context: kept after it, the
        // two would hold each other), dropped when the read ends.
        let keptInside = try await realm.read { realm in
            _ = realm.object(ofType: Hare.self, forPrimaryKey: 6)?.name
            return realm._access.context.lastLookup != nil
        }
        #expect(keptInside)
        #expect(await realm.keepsLookupForTesting == false)
    }
}

extension Realm {
    /// Whether the realm's context still keeps an object for the next lookup.
    var keepsLookupForTesting: Bool { context.lastLookup != nil }
}
