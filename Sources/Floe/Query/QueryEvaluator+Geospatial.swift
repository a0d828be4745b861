// `geoWithin`: the key path leads to a GeoJSON-shaped embedded object; its `coordinates` list
// (longitude, latitude) is what the shape tests. A polygon Realm would refuse when the query runs
// (a ring crossing itself, a hole outside the outer ring) is refused here, naming the class and
// the property.

extension QueryEvaluator {
    static func geoCoordinates(_ path: QueryKeyPath, within shape: GeoShape, root: TableBinding,
                               bindings: (ObjectBase.Type) throws(FloeError) -> TableBinding?) throws(FloeError) -> Operand {
        if let fault = shape.fault(className: root.schema.className, keyPath: path.description) { throw fault }
        let coordinates = try operand(.keyPath(QueryKeyPath(path.components + [.property("coordinates")])), root: root, bindings: bindings)
        guard case .path(let hops) = coordinates, let last = hops.last,
              last.property.type.collection == .list, last.property.type.swiftName.contains("Double") else {
            throw .invalidKeyPath(className: root.schema.className, keyPath: path.description,
                                  reason: "geoWithin needs a GeoJSON point: an embedded object with 'coordinates: List<Double>' (longitude first)")
        }
        return coordinates
    }
}
