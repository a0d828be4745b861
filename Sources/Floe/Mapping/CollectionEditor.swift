@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// What a managed list, set or map uses to change its elements inside a write: the engine
/// operations on its column, with elements resolved (unmanaged objects added, embedded
/// objects created) and replaced embedded objects deleted.
struct CollectionEditor: CollectionEditing {
    let context: ObjectContext
    let transaction: WriteTransaction
    let binding: ObjectBinding
    let column: Int
    /// How nested values with a primary key that exists already are treated (as in `create`).
    var update: ExistingObjectPolicy = .error

    private var table: TableHandle { binding.tableBinding.table }
    private var key: Int64 { binding.key }

    var count: Int { (try? transaction.collectionCount(in: table, key: key, column: column)) ?? 0 }

    func stored(_ element: _FloeValue) throws(FloeError) -> Value {
        try context.resolve(element, for: binding.tableBinding, column: column, owner: key, update: update)
    }

    func insert(_ element: _FloeValue, at position: Int) throws(FloeError) {
        try transaction.listInsert(stored(element), at: position, in: table, key: key, column: column)
    }

    func append(_ element: _FloeValue) throws(FloeError) {
        try transaction.listAppend(stored(element), in: table, key: key, column: column)
    }

    func append(contentsOf elements: [_FloeValue]) throws(FloeError) {
        var values: [Value] = []
        values.reserveCapacity(elements.count)
        for element in elements { values.append(try stored(element)) }
        try transaction.listAppend(contentsOf: values, in: table, key: key, column: column)
    }

    func append(storedValues values: [Value]) throws(FloeError) {
        try transaction.listAppend(contentsOf: values, in: table, key: key, column: column)
    }

    func set(_ element: _FloeValue, at position: Int) throws(FloeError) {
        let old = try transaction.collectionElement(in: table, key: key, column: column, at: position)
        let value = try stored(element)
        try transaction.listSet(value, at: position, in: table, key: key, column: column)
        if old != value { try deleteIfEmbedded(old) }
    }

    func remove(at position: Int) throws(FloeError) {
        let old = try transaction.collectionElement(in: table, key: key, column: column, at: position)
        try transaction.collectionRemove(at: position, in: table, key: key, column: column)
        try deleteIfEmbedded(old)
    }

    func removeAll() throws(FloeError) {
        let old = try transaction.collectionElements(in: table, key: key, column: column)
        try transaction.collectionRemoveAll(in: table, key: key, column: column)
        for value in old { try deleteIfEmbedded(value) }
    }

    func move(from source: Int, to destination: Int) throws(FloeError) {
        try transaction.listMove(from: source, to: destination, in: table, key: key, column: column)
    }

    @discardableResult
    func setInsert(_ element: _FloeValue) throws(FloeError) -> Bool {
        try transaction.setInsert(stored(element), in: table, key: key, column: column)
    }

    @discardableResult
    func setRemove(_ element: _FloeValue) throws(FloeError) -> Bool {
        try transaction.setRemove(element.value, in: table, key: key, column: column)
    }

    func mapSet(_ element: _FloeValue, forKey mapKey: String) throws(FloeError) {
        let old = try transaction.mapValue(forKey: mapKey, in: table, key: key, column: column)
        let value = try stored(element)
        try transaction.mapSet(value, forKey: mapKey, in: table, key: key, column: column)
        if let old, old != value { try deleteIfEmbedded(old) }
    }

    @discardableResult
    func mapRemove(forKey mapKey: String) throws(FloeError) -> Bool {
        let old = try transaction.mapValue(forKey: mapKey, in: table, key: key, column: column)
        let removed = try transaction.mapRemove(forKey: mapKey, in: table, key: key, column: column)
        if let old { try deleteIfEmbedded(old) }
        return removed
    }

    /// An embedded object leaving its collection has no owner left: delete it.
    private func deleteIfEmbedded(_ value: Value) throws(FloeError) {
        guard case .link(let old) = value,
              let property = binding.tableBinding.propertyOfColumn[column],
              let target = binding.tableBinding.schema.properties[property].type.objectType,
              try SchemaDiscovery.schema(for: target).kind == .embedded,
              let targetBinding = try context.tableBinding(for: target)
        else { return }
        try context.deleteRow(targetBinding, key: old)
    }
}
