// Must NOT compile: a type-projected property (a struct persisted as an embedded object) is
// queried as a whole, never through the struct's own members.
// expect-error: no exact matches in reference to subscript
import Floe

struct Coordinate {
    var latitude = 0.0
    var longitude = 0.0
}

final class Location: EmbeddedObject {
    @Persisted var latitude = 0.0
    @Persisted var longitude = 0.0
}

extension Coordinate: CustomPersistable {
    typealias PersistedType = Location
    init(persistedValue: Location) { self.init(latitude: persistedValue.latitude, longitude: persistedValue.longitude) }
    var persistableValue: Location { try! Location(value: [latitude, longitude]) }
}

final class Club: Object {
    @Persisted var location: Coordinate
}

extension Realm {
    func clubsOnTheEquator() throws -> Results<Club> {
        try objects(Club.self).where { $0.location.latitude == 0 }
    }
}
