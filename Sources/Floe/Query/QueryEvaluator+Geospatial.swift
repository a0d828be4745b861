@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// `geoWithin`: the key path leads to a GeoJSON point, an embedded object with `type: String`
// and `coordinates: List<Double>` (longitude first). As in Realm, an object whose `type` is not
// "Point" is never within a shape, and a link to anything of another form (no `type`, no
// `coordinates`, or a top-level class) is refused when the query runs, naming the class and the
// property. A polygon Realm would refuse (a ring crossing itself, a hole outside the outer ring)
// is refused here too.

extension QueryEvaluator {
    static func geoWithin(_ path: QueryKeyPath, within shape: GeoShape, root: TableBinding,
                          bindings: (ObjectBase.Type) throws(FloeError) -> TableBinding?) throws(FloeError) -> Node {
        if let fault = shape.fault(className: root.schema.className, keyPath: path.description) { throw fault }
        let link = try hops(path, from: root, bindings: bindings)
        func refuse(_ reason: String) -> FloeError {
            .invalidKeyPath(className: root.schema.className, keyPath: path.description,
                            reason: "\(reason): a geoWithin query needs a link to a GeoJSON point, an embedded object with 'type: String' (\"Point\") and 'coordinates: List<Double>' (longitude first)")
        }
        guard let last = link.last, let target = last.property.type.objectType, last.property.type.collection == .single else {
            throw refuse("'\(path)' does not link to an object")
        }
        let schema: ObjectSchemaInfo
        if let existing = try bindings(target) { schema = existing.schema } else { schema = try SchemaDiscovery.schema(for: target) }
        guard schema.kind == .embedded else {
            throw refuse("it links to '\(schema.className)', a top-level class, not an embedded object")
        }
        let type = schema.properties.first { $0.name == "type" }, coordinates = schema.properties.first { $0.name == "coordinates" }
        guard let type, type.type.columnType == .string, type.type.collection == .single else {
            throw refuse("it links to data in the wrong format: '\(schema.className)' has no 'type' String property")
        }
        guard let coordinates, coordinates.type.collection == .list, coordinates.type.columnType == .double else {
            throw refuse("it links to data in the wrong format: '\(schema.className)' has no 'coordinates' List<Double> property")
        }
        guard let region = GeoRegion(shape) else {
            throw .invalidShape(shape: "GeoPolygon", className: root.schema.className, property: path.description,
                                reason: "a ring has fewer than three distinct points")
        }
        let typeOperand = try operand(.keyPath(QueryKeyPath(path.components + [.property("type")])), root: root, bindings: bindings)
        let coordinatesOperand = try operand(.keyPath(QueryKeyPath(path.components + [.property("coordinates")])), root: root, bindings: bindings)
        return .and([.compare(typeOperand, .equal, .constant(.string("Point")), [], .any), .geoWithin(coordinatesOperand, region)])
    }
}
