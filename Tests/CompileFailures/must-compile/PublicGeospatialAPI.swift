// Must compile outside the module (no @testable): geospatial shapes and geoWithin in the
// builder and in string predicates, on the seed's GeoJSON point.
import Foundation
import Floe

class CustomGeoPoint: EmbeddedObject {
    @Persisted private var type: String = "Point"
    @Persisted private var coordinates: List<Double>
    public var latitude: Double { return coordinates[1] }
    public var longitude: Double { return coordinates[0] }
    convenience init(_ latitude: Double, _ longitude: Double) {
        self.init()
        coordinates.append(objectsIn: [longitude, latitude])
    }
}

class Company: Object {
    @Persisted var location: CustomGeoPoint?
}

func findCompanies(_ realm: Realm) async throws {
    let center = GeoPoint(latitude: 38.72, longitude: -9.14)!
    let circle = GeoCircle(center: center, radius: .kilometers(20)!)
    let box = GeoBox(bottomLeft: GeoPoint(latitude: 38, longitude: -10)!, topRight: GeoPoint(latitude: 39, longitude: -9)!)
    let ring = [GeoPoint(latitude: 38, longitude: -10)!, GeoPoint(latitude: 38, longitude: -9)!, GeoPoint(latitude: 39, longitude: -9)!,
                GeoPoint(latitude: 38, longitude: -10)!]
    let polygon = GeoPolygon(outerRing: ring, holes: [])!
    let checked = try GeoPolygon.validated(outerRing: ring)
    // Realm's shapes: failable tuple forms, variadic holes, Distance's constructors.
    _ = GeoPoint(latitude: 1, longitude: 2, altitude: 3)
    _ = GeoBox(bottomLeft: (38, -10), topRight: (39, -9))!
    _ = GeoCircle(center: (38.72, -9.14), radiusInRadians: 0.01)!
    _ = GeoCircle(center: (38.72, -9.14), radius: .miles(3)!)
    if let square = GeoPolygon(outerRing: [(0, 0), (0, 4), (4, 4), (4, 0), (0, 0)], holes: [(1, 1), (1, 2), (2, 2), (1, 1)]) { print(square) }
    _ = GeoPolygon(outerRing: [(0, 0), (0, 4), (4, 4), (4, 0), (0, 0)], holes: [[(1, 1), (1, 2), (2, 2), (1, 1)]])
    _ = GeoPolygon(outerRing: [(0, 0), (0, 4), (4, 4), (0, 0)])
    _ = GeoCircle(center: center, radiusInRadians: 0.01)
    _ = Distance.miles(3)!.radians + Distance.radians(0.1)!.kilometers + Distance.degrees(1)!.miles
        + Distance.fromKilometers(kilometers: 1)!.degrees
    let holes: [[GeoPoint]]? = GeoPolygon(outerRing: [(0, 0), (0, 4), (4, 4), (0, 0)])!.holes
    if holes == nil, let box = GeoBox(bottomLeft: (1, 2), topRight: (3, 4)) { print(box, GeoBox(bottomLeft: box.bottomLeft, topRight: box.topRight)) }
    let count = try await realm.read { realm in
        let companies = realm.objects(Company.self)
        let near = try companies.where { $0.location.geoWithin(circle) }.count
        let boxed = try companies.where { $0.location.geoWithin(box) }.count
        let inside = try companies.where { $0.location.geoWithin(polygon) }.count
        return try near + boxed + inside + companies.filter("location GEOWITHIN %@", circle).count
            + companies.filter("location IN %@", checked).count
    }
    print(count)
}
