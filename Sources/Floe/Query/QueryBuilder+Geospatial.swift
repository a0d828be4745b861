@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// The builder's `geoWithin`: `$0.location.geoWithin(circle)` on a GeoJSON-shaped embedded object.

extension Query where T: _QueryOptional, T.Wrapped: EmbeddedObject {
    /// The objects whose GeoJSON point (an embedded object with `coordinates: List<Double>`,
    /// longitude first) lies within `circle` (great-circle distance, the edge included).
    ///
    /// ```swift
    /// let near = try realm.objects(Company.self).where { $0.location.geoWithin(GeoCircle(center: lisbon, radius: .kilometers(20)!)) }
    /// ```
    public func geoWithin(_ circle: GeoCircle) -> Query<Bool> { geoWithin(shape: .circle(circle)) }

    /// The objects whose GeoJSON point lies within `box` (its edges included).
    ///
    /// ```swift
    /// let inBox = try companies.where { $0.location.geoWithin(GeoBox(bottomLeft: southWest, topRight: northEast)) }
    /// ```
    public func geoWithin(_ box: GeoBox) -> Query<Bool> { geoWithin(shape: .box(box)) }

    /// The objects whose GeoJSON point lies within `polygon` and outside its holes.
    ///
    /// ```swift
    /// let inPolygon = try companies.where { $0.location.geoWithin(polygon) }
    /// ```
    public func geoWithin(_ polygon: GeoPolygon) -> Query<Bool> { geoWithin(shape: .polygon(polygon)) }

    private func geoWithin(shape: GeoShape) -> Query<Bool> {
        switch node {
        case .keyPath(let path, let collection) where !path.components.isEmpty:
            return Query<Bool>(.predicate(.geoWithin(path, shape), collections: collection.map { [$0] } ?? []), className: className)
        case .invalid(let error):
            return Query<Bool>(.invalid(error), className: className)
        default:
            return Query<Bool>(.invalid(refusal(written, "geoWithin applies to a property holding a GeoJSON point")), className: className)
        }
    }
}
