import Foundation
import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

// Realm's projection identity, description, freezing and thawing cases (its ProjectionTests),
// with the mechanical changes of an actor realm: writes and reads in closures, frozen values
// as their own `Sendable` types, `realm.thaw(frozen)` for the live counterpart.
enum Identified {
    class CommonPerson: Object {
        @Persisted var firstName = ""
        @Persisted var lastName = ""
        @Persisted var birthday = Date(timeIntervalSince1970: 0)
        @Persisted var address: Address?
        @Persisted var friends = List<CommonPerson>()
        @Persisted var clubs = MutableSet<Club>()
    }

    typealias Address = FloeTests.Address

    class Club: Object {
        @Persisted var name = ""
    }

    class PersonProjection: Projection<CommonPerson> {
        @Projected(\CommonPerson.firstName) var firstName
        @Projected(\CommonPerson.lastName.localizedUppercase) var lastNameCaps
        @Projected(\CommonPerson.birthday.timeIntervalSince1970) var birthdayAsEpochtime
        @Projected(\CommonPerson.address?.city) var homeCity
        @Projected(\CommonPerson.friends.projectTo.firstName) var firstFriendsName: ProjectedCollection<String>
    }

    /// A second projection class of the same root.
    class NameProjection: Projection<CommonPerson> {
        @Projected(\CommonPerson.firstName) var name
        @Projected(\CommonPerson.clubs.projectTo.name) var clubNames: ProjectedCollection<String>
    }

    class SimpleObject: Object {
        @Persisted var int = 0
        @Persisted var bool = false
    }

    class SimpleProjection: Projection<SimpleObject> {
        @Projected(\SimpleObject.int) var int
    }
}

@Suite struct ProjectionIdentityTests {
    typealias CommonPerson = Identified.CommonPerson
    typealias PersonProjection = Identified.PersonProjection
    typealias SimpleObject = Identified.SimpleObject
    typealias SimpleProjection = Identified.SimpleProjection

    func realm() async throws -> Realm {
        try await inMemoryRealm("projection-identity", objectTypes: [CommonPerson.self, Identified.Address.self, Identified.Club.self, SimpleObject.self])
    }

    func populatedRealm() async throws -> Realm {
        let realm = try await realm()
        try await realm.write { realm in
            let js = try realm.create(CommonPerson.self, value: ["firstName": "John", "lastName": "Snow", "birthday": Date(timeIntervalSince1970: 10),
                                                                 "address": ["Winterfell", "Kingdom in the North"]])
            let dt = try realm.create(CommonPerson.self, value: ["firstName": "Daenerys", "lastName": "Targaryen", "birthday": Date(timeIntervalSince1970: 0),
                                                                 "address": ["King's Landing", "Westeros"]])
            js.friends.append(dt)
            dt.friends.append(js)
            js.clubs.insert(try realm.create(Identified.Club.self, value: ["name": "Night's Watch"]))
        }
        return realm
    }

    /// A realm with one `SimpleObject` (int 0).
    func simpleRealm() async throws -> Realm {
        let realm = try await realm()
        try await realm.write { realm in _ = try realm.create(SimpleObject.self) }
        return realm
    }

    // MARK: Equality, hashing, description, realm, invalidation

    @Test func projectionEquality() async throws {
        let realm = try await populatedRealm()
        try await realm.read { realm in
            let johnObject = try realm.objects(CommonPerson.self).filter("lastName == 'Snow'").first!
            let johnDefaultInit = PersonProjection(projecting: johnObject)
            let johnMapped = try realm.objects(PersonProjection.self).filter("lastName == 'Snow'").first!
            let notJohn = try realm.objects(PersonProjection.self).filter("lastName != 'Snow'").first!
            #expect(johnMapped == johnDefaultInit)
            #expect(johnMapped != notJohn)
            // The same root seen through another projection class is the same projection.
            #expect(johnMapped == Identified.NameProjection(projecting: johnObject))
            // Hashing agrees: a set keeps one projection per root object.
            let all = Set(realm.objects(PersonProjection.self)) .union([johnDefaultInit])
            #expect(all.count == 2)
            #expect(johnMapped.hashValue == johnDefaultInit.hashValue)
            #expect(realm.objects(PersonProjection.self).firstIndex(of: johnDefaultInit) == 0)
        }
        // Unmanaged roots: equal only to projections of the same instance.
        let loose = CommonPerson()
        #expect(PersonProjection(projecting: loose) == PersonProjection(projecting: loose))
        #expect(PersonProjection(projecting: loose) != PersonProjection(projecting: CommonPerson()))
    }

    @Test func description() async throws {
        let realm = try await populatedRealm()
        let (actual, expected) = try await realm.read { realm in
            let john = try realm.objects(PersonProjection.self).filter("lastName == 'Snow'").first!
            let address = Unmanaged.passUnretained(john.rootObject).toOpaque()
            return (john.description, """
                PersonProjection<CommonPerson> <\(address)> {
                \tfirstName(\\.firstName) = John;
                \tlastNameCaps(\\.lastName) = SNOW;
                \tbirthdayAsEpochtime(\\.birthday) = 10.0;
                \thomeCity(\\.address.city) = Optional("Winterfell");
                \tfirstFriendsName(\\.friends) = ProjectedCollection<String> {
                \t[0] Daenerys
                };
                }
                """)
        }
        #expect(actual == expected)
        // A frozen projection describes itself the same way, with the frozen values.
        let frozen = try await realm.read { realm in try realm.objects(PersonProjection.self)[0].freeze() }
        #expect(frozen.description.hasPrefix("PersonProjection<CommonPerson> <0x"))
        #expect(frozen.description.contains("\tlastNameCaps(\\.lastName) = SNOW;\n"))
        #expect("\(frozen)" == frozen.description)
    }

    @Test func projectionsRealmShouldNotBeNil() async throws {
        let opened = try await populatedRealm()
        try await opened.read { realm in
            let projection = realm.objects(PersonProjection.self).first!
            #expect(projection.realm != nil)
            #expect(projection.realm === opened)
            #expect(projection.firstFriendsName.realm === opened)
        }
        #expect(PersonProjection(projecting: CommonPerson()).realm == nil)
        #expect(PersonProjection(projecting: CommonPerson()).firstFriendsName.realm == nil)
    }

    @Test func isInvalidatedOnceTheRootIsDeleted() async throws {
        let realm = try await simpleRealm()
        let afterDelete = try await realm.write { realm in
            let projection = realm.objects(SimpleProjection.self)[0]
            #expect(!projection.isInvalidated)
            try realm.delete(projection.rootObject)
            return projection.isInvalidated
        }
        #expect(afterDelete)
        #expect(!SimpleProjection(projecting: SimpleObject()).isInvalidated)
    }

    // MARK: Freezing and thawing a projection

    @Test func isFrozen() async throws {
        let realm = try await simpleRealm()
        let (liveIsFrozen, frozen) = try await realm.read { realm in
            let projection = realm.objects(SimpleProjection.self)[0]
            return (projection.isFrozen, try projection.freeze())
        }
        #expect(!liveIsFrozen)
        #expect(frozen.isFrozen)
    }

    @Test func freezingFrozenObjectReturnsSelf() async throws {
        let realm = try await simpleRealm()
        let frozen = try await realm.read { realm in try realm.objects(SimpleProjection.self)[0].freeze() }
        #expect(frozen == frozen.freeze())
    }

    @Test func freezingDeletedObject() async throws {
        let realm = try await simpleRealm()
        try await realm.write { realm in
            let projection = realm.objects(SimpleProjection.self)[0]
            try realm.delete(projection.rootObject)
            #expect(throws: FloeError.self) { try projection.freeze() }
        }
    }

    @Test func frozenObjectEquality() async throws {
        let realm = try await realm()
        try await realm.write { realm in
            _ = try realm.create(SimpleObject.self)
            _ = try realm.create(SimpleObject.self)
        }
        let (frozenA1, frozenA2, frozenB) = try await realm.read { realm in
            let projectionA = realm.objects(SimpleProjection.self)[0]
            let projectionB = realm.objects(SimpleProjection.self)[1]
            return (try projectionA.freeze(), try projectionA.freeze(), try projectionB.freeze())
        }
        #expect(frozenA1 == frozenA2)
        #expect(frozenA1.hashValue == frozenA2.hashValue)
        #expect(frozenA1 != frozenB)
        // The same object frozen at a later version is another snapshot.
        try await realm.write { realm in realm.objects(SimpleObject.self)[0].int = 5 }
        let later = try await realm.read { realm in try realm.objects(SimpleProjection.self)[0].freeze() }
        #expect(later != frozenA1)
        #expect(later.int == 5 && frozenA1.int == 0)
    }

    @Test func thaw() async throws {
        let realm = try await simpleRealm()
        let frozen = try await realm.read { realm in try realm.objects(SimpleProjection.self)[0].freeze() }
        #expect(frozen.isFrozen)
        let liveWasFrozen = try await realm.write { realm in
            let thawed = realm.thaw(frozen)
            let live = try #require(thawed)
            live.int = 2
            return live.isFrozen
        }
        #expect(!liveWasFrozen)
        #expect(frozen.int == 0)
        #expect(try await realm.read { realm in realm.objects(SimpleObject.self)[0].int } == 2)
    }

    @Test func thawDeleted() async throws {
        let realm = try await simpleRealm()
        let frozen = try await realm.read { realm in try realm.objects(SimpleProjection.self)[0].freeze() }
        #expect(frozen.isFrozen)
        try await realm.write { realm in try realm.deleteAll() }
        let thawedIsNil = try await realm.read { realm in realm.thaw(frozen) == nil }
        #expect(thawedIsNil, "Thaw should return nil when object was deleted")
    }

    @Test func thawPreviousVersion() async throws {
        let realm = try await simpleRealm()
        let frozen = try await realm.read { realm in try realm.objects(SimpleProjection.self)[0].freeze() }
        try await realm.write { realm in realm.objects(SimpleProjection.self)[0].int = 1 }
        #expect(frozen.int == 0, "Frozen object shouldn't mutate")
        let thawed = try await realm.read { realm in realm.thaw(frozen).map { ($0.isFrozen, $0.int) } }
        #expect(thawed?.0 == false)
        #expect(thawed?.1 == 1, "Thawed object should reflect transactions since the original reference was frozen.")
    }

    // MARK: Frozen projection results

    @Test func frozenProjectionResultsThawToLiveResults() async throws {
        let realm = try await populatedRealm()
        let frozen = try await realm.read { realm in try realm.objects(PersonProjection.self).sorted(byKeyPath: "firstName").freeze() }
        #expect(frozen.isFrozen)
        #expect(frozen.freeze().version == frozen.version)
        #expect(frozen.map(\.firstName) == ["Daenerys", "John"])
        try await realm.write { realm in _ = try realm.create(CommonPerson.self, value: ["firstName": "Arya", "lastName": "Stark"]) }
        #expect(frozen.count == 2)
        let thawed = try await realm.write { realm in
            let live = realm.thaw(frozen)
            #expect(!live.isFrozen)
            live[0].firstName = "Arya Stark"   // the live results keep the frozen ones' sort
            return live.map(\.firstName)
        }
        #expect(thawed == ["Arya Stark", "Daenerys", "John"])
        let onActor = await realm.thawedFirstNames(frozen)
        #expect(onActor == ["Arya Stark", "Daenerys", "John"])
    }

    // MARK: Projected collections

    @Test func projectedCollectionFreezesAndThaws() async throws {
        let realm = try await populatedRealm()
        let (liveIsFrozen, frozen) = try await realm.read { realm in
            let john = try realm.objects(PersonProjection.self).filter("lastName == 'Snow'").first!
            return (john.firstFriendsName.isFrozen, try john.firstFriendsName.freeze())
        }
        #expect(!liveIsFrozen)
        #expect(frozen.isFrozen)
        #expect(Array(frozen) == ["Daenerys"])
        #expect(frozen.description == "ProjectedCollection<String> {\n\t[0] Daenerys\n}")
        try await realm.write { realm in
            let dany = try realm.objects(CommonPerson.self).filter("firstName == 'Daenerys'").first!
            dany.firstName = "Dany"
        }
        #expect(Array(frozen) == ["Daenerys"], "a frozen collection never changes")
        #expect(Array(frozen.freeze()) == ["Daenerys"])
        let thawed = try await realm.write { realm in
            let thawed = realm.thaw(frozen)
            let live = try #require(thawed)
            #expect(!live.isFrozen)
            live[0] = "Daenerys Stormborn"   // assigns the friend's firstName
            return Array(live)
        }
        #expect(thawed == ["Daenerys Stormborn"])
        #expect(try await realm.read { realm in try realm.objects(CommonPerson.self).filter("lastName == 'Targaryen'").first!.firstName } == "Daenerys Stormborn")
        let onActor = await realm.thawedNames(frozen)
        #expect(onActor == ["Daenerys Stormborn"])
        // Once the object holding the list is deleted, there is nothing to thaw.
        try await realm.write { realm in try realm.delete(try realm.objects(CommonPerson.self).filter("lastName == 'Snow'")) }
        #expect(try await realm.read { realm in realm.thaw(frozen) == nil })
    }

    @Test func projectedCollectionOfASetAndOfAFrozenProjection() async throws {
        let realm = try await populatedRealm()
        let (setNames, frozenFromProjection) = try await realm.read { realm in
            let john = try realm.objects(Identified.NameProjection.self).filter("lastName == 'Snow'").first!
            return (try john.clubNames.freeze(), try john.freeze())
        }
        #expect(Array(setNames) == ["Night's Watch"])
        let (isFrozen, names) = (frozenFromProjection.clubNames.isFrozen, Array(frozenFromProjection.clubNames))
        #expect(isFrozen)
        #expect(names == ["Night's Watch"])
        try await realm.write { realm in
            let thawed = realm.thaw(setNames)
            let live = try #require(thawed)
            live[0] = "The Watch"
        }
        #expect(try await realm.read { realm in realm.objects(Identified.Club.self).map(\.name) } == ["The Watch"])
    }

    @Test func projectedCollectionSubscriptWritesTheElementsProperty() async throws {
        let realm = try await populatedRealm()
        let names = try await realm.write { realm in
            let john = try realm.objects(PersonProjection.self).filter("lastName == 'Snow'").first!
            john.firstFriendsName[0] = "Bee"
            return (Array(john.firstFriendsName), realm.objects(CommonPerson.self).map(\.firstName))
        }
        #expect(names.0 == ["Bee"])
        #expect(names.1 == ["John", "Bee"])
        // A failed write leaves the elements as they were.
        await #expect(throws: FloeError.self) {
            try await realm.write { realm in
                realm.objects(PersonProjection.self)[0].firstFriendsName[0] = "Not kept"
                throw FloeError.invalidOperation(className: "CommonPerson", detail: "abandoned")
            }
        }
        #expect(try await realm.read { realm in realm.objects(CommonPerson.self).map(\.firstName) } == ["John", "Bee"])
    }

    @Test func anUnmanagedProjectedCollectionCannotBeFrozen() throws {
        let loose = CommonPerson()
        loose.friends.append(try CommonPerson(value: ["firstName": "Sam"]))
        let projection = PersonProjection(projecting: loose)
        #expect(Array(projection.firstFriendsName) == ["Sam"])
        #expect(!projection.firstFriendsName.isFrozen)
        #expect(!projection.firstFriendsName.isInvalidated)
        #expect {
            try projection.firstFriendsName.freeze()
        } throws: { error in
            guard case FloeError.invalidOperation(let className, _) = error else { return false }
            return className == "List<CommonPerson>"
        }
        projection.firstFriendsName[0] = "Samwell"
        #expect(loose.friends[0].firstName == "Samwell")
    }

    // MARK: Observing by the root's key paths

    @Test func observeKeyPath() async throws {
        let realm = try await populatedRealm()
        let stream = try await realm.read { realm in
            try realm.objects(PersonProjection.self).filter("lastName == 'Snow'").first!.changes(keyPaths: ["lastName"])
        }
        var changes = stream.makeAsyncIterator()
        try await realm.write { realm in try realm.objects(CommonPerson.self).filter("lastName == 'Snow'").first!.firstName = "Jon" }
        try await realm.write { realm in try realm.objects(CommonPerson.self).filter("lastName == 'Snow'").first!.lastName = "Targaryen" }
        guard case .change(let john, let properties)? = await changes.next() else { Issue.record("expected a change"); return }
        #expect(properties.map(\.name) == ["lastNameCaps"])
        #expect(properties.first?.oldValue as? String == "SNOW")
        #expect(properties.first?.newValue as? String == "TARGARYEN")
        #expect(john.firstName == "Jon")
    }

    @Test func rootKeyPathsNameEveryProjectedPropertyThatReadsThem() async throws {
        let realm = try await populatedRealm()
        let (city, friends, mapped) = try await realm.read { realm in
            let john = try realm.objects(PersonProjection.self).filter("lastName == 'Snow'").first!
            return (try john.changes(keyPaths: ["address.city"]), try john.changes(keyPaths: ["friends"]), try john.changes(keyPaths: ["friends.firstName"]))
        }
        var cities = city.makeAsyncIterator()
        var friendLists = friends.makeAsyncIterator()
        var friendNames = mapped.makeAsyncIterator()
        try await realm.write { realm in try realm.objects(CommonPerson.self).filter("lastName == 'Snow'").first!.address?.country = "The North" }
        try await realm.write { realm in try realm.objects(CommonPerson.self).filter("lastName == 'Snow'").first!.address?.city = "Castle Black" }
        try await realm.write { realm in try realm.objects(CommonPerson.self).filter("lastName == 'Targaryen'").first!.firstName = "Dany" }
        guard case .change(_, let cityChange)? = await cities.next() else { Issue.record("expected a change"); return }
        #expect(cityChange.map(\.name) == ["homeCity"])
        #expect(cityChange.first?.newValue as? String == "Castle Black")
        guard case .change(_, let listChange)? = await friendLists.next() else { Issue.record("expected a change"); return }
        #expect(listChange.map(\.name) == ["firstFriendsName"])
        #expect(listChange.first?.newValue as? [String] == ["Dany"])
        guard case .change(_, let nameChange)? = await friendNames.next() else { Issue.record("expected a change"); return }
        #expect(nameChange.map(\.name) == ["firstFriendsName"])

        // Results of projections take the same spelling.
        let results = try await realm.read { realm in try realm.objects(PersonProjection.self).changes(keyPaths: ["address.city"]) }
        var resultChanges = results.makeAsyncIterator()
        guard case .initial? = await resultChanges.next() else { Issue.record("expected the initial state"); return }
        try await realm.write { realm in try realm.objects(CommonPerson.self).filter("lastName == 'Targaryen'").first!.address?.city = "Dragonstone" }
        guard case .update(_, _, _, let modifications)? = await resultChanges.next() else { Issue.record("expected an update"); return }
        #expect(modifications == [1])
    }

    @Test func aRootKeyPathThatNothingProjectsIsATypedError() async throws {
        let realm = try await populatedRealm()
        try await realm.read { realm in
            let john = realm.objects(PersonProjection.self)[0]
            for keyPath in ["address.country", "address", "birthday.year", "clubs"] {
                #expect {
                    try john.changes(keyPaths: [keyPath])
                } throws: { error in
                    guard case FloeError.invalidKeyPath(let className, let named, let reason) = error else { return false }
                    return className == "PersonProjection" && named == keyPath && reason.contains("address.city")
                }
            }
            #expect(throws: FloeError.self) { try realm.objects(PersonProjection.self).changes(keyPaths: ["address.country"]) }
        }
    }
}

extension Realm {
    /// Thaws on the actor itself (the `Realm` forms of `thaw`).
    fileprivate func thawedFirstNames(_ frozen: FrozenProjectionResults<Identified.PersonProjection>) -> [String] {
        thaw(frozen).map(\.firstName)
    }

    fileprivate func thawedNames(_ frozen: FrozenProjectedCollection<String>) -> [String]? {
        thaw(frozen).map { Array($0) }
    }
}
