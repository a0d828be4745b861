import Foundation
import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

/// Geospatial shapes written in string predicates, as Realm Query Language writes them
/// (`geoCircle([lng, lat], radians)`, `geoBox([lng, lat], [lng, lat])`, `geoPolygon({…}, {…})`):
/// each gives the same answer as the `%@` form with the equal shape, over random points; a
/// malformed literal is a typed error naming the class, the property and the text.
@Suite struct GeospatialLiteralTests {
    typealias Company = Geo.Company

    static func ids(_ results: Results<Company>) -> Set<Int> { Set(results.map(\.id)) }

    @Test func circlesMatchTheArgumentForm() async throws {
        let (realm, _) = try await GeospatialTests.makeRealm()
        try await realm.read { realm in
            let companies = realm.objects(Company.self)
            for (longitude, latitude, radius) in [(-9.14, 38.72, 0.0047), (-9.14, 38.72, 0.02), (0.0, 0.0, 1.2), (-9, 39, 0)] as [(Double, Double, Double)] {
                let circle = GeoCircle(center: GeoPoint(latitude: latitude, longitude: longitude)!, radiusInRadians: radius)!
                let written = try companies.filter("location geoWithin geoCircle([\(longitude), \(latitude)], \(radius))")
                let expected = try companies.filter("location GEOWITHIN %@", circle)
                #expect(Self.ids(written) == Self.ids(expected))
            }
            // One that catches some points near Lisbon, so the comparison is not of two empty sets.
            #expect(try companies.filter("location GEOWITHIN geoCircle([-9.14, 38.72], 0.02)").count > 0)
        }
    }

    @Test func boxesMatchTheArgumentForm() async throws {
        let (realm, _) = try await GeospatialTests.makeRealm()
        try await realm.read { realm in
            let companies = realm.objects(Company.self)
            let written = try companies.filter("location GEOWITHIN geoBox([-10, 38], [-8.5, 39.5]) AND name != 'none'")
            let expected = try companies.filter("location GEOWITHIN %@ AND name != 'none'",
                                                GeoBox(bottomLeft: GeoPoint(latitude: 38, longitude: -10)!, topRight: GeoPoint(latitude: 39.5, longitude: -8.5)!))
            #expect(Self.ids(written) == Self.ids(expected))
            #expect(!Self.ids(written).isEmpty)
            // Across the antimeridian, and with altitudes (which queries ignore).
            let wrapped = try companies.filter("location geowithin GEOBOX([170, -60, 10], [-170, 60])")
            let wrappedExpected = try companies.filter("location IN %@", GeoBox(bottomLeft: GeoPoint(latitude: -60, longitude: 170)!,
                                                                               topRight: GeoPoint(latitude: 60, longitude: -170)!))
            #expect(Self.ids(wrapped) == Self.ids(wrappedExpected))
        }
    }

    @Test func polygonsWithHolesMatchTheArgumentForm() async throws {
        let (realm, _) = try await GeospatialTests.makeRealm()
        try await realm.read { realm in
            let companies = realm.objects(Company.self)
            let outer = [(37.5, -10.5), (37.5, -7.5), (40.0, -7.5), (40.0, -10.5), (37.5, -10.5)]
            let hole = [(38.0, -9.5), (38.0, -8.5), (39.0, -8.5), (39.0, -9.5), (38.0, -9.5)]
            let polygon = GeoPolygon(outerRing: outer, holes: [hole])!
            let ring: ([(Double, Double)]) -> String = { "{" + $0.map { "[\($0.1), \($0.0)]" }.joined(separator: ", ") + "}" }
            let written = try companies.filter("location GEOWITHIN geoPolygon(\(ring(outer)), \(ring(hole)))")
            let expected = try companies.filter("location GEOWITHIN %@", polygon)
            #expect(Self.ids(written) == Self.ids(expected))
            #expect(!Self.ids(written).isEmpty)
            let noHole = try companies.filter("location GEOWITHIN geoPolygon(\(ring(outer)))")
            #expect(Self.ids(noHole) == Self.ids(try companies.filter("location GEOWITHIN %@", GeoPolygon(outerRing: outer)!)))
            #expect(Self.ids(noHole).count > Self.ids(written).count)
        }
    }

    @Test func malformedLiteralsAreTypedErrorsNamingClassPropertyAndText() async throws {
        let (realm, _) = try await GeospatialTests.makeRealm(count: 20)
        try await realm.read { realm in
            let companies = realm.objects(Company.self)
            let cases: [(String, String)] = [
                ("location GEOWITHIN geoCircle([-9.14, 38.72], -1)", "geoCircle([-9.14, 38.72], -1)"),
                ("location GEOWITHIN geoCircle([-9.14, 98.72], 0.1)", "geoCircle([-9.14, 98.72], 0.1)"),
                ("location GEOWITHIN geoCircle([-9.14], 0.1)", "geoCircle([-9.14], 0.1)"),
                ("location GEOWITHIN geoBox([1, 2])", "geoBox([1, 2])"),
                ("location GEOWITHIN geoPolygon({[0, 0], [1, 0], [1, 1]})", "geoPolygon({[0, 0], [1, 0], [1, 1]})"),
                ("location GEOWITHIN geoSquare([0, 0], 1)", "geoSquare([0, 0], 1)"),
            ]
            for (format, literal) in cases {
                #expect {
                    try companies.filter(format)
                } throws: { error in
                    guard case FloeError.invalidPredicate(let predicate, _, let token, let reason) = error else { return false }
                    return predicate == format && token == literal && reason.contains("Company.location") && reason.contains(literal)
                }
            }
            // The argument form still reads its argument.
            #expect(throws: FloeError.self) { try companies.filter("location GEOWITHIN %@", 3) }
        }
    }
}
