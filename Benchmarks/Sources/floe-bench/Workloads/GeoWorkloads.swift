import Floe
import Foundation

/// A GeoJSON point, as Realm's documents store one.
final class BenchGeoPoint: EmbeddedObject {
    @Persisted var type = "Point"
    @Persisted var coordinates: List<Double>
}

final class BenchPlace: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var location: BenchGeoPoint?
}

/// G: geoWithin over 100,000 places spread over the earth. G1: a 12-point polygon with a hole
/// (great-circle edges), G2: a 100-point polygon, each against a circle of about the same size
/// (the peer column), which costs one haversine per point.
enum GeoWorkloads {
    static let rounds = 5
    static let count = 100_000

    static func run(fixtures: Fixtures, reporter: Reporter) async throws {
        let realm = try await Realm(configuration: Realm.Configuration(
            fileURL: URL(fileURLWithPath: fixtures.scratch.file("places.floe")), objectTypes: [BenchPlace.self, BenchGeoPoint.self], durability: .none))
        try await realm.write { realm in
            var state: UInt64 = 12345
            func next() -> Double {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                return Double(state >> 11) / Double(1 << 53)
            }
            for index in 0..<count {
                let place = BenchPlace()
                place.id = index
                let point = BenchGeoPoint()
                point.coordinates.append(objectsIn: [next() * 360 - 180, asin(next() * 2 - 1) * 180 / .pi])
                place.location = point
                try realm.add(place)
            }
        }
        func ring(_ points: Int, radius: Double, wobble: Double) -> [(Double, Double)] {
            var ring = (0..<points).map { index -> (Double, Double) in
                let angle = 2 * Double.pi * Double(index) / Double(points)
                let r = radius * (1 + wobble * sin(5 * angle))
                return (40 + r * sin(angle), 10 + r * cos(angle) / cos(40 * Double.pi / 180))
            }
            ring.append(ring[0])
            return ring
        }
        let twelve = GeoPolygon(outerRing: ring(12, radius: 20, wobble: 0.2), holes: [ring(5, radius: 4, wobble: 0)])!
        let hundred = GeoPolygon(outerRing: ring(100, radius: 20, wobble: 0.2))!
        let circle = GeoCircle(center: (40, 10), radius: .degrees(20)!)!
        for (name, polygon) in [("G1 geoWithin a 12-point polygon with a hole, 100k points", twelve),
                                ("G2 geoWithin a 100-point polygon, 100k points", hundred)] {
            let samples = try await Runs.interleaved(rounds: rounds, [{
                var found = 0
                let elapsed = try await Clocks.wallTime {
                    found = try await realm.read { realm in try realm.objects(BenchPlace.self).where { $0.location.geoWithin(polygon) }.count }
                }
                guard found > 0 else { throw BenchmarkFailure("G: the polygon found nothing") }
                return elapsed
            }, {
                var found = 0
                let elapsed = try await Clocks.wallTime {
                    found = try await realm.read { realm in try realm.objects(BenchPlace.self).where { $0.location.geoWithin(circle) }.count }
                }
                guard found > 0 else { throw BenchmarkFailure("G: the circle found nothing") }
                return elapsed
            }])
            reporter.add(ReportLine(
                workload: name + " (peer column: a circle)",
                floe: Format.duration(nanoseconds: samples[0].median), peer: Format.duration(nanoseconds: samples[1].median),
                ratio: Format.speedup(floe: samples[0].median, peer: samples[1].median), target: "—", verdict: .info))
        }
    }
}
