import Foundation
import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

/// Object change streams: every write reported (equal values too) with old and new values,
/// deletion ending the stream, key paths through links, lists, embedded objects and
/// `LinkingObjects`, creation inside a write and from `read { }`, cancellation.
@Suite struct ObjectChangeTests {
    final class Chew: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var squeaks = false
    }

    final class Collar: EmbeddedObject {
        @Persisted var color = ""
        @Persisted var tags: List<Chew>
    }

    final class Hound: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var age = 0
        @Persisted var nickname: String?
        @Persisted var chew: Chew?
        @Persisted var chews: List<Chew>
        @Persisted var collars: List<Collar>
        @Persisted(originProperty: "hounds") var walkers: LinkingObjects<Handler>
    }

    final class Handler: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var hounds: List<Hound>
    }

    static func makeRealm() async throws -> Realm {
        let realm = try await inMemoryRealm("object-changes")
        try await realm.write { realm in
            let chew = try realm.create(Chew.self, value: ["id": 1, "name": "bone"])
            let hound = try realm.create(Hound.self, value: ["id": 1, "name": "Rex", "age": 3])
            hound.chew = chew
            try realm.create(Chew.self, value: ["id": 2, "name": "ball"])
            try realm.create(Hound.self, value: ["id": 2, "name": "Fido"])
        }
        return realm
    }

    static func houndChanges(_ realm: Realm, id: Int = 1, keyPaths: [String]? = nil) async throws -> ObjectChanges<Hound> {
        try await realm.read { realm in
            let hound = realm.object(ofType: Hound.self, forPrimaryKey: id)!
            return try keyPaths.map { try hound.changes(keyPaths: $0) } ?? hound.changes
        }
    }

    static func names(_ change: ObjectChange<Frozen<Hound>>?) -> [String] {
        guard case .change(_, let properties) = change else { return [] }
        return properties.map(\.name)
    }

    @Test func reportsWrittenPropertiesWithOldAndNewValues() async throws {
        let realm = try await Self.makeRealm()
        var changes = try await Self.houndChanges(realm).makeAsyncIterator()
        try await realm.write { realm in
            let hound = realm.object(ofType: Hound.self, forPrimaryKey: 1)!
            hound.age = 4
            hound.nickname = "R"
        }
        let change = await changes.next()
        guard case .change(let hound, let properties) = change else { Issue.record("expected a change, got \(String(describing: change))"); return }
        #expect(hound.age == 4)
        #expect(properties.map(\.name) == ["age", "nickname"])
        #expect(properties[0].oldValue as? Int == 3)
        #expect(properties[0].newValue as? Int == 4)
        #expect(properties[1].oldValue == nil)
        #expect(properties[1].newValue as? String == "R")
    }

    @Test func anEqualValueIsStillAWrite() async throws {
        let realm = try await Self.makeRealm()
        var changes = try await Self.houndChanges(realm).makeAsyncIterator()
        try await realm.write { realm in realm.object(ofType: Hound.self, forPrimaryKey: 1)!.name = "Rex" }
        let change = await changes.next()
        #expect(Self.names(change) == ["name"])
        if case .change(_, let properties) = change {
            #expect(properties[0].oldValue as? String == "Rex")
            #expect(properties[0].newValue as? String == "Rex")
        }
    }

    @Test func otherObjectsAndUnwatchedCommitsAreNotReported() async throws {
        let realm = try await Self.makeRealm()
        var changes = try await Self.houndChanges(realm).makeAsyncIterator()
        try await realm.write { realm in
            realm.object(ofType: Hound.self, forPrimaryKey: 2)!.age = 9
            realm.object(ofType: Chew.self, forPrimaryKey: 1)!.name = "stick"
        }
        try await realm.write { realm in realm.object(ofType: Hound.self, forPrimaryKey: 1)!.age = 5 }
        #expect(Self.names(await changes.next()) == ["age"])
    }

    @Test func linksAndListsAreReportedWithFrozenValues() async throws {
        let realm = try await Self.makeRealm()
        var changes = try await Self.houndChanges(realm).makeAsyncIterator()
        try await realm.write { realm in
            let hound = realm.object(ofType: Hound.self, forPrimaryKey: 1)!
            hound.chew = realm.object(ofType: Chew.self, forPrimaryKey: 2)
            hound.chews.append(realm.object(ofType: Chew.self, forPrimaryKey: 1)!)
        }
        guard case .change(_, let properties) = await changes.next() else { Issue.record("expected a change"); return }
        #expect(properties.map(\.name) == ["chew", "chews"])
        #expect((properties[0].oldValue as? Frozen<Chew>)?.name == "bone")
        #expect((properties[0].newValue as? Frozen<Chew>)?.name == "ball")
        #expect((properties[1].oldValue as? FrozenList<Chew>)?.count == 0)
        #expect((properties[1].newValue as? FrozenList<Chew>)?.map(\.name) == ["bone"])
    }

    @Test func deletionIsReportedAndEndsTheStream() async throws {
        let realm = try await Self.makeRealm()
        var changes = try await Self.houndChanges(realm).makeAsyncIterator()
        try await realm.write { realm in try realm.delete(realm.object(ofType: Hound.self, forPrimaryKey: 1)!) }
        guard case .deleted = await changes.next() else { Issue.record("expected .deleted"); return }
        #expect(await changes.next() == nil)
    }

    @Test func noCommitBetweenCreationAndFirstNextIsMissed() async throws {
        let realm = try await Self.makeRealm()
        let stream = try await Self.houndChanges(realm)
        for age in 10..<13 {
            try await realm.write { realm in realm.object(ofType: Hound.self, forPrimaryKey: 1)!.age = age }
        }
        var changes = stream.makeAsyncIterator()
        guard case .change(let hound, let properties) = await changes.next() else { Issue.record("expected a change"); return }
        // Three commits before the first look coalesce into one change, from the first old value to the last.
        #expect(hound.age == 12)
        #expect(properties.first?.oldValue as? Int == 3)
        #expect(properties.first?.newValue as? Int == 12)
    }

    @Test func aStreamMadeInsideAWriteSeesThatWrite() async throws {
        let realm = try await Self.makeRealm()
        let stream = try await realm.write { realm in
            let hound = realm.object(ofType: Hound.self, forPrimaryKey: 1)!
            let stream = try hound.changes
            hound.name = "Max"
            return stream
        }
        var changes = stream.makeAsyncIterator()
        guard case .change(let hound, _) = await changes.next() else { Issue.record("expected a change"); return }
        #expect(hound.name == "Max")
    }

    @Test func aNewObjectsStreamMadeInItsWriteReportsEveryProperty() async throws {
        let realm = try await Self.makeRealm()
        let stream = try await realm.write { realm in
            try realm.create(Hound.self, value: ["id": 3, "name": "Pip"]).changes
        }
        var changes = stream.makeAsyncIterator()
        let names = Self.names(await changes.next())
        #expect(names.contains("name") && names.contains("age") && !names.contains("walkers"))
    }

    @Test func keyPathsFollowLinks() async throws {
        let realm = try await Self.makeRealm()
        var changes = try await Self.houndChanges(realm, keyPaths: ["chew.name"]).makeAsyncIterator()
        try await realm.write { realm in
            realm.object(ofType: Hound.self, forPrimaryKey: 1)!.age = 8                 // not watched
            realm.object(ofType: Chew.self, forPrimaryKey: 1)!.squeaks = true          // not watched
        }
        try await realm.write { realm in realm.object(ofType: Chew.self, forPrimaryKey: 2)!.name = "disc" }   // not its chew
        try await realm.write { realm in realm.object(ofType: Chew.self, forPrimaryKey: 1)!.name = "stick" }
        guard case .change(let hound, let properties) = await changes.next() else { Issue.record("expected a change"); return }
        #expect(properties.map(\.name) == ["chew"])
        #expect(hound.chew?.name == "stick")
    }

    @Test func keyPathsFollowListsOfEmbeddedObjectsSeveralLevelsDeep() async throws {
        let realm = try await Self.makeRealm()
        try await realm.write { realm in
            let hound = realm.object(ofType: Hound.self, forPrimaryKey: 1)!
            let collar = Collar()
            collar.color = "red"
            collar.tags.append(realm.object(ofType: Chew.self, forPrimaryKey: 2)!)
            hound.collars.append(collar)
        }
        var changes = try await Self.houndChanges(realm, keyPaths: ["collars.tags.name"]).makeAsyncIterator()
        try await realm.write { realm in realm.object(ofType: Hound.self, forPrimaryKey: 1)!.collars[0].color = "blue" }  // not watched
        try await realm.write { realm in realm.object(ofType: Chew.self, forPrimaryKey: 2)!.name = "frisbee" }
        #expect(Self.names(await changes.next()) == ["collars"])
    }

    @Test func keyPathsFollowLinkingObjects() async throws {
        let realm = try await Self.makeRealm()
        try await realm.write { realm in
            let handler = try realm.create(Handler.self, value: ["id": 1, "name": "Ann"])
            handler.hounds.append(realm.object(ofType: Hound.self, forPrimaryKey: 1)!)
        }
        var changes = try await Self.houndChanges(realm, keyPaths: ["walkers.name"]).makeAsyncIterator()
        try await realm.write { realm in realm.object(ofType: Hound.self, forPrimaryKey: 1)!.age = 1 }    // not watched
        try await realm.write { realm in realm.object(ofType: Handler.self, forPrimaryKey: 1)!.name = "Bea" }
        #expect(Self.names(await changes.next()) == ["walkers"])
        try await realm.asyncWrite { realm in _ = try realm.create(Handler.self, value: ["id": 2, "name": "Cy", "hounds": [realm.object(ofType: Hound.self, forPrimaryKey: 1)!]]) }
        #expect(Self.names(await changes.next()) == ["walkers"])
    }

    @Test func unknownKeyPathsAreTypedErrorsNamingClassAndPath() async throws {
        let realm = try await Self.makeRealm()
        for keyPath in ["colour", "chew.flavour", "name.first", "chew..name"] {
            do {
                _ = try await Self.houndChanges(realm, keyPaths: [keyPath])
                Issue.record("'\(keyPath)' was accepted")
            } catch let error as FloeError {
                guard case .invalidKeyPath(let className, let path, _) = error else { Issue.record("\(error)"); continue }
                #expect(className == "Hound")
                #expect(path == keyPath)
                #expect("\(error)".contains(keyPath))
            }
        }
    }

    @Test func unmanagedAndFrozenObjectsCannotBeObserved() async throws {
        #expect(throws: FloeError.self) { _ = try Hound().changes }
        let realm = try await Self.makeRealm()
        let frozen = try await realm.read { realm in try realm.object(ofType: Hound.self, forPrimaryKey: 1)!.freeze() }
        #expect(throws: FloeError.self) { _ = try frozen.makeModel().changes }
    }

    @Test func cancellingTheConsumingTaskEndsTheStream() async throws {
        let realm = try await Self.makeRealm()
        let stream = try await Self.houndChanges(realm)
        let consumer = Task {
            var received = 0
            for await _ in stream { received += 1 }
            return received
        }
        try await Task.sleep(for: .milliseconds(20))
        consumer.cancel()
        #expect(await consumer.value == 0)
    }

    @Test func changesFromAnotherRealmOfTheSameFileAreSeen() async throws {
        let directory = TemporaryDirectory()
        let configuration = Realm.Configuration(fileURL: directory.url())
        let first = try await Realm(configuration: configuration)
        try await first.asyncWrite { realm in _ = try realm.create(Hound.self, value: ["id": 1, "name": "Rex"]) }
        var changes = try await Self.houndChanges(first).makeAsyncIterator()
        let second = try await Realm(configuration: configuration)
        try await second.write { realm in realm.object(ofType: Hound.self, forPrimaryKey: 1)!.name = "Max" }
        #expect(Self.names(await changes.next()) == ["name"])
    }
}
