import Foundation

// Geospatial queries: `geoWithin` a circle, a box or a polygon, on a GeoJSON-shaped embedded
// object (`type = "Point"`, `coordinates: List<Double>`, longitude first). Circles measure
// great-circle distance on a sphere of the earth's equatorial radius (6378.1 km, as Realm's
// `Distance` converts); boxes and polygons test latitude and longitude as plane coordinates
// (edges are lines of constant slope in degrees).

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
    /// The altitude (never negative); queries do not use it.
    public let altitude: Double

    /// A point; nil when a coordinate is out of range or not a number, or the altitude is
    /// negative or not a number.
    ///
    /// ```swift
    /// let point = GeoPoint(latitude: 40.0, longitude: -74.0)
    /// let summit = GeoPoint(latitude: 27.99, longitude: 86.93, altitude: 8849)
    /// ```
    public init?(latitude: Double, longitude: Double, altitude: Double = 0) {
        guard (-90...90).contains(latitude), (-180...180).contains(longitude), altitude >= 0 else { return nil }
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
    }

    /// A point from latitude and longitude (and altitude) without labels; nil as
    /// ``init(latitude:longitude:altitude:)`` is.
    ///
    /// ```swift
    /// let point = GeoPoint(38.72, -9.14)!
    /// ```
    public init?(_ latitude: Double, _ longitude: Double, _ altitude: Double = 0) {
        self.init(latitude: latitude, longitude: longitude, altitude: altitude)
    }
}

/// A distance on the earth's surface, for ``GeoCircle``, kept as an angle at the earth's
/// centre. Each constructor returns nil for a negative distance or one that is not a number.
///
/// ```swift
/// let circle = GeoCircle(center: lisbon, radius: .kilometers(50)!)
/// ```
public struct Distance: Sendable, Hashable {
    /// The distance as an angle at the earth's centre, in radians.
    public let radians: Double

    /// The earth's radius the conversions use (Realm's: the equatorial radius).
    public static let earthRadiusInKilometers = 6378.1
    private static let kilometersPerMile = 1.609344

    private init?(checkedRadians radians: Double) {
        guard !radians.isNaN, radians >= 0 else { return nil }
        self.radians = radians
    }

    /// A distance in kilometres along the surface.
    ///
    /// ```swift
    /// let ten = Distance.kilometers(10)!
    /// ```
    public static func kilometers(_ kilometers: Double) -> Distance? { Distance(checkedRadians: kilometers / earthRadiusInKilometers) }

    /// A distance in miles along the surface.
    ///
    /// ```swift
    /// let ten = Distance.miles(10)!
    /// ```
    public static func miles(_ miles: Double) -> Distance? { Distance(checkedRadians: miles * kilometersPerMile / earthRadiusInKilometers) }

    /// A distance as an angle at the earth's centre, in degrees.
    ///
    /// ```swift
    /// let half = Distance.degrees(180)!
    /// ```
    public static func degrees(_ degrees: Double) -> Distance? { Distance(checkedRadians: degrees * .pi / 180) }

    /// A distance as an angle at the earth's centre, in radians.
    ///
    /// ```swift
    /// let small = Distance.radians(0.01)!
    /// ```
    public static func radians(_ radians: Double) -> Distance? { Distance(checkedRadians: radians) }

    /// Realm's Objective-C spelling of ``kilometers(_:)``.
    ///
    /// ```swift
    /// let ten = Distance.fromKilometers(kilometers: 10)!
    /// ```
    public static func fromKilometers(kilometers: Double) -> Distance? { .kilometers(kilometers) }

    /// Realm's Objective-C spelling of ``miles(_:)``.
    ///
    /// ```swift
    /// let ten = Distance.fromMiles(miles: 10)!
    /// ```
    public static func fromMiles(miles: Double) -> Distance? { .miles(miles) }

    /// Realm's Objective-C spelling of ``degrees(_:)``.
    ///
    /// ```swift
    /// let one = Distance.fromDegrees(degrees: 1)!
    /// ```
    public static func fromDegrees(degrees: Double) -> Distance? { .degrees(degrees) }

    /// Realm's Objective-C spelling of ``radians(_:)``.
    ///
    /// ```swift
    /// let one = Distance.fromRadians(radians: 1)!
    /// ```
    public static func fromRadians(radians: Double) -> Distance? { .radians(radians) }

    /// The distance in kilometres along the surface (Realm's property).
    ///
    /// ```swift
    /// Distance.fromKilometers(kilometers: 1)!.kilometers   // 1
    /// ```
    public var kilometers: Double { radians * Self.earthRadiusInKilometers }

    /// The distance in miles along the surface (Realm's property).
    ///
    /// ```swift
    /// let miles = Distance.kilometers(10)!.miles
    /// ```
    public var miles: Double { radians * Self.earthRadiusInKilometers / Self.kilometersPerMile }

    /// The distance as an angle at the earth's centre, in degrees (Realm's property).
    ///
    /// ```swift
    /// Distance.radians(.pi)!.degrees   // 180
    /// ```
    public var degrees: Double { radians * 180 / .pi }

    /// ``kilometers``, as a method.
    ///
    /// ```swift
    /// Distance.radians(1)!.asKilometers()   // 6378.1
    /// ```
    @available(*, deprecated, renamed: "kilometers", message: "Realm's Distance has the property kilometers")
    public func asKilometers() -> Double { kilometers }

    /// ``miles``, as a method.
    ///
    /// ```swift
    /// let miles = Distance.kilometers(10)!.asMiles()
    /// ```
    @available(*, deprecated, renamed: "miles", message: "Realm's Distance has the property miles")
    public func asMiles() -> Double { miles }

    /// ``degrees``, as a method.
    ///
    /// ```swift
    /// Distance.radians(.pi)!.asDegrees()   // 180
    /// ```
    @available(*, deprecated, renamed: "degrees", message: "Realm's Distance has the property degrees")
    public func asDegrees() -> Double { degrees }
}

/// The points within a great-circle distance of a centre.
///
/// ```swift
/// let near = try realm.objects(Company.self).where { $0.location.geoWithin(GeoCircle(center: lisbon, radius: .kilometers(20)!)) }
/// ```
public struct GeoCircle: Sendable, Hashable {
    /// The centre.
    public let center: GeoPoint
    /// The radius as an angle at the earth's centre.
    public let radiusInRadians: Double

    /// The radius as an angle at the earth's centre (Realm's name for ``radiusInRadians``).
    public var radians: Double { radiusInRadians }

    /// A circle whose radius is a ``Distance`` (which is never negative, so this never fails).
    ///
    /// ```swift
    /// let circle = GeoCircle(center: lisbon, radius: .miles(10)!)
    /// ```
    public init(center: GeoPoint, radius: Distance) {
        self.center = center
        self.radiusInRadians = radius.radians
    }

    /// A circle whose radius is an angle in radians; nil for a negative radius or one that is
    /// not a number.
    ///
    /// ```swift
    /// let circle = GeoCircle(center: lisbon, radiusInRadians: 0.01)
    /// ```
    public init?(center: GeoPoint, radiusInRadians: Double) {
        guard !radiusInRadians.isNaN, radiusInRadians >= 0 else { return nil }
        self.center = center
        self.radiusInRadians = radiusInRadians
    }

    /// A circle around a `(latitude, longitude)` centre; nil when the centre is out of range or
    /// the radius negative.
    ///
    /// ```swift
    /// let circle = GeoCircle(center: (38.72, -9.14), radiusInRadians: 0.01)!
    /// ```
    public init?(center: (Double, Double), radiusInRadians: Double) {
        guard let point = GeoPoint(latitude: center.0, longitude: center.1) else { return nil }
        self.init(center: point, radiusInRadians: radiusInRadians)
    }

    /// A circle around a `(latitude, longitude)` centre; nil when the centre is out of range.
    ///
    /// ```swift
    /// let circle = GeoCircle(center: (38.72, -9.14), radius: .kilometers(20)!)!
    /// ```
    public init?(center: (Double, Double), radius: Distance) {
        guard let point = GeoPoint(latitude: center.0, longitude: center.1) else { return nil }
        self.init(center: point, radius: radius)
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

    /// A box between two `(latitude, longitude)` corners; nil when a coordinate is out of range.
    ///
    /// ```swift
    /// let box = GeoBox(bottomLeft: (38, -10), topRight: (39, -9))!
    /// ```
    public init?(bottomLeft: (Double, Double), topRight: (Double, Double)) {
        guard let southWest = GeoPoint(latitude: bottomLeft.0, longitude: bottomLeft.1),
              let northEast = GeoPoint(latitude: topRight.0, longitude: topRight.1) else { return nil }
        self.init(bottomLeft: southWest, topRight: northEast)
    }
}

/// A polygon: an outer ring and holes, each a closed ring (first point equal to the last) of at
/// least four points. Points in a hole are outside.
///
/// The initializers return nil, as Realm's do, when a ring has fewer than four points or is not
/// closed (or a tuple coordinate is out of range). The rest of the shape is checked when the
/// polygon is used in a query, which then throws a ``FloeError`` naming `GeoPolygon`, the class,
/// the property and the ring: a ring with fewer than three distinct points, a ring that crosses
/// itself, a hole not contained by the outer ring, holes that cross, share an edge or nest. ``validated(outerRing:holes:)`` runs every
/// check at once and throws the reason.
///
/// ```swift
/// let polygon = GeoPolygon(outerRing: [a, b, c, a], holes: [[d, e, f, d]])!
/// ```
public struct GeoPolygon: Sendable, Hashable {
    /// The outer ring, closed.
    public let outerRing: [GeoPoint]
    /// The holes, each closed; nil when the polygon was made without holes (as Realm's).
    ///
    /// ```swift
    /// let triangle = GeoPolygon(outerRing: [(0, 0), (0, 1), (1, 1), (0, 0)])!
    /// print(triangle.holes == nil)   // true
    /// ```
    public let holes: [[GeoPoint]]?

    /// The holes, none when ``holes`` is nil: what the checks and queries walk.
    var holeRings: [[GeoPoint]] { holes ?? [] }

    /// A polygon; nil when a ring has fewer than four points or its last point is not its first.
    ///
    /// ```swift
    /// let triangle = GeoPolygon(outerRing: [a, b, c, a])!
    /// ```
    public init?(outerRing: [GeoPoint], holes: [[GeoPoint]]? = nil) {
        guard Self.isClosedRing(outerRing), (holes ?? []).allSatisfy(Self.isClosedRing) else { return nil }
        self.outerRing = outerRing
        self.holes = holes
    }

    /// A polygon from `(latitude, longitude)` pairs; nil when a coordinate is out of range or a
    /// ring is too short or not closed.
    ///
    /// ```swift
    /// let square = GeoPolygon(outerRing: [(0, 0), (0, 1), (1, 1), (1, 0), (0, 0)])!
    /// ```
    public init?(outerRing: [(Double, Double)], holes: [[(Double, Double)]]? = nil) {
        guard let outer = Self.points(outerRing) else { return nil }
        var rings: [[GeoPoint]]?
        if let holes {
            rings = []
            for hole in holes {
                guard let ring = Self.points(hole) else { return nil }
                rings?.append(ring)
            }
        }
        self.init(outerRing: outer, holes: rings)
    }

    /// A polygon from `(latitude, longitude)` pairs, its holes given one after another.
    ///
    /// ```swift
    /// let framed = GeoPolygon(outerRing: [(0, 0), (0, 4), (4, 4), (4, 0), (0, 0)],
    ///                         holes: [(1, 1), (1, 2), (2, 2), (1, 1)], [(3, 3), (3, 3.5), (3.5, 3.5), (3, 3)])!
    /// ```
    public init?(outerRing: [(Double, Double)], holes: [(Double, Double)]...) {
        self.init(outerRing: outerRing, holes: holes)
    }

    /// A polygon with every check run at once: rings of at least three distinct points, closed,
    /// not crossing themselves, holes contained by the outer ring and apart from each other
    /// (touching at corners only).
    ///
    /// ```swift
    /// let polygon = try GeoPolygon.validated(outerRing: [a, b, c, a])
    /// ```
    ///
    /// - Throws: ``FloeError/invalidValueString(type:string:reason:)`` naming `GeoPolygon` and the
    ///   ring at fault.
    public static func validated(outerRing: [GeoPoint], holes: [[GeoPoint]]? = nil) throws(FloeError) -> GeoPolygon {
        for (name, ring) in [("outer ring", outerRing)] + (holes ?? []).enumerated().map({ ("hole \($0.offset + 1)", $0.element) }) {
            guard isClosedRing(ring) else {
                throw .invalidValueString(type: "GeoPolygon", string: name,
                                          reason: "a ring needs at least four points, its last equal to its first (\(ring.count) given)")
            }
        }
        let polygon = GeoPolygon(checkedOuterRing: outerRing, holes: holes)
        if let (ring, reason) = polygon.fault() { throw .invalidValueString(type: "GeoPolygon", string: ring, reason: reason) }
        return polygon
    }

    private init(checkedOuterRing: [GeoPoint], holes: [[GeoPoint]]?) {
        self.outerRing = checkedOuterRing
        self.holes = holes
    }

    private static func isClosedRing(_ ring: [GeoPoint]) -> Bool { ring.count >= 4 && ring.first == ring.last }

    private static func points(_ pairs: [(Double, Double)]) -> [GeoPoint]? {
        var points: [GeoPoint] = []
        points.reserveCapacity(pairs.count)
        for pair in pairs {
            guard let point = GeoPoint(latitude: pair.0, longitude: pair.1) else { return nil }
            points.append(point)
        }
        return points
    }

    /// What makes the polygon unusable in a query, naming the ring: nil when it is sound.
    func fault() -> (ring: String, reason: String)? {
        if let reason = Self.ringFault(outerRing) { return ("outer ring", reason) }
        let holes = holeRings
        for (index, hole) in holes.enumerated() {
            if let reason = Self.ringFault(hole) { return ("hole \(index + 1)", reason) }
            if !Self.ring(hole, isWithin: outerRing) {
                return ("hole \(index + 1)", "a hole must be contained by the outer ring")
            }
            for other in 0..<index where Self.rings(holes[other], overlap: hole) {
                return ("hole \(index + 1)", "it crosses, shares an edge with or lies inside hole \(other + 1): holes may touch at corners only")
            }
        }
        return nil
    }

    /// Two holes overlap when an edge of one crosses an edge of the other, or the middle of an
    /// edge of one lies inside the other or on its edge (shared corners are allowed).
    private static func rings(_ first: [GeoPoint], overlap second: [GeoPoint]) -> Bool {
        for (a, b) in [(first, second), (second, first)] {
            for index in 0..<(a.count - 1) {
                let start = a[index], end = a[index + 1]
                let middleLatitude = (start.latitude + end.latitude) / 2, middleLongitude = (start.longitude + end.longitude) / 2
                if GeoGeometry.ringContains(b, latitude: middleLatitude, longitude: middleLongitude) { return true }
                for edge in 0..<(b.count - 1) where GeoGeometry.segmentsCrossProperly(start, end, b[edge], b[edge + 1]) { return true }
            }
        }
        return false
    }

    private static func ringFault(_ ring: [GeoPoint]) -> String? {
        guard Set(ring.map { [$0.latitude, $0.longitude] }).count >= 3 else {
            return "a ring needs at least three distinct points"
        }
        let edges = ring.count - 1
        for first in 0..<edges {
            for second in (first + 1)..<edges where second != first + 1 && !(first == 0 && second == edges - 1) {
                if GeoGeometry.segmentsIntersect(ring[first], ring[first + 1], ring[second], ring[second + 1]) {
                    return "edges \(first + 1) and \(second + 1) cross: a ring must not intersect itself"
                }
            }
        }
        return nil
    }

    /// A hole is within the outer ring when its corners are inside or on the outer ring, the
    /// middle of each of its edges is strictly inside, and no edge of it crosses an outer edge.
    private static func ring(_ hole: [GeoPoint], isWithin outer: [GeoPoint]) -> Bool {
        for index in 0..<(hole.count - 1) {
            let a = hole[index], b = hole[index + 1]
            guard GeoGeometry.ringContains(outer, latitude: a.latitude, longitude: a.longitude) else { return false }
            let middleLatitude = (a.latitude + b.latitude) / 2, middleLongitude = (a.longitude + b.longitude) / 2
            guard GeoGeometry.ringContains(outer, latitude: middleLatitude, longitude: middleLongitude),
                  !GeoGeometry.onRing(outer, latitude: middleLatitude, longitude: middleLongitude) else { return false }
            for edge in 0..<(outer.count - 1) where GeoGeometry.segmentsCrossProperly(a, b, outer[edge], outer[edge + 1]) {
                return false
            }
        }
        return true
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
            return !polygon.holeRings.contains { GeoGeometry.ringContains($0, latitude: latitude, longitude: longitude) }
        }
    }

    var description: String {
        switch self {
        case .circle(let circle): return "geoCircle([\(circle.center.longitude), \(circle.center.latitude)], \(circle.radiusInRadians))"
        case .box(let box): return "geoBox([\(box.bottomLeft.longitude), \(box.bottomLeft.latitude)], [\(box.topRight.longitude), \(box.topRight.latitude)])"
        case .polygon(let polygon): return "geoPolygon(\(polygon.outerRing.count) points, \(polygon.holeRings.count) holes)"
        }
    }

    /// Why the shape cannot be used in a query on `keyPath` of `className`: a polygon's ring at
    /// fault (Realm checks these when the query runs, not when the polygon is made).
    func fault(className: String, keyPath: String) -> FloeError? {
        guard case .polygon(let polygon) = self, let (ring, reason) = polygon.fault() else { return nil }
        return .invalidKeyPath(className: className, keyPath: keyPath, reason: "the GeoPolygon's \(ring) is invalid: \(reason)")
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

    /// Whether the point lies on one of the ring's edges.
    static func onRing(_ ring: [GeoPoint], latitude: Double, longitude: Double) -> Bool {
        (0..<(ring.count - 1)).contains { onSegment(ring[$0], ring[$0 + 1], latitude: latitude, longitude: longitude) }
    }

    /// Whether two segments cross at a point inside both (touching or overlapping does not count).
    static func segmentsCrossProperly(_ p1: GeoPoint, _ p2: GeoPoint, _ q1: GeoPoint, _ q2: GeoPoint) -> Bool {
        func orientation(_ a: GeoPoint, _ b: GeoPoint, _ c: GeoPoint) -> Double {
            (b.longitude - a.longitude) * (c.latitude - a.latitude) - (b.latitude - a.latitude) * (c.longitude - a.longitude)
        }
        let d1 = orientation(q1, q2, p1), d2 = orientation(q1, q2, p2), d3 = orientation(p1, p2, q1), d4 = orientation(p1, p2, q2)
        return ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0))
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
