import Foundation
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// Geospatial queries: `geoWithin` a circle, a box or a polygon, on a GeoJSON-shaped embedded
// object (`type = "Point"`, `coordinates: List<Double>`, longitude first). Circles measure
// great-circle distance on a sphere of the earth's equatorial radius (6378.1 km, as Realm's
// `Distance` converts); boxes are latitude/longitude rectangles; a polygon's edges are
// great-circle arcs (SphericalGeometry.swift), as Realm's.

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
/// As in Realm, the polygon lies on the sphere: each edge is the shorter great-circle arc
/// between two consecutive points (not a straight line in latitude and longitude, so an edge
/// between two points at 60° north bulges towards the pole), and each ring bounds the smaller of
/// the two regions it divides the earth into, whichever way round its points go. Points on the
/// outer ring's edges are within the polygon; points on a hole's edges are not.
///
/// The initializers return nil, as Realm's do, when a ring has fewer than four points or is not
/// closed (or a tuple coordinate is out of range). The rest of the shape is checked when the
/// polygon is used in a query, which then throws ``FloeError/invalidShape(shape:className:property:reason:)``
/// naming `GeoPolygon`, the class, the property and the ring: a ring with fewer than three
/// distinct points, a ring that crosses itself, a hole not contained by the outer ring, holes
/// that cross, share an edge or nest. ``validated(outerRing:holes:)`` runs every
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
    /// - Throws: ``FloeError/invalidShape(shape:className:property:reason:)`` naming `GeoPolygon`,
    ///   the ring at fault and what is wrong with it.
    public static func validated(outerRing: [GeoPoint], holes: [[GeoPoint]]? = nil) throws(FloeError) -> GeoPolygon {
        let polygon = GeoPolygon(checkedOuterRing: outerRing, holes: holes)
        if let reason = polygon.fault() { throw .invalidShape(shape: "GeoPolygon", className: nil, property: nil, reason: reason) }
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
}

/// A shape a point can be within, as the predicate tree carries it.
enum GeoShape: Sendable, Hashable, CustomStringConvertible {
    case circle(GeoCircle)
    case box(GeoBox)
    case polygon(GeoPolygon)

    var description: String {
        switch self {
        case .circle(let circle): return "geoCircle([\(circle.center.longitude), \(circle.center.latitude)], \(circle.radiusInRadians))"
        case .box(let box): return "geoBox([\(box.bottomLeft.longitude), \(box.bottomLeft.latitude)], [\(box.topRight.longitude), \(box.topRight.latitude)])"
        case .polygon(let polygon): return "geoPolygon(\(polygon.outerRing.count) points, \(polygon.allHoles.count) holes)"
        }
    }

    /// Why the shape cannot be used in a query on `keyPath` of `className`: a polygon's ring at
    /// fault (Realm checks these when the query runs, not when the polygon is made).
    func fault(className: String, keyPath: String) -> FloeError? {
        guard case .polygon(let polygon) = self, let reason = polygon.fault() else { return nil }
        return .invalidShape(shape: "GeoPolygon", className: className, property: keyPath, reason: reason)
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
