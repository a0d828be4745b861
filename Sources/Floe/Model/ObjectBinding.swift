/// The link between a managed object and its stored row.
@usableFromInline
final class ObjectBinding {
    let source: ObjectSource
    let tableBinding: TableBinding
    // The mutable state below is `@exclusivity(unchecked)`: every property read touches it, and
    // no access to it overlaps another (a dynamic check cost more than the read).
    @exclusivity(unchecked) private(set) var key: Int64
    /// Where the object was last found: saves a tree walk on every property read.
    @exclusivity(unchecked) private var position: RowPosition?
    /// The value `epoch` had when `position` was last known to be the row reads see: while
    /// the epoch still shows it, a property read trusts the position without asking the source.
    @exclusivity(unchecked) private var stamp: UInt64 = .max
    /// The source's read epoch (one that never moves, for frozen objects).
    private let epoch: ReadEpoch

    init(source: ObjectSource, tableBinding: TableBinding, key: Int64) {
        self.source = source
        self.tableBinding = tableBinding
        self.key = key
        epoch = source.readEpoch
    }

    /// Where the object was last found, if anywhere (its validity is the reader's to judge).
    var cachedPosition: RowPosition? { position }

    /// Seeds the position cache (when the caller just found the object).
    func cachePosition(_ position: RowPosition) {
        self.position = position
        stamp = position.epoch
    }

    /// Makes this binding (and so its object, which nothing else holds) stand for another
    /// object of the same table. Only results iteration does this.
    func repoint(to position: RowPosition) {
        key = position.key
        stamp = position.epoch
        if self.position?.moveInLeaf(to: position) == true { return }
        self.position = position
    }

    /// ``repoint(to:)``, staying in the leaf `transaction` copied for this object's last write
    /// when the next row is there (the cursor still holds the leaf from before the write).
    func repoint(to position: RowPosition, in transaction: WriteTransaction?) {
        if let transaction, let successor = self.position?.successor(holding: position.key, in: transaction) {
            key = position.key
            self.position = successor
            stamp = successor.epoch
            return
        }
        repoint(to: position)
    }

    /// Whether nothing has happened since the cached position was last confirmed that could
    /// make it stale: one load and one compare.
    @inline(__always)
    var stampIsCurrent: Bool { stamp == epoch.current }

    var className: String { tableBinding.schema.className }

    /// The column of the class's property at `index` (in schema order) in this object's table.
    @usableFromInline
    func column(ofProperty index: Int) -> Int {
        tableBinding.columnOfProperty[index]
    }

    /// What a read of `column` answers when its bytes are damaged: the type's default (nil
    /// for optionals), which decodes without trapping; the enclosing read throws anyway.
    private func placeholder(forColumn column: Int) -> Value {
        guard let property = tableBinding.propertyOfColumn[column].map({ tableBinding.schema.properties[$0] }),
              !property.type.isOptional else { return .null }
        return Value.defaultValue(for: property.type.columnType)
    }

    @usableFromInline
    func read(column: Int) -> _FloeValue {
        if tableBinding.isCollectionColumn[column] {
            // Collections read their elements themselves, through this binding.
            return .managedCollection(parent: self, column: column)
        }
        do throws(FloeError) {
            return .read(try currentPosition().value(ofColumn: column), parent: self, column: column)
        } catch .noSuchObject {
            if source.hasRecordedDamage { return .read(placeholder(forColumn: column), parent: self, column: column) }
            preconditionFailure("Cannot read '\(className).\(tableBinding.propertyName(ofColumn: column))': the \(className) object with key \(key) has been deleted or invalidated. Check isInvalidated first.")
        } catch {
            return source.readFailed(error, reading: "\(className).\(tableBinding.propertyName(ofColumn: column))' of the \(className) object with key \(key)",
                                     placeholder: .read(placeholder(forColumn: column), parent: self, column: column))
        }
    }

    /// The object's row in the version reads see now, checked in full (found again when the
    /// cached one may be stale), and stamped so that the next reads trust it.
    private func currentPosition() throws(FloeError) -> RowPosition {
        // Loaded before the check: anything that happens after it moves the epoch past this.
        let now = epoch.current
        if stamp == now, let position { return position }
        if let position, source.isCurrent(position) {
            stamp = now
            return position
        }
        let reader = try source.currentReader()
        guard let found = try reader.position(of: key, in: tableBinding.table) else {
            throw FloeError.noSuchObject(table: tableBinding.table.name, key: key)
        }
        position = found
        stamp = now
        return found
    }

    @usableFromInline
    func write(_ value: _FloeValue, column: Int) {
        precondition(!source.isFrozen, "Cannot modify '\(className).\(tableBinding.propertyName(ofColumn: column))' of a frozen \(className) object (key \(key)).")
        source.write(value, binding: self, column: column)
    }

    /// Whether the object still exists in the version reads see.
    var exists: Bool {
        guard let reader = try? source.currentReader() else { return false }
        return (try? reader.contains(key, in: tableBinding.table)) ?? false
    }
}
