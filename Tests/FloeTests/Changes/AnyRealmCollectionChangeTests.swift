import Foundation
import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

/// `AnyRealmCollection`'s change streams and `freeze()`: the wrapped results', list's, set's
/// and linking objects' own streams behind one type, key-path filters in both forms, skipping
/// by `write(withoutNotifying:)`, and typed errors for what cannot be observed or frozen.
@Suite struct AnyRealmCollectionChangeTests {
    final class Item: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var value = 0
        @Persisted var tag = ""
        @Persisted var holder: Holder?
    }

    final class Holder: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var items: List<Item>
        @Persisted var labels: MutableSet<String>
        @Persisted var values: Map<String, Int>
        @Persisted(originProperty: "holder") var owners: LinkingObjects<Item>
    }

    static func makeRealm() async throws -> Realm {
        let realm = try await inMemoryRealm("any-collection")
        try await realm.write { realm in
            let holder = try realm.create(Holder.self, value: ["id": 1])
            for id in 0..<5 {
                let item = try realm.create(Item.self, value: ["id": id, "value": id * 10, "tag": "t\(id)"])
                if id < 4 { holder.items.append(item) }
            }
        }
        return realm
    }

    @Test func wrappedResultsStreamInsertionsDeletionsAndModifications() async throws {
        let realm = try await Self.makeRealm()
        let stream = try await realm.read { realm in try AnyRealmCollection(realm.objects(Item.self).sorted(byKeyPath: "id")).changes }
        var changes = stream.makeAsyncIterator()
        guard case .initial(let initial)? = await changes.next() else { Issue.record("expected .initial"); return }
        #expect(initial.map(\.id) == [0, 1, 2, 3, 4])
        #expect(initial.isFrozen)
        try await realm.write { realm in
            try realm.delete(realm.object(ofType: Item.self, forPrimaryKey: 1)!)
            realm.object(ofType: Item.self, forPrimaryKey: 3)!.value = 31
            try realm.create(Item.self, value: ["id": 7, "value": 70])
        }
        guard case .update(let items, let deletions, let insertions, let modifications)? = await changes.next() else { Issue.record("expected .update"); return }
        #expect(items.map(\.id) == [0, 2, 3, 4, 7])
        #expect(items[2].value == 31)
        #expect(deletions == [1])
        #expect(insertions == [4])
        #expect(modifications == [3])   // positions in the previous state
        // The first state stays as it was.
        #expect(initial.map(\.id) == [0, 1, 2, 3, 4])
    }

    @Test func wrappedListStreamsItsEdits() async throws {
        let realm = try await Self.makeRealm()
        let stream = try await realm.read { realm in try AnyRealmCollection(realm.object(ofType: Holder.self, forPrimaryKey: 1)!.items).changes }
        var changes = stream.makeAsyncIterator()
        guard case .initial(let initial)? = await changes.next() else { Issue.record("expected .initial"); return }
        #expect(initial.map(\.id) == [0, 1, 2, 3])
        try await realm.write { realm in
            let holder = realm.object(ofType: Holder.self, forPrimaryKey: 1)!
            holder.items.remove(at: 1)
            holder.items.append(realm.object(ofType: Item.self, forPrimaryKey: 4)!)
            realm.object(ofType: Item.self, forPrimaryKey: 2)!.tag = "changed"
        }
        guard case .update(let items, let deletions, let insertions, let modifications)? = await changes.next() else { Issue.record("expected .update"); return }
        #expect(items.map(\.id) == [0, 2, 3, 4])
        #expect(items[1].tag == "changed")
        #expect(deletions == [1])
        #expect(insertions == [3])
        #expect(modifications == [2])   // positions in the previous state
    }

    @Test func wrappedSetAndLinkingObjectsStream() async throws {
        let realm = try await Self.makeRealm()
        var labels = try await realm.read { realm in try AnyRealmCollection(realm.object(ofType: Holder.self, forPrimaryKey: 1)!.labels).changes }.makeAsyncIterator()
        var owners = try await realm.read { realm in try AnyRealmCollection(realm.object(ofType: Holder.self, forPrimaryKey: 1)!.owners).changes }.makeAsyncIterator()
        guard case .initial(let noLabels)? = await labels.next(), case .initial(let noOwners)? = await owners.next() else { Issue.record("expected .initial"); return }
        #expect(noLabels.isEmpty)
        #expect(noOwners.isEmpty)
        try await realm.write { realm in
            let holder = realm.object(ofType: Holder.self, forPrimaryKey: 1)!
            holder.labels.insert("a")
            realm.object(ofType: Item.self, forPrimaryKey: 2)!.holder = holder
        }
        guard case .update(let set, _, let setInsertions, _)? = await labels.next() else { Issue.record("expected .update"); return }
        #expect(Array(set) == ["a"])
        #expect(setInsertions == [0])
        guard case .update(let linking, _, let linkInsertions, _)? = await owners.next() else { Issue.record("expected .update"); return }
        #expect(linking.map(\.id) == [2])
        #expect(linkInsertions == [0])
    }

    @Test func keyPathsInBothFormsFilterModifications() async throws {
        let realm = try await Self.makeRealm()
        var byName = try await realm.read { realm in try AnyRealmCollection(realm.objects(Item.self)).changes(keyPaths: ["tag"]) }.makeAsyncIterator()
        var byKeyPath = try await realm.read { realm in try AnyRealmCollection(realm.objects(Item.self)).changes(keyPaths: [\Item.tag]) }.makeAsyncIterator()
        _ = await byName.next()
        _ = await byKeyPath.next()
        try await realm.write { realm in realm.object(ofType: Item.self, forPrimaryKey: 0)!.value = 99 }   // not watched
        try await realm.write { realm in realm.object(ofType: Item.self, forPrimaryKey: 3)!.tag = "x" }     // watched
        for next in [await byName.next(), await byKeyPath.next()] {
            guard case .update(_, let deletions, let insertions, let modifications)? = next else { Issue.record("expected .update"); continue }
            #expect(deletions.isEmpty && insertions.isEmpty)
            #expect(modifications == [3])
        }
        await #expect {
            try await realm.read { realm in try AnyRealmCollection(realm.objects(Item.self)).changes(keyPaths: ["nope"]) }
        } throws: { error in
            guard case FloeError.invalidKeyPath(_, let keyPath, _) = error else { return false }
            return keyPath == "nope"
        }
    }

    @Test func aWriteWithoutNotifyingSkipsTheWrappedStream() async throws {
        let realm = try await Self.makeRealm()
        let stream = try await realm.read { realm in try AnyRealmCollection(realm.objects(Item.self)).changes }
        var changes = stream.makeAsyncIterator()
        _ = await changes.next()
        try await realm.write(withoutNotifying: [stream]) { realm in realm.object(ofType: Item.self, forPrimaryKey: 0)!.tag = "skipped" }
        try await realm.write { realm in realm.object(ofType: Item.self, forPrimaryKey: 4)!.tag = "seen" }
        guard case .update(let items, _, _, let modifications)? = await changes.next() else { Issue.record("expected .update"); return }
        #expect(modifications == [4])
        #expect(items[0].tag == "skipped")
    }

    @Test func freezeGivesTheWrappedCollectionAtTheLastCommit() async throws {
        let realm = try await Self.makeRealm()
        let (results, list, set, owners) = try await realm.read { realm in
            let holder = realm.object(ofType: Holder.self, forPrimaryKey: 1)!
            return (try AnyRealmCollection(realm.objects(Item.self).filter("value >= 20")).freeze(),
                    try AnyRealmCollection(holder.items).freeze(),
                    try AnyRealmCollection(holder.labels).freeze(),
                    try AnyRealmCollection(holder.owners).freeze())
        }
        try await realm.write { realm in
            realm.object(ofType: Holder.self, forPrimaryKey: 1)!.items.removeAll()
            try realm.delete(realm.object(ofType: Item.self, forPrimaryKey: 4)!)
        }
        let readElsewhere = await Task.detached { (results.map(\.id), list.map(\.id), set.count, owners.count) }.value
        #expect(readElsewhere.0 == [2, 3, 4])
        #expect(readElsewhere.1 == [0, 1, 2, 3])
        #expect(readElsewhere.2 == 0)
        #expect(readElsewhere.3 == 0)
        #expect(results.isFrozen && list.isFrozen)
        // A wrapped wrapper freezes what it wraps.
        let nested = try await realm.read { realm in try AnyRealmCollection(AnyRealmCollection(realm.objects(Item.self))).freeze() }
        #expect(nested.map(\.id) == [0, 1, 2, 3])
    }

    @Test func mapValuesAndUnmanagedListsThrowTypedErrors() async throws {
        let realm = try await Self.makeRealm()
        await #expect {
            try await realm.read { realm in try AnyRealmCollection(realm.object(ofType: Holder.self, forPrimaryKey: 1)!.values.values).changes }
        } throws: { error in
            guard case FloeError.invalidOperation(let className, let detail) = error else { return false }
            return className == "AnyRealmCollection<Int>" && detail.contains("MapValues")
        }
        #expect {
            try AnyRealmCollection(MapValues(elements: [1, 2], isFrozen: false)).freeze()
        } throws: { error in
            guard case FloeError.invalidOperation(let className, _) = error else { return false }
            return className == "AnyRealmCollection<Int>"
        }
        #expect {
            try AnyRealmCollection(Holder().items).changes
        } throws: { error in
            guard case FloeError.invalidOperation(let className, _) = error else { return false }
            return className.hasPrefix("List<")
        }
        #expect {
            try AnyRealmCollection(Holder().items).freeze()
        } throws: { error in
            guard case FloeError.invalidOperation = error else { return false }
            return true
        }
    }
}
