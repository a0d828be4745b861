@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// The step of a filtered or sorted results' iterator: the keys come from the query (`SortColumns`,
// `QueryPlanner`), the objects are re-pointed at their rows here.

extension Results.Iterator {
    /// The object `key` of filtered or sorted results: found once in its leaf, whose position
    /// the object keeps for its property reads; the previous object is re-pointed when the
    /// loop body let it go, as when walking a whole table.
    mutating func nextQueried(_ key: Int64, binding: TableBinding, reusing reusable: Element?) -> Element {
        let found: RowPosition?
        if let locator { found = locator.position(of: key) } else { found = try? reader?.position(of: key, in: binding.table) }
        guard let position = found else {
            return context.materialize(Element.self, key: key, binding: binding)
        }
        if let reusable, let objectBinding = reusable._floeBinding {
            objectBinding.repoint(to: position)
            return reusable
        }
        let object = context.materialize(Element.self, key: key, binding: binding)
        object._floeBinding!.cachePosition(position)
        return object
    }
}
