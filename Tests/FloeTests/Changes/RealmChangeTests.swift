import Foundation
import Testing
@_spi(Engine) @testable import Floe
@_spi(Engine) @testable import FloeEngine
@_spi(Engine) @testable import FloeStorage

/// The realm's commit stream, map changes, and writes that skip chosen streams.
@Suite struct RealmChangeTests {
    final class Park: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
    }

    final class City: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var rankings: Map<String, Int>
        @Persisted var parks: Map<String, Park?>
    }

    static func makeRealm() async throws -> Realm {
        let realm = try await inMemoryRealm("realm-changes")
        try await realm.write { realm in
            let city = try realm.create(City.self, value: ["id": 1, "name": "Lisbon"])
            city.rankings["a"] = 1
            city.rankings["b"] = 2
            city.parks["central"] = try realm.create(Park.self, value: ["id": 1, "name": "Estrela"])
        }
        return realm
    }

    @Test func theRealmReportsEachCommitsVersionAndClasses() async throws {
        let realm = try await Self.makeRealm()
        var changes = try realm.changes.makeAsyncIterator()
        try await realm.write { realm in realm.object(ofType: Park.self, forPrimaryKey: 1)!.name = "Gulbenkian" }
        let first = await changes.next()
        #expect(first?.version == realm.store.currentVersion)
        #expect(first?.changedClassNames == ["Park"])
        try await realm.write { realm in realm.object(ofType: City.self, forPrimaryKey: 1)!.name = "Porto" }
        let second = await changes.next()
        #expect(second?.version == first!.version + 1)
        #expect(second?.changedClassNames == ["City"])
    }

    @Test func mapsReportKeys() async throws {
        let realm = try await Self.makeRealm()
        var rankings = try await realm.read { realm in try realm.object(ofType: City.self, forPrimaryKey: 1)!.rankings.changes }.makeAsyncIterator()
        var parks = try await realm.read { realm in try realm.object(ofType: City.self, forPrimaryKey: 1)!.parks.changes }.makeAsyncIterator()
        guard case .initial(let initial) = await rankings.next() else { Issue.record("expected .initial"); return }
        #expect(initial.keys == ["a", "b"])
        _ = await parks.next()
        try await realm.write { realm in
            let city = realm.object(ofType: City.self, forPrimaryKey: 1)!
            city.rankings.removeObject(for: "a")
            city.rankings["b"] = 5
            city.rankings["c"] = 3
            realm.object(ofType: Park.self, forPrimaryKey: 1)!.name = "Eduardo VII"
        }
        guard case .update(let map, let deletions, let insertions, let modifications) = await rankings.next() else { Issue.record("expected .update"); return }
        #expect(map.keys == ["b", "c"] && map["b"] == 5)
        #expect(deletions == ["a"] && insertions == ["c"] && modifications == ["b"])
        guard case .update(_, let gone, let added, let parkModifications) = await parks.next() else { Issue.record("expected .update"); return }
        #expect(gone.isEmpty && added.isEmpty && parkModifications == ["central"])
    }

    @Test func aSkippedWriteIsNotReportedAndTheNextDiffStartsAfterIt() async throws {
        let realm = try await Self.makeRealm()
        let stream = try await realm.read { realm in try realm.objects(Park.self).changes }
        var parks = stream.makeAsyncIterator()
        _ = await parks.next()
        try await realm.write(withoutNotifying: [stream]) { realm in
            try realm.create(Park.self, value: ["id": 2, "name": "Monsanto"])
            return ()
        }
        try await realm.write { realm in realm.object(ofType: Park.self, forPrimaryKey: 2)!.name = "Tapada" }
        guard case .update(let all, let deletions, let insertions, let modifications) = await parks.next() else { Issue.record("expected .update"); return }
        // Measured from after the skipped insertion: the new park is a modification, not an insertion.
        #expect(all.count == 2 && deletions.isEmpty && insertions.isEmpty && modifications == [1])
    }

    @Test func aSkippedWriteInsideTheActorAndOtherStreamsStillSeeIt() async throws {
        let realm = try await Self.makeRealm()
        let skipped = try await realm.read { realm in try realm.object(ofType: Park.self, forPrimaryKey: 1)!.changes }
        let copy = skipped
        #expect(copy.changeStreamID == skipped.changeStreamID)
        var other = try await realm.read { realm in try realm.object(ofType: Park.self, forPrimaryKey: 1)!.changes }.makeAsyncIterator()
        var quiet = skipped.makeAsyncIterator()
        try await realm.renameQuietly(parkID: 1, to: "Quiet", skipping: copy)
        try await realm.write { realm in realm.object(ofType: Park.self, forPrimaryKey: 1)!.name = "Loud" }
        guard case .change(_, let properties) = await quiet.next() else { Issue.record("expected a change"); return }
        #expect(properties.first?.oldValue as? String == "Quiet")
        #expect(properties.first?.newValue as? String == "Loud")
        guard case .change(_, let seen) = await other.next() else { Issue.record("expected a change"); return }
        #expect(seen.first?.oldValue as? String == "Estrela")
    }

    @Test func aFailedSkippingWriteLeavesTheStreamAsItWas() async throws {
        let realm = try await Self.makeRealm()
        let stream = try await realm.read { realm in try realm.object(ofType: Park.self, forPrimaryKey: 1)!.changes }
        var changes = stream.makeAsyncIterator()
        struct Refused: Error {}
        await #expect(throws: Refused.self) {
            try await realm.write(withoutNotifying: [stream]) { realm in
                realm.object(ofType: Park.self, forPrimaryKey: 1)!.name = "never"
                throw Refused()
            }
        }
        // The version the failed write would have made is made by this one, which is reported.
        try await realm.write { realm in realm.object(ofType: Park.self, forPrimaryKey: 1)!.name = "kept" }
        guard case .change(let park, _) = await changes.next() else { Issue.record("expected a change"); return }
        #expect(park.name == "kept")
    }

    @Test func aStreamCanBeMadeInsideAnotherStreamsConsumer() async throws {
        let realm = try await Self.makeRealm()
        let outer = try realm.changes
        let task = Task { () -> String? in
            for await _ in outer {
                var inner = try await realm.read { realm in try realm.object(ofType: Park.self, forPrimaryKey: 1)!.changes }.makeAsyncIterator()
                try await realm.write { realm in realm.object(ofType: Park.self, forPrimaryKey: 1)!.name = "inner" }
                if case .change(let park, _) = await inner.next() { return park.name }
                return nil
            }
            return nil
        }
        try await realm.write { realm in realm.object(ofType: City.self, forPrimaryKey: 1)!.name = "Faro" }
        #expect(try await task.value == "inner")
    }
}

extension Realm {
    fileprivate func renameQuietly(parkID: Int, to name: String, skipping stream: ObjectChanges<RealmChangeTests.Park>) throws {
        try write(withoutNotifying: [stream]) {
            object(ofType: RealmChangeTests.Park.self, forPrimaryKey: parkID)!.name = name
        }
    }
}
