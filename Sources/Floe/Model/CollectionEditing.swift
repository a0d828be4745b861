@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// What a managed list, set or map asks of its realm to change its elements inside a write.
///
/// The port is declared here, beside the collections' owner objects, and implemented by the
/// mapper, which resolves elements (adding unmanaged objects, creating embedded ones) and
/// deletes embedded objects that leave.
protocol CollectionEditing {
    /// The number of elements now, inside the write.
    var count: Int { get }
    func insert(_ element: _FloeValue, at position: Int) throws(FloeError)
    func append(_ element: _FloeValue) throws(FloeError)
    func append(contentsOf elements: [_FloeValue]) throws(FloeError)
    /// Appends values already in stored form that need no resolving (scalars: no objects, no
    /// nested collections), in one pass over the list's last leaves.
    func append(storedValues values: [Value]) throws(FloeError)
    func set(_ element: _FloeValue, at position: Int) throws(FloeError)
    func remove(at position: Int) throws(FloeError)
    func removeAll() throws(FloeError)
    func move(from source: Int, to destination: Int) throws(FloeError)
    /// Whether the element was not in the set before.
    @discardableResult func setInsert(_ element: _FloeValue) throws(FloeError) -> Bool
    /// Whether the element was in the set.
    @discardableResult func setRemove(_ element: _FloeValue) throws(FloeError) -> Bool
    func mapSet(_ element: _FloeValue, forKey mapKey: String) throws(FloeError)
    /// Whether the key was in the map.
    @discardableResult func mapRemove(forKey mapKey: String) throws(FloeError) -> Bool
}
