// Must compile outside the module (no @testable): class projections as an application writes
// them — declared, fetched, queried, written, frozen, thawed and observed.
import Foundation
import Floe

class Person: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var firstName = ""
    @Persisted var lastName = ""
    @Persisted var address: Address?
    @Persisted var friends = List<Person>()
    @Persisted var clubs = MutableSet<Person>()
}

class Address: EmbeddedObject {
    @Persisted var city: String = ""
    @Persisted var country = ""
}

class PersonProjection: Projection<Person> {
    @Projected(\Person.firstName) var firstName
    @Projected(\Person.lastName) var surname
    @Projected(\Person.address?.city) var homeCity
    @Projected(\Person.friends.projectTo.firstName) var firstFriendsName: ProjectedCollection<String>
    @Projected(\Person.clubs.projectTo.lastName) var clubNames: ProjectedCollection<String>
}

func useProjections(_ realm: Realm) async throws {
    let frozen = try await realm.read { realm in
        let people = realm.objects(PersonProjection.self)
        _ = try people.where { $0.homeCity == "Lisbon" && $0.firstName.starts(with: "A") }
        _ = try people.filter("address.city == %@", "Lisbon").sorted(by: \.surname).sorted(byKeyPath: "firstName", ascending: false)
        _ = realm.object(ofType: PersonProjection.self, forPrimaryKey: 1)
        let all: FrozenProjectionResults<PersonProjection> = try people.freeze()
        _ = all.map(\.firstName)
        _ = people.rootResults.count
        return try people[0].freeze()
    }
    let stream: ProjectionChanges<PersonProjection> = try await realm.read { realm in try realm.objects(PersonProjection.self)[0].changes }
    Task.detached { [frozen] in print(frozen.firstName, frozen.homeCity ?? "", Array(frozen.firstFriendsName), frozen.isInvalidated) }
    try await realm.write { realm in
        let projection = realm.thaw(frozen)
        projection?.firstName = "Ana"
        projection?.homeCity = "Porto"
        _ = PersonProjection(projecting: Person()).isManaged
    }
    for await change in stream {
        if case .change(let person, let properties) = change { print(person.firstName, properties.map(\.name)) }
    }
}
