import Foundation
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// Geometry on the sphere, as Realm evaluates geospatial shapes: a polygon's edges are the
// shorter great-circle arcs between consecutive vertices, and each ring bounds the smaller of
// the two regions it divides the sphere into (a ring is never more than a hemisphere, whichever
// way round its points are given). Boxes are latitude/longitude rectangles (straight in
// latitude and longitude), circles are great-circle distances from a centre.
//
// Points are unit vectors; a point is inside a ring when a walk to it from a point just inside
// the ring (beside the middle of one of its edges) crosses the ring's edges an even number of
// times. A walk that passes exactly through a vertex is retried from beside another edge.

/// A point on the unit sphere.
struct SpherePoint: Hashable {
    var x: Double, y: Double, z: Double

    init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    init(latitude: Double, longitude: Double) {
        let phi = latitude * .pi / 180, lambda = longitude * .pi / 180
        self.init(x: cos(phi) * cos(lambda), y: cos(phi) * sin(lambda), z: sin(phi))
    }

    init(_ point: GeoPoint) { self.init(latitude: point.latitude, longitude: point.longitude) }

    static func + (a: SpherePoint, b: SpherePoint) -> SpherePoint { SpherePoint(x: a.x + b.x, y: a.y + b.y, z: a.z + b.z) }
    static prefix func - (a: SpherePoint) -> SpherePoint { SpherePoint(x: -a.x, y: -a.y, z: -a.z) }
    func dot(_ b: SpherePoint) -> Double { x * b.x + y * b.y + z * b.z }
    func cross(_ b: SpherePoint) -> SpherePoint { SpherePoint(x: y * b.z - z * b.y, y: z * b.x - x * b.z, z: x * b.y - y * b.x) }
    var norm: Double { sqrt(dot(self)) }
    var normalized: SpherePoint { let n = norm; return SpherePoint(x: x / n, y: y / n, z: z / n) }
}

enum SphericalGeometry {
    /// Points this close (as vectors) to an edge's great circle count as on it: about 60 nm.
    static let tolerance = 1e-14

    /// The angle at the earth's centre between two points (haversine: exact for small angles).
    static func centralAngle(_ latitude1: Double, _ longitude1: Double, _ latitude2: Double, _ longitude2: Double) -> Double {
        let radians = Double.pi / 180
        let deltaLatitude = (latitude2 - latitude1) * radians, deltaLongitude = (longitude2 - longitude1) * radians
        let a = pow(sin(deltaLatitude / 2), 2) + cos(latitude1 * radians) * cos(latitude2 * radians) * pow(sin(deltaLongitude / 2), 2)
        return 2 * asin(min(1, sqrt(a)))
    }

    /// Which side of the great circle through `a` then `b` the point `c` is on: positive to the
    /// left (seen from outside the sphere), negative to the right, zero on it.
    static func orientation(_ a: SpherePoint, _ b: SpherePoint, _ c: SpherePoint) -> Double { a.cross(b).dot(c) }

    /// Whether `p` lies on the shorter arc from `a` to `b`, its ends included.
    static func onArc(_ p: SpherePoint, _ a: SpherePoint, _ b: SpherePoint) -> Bool {
        if p == a || p == b { return true }
        let normal = a.cross(b)
        let length = normal.norm
        guard length > 0 else { return false }
        // Within rounding of the great circle (the rounding of a cross product is absolute, so a
        // short edge's circle is known less sharply).
        guard abs(normal.dot(p)) <= 4e-16 + tolerance * length else { return false }
        // Between the ends: the point is past `a` towards `b`, and before `b`.
        return a.cross(p).dot(normal) >= 0 && p.cross(b).dot(normal) >= 0 && a.dot(p) > -tolerance && b.dot(p) > -tolerance
    }

    /// Whether the arcs `ab` and `cd` cross at a point inside both: true, false, or nil when `ab`
    /// passes exactly through an end of `cd` (the caller decides what that means).
    static func crossing(_ a: SpherePoint, _ b: SpherePoint, _ c: SpherePoint, _ d: SpherePoint) -> Bool? {
        let cda = orientation(c, d, a), cdb = orientation(c, d, b)
        // Both ends of ab on one side of cd's great circle, or an end on it: ab meets that
        // circle at most at its end, which is not inside ab.
        if cda == 0 || cdb == 0 || (cda > 0) == (cdb > 0) { return false }
        let abc = orientation(a, b, c), abd = orientation(a, b, d)
        if abc == 0 { return onArc(c, a, b) ? nil : false }
        if abd == 0 { return onArc(d, a, b) ? nil : false }
        if (abc > 0) == (abd > 0) { return false }
        // The great circles meet twice, at antipodes: the meeting lies on both arcs when the
        // turns agree (otherwise the arcs face each other's antipode).
        return (abd > 0) == (cda > 0)
    }

    /// Whether two arcs meet anywhere: crossing, touching or overlapping.
    static func arcsMeet(_ a: SpherePoint, _ b: SpherePoint, _ c: SpherePoint, _ d: SpherePoint) -> Bool {
        if onArc(a, c, d) || onArc(b, c, d) || onArc(c, a, b) || onArc(d, a, b) { return true }
        return crossing(a, b, c, d) ?? true
    }

    /// The middle of the shorter arc from `a` to `b` (which must not be antipodes).
    static func middle(_ a: SpherePoint, _ b: SpherePoint) -> SpherePoint { (a + b).normalized }
}

/// A ring of a polygon on the sphere: its vertices in the order that keeps its region (the
/// smaller side) on the left, the closing point dropped and repeated neighbours merged.
struct SphericalRing {
    enum Place { case inside, boundary, outside }

    let vertices: [SpherePoint]
    /// Whether `vertices` runs against the order the ring was given in.
    let isReversed: Bool
    /// Per edge (from vertex i to the next): its end, its normal (start × end, pointing to the
    /// left), the normal's length and its middle.
    private let ends: [SpherePoint], normals: [SpherePoint], normalLengths: [Double], middles: [SpherePoint]

    /// The ring's vertices as given (closed: first equal to last), ready to test; nil when it has
    /// fewer than three distinct vertices.
    init?(_ ring: [GeoPoint]) {
        var points: [SpherePoint] = []
        for point in ring {
            let vector = SpherePoint(point)
            if points.last != vector { points.append(vector) }
        }
        if points.count > 1, points.first == points.last { points.removeLast() }
        guard Set(points).count >= 3 else { return nil }
        // Gauss–Bonnet: the region on the left has area 2π minus the sum of the turns; when
        // that is more than a hemisphere, the ring's region is the one on the right.
        isReversed = Self.turning(points) < 0
        let vertices = isReversed ? points.reversed() : points
        self.vertices = vertices
        ends = vertices.indices.map { vertices[($0 + 1) % vertices.count] }
        normals = vertices.indices.map { vertices[$0].cross(vertices[($0 + 1) % vertices.count]) }
        normalLengths = normals.map(\.norm)
        middles = vertices.indices.map { SphericalGeometry.middle(vertices[$0], vertices[($0 + 1) % vertices.count]) }
    }

    /// The number (from 1, in the order the ring was given) of the edge starting at vertex
    /// `index` of `vertices`.
    func givenEdgeNumber(_ index: Int) -> Int {
        guard isReversed else { return index + 1 }
        // Reversed, vertex i is given vertex n-1-i and the edge i→i+1 is given edge n-2-i → n-1-i.
        let count = vertices.count
        return (count - 2 - index + count) % count + 1
    }

    /// The edges, each from a vertex to the next.
    var edges: [(SpherePoint, SpherePoint)] { vertices.indices.map { (vertices[$0], ends[$0]) } }

    /// The sum of the signed turns at the vertices (left turns positive).
    private static func turning(_ points: [SpherePoint]) -> Double {
        var total = 0.0
        let count = points.count
        for index in 0..<count {
            let previous = points[(index + count - 1) % count], vertex = points[index], next = points[(index + 1) % count]
            let incoming = previous.cross(vertex), outgoing = vertex.cross(next)
            guard incoming.norm > 0, outgoing.norm > 0 else { continue }
            total += atan2(incoming.cross(outgoing).dot(vertex), incoming.dot(outgoing))
        }
        return total
    }

    /// Where `point` is: inside the ring's region, on one of its edges, or outside.
    func place(of point: SpherePoint) -> Place {
        let count = vertices.count
        for index in 0..<count {
            // Cheap refusal first: off the edge's great circle.
            if abs(normals[index].dot(point)) > 4e-16 + SphericalGeometry.tolerance * normalLengths[index] { continue }
            if SphericalGeometry.onArc(point, vertices[index], ends[index]) { return .boundary }
        }
        var fallback: Bool?
        for start in 0..<count {
            // Begin just left of the middle of edge `start`: inside. Leaving it for a point to
            // its right crosses that edge at once (at the middle itself).
            let origin = middles[start]
            guard origin.dot(point) > -1 + 1e-12 else { continue }   // antipodes: no single path
            let path = origin.cross(point)
            var inside = normals[start].dot(point) >= 0
            var degenerate = false
            for index in 0..<count where index != start {
                // The path's ends on opposite sides of the edge's great circle …
                let originSide = normals[index].dot(origin), pointSide = normals[index].dot(point)
                if originSide == 0 || pointSide == 0 || (originSide > 0) == (pointSide > 0) { continue }
                // … and the edge's ends on opposite sides of the path's, on the same hemisphere.
                let startSide = path.dot(vertices[index]), endSide = path.dot(ends[index])
                if startSide == 0 || endSide == 0 {
                    let vertex = startSide == 0 ? vertices[index] : ends[index]
                    if SphericalGeometry.onArc(vertex, origin, point) { degenerate = true; break }
                    continue
                }
                if (startSide > 0) != (endSide > 0), (endSide > 0) == (originSide > 0) { inside.toggle() }
            }
            if !degenerate { return inside ? .inside : .outside }
            if fallback == nil { fallback = inside }
        }
        return (fallback ?? false) ? .inside : .outside
    }

    /// Whether this ring's region lies inside `outer`'s: every vertex inside or on it, the middle
    /// of every edge strictly inside, and no edge crossing one of `outer`'s.
    func fault(within outer: SphericalRing) -> String? {
        for (index, (a, b)) in edges.enumerated() {
            guard outer.place(of: a) != .outside else { return "a corner of it lies outside the outer ring" }
            switch outer.place(of: SphericalGeometry.middle(a, b)) {
            case .outside: return "an edge of it runs outside the outer ring"
            case .boundary: return "its edge \(givenEdgeNumber(index)) runs along the outer ring (a hole may touch the outer ring at corners only)"
            case .inside: break
            }
            for (c, d) in outer.edges where SphericalGeometry.crossing(a, b, c, d) != false {
                if SphericalGeometry.onArc(c, a, b) || SphericalGeometry.onArc(d, a, b) { continue }
                return "an edge of it crosses the outer ring"
            }
        }
        return nil
    }

    /// How this hole overlaps an earlier one (`crosses`, `shares an edge with`, `lies inside`,
    /// `contains`), or nil when they are apart (touching at corners only).
    func overlap(with other: SphericalRing) -> String? {
        for (a, b) in edges {
            for (c, d) in other.edges where SphericalGeometry.crossing(a, b, c, d) != false { return "crosses" }
        }
        for (a, b) in edges {
            switch other.place(of: SphericalGeometry.middle(a, b)) {
            case .boundary: return "shares an edge with"
            case .inside: return "lies inside"
            case .outside: break
            }
        }
        for (a, b) in other.edges where place(of: SphericalGeometry.middle(a, b)) != .outside { return "contains" }
        return nil
    }
}

/// A shape prepared for testing many points: polygons' rings as unit vectors, oriented.
enum GeoRegion {
    case circle(GeoCircle)
    case box(GeoBox)
    case polygon(outer: SphericalRing, holes: [SphericalRing])

    /// The region a shape covers; nil for a polygon with a ring of fewer than three distinct
    /// points (which ``GeoPolygon/fault()`` reports first).
    init?(_ shape: GeoShape) {
        switch shape {
        case .circle(let circle): self = .circle(circle)
        case .box(let box): self = .box(box)
        case .polygon(let polygon):
            guard let outer = SphericalRing(polygon.outerRing) else { return nil }
            var holes: [SphericalRing] = []
            for hole in polygon.allHoles {
                guard let ring = SphericalRing(hole) else { return nil }
                holes.append(ring)
            }
            self = .polygon(outer: outer, holes: holes)
        }
    }

    /// Whether a point (degrees) lies within the region: a circle's and a box's edge included,
    /// a polygon's outer edge included and its holes' edges excluded.
    func contains(longitude: Double, latitude: Double) -> Bool {
        guard !longitude.isNaN, !latitude.isNaN else { return false }
        switch self {
        case .circle(let circle):
            return SphericalGeometry.centralAngle(latitude, longitude, circle.center.latitude, circle.center.longitude) <= circle.radiusInRadians
        case .box(let box):
            guard (box.bottomLeft.latitude...box.topRight.latitude).contains(latitude) else { return false }
            if box.bottomLeft.longitude <= box.topRight.longitude {
                return (box.bottomLeft.longitude...box.topRight.longitude).contains(longitude)
            }
            return longitude >= box.bottomLeft.longitude || longitude <= box.topRight.longitude
        case .polygon(let outer, let holes):
            let point = SpherePoint(latitude: latitude, longitude: longitude)
            guard outer.place(of: point) != .outside else { return false }
            return holes.allSatisfy { $0.place(of: point) == .outside }
        }
    }
}

extension GeoPolygon {
    /// The holes as a plain list, none when there are none.
    var allHoles: [[GeoPoint]] { holes ?? [] }

    /// What makes the polygon unusable in a query, naming the ring: nil when it is sound. Edges
    /// are great-circle arcs; each ring bounds the smaller region it encloses.
    func fault() -> String? {
        let rings = [("the outer ring", outerRing)] + allHoles.enumerated().map { ("hole \($0.offset + 1)", $0.element) }
        for (name, ring) in rings {
            guard ring.count >= 4, ring.first == ring.last else {
                return "\(name) is not a closed ring: a ring needs at least four points (three segments), its last equal to its first, and \(ring.count) \(ring.count == 1 ? "was" : "were") given"
            }
            if let reason = Self.ringFault(ring) { return "\(name) \(reason)" }
        }
        guard let outer = SphericalRing(outerRing) else { return nil }
        var holes: [SphericalRing] = []
        for (index, hole) in allHoles.enumerated() {
            guard let ring = SphericalRing(hole) else { continue }
            if let reason = ring.fault(within: outer) {
                return "hole \(index + 1) is not contained by the outer ring: \(reason)"
            }
            for (other, earlier) in holes.enumerated() {
                if let how = ring.overlap(with: earlier) {
                    return "hole \(index + 1) \(how) hole \(other + 1): holes must be apart (they may touch at corners only)"
                }
            }
            holes.append(ring)
        }
        return nil
    }

    /// Too few points, antipodal neighbours (no shortest arc joins them) or edges that meet.
    private static func ringFault(_ ring: [GeoPoint]) -> String? {
        var points: [SpherePoint] = []
        for point in ring.dropLast() {
            let vector = SpherePoint(point)
            if points.last != vector { points.append(vector) }
        }
        if points.count > 1, points.first == points.last { points.removeLast() }
        guard Set(points).count >= 3 else {
            return "has fewer than three distinct points: a polygon needs at least three segments"
        }
        let count = points.count
        for index in 0..<count where points[index].dot(points[(index + 1) % count]) <= -1 + 1e-15 {
            return "has antipodal neighbours at edge \(index + 1): no single great-circle arc joins them"
        }
        for first in 0..<count {
            for second in (first + 1)..<count where second != first + 1 && !(first == 0 && second == count - 1) {
                if SphericalGeometry.arcsMeet(points[first], points[(first + 1) % count], points[second], points[(second + 1) % count]) {
                    return "intersects itself: edges \(first + 1) and \(second + 1) cross or touch"
                }
            }
        }
        // Adjacent edges that double back over each other.
        for index in 0..<count {
            let previous = points[(index + count - 1) % count], vertex = points[index], next = points[(index + 1) % count]
            if SphericalGeometry.onArc(next, previous, vertex) || SphericalGeometry.onArc(previous, vertex, next) {
                let first = (index + count - 1) % count + 1, second = index + 1
                return "intersects itself: edges \(min(first, second)) and \(max(first, second)) double back over each other"
            }
        }
        return nil
    }
}
