import Foundation
import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

enum Geo {
    // The seed's GeoJSON point.
    typealias CustomGeoPoint = Seed002Geo.CustomGeoPoint

    class Company: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var location: CustomGeoPoint?
        @Persisted var name = ""
    }
}

/// geoWithin a circle, a box and a polygon, in the builder and in string predicates, checked
/// against brute force over random points; malformed shapes are typed errors.
@Suite struct GeospatialTests {
    typealias Company = Geo.Company

    /// Random points, some without a location; the brute-force answers come from plain Swift.
    static func makeRealm(count: Int = 400, seed: UInt64 = 11) async throws -> (Realm, [Int: (latitude: Double, longitude: Double)]) {
        let realm = try await inMemoryRealm("geo", objectTypes: [Company.self, Geo.CustomGeoPoint.self])
        var random = SeededGenerator(seed: seed)
        var points: [Int: (latitude: Double, longitude: Double)] = [:]
        for id in 0..<count where id % 10 != 0 {
            // Half near Lisbon (so small circles catch some), half anywhere.
            if id % 2 == 0 {
                points[id] = (Double.random(in: 37.5...40, using: &random), Double.random(in: -10.5...(-7.5), using: &random))
            } else {
                points[id] = (Double.random(in: -89...89, using: &random), Double.random(in: -179...179, using: &random))
            }
        }
        try await realm.write { [points] realm in
            for id in 0..<count {
                let company = Company()
                company.id = id
                company.name = "c\(id)"
                if let point = points[id] { company.location = Geo.CustomGeoPoint(point.latitude, point.longitude) }
                try realm.add(company)
            }
        }
        return (realm, points)
    }

    /// Great-circle distance by the spherical law of cosines on unit vectors (independent of
    /// the haversine the library uses).
    static func angle(_ a: (latitude: Double, longitude: Double), _ b: GeoPoint) -> Double {
        func vector(_ latitude: Double, _ longitude: Double) -> (Double, Double, Double) {
            let phi = latitude * .pi / 180, lambda = longitude * .pi / 180
            return (cos(phi) * cos(lambda), cos(phi) * sin(lambda), sin(phi))
        }
        let u = vector(a.latitude, a.longitude), v = vector(b.latitude, b.longitude)
        let cross = (u.1 * v.2 - u.2 * v.1, u.2 * v.0 - u.0 * v.2, u.0 * v.1 - u.1 * v.0)
        return atan2(sqrt(cross.0 * cross.0 + cross.1 * cross.1 + cross.2 * cross.2), u.0 * v.0 + u.1 * v.1 + u.2 * v.2)
    }

    @Test func seedPointStoresLongitudeFirst() async throws {
        let (realm, points) = try await Self.makeRealm(count: 3)
        let read = try await realm.read { realm in
            let location = try #require(realm.objects(Company.self)[1].location)
            return (location.latitude, location.longitude)
        }
        #expect(read.0 == points[1]!.latitude && read.1 == points[1]!.longitude)
    }

    @Test func circlesMatchBruteForce() async throws {
        let (realm, points) = try await Self.makeRealm()
        let lisbon = try #require(GeoPoint(latitude: 38.72, longitude: -9.14))
        for radius in [Distance.kilometers(25)!, .kilometers(150)!, .miles(60)!, .radians(0.5)!, .degrees(90)!] {
            let circle = GeoCircle(center: lisbon, radius: radius)
            let expected = points.filter { Self.angle($0.value, lisbon) <= circle.radiusInRadians }.keys.sorted()
            let (built, parsed) = try await realm.read { realm in
                let companies = realm.objects(Company.self)
                return (try companies.where { $0.location.geoWithin(circle) }.map(\.id),
                        try companies.filter("location GEOWITHIN %@", circle).map(\.id))
            }
            #expect(built == expected, "radius \(radius)")
            #expect(parsed == expected, "radius \(radius)")
            #expect(!expected.isEmpty, "radius \(radius) must catch some points for the test to mean something")
        }
        // A kilometre radius is the same circle as the angle it stands for.
        #expect(abs(Distance.kilometers(Distance.earthRadiusInKilometers)!.radians - 1) < 1e-12)
        #expect(abs(Distance.miles(100)!.radians - Distance.kilometers(160.9344)!.radians) < 1e-12)
    }

    @Test func boxesMatchBruteForce() async throws {
        let (realm, points) = try await Self.makeRealm()
        let boxes = [GeoBox(bottomLeft: GeoPoint(latitude: 38, longitude: -10)!, topRight: GeoPoint(latitude: 39.5, longitude: -8.5)!),
                     GeoBox(bottomLeft: GeoPoint(latitude: -30, longitude: 150)!, topRight: GeoPoint(latitude: 60, longitude: -150)!)]   // crosses the antimeridian
        for box in boxes {
            let expected = points.filter { id, point in
                let inLongitude = box.bottomLeft.longitude <= box.topRight.longitude
                    ? point.longitude >= box.bottomLeft.longitude && point.longitude <= box.topRight.longitude
                    : point.longitude >= box.bottomLeft.longitude || point.longitude <= box.topRight.longitude
                return inLongitude && point.latitude >= box.bottomLeft.latitude && point.latitude <= box.topRight.latitude
            }.keys.sorted()
            let (built, parsed) = try await realm.read { realm in
                let companies = realm.objects(Company.self)
                return (try companies.where { $0.location.geoWithin(box) && $0.id >= 0 }.map(\.id),
                        try companies.filter("location GEOWITHIN %@ AND name BEGINSWITH 'c'", box).map(\.id))
            }
            #expect(built == expected)
            #expect(parsed == expected)
            #expect(!expected.isEmpty)
        }
    }

    @Test func polygonsWithHolesMatchBruteForce() async throws {
        let (realm, points) = try await Self.makeRealm()
        func p(_ latitude: Double, _ longitude: Double) -> GeoPoint { GeoPoint(latitude: latitude, longitude: longitude)! }
        // A concave outer ring around Lisbon with a square hole.
        let outer = [p(37.6, -10.4), p(37.6, -7.6), p(39.9, -7.6), p(38.8, -9.0), p(39.9, -10.4), p(37.6, -10.4)]
        let hole = [p(38.0, -9.8), p(38.0, -9.2), p(38.4, -9.2), p(38.4, -9.8), p(38.0, -9.8)]
        let polygon = try #require(GeoPolygon(outerRing: outer, holes: [hole]))
        // Brute force: the gnomonic projection centred on Lisbon maps the polygon's great-circle
        // edges to straight lines; ray casting in that plane (no code shared with the library).
        let plane = Gnomonic(center: .init(latitude: 38.7, longitude: -9))
        func winding(_ ring: [GeoPoint], _ point: (latitude: Double, longitude: Double)) -> Bool {
            guard let projected = plane.project(latitude: point.latitude, longitude: point.longitude) else { return false }
            return Gnomonic.inside(ring.map { plane.project(latitude: $0.latitude, longitude: $0.longitude)! }, projected) ?? false
        }
        let expected = points.filter { winding(outer, $0.value) && !winding(hole, $0.value) }.keys.sorted()
        let inHole = points.filter { winding(hole, $0.value) }.count
        let (built, parsed, negated) = try await realm.read { realm in
            let companies = realm.objects(Company.self)
            return (try companies.where { $0.location.geoWithin(polygon) }.map(\.id),
                    try companies.filter("location GEOWITHIN %@", polygon).map(\.id),
                    try companies.filter("NOT location GEOWITHIN %@", polygon).count)
        }
        #expect(built == expected)
        #expect(parsed == expected)
        #expect(negated == 400 - expected.count)
        #expect(!expected.isEmpty && inHole > 0, "the polygon and its hole must both catch points")
    }

    @Test func malformedShapesAreTypedErrors() throws {
        func p(_ latitude: Double, _ longitude: Double) -> GeoPoint { GeoPoint(latitude: latitude, longitude: longitude)! }
        func refusal(_ outer: [GeoPoint], holes: [[GeoPoint]] = [], mentions words: String, ring: String = "outer ring") {
            #expect {
                _ = try GeoPolygon.validated(outerRing: outer, holes: holes)
            } throws: { error in
                guard case FloeError.invalidShape(let shape, nil, nil, let reason) = error else { return false }
                return shape == "GeoPolygon" && reason.hasPrefix(ring == "outer ring" ? "the outer ring" : ring) && reason.contains(words)
                    && "\(error)".hasPrefix("Invalid GeoPolygon: ")
            }
        }
        // Too short or not closed: nil from the initializer (as in Realm), a reason from validated.
        #expect(GeoPolygon(outerRing: [p(0, 0), p(1, 1), p(0, 0)]) == nil)
        #expect(GeoPolygon(outerRing: [p(0, 0), p(0, 1), p(1, 1), p(1, 0)]) == nil)
        #expect(GeoPolygon(outerRing: [p(0, 0), p(0, 4), p(4, 4), p(0, 0)], holes: [[p(1, 1), p(2, 2), p(1, 1)]]) == nil)
        refusal([p(0, 0), p(1, 1), p(0, 0)], mentions: "at least four points")
        refusal([p(0, 0), p(0, 1), p(1, 1), p(1, 0)], mentions: "last equal to its first")
        refusal([p(0, 0), p(0, 4), p(4, 4), p(0, 0)], holes: [[p(1, 1), p(2, 2), p(1, 1)]], mentions: "at least four points", ring: "hole 1")
        // The rest are checked by validated and when the polygon is queried.
        refusal([p(0, 0), p(1, 1), p(0, 0), p(0, 0)], mentions: "fewer than three distinct points")
        refusal([p(0, 0), p(1, 1), p(1, 0), p(0, 1), p(0, 0)], mentions: "intersects itself: edges 1 and 3 cross")
        refusal([p(0, 0), p(0, 1), p(1, 1), p(1, 0), p(0, 0)], holes: [[p(2, 2), p(2, 3), p(3, 3), p(3, 2), p(2, 2)]],
                mentions: "contained by the outer ring", ring: "hole 1")
        let square = [p(0, 0), p(0, 10), p(10, 10), p(10, 0), p(0, 0)]
        let hole = [p(1, 1), p(1, 3), p(3, 3), p(3, 1), p(1, 1)]
        refusal(square, holes: [hole, [p(2, 2), p(2, 5), p(5, 5), p(5, 2), p(2, 2)]], mentions: "hole 1", ring: "hole 2")          // crossing
        refusal(square, holes: [hole, [p(1.5, 1.5), p(1.5, 2), p(2, 2), p(1.5, 1.5)]], mentions: "lies inside hole 1", ring: "hole 2")   // nested
        refusal(square, holes: [hole, [p(1, 3), p(3, 3), p(3, 5), p(1, 3)]], mentions: "shares an edge", ring: "hole 2")          // a shared edge
        // Holes touching at a corner are fine.
        _ = try GeoPolygon.validated(outerRing: square, holes: [hole, [p(3, 3), p(3, 5), p(5, 5), p(5, 3), p(3, 3)]])
        #expect(GeoPoint(latitude: 91, longitude: 0) == nil)
        #expect(GeoPoint(latitude: 0, longitude: -181) == nil)
        #expect(GeoPoint(latitude: .nan, longitude: 0) == nil)
        #expect(Distance.kilometers(-1) == nil)
        #expect(GeoCircle(center: p(0, 0), radiusInRadians: -1) == nil)
    }

    @Test func geoWithinOnSomethingElseIsATypedError() async throws {
        let (realm, _) = try await Self.makeRealm(count: 5)
        let circle = GeoCircle(center: GeoPoint(latitude: 0, longitude: 0)!, radius: .degrees(10)!)
        try await realm.read { realm in
            let companies = realm.objects(Company.self)
            #expect(throws: FloeError.self) { try companies.filter("name GEOWITHIN %@", circle) }
            #expect(throws: FloeError.self) { try companies.filter("location GEOWITHIN %@", 3) }
            #expect(throws: FloeError.self) { try companies.filter("location GEOWITHIN 'x'") }
        }
    }
}
