import Foundation
import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

// Realm's geospatial shapes as Realm users build them (failable initializers, tuple forms,
// `Distance`'s constructors) and Realm's own query examples: the same people, the same shapes,
// the same answers, through the builder, `GEOWITHIN %@` and `IN %@`.

enum RealmGeo {
    public class Location: EmbeddedObject {
        @Persisted private(set) var coordinates: List<Double>
        @Persisted public var type: String = "Point"

        public var latitude: Double { return coordinates[1] }
        public var longitude: Double { return coordinates[0] }

        convenience init(_ latitude: Double, _ longitude: Double) {
            self.init()
            coordinates.append(objectsIn: [longitude, latitude])
        }
    }

    class PersonLocation: Object {
        @Persisted var name: String
        @Persisted var location: Location?

        convenience init(_ name: String, _ location: Location?) {
            self.init()
            self.name = name
            self.location = location
        }
    }
}

@Suite struct GeospatialRealmShapesTests {
    typealias PersonLocation = RealmGeo.PersonLocation

    static func populated() async throws -> Realm {
        let realm = try await inMemoryRealm("realm-geo", objectTypes: [PersonLocation.self, RealmGeo.Location.self])
        try await realm.write { realm in
            try realm.add(PersonLocation("Diana", RealmGeo.Location(40.7128, -74.0060)))
            try realm.add(PersonLocation("Maria", RealmGeo.Location(55.6761, 12.5683)))
            try realm.add(PersonLocation("Tomas", RealmGeo.Location(55.6280, 12.0826)))
            try realm.add(PersonLocation("Alba", RealmGeo.Location(-76, -76)))
            try realm.add(PersonLocation("Manuela", nil))
        }
        return realm
    }

    @Test func pointsAreFailableOnRange() {
        #expect(GeoPoint(latitude: 90, longitude: 0) != nil)
        #expect(GeoPoint(latitude: -90, longitude: 180) != nil)
        #expect(GeoPoint(latitude: 90.000000001, longitude: 0) == nil)
        #expect(GeoPoint(latitude: 0, longitude: -180.000000001) == nil)
        #expect(GeoPoint(latitude: .nan, longitude: 0) == nil)
        #expect(GeoPoint(latitude: 0, longitude: .nan) == nil)
        #expect(GeoPoint(latitude: 90, longitude: 0, altitude: 500) != nil)
        #expect(GeoPoint(latitude: 90, longitude: 0, altitude: -1) == nil)
        #expect(GeoPoint(latitude: 90, longitude: 0, altitude: .nan) == nil)
        #expect(GeoPoint(12.5, 55.6)?.longitude == 55.6)
        #expect(GeoPoint(latitude: 1, longitude: 1, altitude: 1) != GeoPoint(latitude: 1, longitude: 1, altitude: 2))
    }

    @Test func boxesCirclesAndPolygonsInRealmsShapes() throws {
        #expect(GeoBox(bottomLeft: GeoPoint(latitude: -90, longitude: -180)!, topRight: GeoPoint(latitude: 90, longitude: 180)!).topRight.latitude == 90)
        #expect(GeoBox(bottomLeft: (-90, -180), topRight: (90, 180)) != nil)
        #expect(GeoBox(bottomLeft: (-91, -181), topRight: (91, 181)) == nil)
        #expect(GeoBox(bottomLeft: (0, 0), topRight: (1, 1)) == GeoBox(bottomLeft: (0, 0), topRight: (1, 1)))
        #expect(GeoBox(bottomLeft: (1, 1), topRight: (0, 0)) != GeoBox(bottomLeft: (0, 0), topRight: (1, 1)))

        let center = GeoPoint(latitude: 0, longitude: 70)!
        #expect(GeoCircle(center: center, radius: .radians(0)!).radians == 0)
        #expect(GeoCircle(center: center, radiusInRadians: 500) != nil)
        #expect(GeoCircle(center: center, radiusInRadians: .nan) == nil)
        #expect(GeoCircle(center: center, radiusInRadians: -500) == nil)
        #expect(GeoCircle(center: (0, 70), radiusInRadians: 0) != nil)
        #expect(GeoCircle(center: (0, 70), radiusInRadians: -500) == nil)
        #expect(GeoCircle(center: (91, 70), radius: .kilometers(1)!) == nil)
        #expect(GeoCircle(center: (55.67, 12.56), radiusInRadians: 0.001) == GeoCircle(center: (55.67, 12.56), radiusInRadians: 0.001))
        #expect(GeoCircle(center: (55, 12), radiusInRadians: 1) != GeoCircle(center: (55, 13), radiusInRadians: 1))

        // Polygons: nil for fewer than four points or an open ring, outer ring or hole.
        func p(_ latitude: Double, _ longitude: Double) -> GeoPoint { GeoPoint(latitude: latitude, longitude: longitude)! }
        #expect(GeoPolygon(outerRing: [p(0, 0)]) == nil)
        #expect(GeoPolygon(outerRing: [p(0, 0), p(1, 1), p(0, 0)]) == nil)
        #expect(GeoPolygon(outerRing: [p(0, 0), p(1, 1), p(2, 0), p(0, 0)]) != nil)
        #expect(GeoPolygon(outerRing: [p(0, 0), p(1, 1), p(2, 0), p(3, 3)]) == nil)
        let triangle = [p(0, 0), p(1, 1), p(2, 2), p(0, 0)]
        #expect(GeoPolygon(outerRing: triangle, holes: [triangle]) != nil)
        #expect(GeoPolygon(outerRing: triangle, holes: [[p(0, 0)]]) == nil)
        #expect(GeoPolygon(outerRing: triangle, holes: [[p(0, 0), p(1, 1), p(2, 2), p(3, 3)]]) == nil)
        #expect(GeoPolygon(outerRing: triangle, holes: [triangle, [p(0, 0)]]) == nil)
        // The tuple forms, (latitude, longitude), holes as an array or one after another.
        let outer = try #require(GeoPolygon(outerRing: [(40.0096192, -75.5175781), (60, 20), (20, 20), (-75.5175781, -75.5175781), (40.0096192, -75.5175781)]))
        #expect(outer.outerRing[1] == p(60, 20) && outer.holes == nil)
        #expect(GeoPolygon(outerRing: [(40.0096192, -75.5175781)]) == nil)
        #expect(GeoPolygon(outerRing: [(0, 0), (1, 1), (2, 2), (0, 0)], holes: [[(0, 0), (1, 1), (2, 2), (0, 0)]])?.holes?.count == 1)
        #expect(GeoPolygon(outerRing: [(0, 0), (1, 1), (2, 2), (0, 0)], holes: [(0, 0), (1, 1), (2, 2), (0, 0)], [(0, 0), (1, 1), (2, 2), (0, 0)])?.holes?.count == 2)
        #expect(GeoPolygon(outerRing: [(0, 0), (1, 1), (2, 2), (0, 0)], holes: [[(0, 0)]]) == nil)
        #expect(GeoPolygon(outerRing: [(0, 0), (1, 1), (2, 2), (0, 0)], holes: [(0, 0), (1, 1), (2, 2), (0, 0)], [(0, 0), (1, 1), (2, 2), (3, 3)]) == nil)
        #expect(GeoPolygon(outerRing: [(0, 0), (1, 1), (91, 2), (0, 0)]) == nil)
    }

    /// The shapes' members have Realm Swift's types: which initializers are failable, what
    /// `holes` is, and `Distance`'s unit properties.
    @Test func theShapesHaveRealmsTypes() throws {
        let point: GeoPoint? = GeoPoint(latitude: 1, longitude: 2)
        let unlabelled: GeoPoint? = GeoPoint(1, 2)
        let center = try #require(point)
        #expect(unlabelled == center)
        let box: GeoBox = GeoBox(bottomLeft: center, topRight: GeoPoint(3, 4)!)
        let tupleBox: GeoBox? = GeoBox(bottomLeft: (1, 2), topRight: (3, 4))
        #expect(tupleBox == box)
        let circle: GeoCircle = GeoCircle(center: center, radius: Distance.fromKilometers(kilometers: 5)!)
        let byRadians: GeoCircle? = GeoCircle(center: center, radiusInRadians: circle.radians)
        let byTuple: GeoCircle? = GeoCircle(center: (1, 2), radius: .kilometers(5)!)
        #expect(byRadians == circle && byTuple == circle)
        #expect(GeoCircle(center: center, radiusInRadians: -1) == nil)
        // `holes` is nil when the polygon was made without holes, as Realm's.
        let ring = [GeoPoint(0, 0)!, GeoPoint(0, 4)!, GeoPoint(4, 4)!, GeoPoint(0, 0)!]
        let plain: GeoPolygon? = GeoPolygon(outerRing: ring)
        let holes: [[GeoPoint]]? = try #require(plain).holes
        #expect(holes == nil)
        #expect(GeoPolygon(outerRing: [(0, 0), (0, 4), (4, 4), (0, 0)])?.holes == nil)
        #expect(try GeoPolygon.validated(outerRing: ring).holes == nil)
        #expect(GeoPolygon(outerRing: ring, holes: [])?.holes == [])
        let hole = [GeoPoint(1, 1)!, GeoPoint(1, 2)!, GeoPoint(2, 2)!, GeoPoint(1, 1)!]
        #expect(GeoPolygon(outerRing: ring, holes: [hole])?.holes == [hole])
        // A polygon without holes still answers queries (its holes walked as none).
        let triangle = try #require(plain)
        let region = try #require(GeoRegion(.polygon(triangle)))
        #expect(region.contains(longitude: 3, latitude: 1))
        #expect(!region.contains(longitude: 1, latitude: 3))
        // Distance's unit properties.
        let kilometers: Double = Distance.fromKilometers(kilometers: 1)!.kilometers
        #expect(abs(kilometers - 1) < 1e-12)
        #expect(abs(Distance.fromMiles(miles: 2)!.miles - 2) < 1e-12)
        #expect(abs(Distance.fromDegrees(degrees: 45)!.degrees - 45) < 1e-12)
        #expect(abs(Distance.fromRadians(radians: 1)!.kilometers - Distance.earthRadiusInKilometers) < 1e-9)
        #expect(abs(Distance.fromMiles(miles: 1)!.kilometers - 1.609344) < 1e-12)
    }

    @Test func distancesConvertAsRealmsDo() throws {
        for distance in [Distance.radians(0), .radians(20), .kilometers(0), .kilometers(10), .miles(10), .degrees(90)] {
            #expect(distance != nil)
        }
        for distance in [Distance.radians(-20), .radians(.nan), .kilometers(-10), .kilometers(.nan), .miles(-10), .degrees(-90), .degrees(.nan)] {
            #expect(distance == nil)
        }
        // Realm's figures: the earth's circumference is 2π radians, in kilometres and in miles.
        let kilometers = try #require(Distance.kilometers(40075))
        #expect(abs(kilometers.radians - 2 * .pi) < kilometers.radians * 0.0001)
        #expect(abs(kilometers.kilometers - 40075) < 1e-9)
        let miles = try #require(Distance.miles(24901))
        #expect(abs(miles.radians - 2 * .pi) < miles.radians * 0.0001)
        #expect(abs(miles.miles - 24901) < 1e-9)
        #expect(abs(Distance.degrees(180)!.radians - .pi) < 1e-12)
        #expect(abs(Distance.degrees(180)!.degrees - 180) < 1e-9)
        #expect(Distance.radians(.pi)!.radians == .pi)
        #expect(Distance.fromKilometers(kilometers: 10) == Distance.kilometers(10))
        #expect(Distance.fromMiles(miles: 10) == Distance.miles(10))
        #expect(Distance.fromDegrees(degrees: 10) == Distance.degrees(10))
        #expect(Distance.fromRadians(radians: 1) == Distance.radians(1))
        #expect(Distance.kilometers(25.01) != Distance.kilometers(25.02))
    }

    /// Realm's own filter examples: each shape through the builder, `GEOWITHIN %@` and `IN %@`.
    @Test func realmsFilterExamplesGiveRealmsAnswers() async throws {
        let realm = try await Self.populated()
        enum Shape: Sendable {
            case box(GeoBox?), circle(GeoCircle?), polygon(GeoPolygon?)
        }
        let shapes: [(shape: Shape, expected: Set<String>)] = [
            (.box(GeoBox(bottomLeft: (55.6281, 12.0826), topRight: (55.6762, 12.5684))), ["Maria"]),
            (.box(GeoBox(bottomLeft: (55.6279, 12.0825), topRight: (55.6762, 12.5684))), ["Maria", "Tomas"]),
            (.box(GeoBox(bottomLeft: (0, -75), topRight: (60, 15))), ["Diana", "Maria", "Tomas"]),
            (.polygon(GeoPolygon(outerRing: [(55.6281, 12.0826), (55.6761, 12.0826), (55.6761, 12.5684), (55.6281, 12.5684), (55.6281, 12.0826)])), ["Maria"]),
            (.polygon(GeoPolygon(outerRing: [(55, 12), (55.67, 12.5), (55.67, 11.5), (55, 12)])), ["Tomas"]),
            (.polygon(GeoPolygon(outerRing: [(50, -80), (62, 22), (22, 22), (-80, -80), (50, -80)],
                                 holes: [[(40.7129, -75), (40.7129, -74), (40.7126, -74), (40.7129, -75)]])), ["Maria", "Tomas", "Alba"]),
            (.circle(GeoCircle(center: (55.67, 12.56), radiusInRadians: 0.001)), ["Maria"]),
            (.circle(GeoCircle(center: (55.67, 12.56), radius: .kilometers(10)!)), ["Maria"]),
            (.circle(GeoCircle(center: (55.67, 12.56), radius: .kilometers(100)!)), ["Maria", "Tomas"]),
            (.circle(GeoCircle(center: (45, -20), radius: .kilometers(5000)!)), ["Diana", "Maria", "Tomas"]),
        ]
        for (shape, expected) in shapes {
            let answers = try await realm.read { realm -> [Set<String>] in
                let people = realm.objects(PersonLocation.self)
                let built: Results<PersonLocation>, argument: Any
                switch shape {
                case .box(let box): (built, argument) = (try people.where { $0.location.geoWithin(box!) }, box!)
                case .circle(let circle): (built, argument) = (try people.where { $0.location.geoWithin(circle!) }, circle!)
                case .polygon(let polygon): (built, argument) = (try people.where { $0.location.geoWithin(polygon!) }, polygon!)
                }
                return [Set(built.map(\.name)),
                        Set(try people.filter("location IN %@", argument).map(\.name)),
                        Set(try people.filter("location GEOWITHIN %@", argument).map(\.name)),
                        Set(try people.filter("name != 'x' AND location IN %@", argument).map(\.name))]
            }
            for answer in answers { #expect(answer == expected, "\(shape)") }
        }
        // `IN %@` keeps its meaning for values.
        let named = try await realm.read { realm in try realm.objects(PersonLocation.self).filter("name IN {'Alba', 'Tomas'}").count }
        #expect(named == 2)
    }

    /// Realm refuses these polygons when the query runs; so does Floe, naming the class, the
    /// property, GeoPolygon and the ring, in the builder and in string predicates.
    @Test func invalidPolygonsAreRefusedWhenQueried() async throws {
        let realm = try await Self.populated()
        let outside = GeoPolygon(outerRing: [(0, 0), (0, 1), (1, 1), (1, 0), (0, 0)], holes: [[(2, 2), (2, 3), (3, 3), (3, 2), (2, 2)]])!
        let alongTheEdge = GeoPolygon(outerRing: [(0, 0), (0, 1), (1, 1), (1, 0), (0, 0)], holes: [[(0, 0.1), (0.5, 0.1), (0.5, 0.5), (0, 0.5), (0, 0.1)]])!
        let partly = GeoPolygon(outerRing: [(0, 0), (0, 1), (1, 1), (1, 0), (0, 0)], holes: [[(0.25, 0.5), (0.75, 0.5), (0.75, 1.5), (0.25, 1.5), (0.25, 0.5)]])!
        let crossing = GeoPolygon(outerRing: [GeoPoint(latitude: 50, longitude: -50)!, GeoPoint(latitude: 55, longitude: 55)!,
                                              GeoPoint(latitude: -50, longitude: 50)!, GeoPoint(latitude: 70, longitude: -25)!,
                                              GeoPoint(latitude: 50, longitude: -50)!])!
        let inside = GeoPolygon(outerRing: [(0, 0), (0, 4), (4, 4), (4, 0), (0, 0)], holes: [[(1, 1), (1, 2), (2, 2), (2, 1), (1, 1)]])!
        for (polygon, words) in [(outside, "hole 1 is not contained by the outer ring: a corner of it lies outside the outer ring"),
                                 (alongTheEdge, "hole 1 is not contained by the outer ring: its edge 4 runs along the outer ring"),
                                 (partly, "hole 1 is not contained by the outer ring: a corner of it lies outside the outer ring"),
                                 (crossing, "the outer ring intersects itself: edges 1 and 3 cross")] {
            try await realm.read { realm in
                let people = realm.objects(PersonLocation.self)
                let built = #expect(throws: FloeError.self) { try people.where { $0.location.geoWithin(polygon) } }
                #expect(built?.description.hasPrefix("Invalid GeoPolygon in a geoWithin query on 'PersonLocation.location': \(words)") == true,
                        "\(String(describing: built))")
                guard case .invalidShape("GeoPolygon", "PersonLocation", "location", _)? = built else {
                    Issue.record("not an invalidShape error naming the class and property: \(String(describing: built))")
                    return
                }
                for format in ["location IN %@", "location GEOWITHIN %@"] {
                    let parsed = #expect(throws: FloeError.self) { try people.filter(format, polygon) }
                    #expect(parsed?.description == built?.description, "\(String(describing: parsed))")
                }
            }
        }
        #expect(try await realm.read { realm in try realm.objects(PersonLocation.self).where { $0.location.geoWithin(inside) }.count } == 0)
    }
}
