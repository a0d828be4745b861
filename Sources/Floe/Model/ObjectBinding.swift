/// The link between a managed object and its stored row.
@usableFromInline
final class ObjectBinding {
    let source: ObjectSource
    let tableBinding: TableBinding
    private(set) var key: Int64
    /// Where the object was last found, valid while the reader it was found in is unchanged:
    /// saves a tree walk on every property read.
    private var position: RowPosition?

    init(source: ObjectSource, tableBinding: TableBinding, key: Int64) {
        self.source = source
        self.tableBinding = tableBinding
        self.key = key
    }

    /// Where the object was last found, if anywhere (its validity is the reader's to judge).
    var cachedPosition: RowPosition? { position }

    /// Seeds the position cache (when the caller just found the object).
    func cachePosition(_ position: RowPosition) {
        self.position = position
    }

    /// Makes this binding (and so its object, which nothing else holds) stand for another
    /// object of the same table. Only results iteration does this.
    func repoint(to position: RowPosition) {
        key = position.key
        self.position = position
    }

    /// ``repoint(to:)``, staying in the leaf `transaction` copied for this object's last write
    /// when the next row is there (the cursor still holds the leaf from before the write).
    func repoint(to position: RowPosition, in transaction: WriteTransaction?) {
        if let transaction, let successor = self.position?.successor(holding: position.key, in: transaction) {
            key = position.key
            self.position = successor
            return
        }
        repoint(to: position)
    }

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
            if let position, source.isCurrent(position) {
                return .read(try position.value(ofColumn: column), parent: self, column: column)
            }
            let reader = try source.currentReader()
            guard let found = try reader.position(of: key, in: tableBinding.table) else {
                throw FloeError.noSuchObject(table: tableBinding.table.name, key: key)
            }
            position = found
            return .read(try found.value(ofColumn: column), parent: self, column: column)
        } catch .noSuchObject {
            if source.hasRecordedDamage { return .read(placeholder(forColumn: column), parent: self, column: column) }
            preconditionFailure("Cannot read '\(className).\(tableBinding.propertyName(ofColumn: column))': the \(className) object with key \(key) has been deleted or invalidated. Check isInvalidated first.")
        } catch {
            return source.readFailed(error, reading: "\(className).\(tableBinding.propertyName(ofColumn: column))' of the \(className) object with key \(key)",
                                     placeholder: .read(placeholder(forColumn: column), parent: self, column: column))
        }
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
