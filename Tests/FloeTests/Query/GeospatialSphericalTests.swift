import Foundation
import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

// Polygons on the sphere, as Realm answers them: edges are great-circle arcs, each ring bounds
// the smaller region it encloses. Realm's own polygon cases (its GeospatialTests), poles, the
// antimeridian, and random convex and concave polygons with holes checked against a brute force
// that shares no code with the library: the gnomonic projection (which maps great circles to
// straight lines) followed by ray casting in the plane.

enum RealmGeoShapes {
    public class PersonWithInvalidTypes: Object {
        @Persisted public var geoPointCoordinatesEmbedded: CoordinatesGeoPointEmbedded?
        @Persisted public var geoPointTypeEmbedded: TypeGeoPointEmbedded?
        @Persisted public var geoPoint: TopLevelGeoPoint?
    }

    public class CoordinatesGeoPointEmbedded: EmbeddedObject {
        @Persisted public var coordinates: List<Double>
    }

    public class TypeGeoPointEmbedded: EmbeddedObject {
        @Persisted public var type: String = "Point"
    }

    public class TopLevelGeoPoint: Object {
        @Persisted public var coordinates: List<Double>
        @Persisted public var type: String = "Point"
    }
}

/// The brute force: a tangent plane at `center`, great circles as straight lines on it.
struct Gnomonic {
    let center: SIMDPoint, east: SIMDPoint, north: SIMDPoint

    struct SIMDPoint {
        var x, y, z: Double
        static func + (a: SIMDPoint, b: SIMDPoint) -> SIMDPoint { SIMDPoint(x: a.x + b.x, y: a.y + b.y, z: a.z + b.z) }
        static func * (a: SIMDPoint, k: Double) -> SIMDPoint { SIMDPoint(x: a.x * k, y: a.y * k, z: a.z * k) }
        func dot(_ b: SIMDPoint) -> Double { x * b.x + y * b.y + z * b.z }
        func cross(_ b: SIMDPoint) -> SIMDPoint { SIMDPoint(x: y * b.z - z * b.y, y: z * b.x - x * b.z, z: x * b.y - y * b.x) }
        var unit: SIMDPoint { self * (1 / sqrt(dot(self))) }
        init(x: Double, y: Double, z: Double) { (self.x, self.y, self.z) = (x, y, z) }
        init(latitude: Double, longitude: Double) {
            let phi = latitude * .pi / 180, lambda = longitude * .pi / 180
            self.init(x: cos(phi) * cos(lambda), y: cos(phi) * sin(lambda), z: sin(phi))
        }
        var latitude: Double { asin(max(-1, min(1, z))) * 180 / .pi }
        var longitude: Double { atan2(y, x) * 180 / .pi }
    }

    init(center: SIMDPoint) {
        self.center = center
        let axis = abs(center.z) < 0.9 ? SIMDPoint(x: 0, y: 0, z: 1) : SIMDPoint(x: 1, y: 0, z: 0)
        east = axis.cross(center).unit
        north = center.cross(east)
    }

    /// The plane point of a sphere point, nil on the far hemisphere.
    func project(latitude: Double, longitude: Double) -> (Double, Double)? {
        let p = SIMDPoint(latitude: latitude, longitude: longitude)
        let depth = p.dot(center)
        guard depth > 1e-9 else { return nil }
        return (p.dot(east) / depth, p.dot(north) / depth)
    }

    /// The sphere point (latitude, longitude) of a plane point.
    func unproject(_ x: Double, _ y: Double) -> (Double, Double) {
        let p = (center + east * x + north * y).unit
        return (p.latitude, p.longitude)
    }

    /// Ray casting in the plane; nil when the point is too close to an edge to call.
    static func inside(_ ring: [(Double, Double)], _ point: (Double, Double)) -> Bool? {
        var inside = false
        for index in 0..<(ring.count - 1) {
            let (ax, ay) = ring[index], (bx, by) = ring[index + 1]
            let length = hypot(bx - ax, by - ay)
            let t = max(0, min(1, ((point.0 - ax) * (bx - ax) + (point.1 - ay) * (by - ay)) / (length * length)))
            if hypot(ax + t * (bx - ax) - point.0, ay + t * (by - ay) - point.1) < 1e-7 { return nil }
            if (ay > point.1) != (by > point.1), point.0 < ax + (point.1 - ay) / (by - ay) * (bx - ax) { inside.toggle() }
        }
        return inside
    }
}

@Suite struct GeospatialSphericalTests {
    typealias PersonLocation = RealmGeo.PersonLocation

    /// Realm's polygon examples from its `testFilterShapes`, each through the builder,
    /// `location IN %@` and `location GEOWITHIN %@`.
    @Test func realmsPolygonExamplesGiveRealmsAnswers() async throws {
        let realm = try await GeospatialRealmShapesTests.populated()
        let cases: [(GeoPolygon?, Set<String>)] = [
            (GeoPolygon(outerRing: [(55.6281, 12.0826), (55.6761, 12.0826), (55.6761, 12.5684), (55.6281, 12.5684), (55.6281, 12.0826)]), ["Maria"]),
            (GeoPolygon(outerRing: [(55, 12), (55.67, 12.5), (55.67, 11.5), (55, 12)]), ["Tomas"]),
            (GeoPolygon(outerRing: [(40.0096192, -75.5175781), (60, 20), (20, 20), (-75.5175781, -75.5175781), (40.0096192, -75.5175781)]), ["Diana", "Maria", "Tomas"]),
            (GeoPolygon(outerRing: [(50, -80), (61, 21), (21, 21), (-80, -80), (50, -80)],
                        holes: [[(40.0096192, -75.5175781), (60, 20), (20, 20), (-75.5175781, -75.5175781), (40.0096192, -75.5175781)]]), ["Alba"]),
            (GeoPolygon(outerRing: [(50, -80), (62, 22), (22, 22), (-80, -80), (50, -80)],
                        holes: [[(40.7129, -75), (40.7129, -74), (40.7126, -74), (40.7129, -75)]]), ["Maria", "Tomas", "Alba"]),
            (GeoPolygon(outerRing: [(50, -80), (62, 22), (22, 22), (-80, -80), (50, -80)],
                        holes: [[(40.7129, -75), (40.7129, -74), (40.7126, -74), (40.7129, -75)],
                                [(-77, -77), (-77, -75), (-75, -75), (-75, -77), (-77, -77)]]), ["Maria", "Tomas"]),
            (GeoPolygon(outerRing: [(50, -80), (62, 22), (22, 22), (-80, -80), (50, -80)],
                        holes: [[(40.7129, -75), (40.7129, -74), (40.7126, -74), (40.7129, -75)],
                                [(-77, -77), (-77, -75), (-75, -75), (-75, -77), (-77, -77)],
                                [(55.6760, 12.5682), (55.6760, 12.5684), (55.6763, 12.5684), (55.6763, 12.5682), (55.6760, 12.5682)]]), ["Tomas"]),
            (GeoPolygon(outerRing: [(50, -80), (62, 22), (22, 22), (-80, -80), (50, -80)],
                        holes: [[(40.7129, -75), (40.7129, -74), (40.7126, -74), (40.7129, -75)],
                                [(-77, -77), (-77, -75), (-75, -75), (-75, -77), (-77, -77)],
                                [(55.6760, 12.5682), (55.6760, 12.5684), (55.6763, 12.5684), (55.6763, 12.5682), (55.6760, 12.5682)],
                                [(55.6279, 12.0825), (55.6279, 12.0827), (55.6281, 12.0827), (55.6281, 12.0825), (55.6279, 12.0825)]]), []),
        ]
        for (polygon, expected) in cases {
            let polygon = try #require(polygon)
            let answers = try await realm.read { realm -> [Set<String>] in
                let people = realm.objects(PersonLocation.self)
                return [Set(try people.where { $0.location.geoWithin(polygon) }.map(\.name)),
                        Set(try people.filter("location IN %@", polygon).map(\.name)),
                        Set(try people.filter("location GEOWITHIN %@", polygon).map(\.name))]
            }
            for answer in answers { #expect(answer == expected, "\(polygon.outerRing.count) points, \(polygon.allHoles.count) holes") }
        }
    }

    /// An edge between two points at 60° north is a great-circle arc that reaches about 66° at
    /// the meridian between them: (61, 0) is inside, (67, 0) is not.
    @Test func edgesAreGreatCircleArcs() async throws {
        let triangle = try #require(GeoPolygon(outerRing: [(60, -40), (60, 40), (0, 0), (60, -40)]))
        let region = try #require(GeoRegion(.polygon(triangle)))
        #expect(region.contains(longitude: 0, latitude: 61))
        #expect(region.contains(longitude: 0, latitude: 65.5))
        #expect(!region.contains(longitude: 0, latitude: 67))
        // The same ring the other way round bounds the same (smaller) region.
        let reversed = try #require(GeoPolygon(outerRing: [(60, -40), (0, 0), (60, 40), (60, -40)]))
        let reversedRegion = try #require(GeoRegion(.polygon(reversed)))
        #expect(reversedRegion.contains(longitude: 0, latitude: 61))
        #expect(!reversedRegion.contains(longitude: 0, latitude: 67))
        #expect(!reversedRegion.contains(longitude: 180, latitude: -30))

        let realm = try await inMemoryRealm("spherical", objectTypes: [PersonLocation.self, RealmGeo.Location.self])
        try await realm.write { realm in
            try realm.add(PersonLocation("north of the straight edge", RealmGeo.Location(61, 0)))
            try realm.add(PersonLocation("beyond the arc", RealmGeo.Location(67, 0)))
        }
        let names = try await realm.read { realm in
            (try realm.objects(PersonLocation.self).where { $0.location.geoWithin(triangle) }.map(\.name),
             try realm.objects(PersonLocation.self).filter("location GEOWITHIN %@", triangle).map(\.name))
        }
        #expect(names.0 == ["north of the straight edge"])
        #expect(names.1 == ["north of the straight edge"])
    }

    @Test func polesAndTheAntimeridian() throws {
        // A ring at 80° north around the pole: the pole and everything above the ring's arcs.
        let cap = try #require(GeoPolygon(outerRing: [(80, 0), (80, 90), (80, 180), (80, -90), (80, 0)]))
        let capRegion = try #require(GeoRegion(.polygon(cap)))
        #expect(capRegion.contains(longitude: 0, latitude: 90))
        #expect(capRegion.contains(longitude: 45, latitude: 85))
        #expect(capRegion.contains(longitude: 10, latitude: 81.5))
        // Between two vertices the arc rises above 80° (to about 81.3° at 10° east, 82.9° at
        // 45° east): (80.5, 10) and (80.5, 45) are below it.
        #expect(!capRegion.contains(longitude: 10, latitude: 80.5))
        #expect(!capRegion.contains(longitude: 45, latitude: 80.5))
        #expect(!capRegion.contains(longitude: 45, latitude: 70))
        #expect(!capRegion.contains(longitude: 0, latitude: -90))
        // An edge between opposite meridians passes over the pole.
        let overThePole = try #require(GeoPolygon(outerRing: [(60, -90), (60, 90), (60, 0), (60, -90)]))
        #expect(overThePole.fault() == nil)
        #expect(GeoRegion(.polygon(overThePole))?.contains(longitude: 0, latitude: 80) == true)
        #expect(GeoRegion(.polygon(overThePole))?.contains(longitude: 0, latitude: 90) == true)
        #expect(GeoRegion(.polygon(overThePole))?.contains(longitude: 180, latitude: 80) == false)
        #expect(GeoRegion(.polygon(overThePole))?.contains(longitude: 0, latitude: 50) == false)
        // A square across the antimeridian: edges take the short way, over 180°.
        let pacific = try #require(GeoPolygon(outerRing: [(10, 170), (10, -170), (-10, -170), (-10, 170), (10, 170)]))
        let pacificRegion = try #require(GeoRegion(.polygon(pacific)))
        #expect(pacificRegion.contains(longitude: 180, latitude: 0))
        #expect(pacificRegion.contains(longitude: -180, latitude: 5))
        #expect(pacificRegion.contains(longitude: -175, latitude: -9))
        #expect(!pacificRegion.contains(longitude: 0, latitude: 0))
        #expect(!pacificRegion.contains(longitude: 160, latitude: 0))
        // A hole around the south pole.
        let south = try #require(GeoPolygon(outerRing: [(-60, 0), (-60, 120), (-60, -120), (-60, 0)],
                                            holes: [[(-85, 0), (-85, 120), (-85, -120), (-85, 0)]]))
        #expect(south.fault() == nil)
        let southRegion = try #require(GeoRegion(.polygon(south)))
        #expect(southRegion.contains(longitude: 60, latitude: -75))
        #expect(!southRegion.contains(longitude: 60, latitude: -89))
        #expect(!southRegion.contains(longitude: 60, latitude: -50))
    }

    /// Points exactly on the outer ring are within (corners and edges); points on a hole's ring are not.
    @Test func edgesAndCorners() throws {
        let square = try #require(GeoPolygon(outerRing: [(0, 0), (0, 10), (10, 10), (10, 0), (0, 0)],
                                             holes: [[(2, 2), (2, 4), (4, 4), (4, 2), (2, 2)]]))
        let region = try #require(GeoRegion(.polygon(square)))
        #expect(region.contains(longitude: 0, latitude: 0))          // a corner
        #expect(region.contains(longitude: 5, latitude: 0))          // on the equator edge (a great circle)
        #expect(region.contains(longitude: 0, latitude: 5))          // on a meridian edge
        #expect(!region.contains(longitude: 3, latitude: 3))         // inside the hole
        // The hole's southern edge bulges north to about 2.0003° at 3° east: below it is not in the hole.
        #expect(region.contains(longitude: 3, latitude: 2.0001))
        #expect(!region.contains(longitude: 3, latitude: 2.0005))
        #expect(!region.contains(longitude: 2, latitude: 3))         // on the hole's meridian edge
        #expect(!region.contains(longitude: 2, latitude: 2))         // the hole's corner
        #expect(region.contains(longitude: 5, latitude: 5))
        #expect(!region.contains(longitude: -0.0001, latitude: 5))
    }

    /// Random convex and concave polygons, some with a hole, around random centres (and the
    /// poles and the antimeridian), either way round: the library's answer for random points
    /// equals the gnomonic brute force.
    @Test func randomPolygonsMatchTheGnomonicBruteForce() throws {
        var random = SeededGenerator(seed: 2026)
        var centers: [Gnomonic.SIMDPoint] = [.init(latitude: 90, longitude: 0), .init(latitude: -90, longitude: 0),
                                             .init(latitude: 0, longitude: 180), .init(latitude: 55, longitude: 179.5)]
        for _ in 0..<36 {
            centers.append(.init(latitude: asin(Double.random(in: -1...1, using: &random)) * 180 / .pi,
                                 longitude: Double.random(in: -180...180, using: &random)))
        }
        var checked = 0, inside = 0, inHoles = 0
        for (index, centerVector) in centers.enumerated() {
            let plane = Gnomonic(center: centerVector)
            let reach = tan(Double.random(in: 2...60, using: &random) * .pi / 180)
            let count = Int.random(in: 5...12, using: &random)
            let convex = index % 3 == 0
            func star(_ count: Int, radii: ClosedRange<Double>) -> [(Double, Double)] {
                let angles = (0..<count).map { 2 * .pi * (Double($0) + Double.random(in: 0..<0.5, using: &random)) / Double(count) }
                let fixed = Double.random(in: radii, using: &random)
                var ring = angles.map { angle -> (Double, Double) in
                    let r = convex ? fixed : Double.random(in: radii, using: &random)
                    return (r * cos(angle), r * sin(angle))
                }
                ring.append(ring[0])
                return ring
            }
            let outerPlane = star(count, radii: (0.6 * reach)...reach)
            let holePlane = index % 2 == 0 ? star(Int.random(in: 3...7, using: &random), radii: (0.05 * reach)...(0.3 * reach)) : nil
            func onSphere(_ ring: [(Double, Double)]) -> [GeoPoint] {
                ring.map { let (latitude, longitude) = plane.unproject($0.0, $0.1); return GeoPoint(latitude: latitude, longitude: longitude)! }
            }
            var outer = onSphere(outerPlane), hole = holePlane.map(onSphere)
            // The brute force uses the rings as stored (after rounding to latitude and longitude).
            let outerExact = outer.map { plane.project(latitude: $0.latitude, longitude: $0.longitude)! }
            let holeExact = hole?.map { plane.project(latitude: $0.latitude, longitude: $0.longitude)! }
            if index % 4 == 1 { outer.reverse() }
            if index % 4 == 2 { hole?.reverse() }
            let polygon = try #require(GeoPolygon(outerRing: outer, holes: hole.map { [$0] } ?? []))
            #expect(polygon.fault() == nil, "polygon \(index)")
            let region = try #require(GeoRegion(.polygon(polygon)))
            for sample in 0..<300 {
                let latitude: Double, longitude: Double
                if sample % 5 == 0 {
                    latitude = asin(Double.random(in: -1...1, using: &random)) * 180 / .pi
                    longitude = Double.random(in: -180...180, using: &random)
                } else {
                    (latitude, longitude) = plane.unproject(Double.random(in: -1.1 * reach...1.1 * reach, using: &random),
                                                            Double.random(in: -1.1 * reach...1.1 * reach, using: &random))
                }
                var expected = false
                if let point = plane.project(latitude: latitude, longitude: longitude) {
                    guard let inOuter = Gnomonic.inside(outerExact, point) else { continue }
                    let inHole = holeExact.map { Gnomonic.inside($0, point) } ?? false
                    guard let inHole else { continue }
                    expected = inOuter && !inHole
                    if inOuter && inHole { inHoles += 1 }
                }
                if expected { inside += 1 }
                checked += 1
                #expect(region.contains(longitude: longitude, latitude: latitude) == expected,
                        "polygon \(index), point (\(latitude), \(longitude))")
            }
        }
        #expect(checked > 11_000 && inside > 3_000 && inHoles > 30, "\(checked) \(inside) \(inHoles)")
    }

    /// The same brute force through queries: builder and string predicate.
    @Test func randomPolygonQueriesMatchTheBruteForce() async throws {
        let (realm, points) = try await GeospatialTests.makeRealm(count: 400, seed: 7)
        var random = SeededGenerator(seed: 99)
        for center in [Gnomonic.SIMDPoint(latitude: 38.7, longitude: -9), .init(latitude: 20, longitude: 30), .init(latitude: -40, longitude: 170)] {
            let plane = Gnomonic(center: center)
            let reach = tan(45 * Double.pi / 180)
            var ring = (0..<9).map { index -> (Double, Double) in
                let angle = 2 * .pi * Double(index) / 9, r = Double.random(in: (0.3 * reach)...reach, using: &random)
                return (r * cos(angle), r * sin(angle))
            }
            ring.append(ring[0])
            let outer = ring.map { let (latitude, longitude) = plane.unproject($0.0, $0.1); return GeoPoint(latitude: latitude, longitude: longitude)! }
            let exact = outer.map { plane.project(latitude: $0.latitude, longitude: $0.longitude)! }
            let polygon = try #require(GeoPolygon(outerRing: outer))
            let expected = points.filter { entry in
                plane.project(latitude: entry.value.latitude, longitude: entry.value.longitude).map { Gnomonic.inside(exact, $0) == true } ?? false
            }.keys.sorted()
            let (built, parsed) = try await realm.read { realm in
                (try realm.objects(GeospatialTests.Company.self).where { $0.location.geoWithin(polygon) }.map(\.id).sorted(),
                 try realm.objects(GeospatialTests.Company.self).filter("location IN %@", polygon).map(\.id).sorted())
            }
            #expect(!expected.isEmpty)
            #expect(built == expected)
            #expect(parsed == expected)
        }
    }

    /// Realm's `testInvalidTypeValueForObjectGeoPoint`: a point whose `type` is not "Point" is in no shape.
    @Test func aPointWhoseTypeIsNotPointMatchesNothing() async throws {
        let realm = try await GeospatialRealmShapesTests.populated()
        let shape = GeoBox(bottomLeft: (55.6281, 12.0826), topRight: (55.6762, 12.5684))!
        #expect(try await realm.read { realm in try realm.objects(PersonLocation.self).where { $0.location.geoWithin(shape) }.count } == 1)
        try await realm.write { realm in
            for person in realm.objects(PersonLocation.self) { person.location?.type = "Polygon" }
        }
        let counts = try await realm.read { realm in
            [try realm.objects(PersonLocation.self).where { $0.location.geoWithin(shape) }.count,
             try realm.objects(PersonLocation.self).filter("location GEOWITHIN %@", shape).count,
             try realm.objects(PersonLocation.self).filter("location IN %@", GeoCircle(center: (0, 0), radiusInRadians: 4)!).count,
             try realm.objects(PersonLocation.self).filter("location GEOWITHIN geoBox([12.0826, 55.6281], [12.5684, 55.6762])").count]
        }
        #expect(counts == [0, 0, 0, 0])
        // "point" in another case is not "Point" either; back to "Point", it matches again.
        try await realm.write { realm in
            for person in realm.objects(PersonLocation.self) { person.location?.type = "point" }
        }
        #expect(try await realm.read { realm in try realm.objects(PersonLocation.self).where { $0.location.geoWithin(shape) }.count } == 0)
        try await realm.write { realm in
            for person in realm.objects(PersonLocation.self) { person.location?.type = "Point" }
        }
        #expect(try await realm.read { realm in try realm.objects(PersonLocation.self).filter("location GEOWITHIN %@", shape).count } == 1)
    }

    /// Realm's `testInvalidObjectTypesForGeoQuery`: a link to an embedded object without `type`
    /// or without `coordinates`, or to a top-level class, is a typed error naming the class and property.
    @Test func aLinkToSomethingOtherThanAGeoJSONPointIsATypedError() async throws {
        typealias Invalid = RealmGeoShapes.PersonWithInvalidTypes
        let realm = try await inMemoryRealm("geo-invalid", objectTypes: [Invalid.self, RealmGeoShapes.CoordinatesGeoPointEmbedded.self,
                          RealmGeoShapes.TypeGeoPointEmbedded.self, RealmGeoShapes.TopLevelGeoPoint.self])
        try await realm.write { realm in
            let coordinates = RealmGeoShapes.CoordinatesGeoPointEmbedded()
            coordinates.coordinates.append(objectsIn: [2, 1])
            let object = Invalid()
            object.geoPointCoordinatesEmbedded = coordinates
            object.geoPointTypeEmbedded = RealmGeoShapes.TypeGeoPointEmbedded()
            object.geoPoint = RealmGeoShapes.TopLevelGeoPoint()
            try realm.add(object)
        }
        let shape = GeoCircle(center: (0, 0), radiusInRadians: 10.0)!
        let prefix = "geoWithin query needs a link to a GeoJSON point"
        try await realm.read { realm in
            let objects = realm.objects(Invalid.self)
            for (property, words) in [("geoPointCoordinatesEmbedded", "links to data in the wrong format: 'CoordinatesGeoPointEmbedded' has no 'type' String property"),
                                      ("geoPointTypeEmbedded", "links to data in the wrong format: 'TypeGeoPointEmbedded' has no 'coordinates' List<Double> property")] {
                let built = #expect(throws: FloeError.self) {
                    property == "geoPointTypeEmbedded" ? try objects.where { $0.geoPointTypeEmbedded.geoWithin(shape) }.count
                                                       : try objects.where { $0.geoPointCoordinatesEmbedded.geoWithin(shape) }.count
                }
                let parsed = #expect(throws: FloeError.self) { try objects.filter("\(property) GEOWITHIN %@", shape).count }
                let literal = #expect(throws: FloeError.self) { try objects.filter("\(property) GEOWITHIN geoCircle([0, 0], 10)").count }
                guard case .invalidKeyPath("PersonWithInvalidTypes", property, let reason)? = built else {
                    Issue.record("not a key path error naming the class and property: \(String(describing: built))")
                    continue
                }
                #expect(reason.hasPrefix("it \(words)") && reason.contains(prefix), "\(reason)")
                for error in [parsed, literal] {
                    #expect(error?.description.contains("key path '\(property)' on PersonWithInvalidTypes: \(reason)") == true, "\(String(describing: error))")
                }
            }
            let topLevel = #expect(throws: FloeError.self) { try objects.filter("geoPoint IN %@", shape).count }
            #expect(topLevel?.description.hasSuffix("key path 'geoPoint' on PersonWithInvalidTypes: it links to 'TopLevelGeoPoint', a top-level class, not an embedded object: a geoWithin query needs a link to a GeoJSON point, an embedded object with 'type: String' (\"Point\") and 'coordinates: List<Double>' (longitude first).") == true)
        }
    }

    /// Realm's polygon refusals (`testGeoPolygonHoleNotContainedInOuterRingThrows`, edges that
    /// cross, a hole sharing an edge with the outer ring, nested holes): typed errors naming
    /// GeoPolygon, the ring, what is wrong, the class and the property.
    @Test func realmsBadPolygonsAreRefusedNamingWhatIsWrong() async throws {
        let realm = try await GeospatialRealmShapesTests.populated()
        let square = [(0.0, 0.0), (0, 1), (1, 1), (1, 0), (0, 0)]
        let cases: [(GeoPolygon?, String)] = [
            (GeoPolygon(outerRing: square, holes: [[(2, 2), (2, 3), (3, 3), (3, 2), (2, 2)]]),
             "hole 1 is not contained by the outer ring: a corner of it lies outside the outer ring"),
            (GeoPolygon(outerRing: square, holes: [[(0, 0.1), (0.5, 0.1), (0.5, 0.5), (0, 0.5), (0, 0.1)]]),
             "hole 1 is not contained by the outer ring: its edge 4 runs along the outer ring (a hole may touch the outer ring at corners only)"),
            (GeoPolygon(outerRing: square, holes: [[(0.25, 0.5), (0.75, 0.5), (0.75, 1.5), (0.25, 1.5), (0.25, 0.5)]]),
             "hole 1 is not contained by the outer ring: a corner of it lies outside the outer ring"),
            (GeoPolygon(outerRing: [GeoPoint(latitude: 50, longitude: -50)!, GeoPoint(latitude: 55, longitude: 55)!, GeoPoint(latitude: -50, longitude: 50)!,
                                    GeoPoint(latitude: 70, longitude: -25)!, GeoPoint(latitude: 50, longitude: -50)!]),
             "the outer ring intersects itself: edges 1 and 3 cross or touch"),
            (GeoPolygon(outerRing: [(50, -80), (60, 20), (20, 20), (-80, -80), (50, -80)],
                        holes: [[(40.0096192, -75.5175781), (60, 20), (20, 20), (-75.5175781, -75.5175781), (40.0096192, -75.5175781)]]),
             "hole 1 is not contained by the outer ring: its edge 2 runs along the outer ring (a hole may touch the outer ring at corners only)"),
            (GeoPolygon(outerRing: [(50, -80), (62, 22), (22, 22), (-80, -80), (50, -80)],
                        holes: [[(45, -77), (61, 21), (21, 21), (-77, -77), (45, -77)],
                                [(40.0096192, -75.5175780), (60, 20), (20, 20), (-75.5175781, -75.5175781), (40.0096192, -75.5175780)]]),
             "hole 2 lies inside hole 1: holes must be apart (they may touch at corners only)"),
            (GeoPolygon(outerRing: [(0, 0), (0, 1), (0, 2), (0, 0)]),
             "the outer ring intersects itself: edges 1 and 3 double back over each other"),
            (GeoPolygon(outerRing: [(0, 0), (1, 1), (0, 0), (0, 0)]),
             "the outer ring has fewer than three distinct points: a polygon needs at least three segments"),
            (GeoPolygon(outerRing: [(0, 0), (0, 180), (10, 10), (0, 0)]),
             "the outer ring has antipodal neighbours at edge 1: no single great-circle arc joins them"),
        ]
        for (polygon, reason) in cases {
            let polygon = try #require(polygon)
            try await realm.read { realm in
                let people = realm.objects(PersonLocation.self)
                let errors = [#expect(throws: FloeError.self) { try people.where { $0.location.geoWithin(polygon) }.count },
                              #expect(throws: FloeError.self) { try people.filter("location IN %@", polygon).count },
                              #expect(throws: FloeError.self) { try people.filter("location GEOWITHIN %@", polygon).count }]
                for error in errors {
                    #expect(error?.description == "Invalid GeoPolygon in a geoWithin query on 'PersonLocation.location': \(reason).")
                }
            }
            #expect(throws: FloeError.invalidShape(shape: "GeoPolygon", className: nil, property: nil, reason: reason)) {
                _ = try GeoPolygon.validated(outerRing: polygon.outerRing, holes: polygon.allHoles)
            }
        }
        // A hole that touches the outer ring at a corner only, and holes touching at a corner, are fine.
        let touching = try #require(GeoPolygon(outerRing: [(0, 0), (0, 4), (4, 4), (4, 0), (0, 0)],
                                               holes: [[(0, 0), (1, 2), (2, 1), (0, 0)], [(2, 1), (3, 3), (3, 1), (2, 1)]]))
        #expect(touching.fault() == nil)
    }
}
