import Foundation
import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

enum Projections {
    // The seed's schema and projection (SPEC.md §6).
    class Person: Object {
        @Persisted var firstName = ""
        @Persisted var lastName = ""
        @Persisted var address: Address?
        @Persisted var friends = List<Person>()
    }

    typealias Address = FloeTests.Address

    class PersonProjection: Projection<Person> {
        @Projected(\Person.firstName) var firstName // Passthrough from original object
        @Projected(\Person.address?.city) var homeCity // Rename and access embedded object property through keypath
        @Projected(\Person.friends.projectTo.firstName) var firstFriendsName: ProjectedCollection<String> // Collection mapping
    }

    class Keyed: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var secret = ""
        @Persisted var best: Keyed?
    }

    class KeyedProjection: Projection<Keyed> {
        @Projected(\Keyed.name) var title
        @Projected(\Keyed.best?.name) var bestName
    }

    class Computed: Object {
        @Persisted var name = ""
        var shout: String { name.uppercased() }
        var nothing: Int { 3 }
    }

    /// Key paths that read `name` but answer something else: they must not be compiled to
    /// `name`'s column.
    class TransformingProjection: Projection<Computed> {
        @Projected(\Computed.name) var name
        @Projected(\Computed.shout) var shout
        @Projected(\Computed.name.count) var length
    }

    class BadProjection: Projection<Computed> {
        @Projected(\Computed.name) var name
        @Projected(\Computed.nothing) var nothing
    }

    /// One property of each plain kind and a type projection, read through a projection.
    class Typed: Object {
        @Persisted var count = 0
        @Persisted var weight: Double?
        @Persisted var flag = false
        @Persisted var born = Date(timeIntervalSinceReferenceDate: 0)
        @Persisted var link: URL? = URL(string: "https://a.example")
        @Persisted var home = URL(string: "https://home.example")!
    }

    /// A required failable type projection (its probe reads a placeholder that maps to no URL).
    class RequiredURLProjection: Projection<Typed> {
        @Projected(\Typed.home) var home
        @Projected(\Typed.count) var count
    }

    class TypedProjection: Projection<Typed> {
        @Projected(\Typed.count) var count
        @Projected(\Typed.weight) var weight
        @Projected(\Typed.flag) var flag
        @Projected(\Typed.born) var born
        @Projected(\Typed.link) var link
    }
}

@Suite struct ProjectionTests {
    typealias Person = Projections.Person
    typealias PersonProjection = Projections.PersonProjection

    func realm() async throws -> Realm {
        try await inMemoryRealm("projections", objectTypes: [Person.self, Projections.Address.self, Projections.Keyed.self, Projections.Computed.self, Projections.Typed.self])
    }

    func seed(_ realm: Realm) async throws {
        try await realm.write { realm in
            let ana = try realm.create(Person.self, value: ["firstName": "Ana", "lastName": "Silva", "address": ["city": "Lisbon", "country": "PT"]])
            let bo = try realm.create(Person.self, value: ["firstName": "Bo", "lastName": "Berg", "address": ["city": "Oslo", "country": "NO"]])
            let cy = try realm.create(Person.self, value: ["firstName": "Cy", "lastName": "Chen"])
            ana.friends.append(objectsIn: [bo, cy])
            bo.friends.append(ana)
        }
    }

    @Test func projectedPathsNameTheRootsProperties() throws {
        let properties = try ProjectionSchema.properties(of: PersonProjection.self)
        #expect(properties.map(\.name) == ["firstName", "homeCity", "firstFriendsName"])
        #expect(properties.map(\.path.dotted) == ["firstName", "address.city", "friends.firstName"])
        #expect(properties.map(\.path.toManyPrefix) == [nil, nil, 1])
        let keyed = try ProjectionSchema.properties(of: Projections.KeyedProjection.self)
        #expect(keyed.map(\.path.dotted) == ["name", "best.name"])
    }

    @Test func passthroughRenameEmbeddedAndCollectionMapping() async throws {
        let realm = try await realm()
        try await seed(realm)
        let read = try await realm.read { realm in
            let people = realm.objects(PersonProjection.self)
            return people.map { "\($0.firstName)|\($0.homeCity ?? "-")|\($0.firstFriendsName.joined(separator: ","))" }
        }
        #expect(read == ["Ana|Lisbon|Bo,Cy", "Bo|Oslo|Ana", "Cy|-|"])
    }

    @Test func projectionsAreLiveAndWritesGoToTheRoot() async throws {
        let realm = try await realm()
        try await seed(realm)
        let names = try await realm.write { realm in
            let ana = realm.objects(PersonProjection.self)[0]
            ana.firstName = "Anabela"
            ana.homeCity = "Porto"
            let root = realm.objects(Person.self)[0]
            #expect(root.firstName == "Anabela")
            #expect(root.address?.city == "Porto")
            // Live: a change to the root shows through the projection at once.
            root.friends.removeAll()
            #expect(ana.firstFriendsName.isEmpty)
            root.lastName = "Santos"
            return (ana.firstName, root.lastName)
        }
        #expect(names == ("Anabela", "Santos"))
        let stored = try await realm.read { realm in realm.objects(Person.self).map { "\($0.firstName) \($0.address?.city ?? "")" } }
        #expect(stored == ["Anabela Porto", "Bo Oslo", "Cy "])
    }

    @Test func exclusionHidesWhatIsNotProjected() throws {
        // Only projected properties (and the root) are members: the projection's Mirror holds
        // exactly the three fields.
        let probe = PersonProjection(projecting: Person())
        #expect(Mirror.projectedFields(of: probe).count == 3)
        #expect(!probe.isManaged)
    }

    @Test func queriesOnProjectedProperties() async throws {
        let realm = try await realm()
        try await seed(realm)
        let found = try await realm.read { realm in
            let people = realm.objects(PersonProjection.self)
            let lisbon = try people.where { $0.homeCity == "Lisbon" }.map(\.firstName)
            let notAna = try people.where { $0.firstName != "Ana" }.map(\.firstName)
            let byString = try people.filter("address.city BEGINSWITH %@", "O").map(\.firstName)
            let sorted = try people.sorted(by: \.firstName, ascending: false).map(\.firstName)
            let byCity = try people.sorted(by: \.homeCity).map(\.firstName)
            let chained = try people.where { $0.firstName != "Cy" }.sorted(byKeyPath: "firstName", ascending: false).map(\.firstName)
            return [lisbon, notAna, byString, sorted, byCity, chained]
        }
        #expect(found == [["Ana"], ["Bo", "Cy"], ["Bo"], ["Cy", "Bo", "Ana"], ["Cy", "Ana", "Bo"], ["Bo", "Ana"]])
    }

    @Test func objectForPrimaryKeyAndLinksThroughToOne() async throws {
        let realm = try await realm()
        let seen = try await realm.write { realm in
            let one = try realm.create(Projections.Keyed.self, value: ["id": 1, "name": "one", "secret": "s"])
            let two = try realm.create(Projections.Keyed.self, value: ["id": 2, "name": "two"])
            one.best = two
            let found = realm.object(ofType: Projections.KeyedProjection.self, forPrimaryKey: 1)
            let missing = realm.object(ofType: Projections.KeyedProjection.self, forPrimaryKey: 9)
            #expect(missing == nil)
            let projection = try #require(found)
            projection.bestName = "deux"
            return [projection.title, projection.bestName ?? "",
                    try realm.objects(Projections.KeyedProjection.self).where { $0.bestName == "deux" }.map(\.title).joined()]
        }
        #expect(seen == ["one", "deux", "one"])
    }

    @Test func aKeyPathThatReadsNoPersistedPropertyIsATypedError() async throws {
        #expect {
            try ProjectionSchema.properties(of: Projections.BadProjection.self)
        } throws: { error in
            guard case FloeError.invalidKeyPath(let className, let keyPath, let reason) = error else { return false }
            return className == "BadProjection" && keyPath == "nothing" && reason.contains("no @Persisted property")
        }
        let realm = try await realm()
        try await realm.write { realm in _ = try realm.create(Projections.Computed.self, value: ["name": "x"]) }
        // The throwing forms throw at once; the read that made the projection throws when it returns.
        await #expect(throws: FloeError.self) {
            try await realm.read { realm in
                let all = realm.objects(Projections.BadProjection.self)
                #expect(throws: FloeError.self) { try all.where { $0.name == "x" } }
                let first = Projections.BadProjection(projecting: realm.objects(Projections.Computed.self)[0])
                #expect(throws: FloeError.self) { try first.changes }
            }
        }
    }

    @Test func frozenProjectionsAreSendableSnapshots() async throws {
        let realm = try await realm()
        try await seed(realm)
        let frozen = try await realm.read { realm in try realm.objects(PersonProjection.self)[0].freeze() }
        let all = try await realm.read { realm in try realm.objects(PersonProjection.self).freeze() }
        try await realm.write { realm in realm.objects(Person.self)[0].firstName = "Later" }
        let seen = await Task.detached { [frozen, all] in
            (frozen.firstName, frozen.homeCity, Array(frozen.firstFriendsName), all.map(\.firstName), frozen.isFrozen)
        }.value
        #expect(seen.0 == "Ana")
        #expect(seen.1 == "Lisbon")
        #expect(seen.2 == ["Bo", "Cy"])
        #expect(seen.3 == ["Ana", "Bo", "Cy"])
        #expect(seen.4)
        let thawed = try await realm.read { realm in realm.thaw(frozen)?.firstName }
        #expect(thawed == "Later")
    }

    @Test func changesNotifyOnlyForProjectedProperties() async throws {
        let realm = try await realm()
        try await seed(realm)
        let stream = try await realm.read { realm in try realm.objects(PersonProjection.self)[0].changes }
        var iterator = stream.makeAsyncIterator()
        // Not projected: no change.
        try await realm.write { realm in realm.objects(Person.self)[0].lastName = "Unseen" }
        try await realm.write { realm in realm.objects(Person.self)[0].address?.country = "ES" }
        // Projected, renamed and through an embedded object.
        try await realm.write { realm in realm.objects(Person.self)[0].address?.city = "Madrid" }
        guard case .change(let first, let properties) = await iterator.next() else { Issue.record("expected a change"); return }
        #expect(properties.map(\.name) == ["homeCity"])
        #expect(first.homeCity == "Madrid")
        try await realm.write { realm in realm.objects(Person.self)[0].firstName = "Ana Maria" }
        guard case .change(let second, let renamed) = await iterator.next() else { Issue.record("expected a change"); return }
        #expect(renamed.map(\.name) == ["firstName"])
        #expect(renamed.first?.newValue as? String == "Ana Maria")
        #expect(second.firstName == "Ana Maria")
        // Through the list: a friend's first name.
        try await realm.write { realm in realm.objects(Person.self)[2].firstName = "Cyrus" }
        guard case .change(let third, let mapped) = await iterator.next() else { Issue.record("expected a change"); return }
        #expect(mapped.map(\.name) == ["firstFriendsName"])
        #expect(Array(third.firstFriendsName) == ["Bo", "Cyrus"])
        try await realm.write { realm in try realm.delete(realm.objects(Person.self)[0]) }
        guard case .deleted = await iterator.next() else { Issue.record("expected the deletion"); return }
    }

    @Test func aRequiredFailableTypeProjectionIsProjected() async throws {
        let realm = try await realm()
        let hosts = try await realm.write { realm in
            let typed = try realm.create(Projections.Typed.self, value: ["count": 2, "home": "https://floe.example/a"])
            let projection = Projections.RequiredURLProjection(projecting: typed)
            let before = projection.home.host
            typed.home = URL(string: "https://b.example")!
            return [before, projection.home.host, realm.objects(Projections.RequiredURLProjection.self).first?.home.host]
        }
        #expect(hosts == ["floe.example", "b.example", "b.example"])
    }

    @Test func projectedPlainAndMappedPropertiesReadTheStoredValuesAfterEachWrite() async throws {
        let realm = try await realm()
        let first = try await realm.write { realm in
            let typed = try realm.create(Projections.Typed.self, value: ["count": 3, "flag": true])
            let projection = Projections.TypedProjection(projecting: typed)
            let before = (projection.count, projection.weight, projection.flag, projection.born.timeIntervalSinceReferenceDate, projection.link?.host)
            // Assigned through the root after the projection read them: each read answers the new value.
            typed.count = -41
            typed.weight = 2.5
            typed.flag = false
            typed.born = Date(timeIntervalSinceReferenceDate: 1_000)
            typed.link = URL(string: "https://b.example/x")!
            let after = (projection.count, projection.weight, projection.flag, projection.born.timeIntervalSinceReferenceDate, projection.link?.absoluteString)
            return (before, after)
        }
        #expect(first.0.0 == 3 && first.0.1 == nil && first.0.2 && first.0.3 == 0 && first.0.4 == "a.example")
        #expect(first.1.0 == -41 && first.1.1 == 2.5 && first.1.2 == false && first.1.3 == 1_000 && first.1.4 == "https://b.example/x")
        let read = try await realm.read { realm in
            realm.objects(Projections.TypedProjection.self).map {
                "\($0.count) \($0.weight ?? 0) \($0.flag) \($0.born.timeIntervalSinceReferenceDate) \($0.link?.absoluteString ?? "")"
            }
        }
        #expect(read == ["-41 2.5 false 1000.0 https://b.example/x"])
    }
}

extension ProjectionTests {
    @Test func compiledReadsAnswerWhatTheKeyPathAnswers() async throws {
        let realm = try await realm()
        try await seed(realm)
        try await realm.write { realm in
            try realm.create(Projections.Computed.self, value: ["name": "Émile"])
            let keyed = try realm.create(Projections.Keyed.self, value: ["id": 1, "name": "one"])
            try realm.create(Projections.Keyed.self, value: ["id": 2, "name": "two", "best": keyed])
        }
        try await realm.read { realm in
            let found = realm.objects(Projections.TransformingProjection.self).first
            #expect(found != nil)
            guard let computed = found else { return }
            // Read twice: the first read compiles, the second goes to the column.
            for _ in 0..<2 {
                #expect(computed.name == "Émile")
                #expect(computed.shout == "ÉMILE")
                #expect(computed.length == 5)
            }
            #expect(ProjectedReads.read(of: \Projections.Computed.name).isCompiled)
            #expect(!ProjectedReads.read(of: \Projections.Computed.shout).isCompiled)
            #expect(!ProjectedReads.read(of: \Projections.Computed.name.count).isCompiled)
            // Through an embedded object and a to-one link, nil links included.
            #expect(ProjectedReads.read(of: \Person.address?.city).isCompiled)
            #expect(ProjectedReads.read(of: \Projections.Keyed.best?.name).isCompiled)
            let people = realm.objects(PersonProjection.self)
            for _ in 0..<2 {
                #expect(people.map(\.homeCity) == ["Lisbon", "Oslo", nil])
                #expect(people.map(\.firstName) == ["Ana", "Bo", "Cy"])
            }
            let first = realm.object(ofType: Projections.KeyedProjection.self, forPrimaryKey: 1)
            let second = realm.object(ofType: Projections.KeyedProjection.self, forPrimaryKey: 2)
            #expect(first != nil && second != nil)
            guard let one = first, let two = second else { return }
            for _ in 0..<2 {
                #expect(one.bestName == nil)
                #expect(two.bestName == "one")
                #expect(two.title == "two")
            }
        }
        // Live: a compiled read sees later writes, through the link too.
        let seen = try await realm.write { realm in
            let two = realm.object(ofType: Projections.KeyedProjection.self, forPrimaryKey: 2)!
            let before = (two.title, two.bestName)
            realm.object(ofType: Projections.Keyed.self, forPrimaryKey: 1)!.name = "uno"
            realm.object(ofType: Projections.Keyed.self, forPrimaryKey: 2)!.name = "dos"
            let after = (two.title, two.bestName)
            realm.object(ofType: Projections.Keyed.self, forPrimaryKey: 2)!.best = nil
            return [before.0, before.1, after.0, after.1, two.bestName]
        }
        #expect(seen == ["two", "one", "dos", "uno", nil])
    }

    @Test func iterationReusesOnlyWhatNothingElseHolds() async throws {
        let realm = try await realm()
        try await seed(realm)
        try await realm.read { realm in
            // Kept projections keep their own objects.
            var kept: [PersonProjection] = []
            for person in realm.objects(PersonProjection.self) { kept.append(person) }
            #expect(kept.map(\.firstName) == ["Ana", "Bo", "Cy"])
            #expect(Set(kept.map { ObjectIdentifier($0) }).count == 3)
            // Kept roots too, though their projections were let go.
            var roots: [Person] = []
            for person in realm.objects(PersonProjection.self) { roots.append(person.rootObject) }
            #expect(roots.map(\.firstName) == ["Ana", "Bo", "Cy"])
            // Let go: one projection walks every row.
            var seen = Set<ObjectIdentifier>()
            var names: [String] = []
            for person in realm.objects(PersonProjection.self) {
                seen.insert(ObjectIdentifier(person))
                names.append(person.firstName)
            }
            #expect(names == ["Ana", "Bo", "Cy"])
            #expect(seen.count == 1)
            // Queried results walk the same way.
            let sorted = try realm.objects(PersonProjection.self).sorted(byKeyPath: "firstName", ascending: false)
            #expect(sorted.map(\.firstName) == ["Cy", "Bo", "Ana"])
            var sortedNames: [String] = []
            for person in sorted { sortedNames.append(person.firstName) }
            #expect(sortedNames == ["Cy", "Bo", "Ana"])
        }
    }

    @Test func projectionsFromTheActorAndFromFrozenRealms() async throws {
        let realm = try await realm()
        try await seed(realm)
        let fromActor = await realm.projectionNames()
        #expect(fromActor == ["Ana", "Bo", "Cy"])
        let frozenRealm = try await realm.read { realm in try realm.freeze() }
        #expect(frozenRealm.objects(PersonProjection.self).map(\.homeCity) == ["Lisbon", "Oslo", nil])
    }
}

extension Realm {
    fileprivate func projectionNames() -> [String] {
        objects(Projections.PersonProjection.self).map(\.firstName)
    }
}
