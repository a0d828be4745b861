import Foundation
import Testing
@_spi(Engine) @testable import Floe
@_spi(Engine) @testable import FloeEngine
@_spi(Engine) @testable import FloeStorage

/// The change-stream signatures Floe pins to Realm's shapes, each checked where it compiles
/// (exhaustive switches without `default`, explicit element types) and where it runs; and the
/// bad input each stream refuses with a typed error naming the class and key path.
@Suite struct ChangeStreamSignatureTests {
    final class Toy: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var weight = 0
    }

    final class Pet: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var toy: Toy?
        @Persisted var toys: List<Toy>
        @Persisted var favourites: MutableSet<Toy>
        @Persisted var toysByRoom: Map<String, Toy?>
        @Persisted var scores: Map<String, Int>
        @Persisted(originProperty: "pets") var keepers: LinkingObjects<Keeper>
    }

    final class Keeper: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var pets: List<Pet>
    }

    static func makeRealm() async throws -> Realm {
        let realm = try await inMemoryRealm("signatures")
        try await realm.write { realm in
            let pet = try realm.create(Pet.self, value: ["id": 1, "name": "Rex"])
            let toy = try realm.create(Toy.self, value: ["id": 1, "name": "ball"])
            pet.toy = toy
            pet.toys.append(toy)
            pet.favourites.insert(toy)
            pet.toysByRoom["hall"] = toy
            pet.scores["speed"] = 3
            try realm.create(Keeper.self, value: ["id": 1]).pets.append(pet)
        }
        return realm
    }

    /// The identity a stream has as a ``ChangeStream``: compiles only for conforming types.
    static func identity<S: ChangeStream>(_ stream: S) -> ChangeStreamID { stream.changeStreamID }

    @Test func objectChangesAreObjectChangeOfFrozenWithPropertyChanges() async throws {
        let realm = try await Self.makeRealm()
        let stream: ObjectChanges<Pet> = try await realm.read { realm in try realm.object(ofType: Pet.self, forPrimaryKey: 1)!.changes }
        let narrowed: ObjectChanges<Pet> = try await realm.read { realm in
            try realm.object(ofType: Pet.self, forPrimaryKey: 1)!.changes(keyPaths: ["toy.name"])
        }
        var iterator = stream.makeAsyncIterator()
        var narrowedIterator = narrowed.makeAsyncIterator()
        try await realm.write { realm in realm.object(ofType: Toy.self, forPrimaryKey: 1)!.name = "rope" }
        try await realm.write { realm in realm.object(ofType: Pet.self, forPrimaryKey: 1)!.name = "Max" }
        let change: ObjectChange<Frozen<Pet>>? = await iterator.next()
        switch change {
        case .change(let pet, let properties)?:
            let property: PropertyChange = properties[0]
            let name: String = property.name
            let oldValue: (any Sendable)? = property.oldValue
            let newValue: (any Sendable)? = property.newValue
            #expect(pet.name == "Max" && name == "name" && oldValue as? String == "Rex" && newValue as? String == "Max")
        case .deleted?, nil:
            Issue.record("expected .change")
        }
        guard case .change(_, let toyProperties)? = await narrowedIterator.next() else { Issue.record("expected .change"); return }
        #expect(toyProperties.map(\.name) == ["toy"])
        try await realm.write { realm in try realm.delete(realm.object(ofType: Pet.self, forPrimaryKey: 1)!) }
        switch await iterator.next() {
        case .deleted?: break
        case .change?, nil: Issue.record("expected .deleted")
        }
        #expect(await iterator.next() == nil)
    }

    @Test func collectionChangesHaveExactlyRealmsTwoCasesBoundByPosition() async throws {
        let realm = try await Self.makeRealm()
        let results: CollectionChanges<FrozenResults<Toy>> = try await realm.read { realm in try realm.objects(Toy.self).changes }
        let list: CollectionChanges<FrozenList<Toy>> = try await realm.read { realm in try realm.object(ofType: Pet.self, forPrimaryKey: 1)!.toys.changes(keyPaths: ["name"]) }
        let set: CollectionChanges<FrozenSet<Toy>> = try await realm.read { realm in try realm.object(ofType: Pet.self, forPrimaryKey: 1)!.favourites.changes }
        let linking: CollectionChanges<[Frozen<Keeper>]> = try await realm.read { realm in try realm.object(ofType: Pet.self, forPrimaryKey: 1)!.keepers.changes }
        var resultsChanges = results.makeAsyncIterator(), listChanges = list.makeAsyncIterator()
        var setChanges = set.makeAsyncIterator(), linkingChanges = linking.makeAsyncIterator()
        _ = await resultsChanges.next()
        _ = await listChanges.next()
        _ = await setChanges.next()
        _ = await linkingChanges.next()
        // Each stream hands out the collection as `freeze()` returns it.
        let frozenTypes = try await realm.read { realm in
            let pet = realm.object(ofType: Pet.self, forPrimaryKey: 1)!
            let results: FrozenResults<Toy> = try realm.objects(Toy.self).freeze()
            let list: FrozenList<Toy> = try pet.toys.freeze(), set: FrozenSet<Toy> = try pet.favourites.freeze()
            let keepers: [Frozen<Keeper>] = try pet.keepers.freeze(), rooms: FrozenMap<String, Toy?> = try pet.toysByRoom.freeze()
            return [results.count, list.count, set.count, keepers.count, rooms.count]
        }
        #expect(frozenTypes == [1, 1, 1, 1, 1])
        try await realm.write { realm in
            realm.object(ofType: Toy.self, forPrimaryKey: 1)!.name = "rope"
            realm.object(ofType: Keeper.self, forPrimaryKey: 1)!.pets.removeAll()
        }
        // Exhaustive without `default`: a third case would not compile here.
        func positions<C>(_ change: RealmCollectionChange<C>?) -> [[Int]]? {
            switch change {
            case .initial?: return nil
            case .update(_, let deletions, let insertions, let modifications)?: return [deletions, insertions, modifications]
            case nil: return nil
            }
        }
        let resultsUpdate = await resultsChanges.next(), listUpdate = await listChanges.next()
        let setUpdate = await setChanges.next(), linkingUpdate = await linkingChanges.next()
        #expect(positions(resultsUpdate) == [[], [], [0]])
        #expect(positions(listUpdate) == [[], [], [0]])
        #expect(positions(setUpdate) == [[], [], [0]])
        #expect(positions(linkingUpdate) == [[0], [], []])
        // The labels are Realm's, for code that builds changes.
        let built = RealmCollectionChange<[Int]>.update([1], deletions: [], insertions: [0], modifications: [])
        if case .update(let state, deletions: _, insertions: let insertions, modifications: _) = built { #expect(state == [1] && insertions == [0]) }
    }

    @Test func mapChangesReportKeysAndFollowKeyPaths() async throws {
        let realm = try await Self.makeRealm()
        let scores: MapChanges<String, Int> = try await realm.read { realm in try realm.object(ofType: Pet.self, forPrimaryKey: 1)!.scores.changes }
        let rooms: MapChanges<String, Toy?> = try await realm.read { realm in
            try realm.object(ofType: Pet.self, forPrimaryKey: 1)!.toysByRoom.changes(keyPaths: ["name"])
        }
        var scoreChanges = scores.makeAsyncIterator()
        var roomChanges = rooms.makeAsyncIterator()
        _ = await scoreChanges.next()
        _ = await roomChanges.next()
        try await realm.write { realm in
            realm.object(ofType: Pet.self, forPrimaryKey: 1)!.scores["grace"] = 2
            realm.object(ofType: Toy.self, forPrimaryKey: 1)!.weight = 3   // written, but not `name`: no modification for `rooms`
        }
        try await realm.write { realm in realm.object(ofType: Toy.self, forPrimaryKey: 1)!.name = "frisbee" }
        let change: RealmMapChange<FrozenMap<String, Int>>? = await scoreChanges.next()
        switch change {
        case .update(let map, let deletions, let insertions, let modifications)?:
            #expect(map["grace"] == 2 && deletions.isEmpty && insertions == ["grace"] && modifications.isEmpty)
        case .initial?, nil:
            Issue.record("expected .update")
        }
        guard case .update(_, let deletions, let insertions, let modifications)? = await roomChanges.next() else { Issue.record("expected .update"); return }
        #expect(deletions.isEmpty && insertions.isEmpty && modifications == ["hall"])
    }

    @Test func theRealmsChangesCarryAVersion() async throws {
        let realm = try await Self.makeRealm()
        let stream: RealmChanges = try realm.changes
        var iterator = stream.makeAsyncIterator()
        try await realm.write { realm in realm.object(ofType: Toy.self, forPrimaryKey: 1)!.name = "rope" }
        let version: UInt64? = await iterator.next()?.version
        #expect(version == realm.store.currentVersion)
    }

    @Test func everyStreamIsAChangeStreamAndAWriteCanSkipItFromEitherSide() async throws {
        let realm = try await Self.makeRealm()
        let ids = try await realm.read { realm in
            let pet = realm.object(ofType: Pet.self, forPrimaryKey: 1)!
            return [Self.identity(try pet.changes), Self.identity(try realm.objects(Toy.self).changes),
                    Self.identity(try realm.objects(Toy.self).changes.withDeletedKeys), Self.identity(try pet.toys.changes),
                    Self.identity(try pet.favourites.changes), Self.identity(try pet.toysByRoom.changes), Self.identity(try pet.keepers.changes),
                    Self.identity(try realm.objects(Toy.self).sectioned(by: \.name).changes)]
        } + [Self.identity(try realm.changes)]
        #expect(Set(ids).count == ids.count)
        let stream = try await realm.read { realm in try realm.objects(Toy.self).changes }
        let copy = stream
        #expect(Self.identity(copy) == Self.identity(stream))
        var iterator = stream.makeAsyncIterator()
        _ = await iterator.next()
        // From outside the actor: awaited.
        try await realm.write(withoutNotifying: [copy]) { realm in
            realm.object(ofType: Toy.self, forPrimaryKey: 1)!.name = "skipped outside"
            return ()
        }
        // Inside the actor: synchronous.
        try await realm.skippingWrite(stream, name: "skipped inside")
        try await realm.write { realm in _ = try realm.create(Toy.self, value: ["id": 2, "name": "seen"]) }
        guard case .update(let toys, let deletions, let insertions, let modifications)? = await iterator.next() else { Issue.record("expected .update"); return }
        #expect(toys.map(\.name) == ["skipped inside", "seen"])
        #expect(deletions.isEmpty && insertions == [1] && modifications.isEmpty)
    }

    @Test func badKeyPathsAndFeedVersionsAreTypedErrors() async throws {
        let realm = try await Self.makeRealm()
        func expectKeyPathError(_ className: String, _ keyPath: String, _ make: @Sendable (borrowing Realm.ReadTransaction) throws -> Void) async {
            do {
                try await realm.read { realm in try make(realm) }
                Issue.record("\(className) \(keyPath): no error")
            } catch let error as FloeError {
                guard case .invalidKeyPath(let named, let path, _) = error else { Issue.record("\(error)"); return }
                #expect(named.contains(className) && path.contains(keyPath), "\(error)")
                #expect(!error.description.contains("column") && !error.description.contains("table"), "\(error)")
            } catch {
                Issue.record("\(error)")
            }
        }
        await expectKeyPathError("Pet", "nope", { _ = try $0.object(ofType: Pet.self, forPrimaryKey: 1)!.changes(keyPaths: ["nope"]) })
        await expectKeyPathError("Pet", "name.first", { _ = try $0.object(ofType: Pet.self, forPrimaryKey: 1)!.changes(keyPaths: ["name.first"]) })
        await expectKeyPathError("Toy", "colour", { _ = try $0.objects(Toy.self).changes(keyPaths: ["colour"]) })
        await expectKeyPathError("Pet", "toy.colour", { _ = try $0.object(ofType: Keeper.self, forPrimaryKey: 1)!.pets.changes(keyPaths: ["toy.colour"]) })
        await expectKeyPathError("Toy", "size", { _ = try $0.object(ofType: Pet.self, forPrimaryKey: 1)!.favourites.changes(keyPaths: ["size"]) })
        await expectKeyPathError("Toy", "size", { _ = try $0.object(ofType: Pet.self, forPrimaryKey: 1)!.toysByRoom.changes(keyPaths: ["size"]) })
        await expectKeyPathError("Map<String, Int>", "size", { _ = try $0.object(ofType: Pet.self, forPrimaryKey: 1)!.scores.changes(keyPaths: ["size"]) })
        await expectKeyPathError("Keeper", "age", { _ = try $0.object(ofType: Pet.self, forPrimaryKey: 1)!.keepers.changes(keyPaths: ["age"]) })

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("signatures-feed-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try await Realm(configuration: Realm.Configuration(fileURL: directory.appendingPathComponent("feed.floe")))
        try await file.write { realm in _ = try realm.create(Toy.self, value: ["id": 1]) }
        let newest = file.store.currentVersion
        #expect(throws: FloeError.self) { _ = try file.changeFeed(since: newest + 5) }
        do {
            _ = try file.changeFeed(since: newest + 5)
        } catch let error as FloeError {
            guard case .versionUnavailable(_, let version, _, _) = error else { Issue.record("\(error)"); return }
            #expect(version == newest + 5)
        }
    }
}

extension Realm {
    /// A write inside the actor that `stream` does not report.
    fileprivate func skippingWrite(_ stream: CollectionChanges<FrozenResults<ChangeStreamSignatureTests.Toy>>, name: String) throws {
        try write(withoutNotifying: [stream]) {
            object(ofType: ChangeStreamSignatureTests.Toy.self, forPrimaryKey: 1)!.name = name
        }
    }
}
