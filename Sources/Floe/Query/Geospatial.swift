import Foundation

// Geospatial queries: `geoWithin` a circle, a box or a polygon, on a GeoJSON-shaped embedded
// object (`type = "Point"`, `coordinates: List<Double>`, longitude first). Circles measure
// great-circle distance on a sphere of the earth's mean radius; boxes and polygons test
// latitude and longitude as plane coordinates (edges are lines of constant slope in degrees).

/// A point on the earth, in degrees.
///
/// ```swift
/// let lisbon = GeoPoint(latitude: 38.72, longitude: -9.14)!
/// ```
public struct GeoPoint: Sendable, Hashable {
    /// Degrees north (−90…90).
    public let latitude: Double
    /// Degrees east (−180…180).
    public let longitude: Double

    /// A point; nil when a coordinate is out of range or not a number.
    ///
    /// ```swift
    /// let point = GeoPoint(latitude: 40.0, longitude: -74.0)
    /// ```
    public init?(latitude: Double, longitude: Double) {
        guard (-90...90).contains(latitude), (-180...180).contains(longitude) else { return nil }
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// A distance on the earth's surface, for ``GeoCircle``.
///
/// ```swift
/// let circle = GeoCircle(center: lisbon, radius: .kilometers(50))!
/// ```
public enum Distance: Sendable, Hashable {
    /// Kilometres along the surface.
    case kilometers(Double)
    /// Miles along the surface.
    case miles(Double)
    /// An angle at the earth's centre, in radians.
    case radians(Double)
    /// An angle at the earth's centre, in degrees.
    case degrees(Double)

    /// The earth's mean radius, which turns lengths into angles.
    public static let earthRadiusInKilometers = 6371.0088

    /// The distance as an angle at the earth's centre.
    ///
    /// ```swift
    /// Distance.kilometers(6371.0088).asRadians   // 1.0
    /// ```
    public var asRadians: Double {
        switch self {
        case .kilometers(let kilometers): return kilometers / Self.earthRadiusInKilometers
        case .miles(let miles): return miles * 1.609344 / Self.earthRadiusInKilometers
        case .radians(let radians): return radians
        case .degrees(let degrees): return degrees * .pi / 180
        }
    }
}

/// The points within a great-circle distance of a centre.
///
/// ```swift
/// let near = try realm.objects(Company.self).where { $0.location.geoWithin(GeoCircle(center: lisbon, radius: .kilometers(20))!) }
/// ```
public struct GeoCircle: Sendable, Hashable {
    /// The centre.
    public let center: GeoPoint
    /// The radius as an angle at the earth's centre.
    public let radiusInRadians: Double

    /// A circle; nil for a negative or non-finite radius.
    ///
    /// ```swift
    /// let circle = GeoCircle(center: lisbon, radius: .miles(10))
    /// ```
    public init?(center: GeoPoint, radius: Distance) {
        self.init(center: center, radiusInRadians: radius.asRadians)
    }

    /// A circle whose radius is an angle in radians; nil for a negative or non-finite radius.
    ///
    /// ```swift
    /// let circle = GeoCircle(center: lisbon, radiusInRadians: 0.01)
    /// ```
    public init?(center: GeoPoint, radiusInRadians: Double) {
        guard radiusInRadians.isFinite, radiusInRadians >= 0 else { return nil }
        self.center = center
        self.radiusInRadians = radiusInRadians
    }
}

/// The points between two corners (latitude and longitude in range; a box whose left edge is
/// east of its right edge crosses the antimeridian).
///
/// ```swift
/// let box = GeoBox(bottomLeft: GeoPoint(latitude: 38, longitude: -10)!, topRight: GeoPoint(latitude: 39, longitude: -9)!)
/// ```
public struct GeoBox: Sendable, Hashable {
    /// The south-west corner.
    public let bottomLeft: GeoPoint
    /// The north-east corner.
    public let topRight: GeoPoint

    /// A box between two corners.
    ///
    /// ```swift
    /// let box = GeoBox(bottomLeft: southWest, topRight: northEast)
    /// ```
    public init(bottomLeft: GeoPoint, topRight: GeoPoint) {
        self.bottomLeft = bottomLeft
        self.topRight = topRight
    }
}

/// A polygon: an outer ring and holes, each a closed ring (first point equal to the last) of at
/// least three distinct points that does not cross itself. Points in a hole are outside.
///
/// ```swift
/// let polygon = try GeoPolygon(outerRing: [a, b, c, a], holes: [[d, e, f, d]])
/// ```
public struct GeoPolygon: Sendable, Hashable {
    /// The outer ring, closed.
    public let outerRing: [GeoPoint]
    /// The holes, each closed.
    public let holes: [[GeoPoint]]

    /// A polygon, validated.
    ///
    /// ```swift
    /// let triangle = try GeoPolygon(outerRing: [a, b, c, a])
    /// ```
    ///
    /// - Throws: ``FloeError/invalidValueString(type:string:reason:)`` naming `GeoPolygon` and the
    ///   ring when a ring has fewer than three distinct points, is not closed, or crosses itself.
    public init(outerRing: [GeoPoint], holes: [[GeoPoint]] = []) throws {
        try Self.validate(outerRing, name: "the outer ring")
        for (index, hole) in holes.enumerated() { try Self.validate(hole, name: "hole \(index + 1)") }
        self.outerRing = outerRing
        self.holes = holes
    }

    private static func validate(_ ring: [GeoPoint], name: String) throws(FloeError) {
        let refuse = { (reason: String) in FloeError.invalidValueString(type: "GeoPolygon", string: name, reason: reason) }
        guard ring.count >= 4, Set(ring).count >= 3 else {
            throw refuse("a ring needs at least three distinct points and the first again at the end (\(ring.count) given)")
        }
        guard ring.first == ring.last else { throw refuse("a ring must be closed: its last point must equal its first") }
        let edges = ring.count - 1
        for first in 0..<edges {
            for second in (first + 1)..<edges where second != first + 1 && !(first == 0 && second == edges - 1) {
                if GeoGeometry.segmentsIntersect(ring[first], ring[first + 1], ring[second], ring[second + 1]) {
                    throw refuse("edges \(first + 1) and \(second + 1) cross: a ring must not intersect itself")
                }
            }
        }
    }
}

/// A shape a point can be within, as the predicate tree carries it.
enum GeoShape: Sendable, Hashable, CustomStringConvertible {
    case circle(GeoCircle)
    case box(GeoBox)
    case polygon(GeoPolygon)

    /// Whether `point` (longitude, latitude in degrees) lies within the shape, its edge included.
    func contains(longitude: Double, latitude: Double) -> Bool {
        switch self {
        case .circle(let circle):
            return GeoGeometry.centralAngle(latitude, longitude, circle.center.latitude, circle.center.longitude) <= circle.radiusInRadians
        case .box(let box):
            guard (box.bottomLeft.latitude...box.topRight.latitude).contains(latitude) else { return false }
            if box.bottomLeft.longitude <= box.topRight.longitude {
                return (box.bottomLeft.longitude...box.topRight.longitude).contains(longitude)
            }
            return longitude >= box.bottomLeft.longitude || longitude <= box.topRight.longitude
        case .polygon(let polygon):
            guard GeoGeometry.ringContains(polygon.outerRing, latitude: latitude, longitude: longitude) else { return false }
            return !polygon.holes.contains { GeoGeometry.ringContains($0, latitude: latitude, longitude: longitude) }
        }
    }

    var description: String {
        switch self {
        case .circle(let circle): return "geoCircle([\(circle.center.longitude), \(circle.center.latitude)], \(circle.radiusInRadians))"
        case .box(let box): return "geoBox([\(box.bottomLeft.longitude), \(box.bottomLeft.latitude)], [\(box.topRight.longitude), \(box.topRight.latitude)])"
        case .polygon(let polygon): return "geoPolygon(\(polygon.outerRing.count) points, \(polygon.holes.count) holes)"
        }
    }

    /// The shape a `%@` argument or a builder argument stands for.
    init?(_ argument: Any) {
        switch argument {
        case let circle as GeoCircle: self = .circle(circle)
        case let box as GeoBox: self = .box(box)
        case let polygon as GeoPolygon: self = .polygon(polygon)
        default: return nil
        }
    }
}

enum GeoGeometry {
    /// The angle at the earth's centre between two points (haversine: exact for small angles).
    static func centralAngle(_ latitude1: Double, _ longitude1: Double, _ latitude2: Double, _ longitude2: Double) -> Double {
        let radians = Double.pi / 180
        let deltaLatitude = (latitude2 - latitude1) * radians, deltaLongitude = (longitude2 - longitude1) * radians
        let a = pow(sin(deltaLatitude / 2), 2) + cos(latitude1 * radians) * cos(latitude2 * radians) * pow(sin(deltaLongitude / 2), 2)
        return 2 * asin(min(1, sqrt(a)))
    }

    /// Ray casting in the (longitude, latitude) plane; points on an edge count as inside.
    static func ringContains(_ ring: [GeoPoint], latitude: Double, longitude: Double) -> Bool {
        var inside = false
        for index in 0..<(ring.count - 1) {
            let a = ring[index], b = ring[index + 1]
            if onSegment(a, b, latitude: latitude, longitude: longitude) { return true }
            if (a.latitude > latitude) != (b.latitude > latitude) {
                let crossing = a.longitude + (latitude - a.latitude) / (b.latitude - a.latitude) * (b.longitude - a.longitude)
                if longitude < crossing { inside.toggle() }
            }
        }
        return inside
    }

    private static func onSegment(_ a: GeoPoint, _ b: GeoPoint, latitude: Double, longitude: Double) -> Bool {
        let cross = (b.longitude - a.longitude) * (latitude - a.latitude) - (b.latitude - a.latitude) * (longitude - a.longitude)
        return cross == 0 && (min(a.longitude, b.longitude)...max(a.longitude, b.longitude)).contains(longitude)
            && (min(a.latitude, b.latitude)...max(a.latitude, b.latitude)).contains(latitude)
    }

    static func segmentsIntersect(_ p1: GeoPoint, _ p2: GeoPoint, _ q1: GeoPoint, _ q2: GeoPoint) -> Bool {
        func orientation(_ a: GeoPoint, _ b: GeoPoint, _ c: GeoPoint) -> Double {
            (b.longitude - a.longitude) * (c.latitude - a.latitude) - (b.latitude - a.latitude) * (c.longitude - a.longitude)
        }
        let d1 = orientation(q1, q2, p1), d2 = orientation(q1, q2, p2), d3 = orientation(p1, p2, q1), d4 = orientation(p1, p2, q2)
        if ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0)) { return true }
        func within(_ a: GeoPoint, _ b: GeoPoint, _ c: GeoPoint) -> Bool {
            (min(a.longitude, b.longitude)...max(a.longitude, b.longitude)).contains(c.longitude)
                && (min(a.latitude, b.latitude)...max(a.latitude, b.latitude)).contains(c.latitude)
        }
        return (d1 == 0 && within(q1, q2, p1)) || (d2 == 0 && within(q1, q2, p2)) || (d3 == 0 && within(p1, p2, q1)) || (d4 == 0 && within(p1, p2, q2))
    }
}
