import Foundation
import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

enum Observed {
    class Person: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var firstName = ""
        @Persisted var lastName = ""
        @Persisted var address: Address?
        @Persisted var friends = List<Person>()
        @Persisted var dog: Dog?
        var ignoredNickname = ""
    }

    typealias Address = FloeTests.Address

    class Dog: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var age = 0
        @Persisted var toy: Toy?
        @Persisted var tags = List<String>()
        @Persisted var nicknames = MutableSet<String>()
        @Persisted var scores = Map<String, Int>()
        @Persisted var toys = List<Toy>()
        @Persisted var weight: Double?
        @Persisted(originProperty: "dog") var owners: LinkingObjects<Person>
        var plain: Int { 3 }

        convenience init(id: Int, name: String, age: Int, toy: Toy?) {
            self.init()
            self.id = id
            self.name = name
            self.age = age
            self.toy = toy
        }
    }

    class Toy: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var keepers = Map<String, Toy?>()
    }

    class PersonProjection: Projection<Person> {
        @Projected(\Person.firstName) var firstName
        @Projected(\Person.address?.city) var homeCity
        @Projected(\Person.friends.projectTo.firstName) var firstFriendsName: ProjectedCollection<String>
        @Projected(\Person.dog) var pet
        @Projected(\Person.dog?.name) var dogName
    }

    /// Projects a plain `var` of the root, which is not persisted.
    class NicknameProjection: Projection<Person> {
        @Projected(\Person.firstName) var firstName
        @Projected(\Person.ignoredNickname) var nickname
    }
}

@Suite struct ProjectionObservationTests {
    typealias Person = Observed.Person
    typealias Dog = Observed.Dog
    typealias Toy = Observed.Toy
    typealias PersonProjection = Observed.PersonProjection

    func realm() async throws -> Realm {
        try await inMemoryRealm("projection-observation", objectTypes: [Person.self, Observed.Address.self, Dog.self, Toy.self])
    }

    func seed(_ realm: Realm) async throws {
        try await realm.write { realm in
            let ana = try realm.create(Person.self, value: ["id": 1, "firstName": "Ana", "lastName": "Silva", "address": ["city": "Lisboa", "country": "PT"]])
            let bo = try realm.create(Person.self, value: ["id": 2, "firstName": "Bo", "lastName": "Berg", "address": ["city": "Porto", "country": "PT"]])
            let cy = try realm.create(Person.self, value: ["id": 3, "firstName": "Cy", "lastName": "Chen"])
            ana.friends.append(objectsIn: [bo, cy])
            ana.dog = try realm.create(Dog.self, value: ["id": 1, "name": "Rex"])
        }
    }

    // MARK: Results of projections

    @Test func projectionResultsReportInsertionsModificationsAndDeletionsWithKeys() async throws {
        let realm = try await realm()
        try await seed(realm)
        let stream = try await realm.read { realm in try realm.objects(PersonProjection.self).changes }
        var changes = stream.withDeletedKeys.makeAsyncIterator()
        guard case .initial(let initial)? = await changes.next()?.change else { Issue.record("expected .initial"); return }
        let initialNames: [String] = initial.map { $0.firstName }
        #expect(initialNames == ["Ana", "Bo", "Cy"])
        #expect(initial[0].homeCity == "Lisboa")

        // A property the projection does not show: no update. Then a projected one.
        try await realm.write { realm in realm.object(ofType: Person.self, forPrimaryKey: 2)?.lastName = "Unseen" }
        try await realm.write { realm in realm.object(ofType: Person.self, forPrimaryKey: 2)?.address?.city = "Faro" }
        guard let modified = await changes.next(), case .update(let people, let deletions, let insertions, let modifications) = modified.change else {
            Issue.record("expected an update"); return
        }
        #expect(deletions == [] && insertions == [] && modifications == [1])
        #expect(people[1].homeCity == "Faro")

        try await realm.write { realm in _ = try realm.create(Person.self, value: ["id": 4, "firstName": "Di"]) }
        guard let inserted = await changes.next(), case .update(let four, _, let added, _) = inserted.change else { Issue.record("expected an update"); return }
        #expect(added == [3])
        #expect(four[3].firstName == "Di")

        try await realm.write { realm in try realm.delete(realm.object(ofType: Person.self, forPrimaryKey: 3)!) }
        guard let deleted = await changes.next(), case .update(let three, let removed, _, _) = deleted.change else { Issue.record("expected an update"); return }
        #expect(removed == [2])
        #expect(deleted.deletedKeys == [.int(3)])
        #expect(three.map { $0.firstName } == ["Ana", "Bo", "Di"])
    }

    @Test func projectionResultsKeyPathsAreProjectedNames() async throws {
        let realm = try await realm()
        try await seed(realm)
        let stream = try await realm.read { realm in try realm.objects(PersonProjection.self).changes(keyPaths: ["homeCity"]) }
        let byKeyPath = try await realm.read { realm in try realm.objects(PersonProjection.self).changes(keyPaths: [\PersonProjection.homeCity]) }
        var iterator = stream.makeAsyncIterator()
        var keyPathIterator = byKeyPath.makeAsyncIterator()
        guard case .initial = await iterator.next(), case .initial = await keyPathIterator.next() else { Issue.record("expected .initial"); return }
        // firstName is projected but not watched: no modification.
        try await realm.write { realm in realm.object(ofType: Person.self, forPrimaryKey: 1)?.firstName = "Ana Maria" }
        try await realm.write { realm in realm.object(ofType: Person.self, forPrimaryKey: 3)?.address = try Observed.Address(value: ["city": "Faro"]) }
        for change in [await iterator.next(), await keyPathIterator.next()] {
            guard case .update(_, _, _, let modifications)? = change else { Issue.record("expected an update"); return }
            #expect(modifications == [2])
        }
        // A name the projection does not project: a typed error naming the class and key path.
        try await realm.read { realm in
            #expect {
                try realm.objects(PersonProjection.self).changes(keyPaths: ["lastName"])
            } throws: { error in
                guard case FloeError.invalidKeyPath(let className, let keyPath, let reason) = error else { return false }
                return className == "PersonProjection" && keyPath == "lastName" && reason.contains("projects no property 'lastName'")
            }
            #expect {
                try realm.objects(PersonProjection.self).changes(keyPaths: [\PersonProjection.rootObject])
            } throws: { error in
                guard case FloeError.invalidKeyPath(let className, _, _) = error else { return false }
                return className == "PersonProjection"
            }
        }
    }

    @Test func projectionResultsSkipAWriteWithoutNotifying() async throws {
        let realm = try await realm()
        try await seed(realm)
        let stream = try await realm.read { realm in try realm.objects(PersonProjection.self).changes }
        var iterator = stream.makeAsyncIterator()
        guard case .initial = await iterator.next() else { Issue.record("expected .initial"); return }
        // Bo is Ana's friend: his name is also Ana's projected `firstFriendsName` (rows 0 and 1).
        try await realm.write(withoutNotifying: [stream]) { realm in realm.object(ofType: Person.self, forPrimaryKey: 2)?.firstName = "Skipped" }
        try await realm.write { realm in realm.object(ofType: Person.self, forPrimaryKey: 1)?.firstName = "Seen" }
        guard case .update(let people, _, _, let modifications)? = await iterator.next() else { Issue.record("expected an update"); return }
        #expect(modifications == [0])
        #expect(people[1].firstName == "Skipped")
        #expect(Array(people[0].firstFriendsName) == ["Skipped", "Cy"])
    }

    @Test func projectionResultsCoalesceForASlowConsumer() async throws {
        let realm = try await realm()
        try await seed(realm)
        let stream = try await realm.read { realm in try realm.objects(PersonProjection.self).changes }
        var iterator = stream.makeAsyncIterator()
        guard case .initial = await iterator.next() else { Issue.record("expected .initial"); return }
        for index in 0..<20 {
            try await realm.write { realm in _ = try realm.create(Person.self, value: ["id": 100 + index, "firstName": "P\(index)"]) }
        }
        var count = 3
        var updates = 0
        while count < 23 {
            guard case .update(let people, let deletions, let insertions, _)? = await iterator.next() else { Issue.record("expected an update"); return }
            #expect(deletions.isEmpty)
            count += insertions.count
            #expect(people.count == count)
            updates += 1
        }
        #expect(updates < 20)
    }

    @Test func projectionResultsSortAndDistinctByProjectedNames() async throws {
        let realm = try await realm()
        try await seed(realm)
        try await realm.read { realm in
            let sorted = try realm.objects(PersonProjection.self).sorted(by: [SortDescriptor(keyPath: "homeCity", ascending: false), "firstName"])
            #expect(sorted.map { $0.firstName } == ["Bo", "Ana", "Cy"])
            let distinct = try realm.objects(PersonProjection.self).distinct(by: ["dogName"])
            #expect(distinct.map { $0.firstName } == ["Ana", "Bo"])
            #expect {
                try realm.objects(PersonProjection.self).sorted(by: [SortDescriptor(keyPath: "lastName")])
            } throws: { error in
                guard case FloeError.invalidKeyPath(let className, let keyPath, _) = error else { return false }
                return className == "PersonProjection" && keyPath == "lastName"
            }
            #expect(throws: FloeError.self) { try realm.objects(PersonProjection.self).distinct(by: ["nope"]) }
        }
    }

    // MARK: A projection's change values

    @Test func projectionChangeValuesAreTheProjectedValues() async throws {
        let realm = try await realm()
        try await seed(realm)
        let stream = try await realm.read { realm in try realm.object(ofType: PersonProjection.self, forPrimaryKey: 1)!.changes }
        var iterator = stream.makeAsyncIterator()
        try await realm.write { realm in realm.object(ofType: Person.self, forPrimaryKey: 1)?.address?.city = "Faro" }
        guard case .change(_, let city)? = await iterator.next() else { Issue.record("expected a change"); return }
        #expect(city.map(\.name) == ["homeCity"])
        #expect(city.first?.oldValue as? String == "Lisboa")
        #expect(city.first?.newValue as? String == "Faro")

        try await realm.write { realm in realm.object(ofType: Person.self, forPrimaryKey: 3)?.firstName = "Cyrus" }
        guard case .change(_, let mapped)? = await iterator.next() else { Issue.record("expected a change"); return }
        #expect(mapped.map(\.name) == ["firstFriendsName"])
        #expect(mapped.first?.oldValue as? [String] == ["Bo", "Cy"])
        #expect(mapped.first?.newValue as? [String] == ["Bo", "Cyrus"])

        // Through a link: the dog's name, and the link itself (a frozen dog).
        try await realm.write { realm in realm.object(ofType: Dog.self, forPrimaryKey: 1)?.name = "Max" }
        guard case .change(_, let dog)? = await iterator.next() else { Issue.record("expected a change"); return }
        #expect(dog.map(\.name) == ["dogName"])
        #expect(dog.first?.oldValue as? String == "Rex")
        #expect(dog.first?.newValue as? String == "Max")

        try await realm.write { realm in realm.object(ofType: Person.self, forPrimaryKey: 1)?.dog = nil }
        guard case .change(_, let unlinked)? = await iterator.next() else { Issue.record("expected a change"); return }
        #expect(Set(unlinked.map(\.name)) == ["pet", "dogName"])
        let pet = unlinked.first { $0.name == "pet" }
        #expect((pet?.oldValue as? Frozen<Dog>)?.name == "Max")
        #expect(pet?.newValue == nil)
        #expect(unlinked.first { $0.name == "dogName" }?.oldValue as? String == "Max")
    }

    @Test func projectionKeyPathsAreProjectedNames() async throws {
        let realm = try await realm()
        try await seed(realm)
        let (byName, byKeyPath) = try await realm.read { realm in
            let ana = realm.object(ofType: PersonProjection.self, forPrimaryKey: 1)!
            return (try ana.changes(keyPaths: ["firstName"]), try ana.changes(keyPaths: [\PersonProjection.homeCity]))
        }
        var names = byName.makeAsyncIterator()
        var paths = byKeyPath.makeAsyncIterator()
        try await realm.write { realm in realm.object(ofType: Person.self, forPrimaryKey: 1)?.address?.city = "Faro" }
        try await realm.write { realm in realm.object(ofType: Person.self, forPrimaryKey: 1)?.firstName = "Ana Maria" }
        guard case .change(_, let first)? = await names.next() else { Issue.record("expected a change"); return }
        #expect(first.map(\.name) == ["firstName"])
        #expect(first.first?.newValue as? String == "Ana Maria")
        guard case .change(_, let second)? = await paths.next() else { Issue.record("expected a change"); return }
        #expect(second.map(\.name) == ["homeCity"])
        #expect(second.first?.newValue as? String == "Faro")
        // A projected link followed on by name.
        let dogStream = try await realm.read { realm in try realm.object(ofType: PersonProjection.self, forPrimaryKey: 1)!.changes(keyPaths: ["pet.age"]) }
        var dogChanges = dogStream.makeAsyncIterator()
        try await realm.write { realm in realm.object(ofType: Dog.self, forPrimaryKey: 1)?.name = "Unwatched" }
        try await realm.write { realm in realm.object(ofType: Dog.self, forPrimaryKey: 1)?.age = 4 }
        guard case .change(let after, let aged)? = await dogChanges.next() else { Issue.record("expected a change"); return }
        #expect(aged.map(\.name) == ["pet"])
        #expect(after.dogName == "Unwatched")
        #expect(after.rootObject.dog?.age == 4)

        try await realm.read { realm in
            let ana = realm.object(ofType: PersonProjection.self, forPrimaryKey: 1)!
            #expect {
                try ana.changes(keyPaths: ["lastName"])
            } throws: { error in
                guard case FloeError.invalidKeyPath(let className, let keyPath, let reason) = error else { return false }
                return className == "PersonProjection" && keyPath == "lastName" && reason.contains("firstName, homeCity")
            }
            #expect {
                try ana.changes(keyPaths: ["firstFriendsName.lastName"])
            } throws: { error in
                guard case FloeError.invalidKeyPath(let className, let keyPath, _) = error else { return false }
                return className == "PersonProjection" && keyPath == "firstFriendsName.lastName"
            }
        }
    }

    // MARK: Swift key paths on objects and collections

    @Test func objectKeyPathsFollowLinks() async throws {
        let realm = try await realm()
        try await realm.write { realm in
            _ = try realm.create(Dog.self, value: ["id": 1, "name": "Rex", "toy": ["id": 7, "name": "Ball"]])
        }
        let (names, toys) = try await realm.read { realm in
            let rex = realm.object(ofType: Dog.self, forPrimaryKey: 1)!
            return (try rex.changes(keyPaths: [\Dog.name]), try rex.changes(keyPaths: [\Dog.toy?.name]))
        }
        var nameChanges = names.makeAsyncIterator()
        var toyChanges = toys.makeAsyncIterator()
        try await realm.write { realm in realm.object(ofType: Dog.self, forPrimaryKey: 1)?.age = 3 }   // neither
        try await realm.write { realm in realm.object(ofType: Toy.self, forPrimaryKey: 7)?.name = "Rope" }
        try await realm.write { realm in realm.object(ofType: Dog.self, forPrimaryKey: 1)?.name = "Max" }
        guard case .change(_, let named)? = await nameChanges.next() else { Issue.record("expected a change"); return }
        #expect(named.map(\.name) == ["name"])
        #expect(named.first?.newValue as? String == "Max")
        guard case .change(_, let toyed)? = await toyChanges.next() else { Issue.record("expected a change"); return }
        #expect(toyed.map(\.name) == ["toy"])

        try await realm.read { realm in
            let rex = realm.object(ofType: Dog.self, forPrimaryKey: 1)!
            #expect {
                try rex.changes(keyPaths: [\Dog.plain])
            } throws: { error in
                guard case FloeError.invalidKeyPath(let className, let keyPath, let reason) = error else { return false }
                return className == "Dog" && keyPath == "\\Dog.<a computed Int>" && reason.contains("no @Persisted property")
            }
        }
    }

    @Test func collectionKeyPathsNameTheElementsProperties() async throws {
        let realm = try await realm()
        try await realm.write { realm in
            let rex = try realm.create(Dog.self, value: ["id": 1, "name": "Rex", "toys": [["id": 7, "name": "Ball"]]])
            _ = try realm.create(Person.self, value: ["id": 1, "firstName": "Ana", "dog": rex])
            let toy = realm.object(ofType: Toy.self, forPrimaryKey: 7)!
            toy.keepers["self"] = toy
        }
        let streams = try await realm.read { realm in
            let rex = realm.object(ofType: Dog.self, forPrimaryKey: 1)!
            let toy = realm.object(ofType: Toy.self, forPrimaryKey: 7)!
            return (try realm.objects(Dog.self).changes(keyPaths: [\Dog.name]), try rex.toys.changes(keyPaths: [\Toy.name]),
                    try rex.owners.changes(keyPaths: [\Person.firstName]), try toy.keepers.changes(keyPaths: [\Toy.name]))
        }
        var results = streams.0.makeAsyncIterator()
        var list = streams.1.makeAsyncIterator()
        var owners = streams.2.makeAsyncIterator()
        var map = streams.3.makeAsyncIterator()
        guard case .initial = await results.next(), case .initial = await list.next(), case .initial = await owners.next(),
              case .initial = await map.next() else { Issue.record("expected .initial"); return }
        try await realm.write { realm in
            realm.object(ofType: Dog.self, forPrimaryKey: 1)?.age = 9
            realm.object(ofType: Person.self, forPrimaryKey: 1)?.lastName = "Unwatched"
        }
        try await realm.write { realm in
            realm.object(ofType: Dog.self, forPrimaryKey: 1)?.name = "Max"
            realm.object(ofType: Toy.self, forPrimaryKey: 7)?.name = "Rope"
            realm.object(ofType: Person.self, forPrimaryKey: 1)?.firstName = "Bia"
        }
        guard case .update(_, _, _, let dogs)? = await results.next() else { Issue.record("expected an update"); return }
        #expect(dogs == [0])
        guard case .update(let toys, _, _, let toyModifications)? = await list.next() else { Issue.record("expected an update"); return }
        #expect(toyModifications == [0])
        #expect(toys[0].name == "Rope")
        guard case .update(let people, _, _, let ownerModifications)? = await owners.next() else { Issue.record("expected an update"); return }
        #expect(ownerModifications == [0])
        #expect(people[0].firstName == "Bia")
        guard case .update(_, _, _, let keys)? = await map.next() else { Issue.record("expected an update"); return }
        #expect(keys == ["self"])
        try await realm.read { realm in
            #expect(throws: FloeError.self) { try realm.objects(Dog.self).changes(keyPaths: [\Dog.plain]) }
        } as Void
    }

    // MARK: add(_:update:) observed

    @Test func addModifiedReportsOnlyChangedProperties() async throws {
        let realm = try await realm()
        try await realm.write { realm in
            _ = try realm.create(Dog.self, value: ["id": 1, "name": "R2", "age": 4, "tags": ["a", "b"], "nicknames": ["x"],
                                                   "scores": ["k": 1], "toys": [["id": 7, "name": "Ball"]], "weight": 2.5])
        }
        let stream = try await realm.read { realm in try realm.object(ofType: Dog.self, forPrimaryKey: 1)!.changes }
        var iterator = stream.makeAsyncIterator()

        try await realm.write { realm in try realm.add(Dog(id: 1, name: "R2", age: 5, toy: nil), update: .modified) }
        guard case .change(_, let first)? = await iterator.next() else { Issue.record("expected a change"); return }
        // The nil toy and equal name are left alone; the new dog's empty collections and nil
        // weight differ from the stored ones, so they count too.
        #expect(Set(first.map(\.name)) == ["age", "tags", "nicknames", "scores", "toys", "weight"])

        // Every property equal, collections and links included: nothing is written, no change.
        try await realm.write { realm in
            let same = Dog(id: 1, name: "R2", age: 5, toy: nil)
            same.toys.append(realm.object(ofType: Toy.self, forPrimaryKey: 7)!)
            try realm.add(same, update: .modified)
        }
        guard case .change(_, let toysBack)? = await iterator.next() else { Issue.record("expected a change"); return }
        #expect(toysBack.map(\.name) == ["toys"])

        try await realm.write { realm in
            let toy = try realm.create(Toy.self, value: ["id": 8, "name": "Rope"])
            let same = Dog(id: 1, name: "R2", age: 5, toy: toy)
            same.toys.append(realm.object(ofType: Toy.self, forPrimaryKey: 7)!)
            try realm.add(same, update: .modified)
        }
        guard case .change(_, let toyed)? = await iterator.next() else { Issue.record("expected a change"); return }
        #expect(toyed.map(\.name) == ["toy"])

        try await realm.write { realm in
            _ = try realm.create(Dog.self, value: ["id": 1, "name": "R2", "age": 5, "toy": ["id": 8, "name": "Rope"], "tags": ["a", "b"],
                                                   "nicknames": ["x"], "scores": ["k": 1], "toys": [["id": 7, "name": "Ball"]], "weight": 2.5],
                                 update: .modified)
        }
        guard case .change(_, let restored)? = await iterator.next() else { Issue.record("expected a change"); return }
        #expect(Set(restored.map(\.name)) == ["tags", "nicknames", "scores", "weight"])

        // The same values again: no property differs, so the next change is the age below.
        try await realm.write { realm in
            _ = try realm.create(Dog.self, value: ["id": 1, "name": "R2", "age": 5, "toy": ["id": 8, "name": "Rope"], "tags": ["a", "b"],
                                                   "nicknames": ["x"], "scores": ["k": 1], "toys": [["id": 7, "name": "Ball"]], "weight": 2.5],
                                 update: .modified)
        }
        try await realm.write { realm in _ = try realm.create(Dog.self, value: ["id": 1, "age": 6], update: .modified) }
        guard case .change(_, let aged)? = await iterator.next() else { Issue.record("expected a change"); return }
        #expect(aged.map(\.name) == ["age"])

        // `.all` writes every property, equal or not.
        try await realm.write { realm in
            _ = try realm.create(Dog.self, value: ["id": 1, "name": "R2", "age": 6, "toy": ["id": 8, "name": "Rope"], "tags": ["a", "b"],
                                                   "nicknames": ["x"], "scores": ["k": 1], "toys": [["id": 7, "name": "Ball"]], "weight": 2.5],
                                 update: .all)
        }
        guard case .change(_, let all)? = await iterator.next() else { Issue.record("expected a change"); return }
        #expect(Set(all.map(\.name)) == ["name", "age", "toy", "tags", "nicknames", "scores", "toys", "weight"])
        let stored = try await realm.read { realm in
            let dog = realm.object(ofType: Dog.self, forPrimaryKey: 1)!
            return (dog.age, dog.toy?.name, Array(dog.tags), dog.toys.map(\.id), realm.objects(Toy.self).count)
        }
        #expect(stored.0 == 6 && stored.1 == "Rope" && stored.2 == ["a", "b"] && stored.3 == [7] && stored.4 == 2)
    }

    @Test func addModifiedLeavesAnEqualEmbeddedObjectAlone() async throws {
        let realm = try await realm()
        try await realm.write { realm in
            _ = try realm.create(Person.self, value: ["id": 1, "firstName": "Ana", "address": ["city": "Lisboa", "country": "PT"]])
        }
        let stream = try await realm.read { realm in try realm.object(ofType: Person.self, forPrimaryKey: 1)!.changes }
        var iterator = stream.makeAsyncIterator()
        try await realm.write { realm in
            _ = try realm.create(Person.self, value: ["id": 1, "firstName": "Ana", "address": ["city": "Lisboa", "country": "PT"]], update: .modified)
            let same = Person()
            same.id = 1
            same.firstName = "Ana"
            same.address = try Observed.Address(value: ["city": "Lisboa", "country": "PT"])
            try realm.add(same, update: .modified)
        }
        try await realm.write { realm in
            _ = try realm.create(Person.self, value: ["id": 1, "firstName": "Ana", "address": ["city": "Faro", "country": "PT"]], update: .modified)
        }
        guard case .change(let person, let properties)? = await iterator.next() else { Issue.record("expected a change"); return }
        #expect(properties.map(\.name) == ["address"])
        #expect(person.address?.city == "Faro")
        let embedded = try await realm.read { realm in realm.objects(Person.self).count }
        #expect(embedded == 1)
    }

    // MARK: A projection of a property that is not persisted

    @Test func aProjectionOfANonPersistedPropertyIsRefusedWhereverItIsUsed() async throws {
        let realm = try await realm()
        try await seed(realm)
        let isRefusal: @Sendable (any Error) -> Bool = { error in
            guard case FloeError.invalidKeyPath(let className, let keyPath, let reason) = error else { return false }
            // Swift's key paths carry no property names: the key path shows as Swift describes it.
            return className == "NicknameProjection" && keyPath == "nickname" && reason.hasPrefix("its key path \\Person.<a computed String> on Person: ")
                && reason.contains("no @Persisted property")
        }
        await #expect { try await realm.read { realm in realm.objects(Observed.NicknameProjection.self).map { $0.firstName } } } throws: { isRefusal($0) }
        await #expect { try await realm.read { realm in realm.object(ofType: Observed.NicknameProjection.self, forPrimaryKey: 1)?.nickname } } throws: { isRefusal($0) }
        // A write that uses it rolls back.
        await #expect {
            try await realm.write { realm in
                realm.object(ofType: Person.self, forPrimaryKey: 1)?.firstName = "Never"
                _ = realm.objects(Observed.NicknameProjection.self).count
            }
        } throws: { isRefusal($0) }
        let name = try await realm.read { realm in realm.object(ofType: Person.self, forPrimaryKey: 1)?.firstName }
        #expect(name == "Ana")
        // The throwing forms throw at once.
        try await realm.read { realm in
            let people = ProjectionResults<Observed.NicknameProjection>(rootResults: realm.objects(Person.self))
            #expect { try people.freeze() } throws: { isRefusal($0) }
            #expect { try people.filter("firstName == 'Ana'") } throws: { isRefusal($0) }
            #expect { try people.sorted(byKeyPath: "firstName") } throws: { isRefusal($0) }
            #expect { try people.changes } throws: { isRefusal($0) }
        }
        // A projection made of an object: its own throwing forms throw, and so does the read when it returns.
        await #expect {
            try await realm.read { realm in
                let one = Observed.NicknameProjection(projecting: realm.object(ofType: Person.self, forPrimaryKey: 1)!)
                if (try? one.freeze()) != nil { Issue.record("freeze() of a refused projection answered") }
                if (try? one.changes) != nil { Issue.record("changes of a refused projection answered") }
            }
        } throws: { isRefusal($0) }
        // A projection that is fine reads as before.
        let fine = try await realm.read { realm in realm.objects(PersonProjection.self).map { $0.firstName } }
        #expect(fine == ["Ana", "Bo", "Cy"])
    }
}
