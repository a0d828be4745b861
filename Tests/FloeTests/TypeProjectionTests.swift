import Foundation
import Testing
@_spi(Engine) @testable import Floe

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
        try await Realm(configuration: Realm.Configuration(inMemoryIdentifier: "projection-\(name)-\(UUID())"))
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
        // Stored through the persisted form: "::not a url::" has no URL.
        try await realm.asyncWrite { realm in
            try realm.create(Club.self, value: ["id": 1, "url": "http://[bad"])
            try realm.create(RequiredURL.self, value: ["id": 1, "url": "http://[bad"])
        }
        #expect(try await realm.read { realm in realm.object(ofType: Club.self, forPrimaryKey: 1)?.url } == nil)
        let error = await #expect(throws: FloeError.self) {
            try await realm.read { realm in realm.object(ofType: RequiredURL.self, forPrimaryKey: 1)?.url.absoluteString }
        }
        #expect(error?.description.contains("RequiredURL.url") == true, "\(String(describing: error))")
        // The realm goes on: valid values still read, and writes work.
        try await realm.asyncWrite { realm in realm.object(ofType: RequiredURL.self, forPrimaryKey: 1)!.url = URL(string: "https://ok.example")! }
        #expect(try await realm.read { realm in realm.object(ofType: RequiredURL.self, forPrimaryKey: 1)?.url.host } == "ok.example")
    }

    @Test func switchingBetweenMappedAndPersistedTypesNeedsNoMigration() async throws {
        let directory = TemporaryDirectory()
        let url = URL(fileURLWithPath: directory.file())
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
