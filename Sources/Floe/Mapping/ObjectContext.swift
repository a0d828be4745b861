@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// The synchronous machinery behind one ``Realm``: the store, the current version, the
/// open write transaction, and how model classes map onto tables.
///
/// It is owned by its `Realm` actor and only ever used on that actor (or, for frozen
/// reads, never: those go through ``FrozenSource``), so it needs no locks of its own.
final class ObjectContext: ObjectSource {
    let store: Store
    /// Whether the realm only reads a file that another process may be writing.
    let isReadOnly: Bool
    /// The classes the realm was opened with (`Configuration.objectTypes`), if it named them.
    let objectTypes: [ObjectBase.Type]?
    /// What owns this context (the `Realm` actor), for `object.realm`.
    weak var owner: AnyObject?
    // `@exclusivity(unchecked)`: read by every object read and write; no access overlaps another.
    @exclusivity(unchecked) private var snapshot: Snapshot
    @exclusivity(unchecked) private(set) var transaction: WriteTransaction?
    /// What lives for the open write only: made fresh by ``beginWrite()``, dropped when the
    /// write commits or rolls back. `@exclusivity(unchecked)`: every `add` reads it, and no
    /// access overlaps another.
    @exclusivity(unchecked) var session = WriteSession()
    private var bindings: [ObjectIdentifier: TableBinding] = [:]
    /// An error met by a read that cannot throw (`objects(_:)` finding that a class no longer
    /// matches the file, say): the read answers as if empty, and the enclosing `read { }` or
    /// write throws this instead of returning.
    private var deferredReadError: FloeError?
    private var bindingsVersion: UInt64 = .max
    /// The binding asked for last, checked before the dictionary (lookups and links ask for
    /// the same class again and again).
    private var lastBinding: (type: ObjectIdentifier, binding: TableBinding)?
    /// How many `read` blocks are running (nested reads count each).
    private var readDepth = 0
    /// The object the last primary-key lookup inside a read or write answered. When nothing
    /// else holds it any more (not even weakly), the next lookup of its class re-points it
    /// instead of building an object; dropped when the read or write ends, so that it never
    /// keeps this context alive through its binding.
    @exclusivity(unchecked) var lastLookup: ObjectBase?
    /// The turn of queued writes the context's writes belong to while ``isInTurnOfWrites``
    /// (one object, reused turn after turn); the engine frees the versions its commits
    /// replace when it ends.
    private let turnOfWrites = TurnOfWrites()
    private var isInTurnOfWrites = false

    init(store: Store, isReadOnly: Bool, objectTypes: [ObjectBase.Type]?) throws(FloeError) {
        self.store = store
        self.isReadOnly = isReadOnly
        self.objectTypes = objectTypes
        snapshot = try store.snapshot()
    }

    var isFrozen: Bool { false }

    var readEpoch: ReadEpoch { store.readEpoch }

    var openTransaction: WriteTransaction? { transaction }

    func frozenSnapshot() throws(FloeError) -> Snapshot { try latestSnapshot() }

    var storeIdentity: ObjectIdentifier? { ObjectIdentifier(store) }

    var isInWriteTransaction: Bool { transaction != nil }

    /// Whether `position` may be read at the version reads see now, with no existential and
    /// no reference counting: a position check and a version check.
    func isCurrent(_ position: RowPosition) -> Bool {
        if let transaction { return position.isValid(in: transaction) }
        return snapshot.version == store.currentVersion && position.isValid(in: snapshot)
    }

    /// The version reads see: the open write's own state, else the newest commit.
    func currentReader() throws(FloeError) -> any VersionReading {
        if let transaction { return transaction }
        return try latestSnapshot()
    }

    func latestSnapshot() throws(FloeError) -> Snapshot {
        if snapshot.version != store.currentVersion { snapshot = try store.snapshot() }
        return snapshot
    }

    // MARK: Write transactions

    func beginWrite() throws(FloeError) {
        guard transaction == nil else { throw .alreadyInWriteTransaction(path: store.path) }
        transaction = try store.beginWrite(in: isInTurnOfWrites ? turnOfWrites : nil)
        session = WriteSession()
        deferredReadError = nil
    }

    /// Commits the open write and returns its version. With `deferringSync`, the caller must
    /// await ``Store/waitUntilDurable(_:)`` before reporting the write as done (group commit).
    @discardableResult
    func commitWrite(deferringSync: Bool = false) throws(FloeError) -> UInt64 {
        guard let transaction else { throw .notInWriteTransaction(path: store.path) }
        if let error = session.setterErrors.first ?? takeDeferredReadError() {
            cancelWrite()
            throw error
        }
        self.transaction = nil
        lastLookup = nil
        session = WriteSession()
        let version = try transaction.commit(deferringSync: deferringSync)
        snapshot = try store.snapshot()
        return version
    }

    /// From here until ``endTurnOfWrites()``, this context's writes are one turn of queued
    /// writes, whose syncs are asked for together: the engine keeps the versions their
    /// commits replace and frees them when the turn ends (``TurnOfWrites``).
    func beginTurnOfWrites() {
        isInTurnOfWrites = true
    }

    /// Ends the turn: the versions its commits replaced are freed here.
    func endTurnOfWrites() {
        isInTurnOfWrites = false
        turnOfWrites.end()
    }

    func cancelWrite() {
        transaction?.rollback()
        transaction = nil
        lastLookup = nil
        session = WriteSession()
        // Bindings found inside the write may name tables the rollback just removed.
        forgetBindings()
    }

    private func forgetBindings() {
        bindings.removeAll(keepingCapacity: true)
        lastBinding = nil
        bindingsVersion = .max
        session.forgetInsertPlans()
    }

    /// Runs `block` in a write transaction: commits when it returns, rolls back when it throws.
    func write<Result>(_ block: () throws -> Result) throws -> Result {
        try write(deferringSync: false, block).result
    }

    /// `write`, also returning the committed version; with `deferringSync`, see ``commitWrite(deferringSync:)``.
    func write<Result>(deferringSync: Bool, _ block: () throws -> Result) throws -> (result: Result, version: UInt64) {
        try beginWrite()
        do {
            let result = try block()
            let version = try commitWrite(deferringSync: deferringSync)
            return (result, version)
        } catch {
            cancelWrite()
            throw error
        }
    }

    /// Records the error of a read that cannot throw; the first one recorded wins.
    func deferReadError(_ error: FloeError) {
        if deferredReadError == nil { deferredReadError = error }
    }

    var hasDeferredReadError: Bool { deferredReadError != nil }

    /// The error a non-throwing read recorded since the last call, if any.
    func takeDeferredReadError() -> FloeError? {
        defer { deferredReadError = nil }
        return deferredReadError
    }

    /// Runs a read whose results must not leave when a non-throwing read inside it failed.
    func read<Result>(_ block: () throws -> Result) throws -> Result {
        deferredReadError = nil
        // Another process may be writing the file this read-only realm reads: start from its newest commit.
        if isReadOnly { try store.refresh() }
        readDepth += 1
        defer {
            readDepth -= 1
            lastLookup = nil
        }
        let result = try block()
        if let error = takeDeferredReadError() { throw error }
        return result
    }

    func requireWrite() throws(FloeError) -> WriteTransaction {
        guard let transaction else { throw .notInWriteTransaction(path: store.path) }
        return transaction
    }

    // MARK: ObjectSource

    func write(_ value: _FloeValue, binding: ObjectBinding, column: Int) {
        let property = binding.tableBinding.propertyName(ofColumn: column)
        guard let transaction else {
            preconditionFailure("Cannot modify managed '\(binding.className).\(property)' of the \(binding.className) object with key \(binding.key) outside a write transaction.")
        }
        do {
            if binding.tableBinding.isCollectionColumn[column], let propertyIndex = binding.tableBinding.propertyOfColumn[column] {
                // Assigning a whole list, set or map replaces its elements.
                try replaceElements(of: binding, column: column, kind: binding.tableBinding.schema.properties[propertyIndex].type.collection,
                                    with: value.elements ?? [], keys: value.keys)
                return
            }
            let stored = try resolve(value, for: binding.tableBinding, column: column, owner: binding.key)
            let schema = binding.tableBinding.schema
            if let index = schema.primaryKeyIndex, binding.tableBinding.columnOfProperty[index] == column {
                let current = try? transaction.value(in: binding.tableBinding.table, key: binding.key, column: column)
                if current != stored {
                    session.recordSetterError(.primaryKeyChanged(className: binding.className, property: property,
                                                            from: current?.debugText ?? "?", to: stored.debugText))
                }
                return
            }
            // The object keeps where its row is now: the next property it writes or reads starts there.
            binding.cachePosition(try replaceLink(in: binding.tableBinding, key: binding.key, column: column, with: stored,
                                                  at: binding.cachedPosition))
        } catch {
            session.recordSetterError(error.naming(binding.tableBinding, column: column))
        }
    }

    func changeCollection(binding: ObjectBinding, column: Int, _ change: (any CollectionEditing) throws(FloeError) -> Void) {
        guard let transaction else {
            preconditionFailure("Cannot modify '\(binding.className).\(binding.tableBinding.propertyName(ofColumn: column))' of the \(binding.className) object with key \(binding.key) outside a write transaction.")
        }
        do {
            try change(CollectionEditor(context: self, transaction: transaction, binding: binding, column: column))
        } catch {
            session.recordSetterError(error.naming(binding.tableBinding, column: column))
        }
    }

    var hasRecordedDamage: Bool { deferredReadError != nil }

    func recordInvalidValue(_ error: FloeError) {
        deferReadError(error)
        // Also kept for `checkIntegrity()`: a read with no throwing boundary around it (inside
        // the actor) learns of it nowhere else, as with damage. The value stays invalid until
        // rewritten, so the report is not stale.
        store.damage.record(error)
    }

    func recordReadFailure(_ error: FloeError) {
        deferReadError(error)
        store.damage.record(error)
    }

    func modelType(named className: String) -> ObjectBase.Type? {
        // The classes this realm was opened with or has used come first: several classes of
        // one name may exist in a program, each used with its own realm.
        if let type = objectTypes?.first(where: { $0.className() == className }) { return type }
        if let binding = bindings.values.first(where: { $0.schema.className == className }) { return binding.schema.type }
        return SchemaDiscovery.type(named: className)
    }

    func linkedObject(_ type: ObjectBase.Type, key: Int64) -> ObjectBase? {
        let located: (TableBinding, RowPosition)?
        do {
            guard let binding = try tableBinding(for: type) else { return nil }
            located = try currentReader().position(of: key, in: binding.table).map { (binding, $0) }
        } catch {
            return readFailed(error, reading: "a link to a \(type.className()) object", placeholder: type.init())
        }
        guard let (binding, position) = located else { return nil }
        // The object keeps where it was found: its first property read needs no second search.
        let object = materialize(type, key: key, binding: binding)
        object._floeBinding!.cachePosition(position)
        return object
    }

    // MARK: Tables

    /// The binding of `type` to its table, or nil when the table does not exist yet.
    func tableBinding(for type: ObjectBase.Type) throws(FloeError) -> TableBinding? {
        // The common case first: the class asked for last, at the version reads already see
        // (no reader is built; a newer commit takes the full path, which moves to it).
        if let last = lastBinding, last.type == ObjectIdentifier(type),
           transaction != nil ? bindingsVersion == UInt64.max - 1 : bindingsVersion == snapshot.version && snapshot.version == store.currentVersion {
            return last.binding
        }
        let reader = try currentReader()
        let version = transaction.map { _ in UInt64.max - 1 } ?? snapshot.version
        if version != bindingsVersion {
            // Table positions only move in migrations, but a write may have just created one.
            bindings.removeAll(keepingCapacity: true)
            lastBinding = nil
            bindingsVersion = version
        }
        if let last = lastBinding, last.type == ObjectIdentifier(type) { return last.binding }
        if let cached = bindings[ObjectIdentifier(type)] {
            lastBinding = (ObjectIdentifier(type), cached)
            return cached
        }
        let schema = try SchemaDiscovery.schema(for: type)
        guard let table = try reader.tableIfPresent(named: schema.className) else { return nil }
        let stored = try reader.spec(of: table)
        let binding = try SchemaComparison.bind(schema, to: stored, table: table, path: store.path)
        for property in schema.properties where property.isComputed {
            // A LinkingObjects property must name a property of its origin class that links here.
            let origin = try SchemaDiscovery.schema(for: property.type.objectType!)
            guard let source = origin.property(named: property.originProperty!), source.type.objectType == type else {
                throw .invalidSchema(className: schema.className, property: property.name,
                                     reason: "'\(origin.className).\(property.originProperty!)' is not a property linking to \(schema.className)")
            }
        }
        bindings[ObjectIdentifier(type)] = binding
        return binding
    }

    /// The binding of `type`, creating its table (and those of the classes it reaches) inside the open write.
    func ensureTable(for type: ObjectBase.Type) throws(FloeError) -> TableBinding {
        if let binding = try tableBinding(for: type) { return binding }
        let transaction = try requireWrite()
        let schema = try SchemaDiscovery.schema(for: type)
        try transaction.createTable(schema.tableSpec)
        forgetBindings()
        for property in schema.properties {
            if let target = property.type.objectType, target != type { _ = try ensureTable(for: target) }
        }
        return try tableBinding(for: type)!
    }

    // MARK: Objects

    /// A managed instance of the object `key` of `binding`'s class.
    /// Whether a lookup may keep the object it answers for the next one to re-point: only
    /// inside a read or a write, which drop it when they end.
    var mayKeepLookups: Bool { readDepth > 0 || transaction != nil }

    func materialize<T: ObjectBase>(_ type: T.Type, key: Int64, binding: TableBinding) -> T {
        // The binding's class is usually `type` itself: then no dynamic cast of the metatype.
        let object = binding.schema.type == type ? type.init() : (binding.schema.type as! T.Type).init()
        attach(object, key: key, binding: binding)
        return object
    }

    func attach(_ object: ObjectBase, key: Int64, binding: TableBinding) {
        object._floeBinding = ObjectBinding(source: self, tableBinding: binding, key: key)
        let columns = binding.columnOfProperty
        for (index, accessor) in binding.schema.accessors.enumerated() {
            accessor.bind(object, columns[index])
        }
    }

    /// Whether `object` belongs to this realm's store.
    func owns(_ object: ObjectBase) -> Bool {
        guard let binding = object._floeBinding else { return false }
        return binding.source === self || binding.source.storeIdentity == storeIdentity
    }
}

extension FloeError {
    /// The same error, with the engine's column name replaced by the model's property name.
    func naming(_ binding: TableBinding, column: Int) -> FloeError {
        let property = binding.propertyName(ofColumn: column)
        switch self {
        case .typeMismatch(let table, _, let expected, let value): return .typeMismatch(table: table, column: property, expected: expected, value: value)
        case .nullForRequired(let table, _): return .nullForRequired(table: table, column: property)
        case .valueTooLarge(let table, _, let size, let limit): return .valueTooLarge(table: table, column: property, size: size, limit: limit)
        default: return self
        }
    }
}
