import Foundation
import Testing
@_spi(Engine) @testable import Floe
@_spi(Engine) @testable import FloeEngine
@_spi(Engine) @testable import FloeStorage

// The seed's type projections: URL as a String (failable), a coordinate as an embedded object.
// Linux has no CoreLocation: a local coordinate struct stands in for CLLocationCoordinate2D.

struct Coordinate: Equatable {
    var latitude = 0.0
    var longitude = 0.0
}

final class ProjectedLocation: EmbeddedObject {
    @Persisted var latitude = 0.0
    @Persisted var longitude = 0.0
}

extension Coordinate: CustomPersistable {
    typealias PersistedType = ProjectedLocation
    init(persistedValue: ProjectedLocation) {
        self.init(latitude: persistedValue.latitude, longitude: persistedValue.longitude)
    }
    var persistableValue: ProjectedLocation { try! ProjectedLocation(value: [latitude, longitude]) }
}

extension URL: FailableCustomPersistable {
    public typealias PersistedType = String
    public init?(persistedValue: String) { self.init(string: persistedValue) }
    public var persistableValue: String { absoluteString }
}

@Suite struct TypeProjectionTests {
    final class Club: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var url: URL?
        @Persisted var location: Coordinate
        @Persisted var home: Coordinate?
        @Persisted var mirrors: List<URL>
        @Persisted var links: Map<String, URL?>
    }

    /// Persisted as "Club" with the stored types themselves: the same schema.
    final class PlainClub: Object {
        override class func className() -> String { "Club" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var url: String?
        @Persisted var location: ProjectedLocation?
        @Persisted var home: ProjectedLocation?
        @Persisted var mirrors: List<String>
        @Persisted var links: Map<String, String?>
    }

    final class RequiredURL: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var url = URL(string: "https://example.com")!
    }

    func realm(_ name: String = #function) async throws -> Realm {
        try await inMemoryRealm("projection-\(name)")
    }

    @Test func mappedTypesRoundTripRequiredOptionalAndInCollections() async throws {
        let realm = try await realm()
        try await realm.asyncWrite { realm in
            let club = Club()
            club.id = 1
            club.url = URL(string: "https://floe.dev")
            club.location = Coordinate(latitude: 48.85, longitude: 2.35)
            club.mirrors.append(URL(string: "https://a.example")!)
            club.links["docs"] = URL(string: "https://docs.example")
            club.links["none"] = .some(nil)
            try realm.add(club)
            // The persisted form is accepted by create.
            try realm.create(Club.self, value: ["id": 2, "url": "https://two.example", "location": ["latitude": 1.0, "longitude": 2.0],
                                                "mirrors": ["https://m.example"]])
        }
        let read = try await realm.read { realm -> [String] in
            realm.objects(Club.self).map { club in
                "\(club.url?.host ?? "-")|\(club.location.latitude),\(club.location.longitude)|\(club.home.map { "\($0.latitude)" } ?? "nil")|"
                    + "\(club.mirrors.map(\.absoluteString).joined())|\(club.links["docs"]??.host ?? "-")"
            }
        }
        #expect(read == ["floe.dev|48.85,2.35|nil|https://a.example|docs.example", "two.example|1.0,2.0|nil|https://m.example|-"])
        // Reassigning a mapped embedded value replaces its object; optionals can be cleared.
        try await realm.asyncWrite { realm in
            let club = realm.object(ofType: Club.self, forPrimaryKey: 1)!
            club.location = Coordinate(latitude: 10, longitude: 20)
            club.home = Coordinate(latitude: 3, longitude: 4)
            club.url = nil
        }
        let after = try await realm.read { realm -> [String] in
            let club = realm.object(ofType: Club.self, forPrimaryKey: 1)!
            return ["\(club.location)", "\(club.home.map { "\($0)" } ?? "nil")", "\(club.url.map { "\($0)" } ?? "nil")"]
        }
        #expect(after == ["Coordinate(latitude: 10.0, longitude: 20.0)", "Coordinate(latitude: 3.0, longitude: 4.0)", "nil"])
        // Only the live embedded objects remain (the replaced one was deleted).
        let locations = try await realm.read { realm in try realm.freeze().snapshot }
        #expect(try locations.objectCount(in: locations.table(named: "ProjectedLocation")) == 3)
    }

    @Test func invalidStoredValuesReadAsNilOrThrow() async throws {
        let realm = try await realm()
        // Stored through the persisted form: "http://[bad" has no URL. An optional property
        // stores it (and reads nil); a required one refuses it (reading one stored as a String
        // is TypeProjectionCollectionTests' anInvalidStoredValueOfARequiredPropertyIsATypedErrorNotATrap).
        try await realm.asyncWrite { realm in
            try realm.create(Club.self, value: ["id": 1, "url": "http://[bad"])
            try realm.create(RequiredURL.self, value: ["id": 1])
        }
        await #expect(throws: FloeError.self) {
            try await realm.asyncWrite { realm in try realm.create(RequiredURL.self, value: ["id": 2, "url": "http://[bad"]) }
        }
        #expect(try await realm.read { realm in realm.object(ofType: Club.self, forPrimaryKey: 1)?.url } == nil)
        // The realm goes on: valid values still read, and writes work.
        try await realm.asyncWrite { realm in realm.object(ofType: RequiredURL.self, forPrimaryKey: 1)!.url = URL(string: "https://ok.example")! }
        #expect(try await realm.read { realm in realm.object(ofType: RequiredURL.self, forPrimaryKey: 1)?.url.host } == "ok.example")
    }

    @Test func switchingBetweenMappedAndPersistedTypesNeedsNoMigration() async throws {
        let directory = TemporaryDirectory()
        let url = directory.url()
        do {
            let realm = try await Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [Club.self, ProjectedLocation.self]))
            try await realm.asyncWrite { realm in
                try realm.create(Club.self, value: ["id": 1, "url": "https://floe.dev", "location": ["latitude": 5.0, "longitude": 6.0]])
            }
        }
        let plain = try await Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [PlainClub.self, ProjectedLocation.self]))
        let stored = try await plain.read { realm in
            realm.objects(PlainClub.self).map { "\($0.url ?? "-")|\($0.location?.latitude ?? -1)" }
        }
        #expect(stored == ["https://floe.dev|5.0"])
    }
}

// Type projections to an embedded object inside collections, and required failable projections
// refused when written or declared without a value to start from.

/// Stands in for CLLocationCoordinate2D (no CoreLocation on Linux).
struct Coordinate2D: Hashable {
    var latitude = 0.0
    var longitude = 0.0
}

final class StopLocation: EmbeddedObject {
    @Persisted var latitude: Double
    @Persisted var longitude: Double
}

extension Coordinate2D: CustomPersistable {
    typealias PersistedType = StopLocation
    init(persistedValue: StopLocation) { self.init(latitude: persistedValue.latitude, longitude: persistedValue.longitude) }
    var persistableValue: StopLocation { try! StopLocation(value: [self.latitude, self.longitude]) }
}

@Suite struct TypeProjectionCollectionTests {
    final class Route: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var stops: List<Coordinate2D>
        @Persisted var corners: MutableSet<Coordinate2D>
        @Persisted var named: Map<String, Coordinate2D?>
        @Persisted var start: Coordinate2D
    }

    /// The same class with the persisted type itself: the stored schema is the same.
    final class PlainRoute: Object {
        override class func className() -> String { "Route" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var stops: List<StopLocation>
        @Persisted var corners: MutableSet<StopLocation>
        @Persisted var named: Map<String, StopLocation?>
        @Persisted var start: StopLocation?
    }

    final class HomepageClub: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var homepage = URL(string: "https://example.com")!
        @Persisted var mirrors: List<URL>
    }

    final class NoDefaultClub: Object {
        @Persisted var homepage: URL
    }

    /// Stores a String where NoDefaultClub and HomepageClub store URLs.
    final class StringClub: Object {
        override class func className() -> String { "HomepageClub" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var homepage = ""
        @Persisted var mirrors: List<String>
    }

    @Test func listsSetsAndMapsOfAnEmbeddedProjection() async throws {
        let directory = TemporaryDirectory()
        let url = directory.url()
        do {
            let realm = try await Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [Route.self, StopLocation.self]))
            try await realm.write { realm in
                let route = Route()
                route.id = 1
                route.stops.append(Coordinate2D(latitude: 1, longitude: 2))
                route.stops.append(objectsIn: [Coordinate2D(latitude: 3, longitude: 4), Coordinate2D(latitude: 1, longitude: 2)])
                route.corners.insert(Coordinate2D(latitude: 5, longitude: 6))
                route.named["home"] = Coordinate2D(latitude: 7, longitude: 8)
                route.start = Coordinate2D(latitude: 9, longitude: 10)
                try realm.add(route)
                try realm.create(Route.self, value: ["id": 2, "stops": [["latitude": 11.0, "longitude": 12.0]], "named": ["work": [13.0, 14.0]]])
            }
            try await realm.write { realm in
                let route = realm.object(ofType: Route.self, forPrimaryKey: 1)!
                route.stops[0] = Coordinate2D(latitude: -1, longitude: -2)
                route.stops.remove(at: 2)
                route.corners.insert(Coordinate2D(latitude: 15, longitude: 16))
            }
            let read = try await realm.read { realm in
                try realm.objects(Route.self).sorted(byKeyPath: "id").map { route in
                    [route.stops.map { "\($0.latitude),\($0.longitude)" }.joined(separator: " "),
                     route.corners.map { "\($0.latitude)" }.sorted().joined(separator: " "),
                     route.named.map { "\($0.key)=\($0.value.map { "\($0.latitude)" } ?? "nil")" }.joined(separator: " "),
                     "\(route.start.latitude)"]
                }
            }
            #expect(read == [["-1.0,-2.0 3.0,4.0", "15.0 5.0", "home=7.0", "9.0"], ["11.0,12.0", "", "work=13.0", "0.0"]])
        }
        // The file holds the persisted types: the plain class reads it without a migration.
        let plain = try await Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [PlainRoute.self, StopLocation.self]))
        let stored = try await plain.read { realm in
            try realm.objects(PlainRoute.self).sorted(byKeyPath: "id").map { "\($0.stops.count) \($0.corners.count) \($0.named.count) \($0.start?.latitude ?? -1)" }
        }
        // A required mapped property given no value stores the mapping of a default object.
        #expect(stored == ["2 2 1 9.0", "1 0 1 0.0"])
    }

    @Test func anUnmappableValueIsRefusedWhenWrittenToARequiredProperty() async throws {
        let realm = try await inMemoryRealm("required-url", objectTypes: [HomepageClub.self])
        let bad = "http://[bad"
        let created = await #expect(throws: FloeError.self) {
            try await realm.write { realm in
                try realm.create(HomepageClub.self, value: ["id": 1, "homepage": "https://fine.example"])
                try realm.create(HomepageClub.self, value: ["id": 2, "homepage": bad])
            }
        }
        #expect(created?.description.contains("HomepageClub.homepage") == true && created?.description.contains(bad) == true,
                "\(String(describing: created))")
        let fromValue = #expect(throws: FloeError.self) { _ = try HomepageClub(value: ["id": 3, "homepage": bad]) }
        #expect(fromValue?.description.contains("HomepageClub.homepage") == true && fromValue?.description.contains(bad) == true,
                "\(String(describing: fromValue))")
        let inList = await #expect(throws: FloeError.self) {
            try await realm.write { realm in _ = try realm.create(HomepageClub.self, value: ["id": 4, "mirrors": ["https://a.example", bad]]) }
        }
        #expect(inList?.description.contains("HomepageClub.mirrors") == true && inList?.description.contains(bad) == true,
                "\(String(describing: inList))")
        // Nothing was stored by the failed writes.
        #expect(try await realm.read { realm in realm.objects(HomepageClub.self).count } == 0)
        // A valid value still goes in.
        try await realm.write { realm in _ = try realm.create(HomepageClub.self, value: ["id": 5, "homepage": "https://ok.example"]) }
        #expect(try await realm.read { realm in realm.object(ofType: HomepageClub.self, forPrimaryKey: 5)?.homepage.host } == "ok.example")
    }

    @Test func anInvalidStoredValueOfARequiredPropertyIsATypedErrorNotATrap() async throws {
        let directory = TemporaryDirectory()
        let url = directory.url()
        // Written as a String (the property switched to URL later, with no migration).
        do {
            let realm = try await Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [StringClub.self]))
            try await realm.write { realm in
                try realm.create(StringClub.self, value: ["id": 1, "homepage": "http://[bad", "mirrors": ["http://[bad"]])
                try realm.create(StringClub.self, value: ["id": 2, "homepage": "https://ok.example"])
            }
        }
        let realm = try await Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [HomepageClub.self]))
        let error = await #expect(throws: FloeError.self) {
            try await realm.read { realm in realm.object(ofType: HomepageClub.self, forPrimaryKey: 1)?.homepage.absoluteString }
        }
        #expect(error?.description.contains("HomepageClub.homepage") == true, "\(String(describing: error))")
        #expect(try await realm.read { realm in realm.object(ofType: HomepageClub.self, forPrimaryKey: 2)?.homepage.host } == "ok.example")
    }

    /// An even number, stored as an Int; an odd stored one has no mapping.
    struct EvenNumber: FailableCustomPersistable, Equatable {
        let value: Int
        init?(persistedValue: Int) {
            guard persistedValue % 2 == 0 else { return nil }
            value = persistedValue
        }
        var persistableValue: Int { value }
    }

    final class EvenClub: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var numbers: List<EvenNumber>
        @Persisted var byName: Map<String, EvenNumber>
    }

    final class IntClub: Object {
        override class func className() -> String { "EvenClub" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var numbers: List<Int>
        @Persisted var byName: Map<String, Int>
    }

    /// A list or map element with no mapping names the collection, as a property's value names
    /// the property (it used to stop the process).
    @Test func anInvalidStoredElementIsATypedErrorNamingTheCollection() async throws {
        let directory = TemporaryDirectory()
        let url = directory.url()
        do {
            let realm = try await Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [IntClub.self]))
            try await realm.write { realm in _ = try realm.create(IntClub.self, value: ["id": 1, "numbers": [2, 3], "byName": ["four": 4, "five": 5]]) }
        }
        let realm = try await Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [EvenClub.self]))
        func club(_ realm: borrowing Realm.ReadTransaction) -> EvenClub { realm.object(ofType: EvenClub.self, forPrimaryKey: 1)! }
        await #expect(throws: FloeError.typeMismatch(table: "EvenClub", column: "numbers", expected: "a value EvenNumber(persistedValue:) accepts", value: "3")) {
            try await realm.read { realm in Array(club(realm).numbers) }
        }
        await #expect(throws: FloeError.typeMismatch(table: "EvenClub", column: "byName", expected: "a value EvenNumber(persistedValue:) accepts", value: "5")) {
            try await realm.read { realm in club(realm).byName["five"] }
        }
        #expect(try await realm.read { realm in club(realm).numbers[0].value } == 2)
        #expect(try await realm.read { realm in club(realm).byName["four"]?.value } == 4)
    }

    @Test func aRequiredPropertyWithoutAStartingValueIsRefusedWhenTheRealmOpens() async throws {
        // String's default "" is no URL: there is no value to start from, nor to read in place
        // of an invalid stored one.
        #expect(URL(persistedValue: "") == nil)
        let error = await #expect(throws: FloeError.self) {
            _ = try await inMemoryRealm("no-default", objectTypes: [NoDefaultClub.self])
        }
        guard case .invalidSchema(let className, let property, let reason)? = error else {
            Issue.record("expected invalidSchema, got \(String(describing: error))")
            return
        }
        #expect(className == "NoDefaultClub" && property == "homepage" && reason.contains("initial value"), "\(reason)")
    }

    /// The dynamic set of a migration block is refused the same way, and the failed migration
    /// leaves the file as it was.
    @Test func anUnmappableValueSetInAMigrationIsRefused() async throws {
        let directory = TemporaryDirectory()
        let url = directory.url()
        do {
            let realm = try await Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [StringClub.self]))
            try await realm.write { realm in _ = try realm.create(StringClub.self, value: ["id": 1, "homepage": "https://old.example"]) }
        }
        var configuration = Realm.Configuration(fileURL: url, objectTypes: [HomepageClub.self])
        configuration.schemaVersion = 1
        configuration.migrationBlock = { migration, _ in
            migration.enumerateObjects(ofType: "HomepageClub") { _, newObject in newObject!["homepage"] = "" }
        }
        let error = await #expect(throws: FloeError.self) { _ = try await Realm(configuration: configuration) }
        #expect(error?.description == "Invalid value '' for 'HomepageClub.homepage': expected URL.", "\(String(describing: error))")
        let unchanged = try await Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [HomepageClub.self]))
        #expect(try await unchanged.read { realm in realm.object(ofType: HomepageClub.self, forPrimaryKey: 1)?.homepage.host } == "old.example")
    }
}

extension TypeProjectionTests {
    /// The schema describes a type projection by what it stores, as Realm's does, with the
    /// declared type beside it.
    @Test func theSchemaDescribesAProjectionByItsPersistedType() async throws {
        let realm = try await inMemoryRealm("projection-schema", objectTypes: [Club.self, ProjectedLocation.self])
        let schema = await realm.schema
        let club = try #require(schema["Club"])
        let properties = ["url", "mirrors", "links", "name", "location"].map { name in [club[name]!.type, club[name]!.mappedType ?? "-"] }
        #expect(properties[0] == ["String?", "URL?"])
        #expect(properties[1] == ["List<String>", "List<URL>"])
        #expect(properties[2] == ["Map<String, String?>", "Map<String, URL?>"])
        #expect(properties[3] == ["String", "-"])
        #expect(properties[4] == ["ProjectedLocation", "Coordinate"])
        let description = club["url"]!.description
        #expect(description.contains("type = String?;") && description.contains("mappedType = URL?;"))
    }
}
