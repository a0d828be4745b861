/// Where a managed object's values live: a live realm's current version, or a frozen version.
protocol ObjectSource: AnyObject {
    /// The version reads see now.
    func currentReader() throws(FloeError) -> any VersionReading
    var isFrozen: Bool { get }
    /// Writes one column of one object, inside the open write transaction. Errors cannot be
    /// thrown from a property setter: the source records them and the write that encloses
    /// the setter throws and rolls back.
    func write(_ value: _FloeValue, binding: ObjectBinding, column: Int)
    /// The object `key` of `type`'s table, bound to this source (nil: it does not exist).
    func linkedObject(_ type: ObjectBase.Type, key: Int64) -> ObjectBase?
    /// The model class this source stores under `className` (a mixed value names only its table).
    func modelType(named className: String) -> ObjectBase.Type?
    /// Changes one collection of one object inside the open write transaction; like property
    /// setters, errors are recorded and make the enclosing write throw.
    func changeCollection(binding: ObjectBinding, column: Int, _ change: (CollectionEditor) throws(FloeError) -> Void)
    /// A read that cannot throw met damage: the enclosing read or write must throw `error`.
    func recordReadFailure(_ error: FloeError)
    /// A read that cannot throw met a stored value its Swift type cannot hold (a failable type
    /// projection on a required property): the enclosing read or write must throw `error`.
    func recordInvalidValue(_ error: FloeError)
    /// Whether a read met damage (then an object missing from its tree is the damage's
    /// placeholder, not misuse).
    var hasRecordedDamage: Bool { get }
}

extension ObjectSource {
    /// What a read that cannot throw does with `error`: damaged bytes (a failed checksum, a
    /// short read) are recorded and the read answers `placeholder`; anything else is misuse
    /// (reading a deleted object) and stops with `what` and the error.
    func readFailed<T>(_ error: FloeError, reading what: @autoclosure () -> String, placeholder: T) -> T {
        switch error {
        case .corruptFile, .io:
            recordReadFailure(error)
            return placeholder
        case .noSuchObject where hasRecordedDamage:
            // The placeholder of an object that damage kept from being found.
            return placeholder
        default:
            preconditionFailure("Cannot read '\(what())': \(error)")
        }
    }
}

/// How one model class maps onto one realm's table: the table, and which column each
/// property reads.
final class TableBinding: Sendable {
    let schema: ObjectSchemaInfo
    let table: TableHandle
    /// For each property of `schema`, its column in the stored table.
    let columnOfProperty: [Int]
    /// For each column of the stored table, the property it backs (nil: not in this class).
    let propertyOfColumn: [Int?]
    /// For each column of the stored table, whether it holds lists, sets or maps.
    let isCollectionColumn: [Bool]

    /// Columns the stored table has (computed properties' pseudo columns come after).
    let storedColumnCount: Int

    init(schema: ObjectSchemaInfo, table: TableHandle, columnOfProperty: [Int], columnCount: Int) {
        self.schema = schema
        storedColumnCount = columnCount - schema.properties.filter(\.isComputed).count
        self.table = table
        self.columnOfProperty = columnOfProperty
        var propertyOfColumn = [Int?](repeating: nil, count: columnCount)
        var isCollectionColumn = [Bool](repeating: false, count: columnCount)
        for (property, column) in columnOfProperty.enumerated() {
            propertyOfColumn[column] = property
            isCollectionColumn[column] = schema.properties[property].type.collection != .single || schema.properties[property].isComputed
        }
        self.propertyOfColumn = propertyOfColumn
        self.isCollectionColumn = isCollectionColumn
    }

    func propertyName(ofColumn column: Int) -> String {
        propertyOfColumn[column].map { schema.properties[$0].name } ?? "#\(column)"
    }
}

/// The link between a managed object and its stored row.
@usableFromInline
final class ObjectBinding {
    let source: ObjectSource
    let tableBinding: TableBinding
    private(set) var key: Int64
    /// Where the object was last found: valid while the reader's root and mutation count are
    /// the ones recorded with it. Saves a tree walk on every property read.
    private var cachedLeaf: ClusterNode?
    private var cachedRow = 0
    private var cachedGroup: GroupNode?
    private var cachedMutationCount = 0

    init(source: ObjectSource, tableBinding: TableBinding, key: Int64) {
        self.source = source
        self.tableBinding = tableBinding
        self.key = key
    }

    /// Seeds the position cache (when the caller just found the object in `leaf`).
    func cachePosition(leaf: ClusterNode, row: Int, reader: any VersionReading) {
        cachedLeaf = leaf
        cachedRow = row
        cachedGroup = reader.group
        cachedMutationCount = reader.mutationCount
    }

    /// Makes this binding (and so its object, which nothing else holds) stand for another
    /// object of the same table. Only results iteration does this.
    func repoint(to key: Int64, leaf: ClusterNode, row: Int, reader: any VersionReading) {
        self.key = key
        cachePosition(leaf: leaf, row: row, reader: reader)
    }

    var className: String { tableBinding.schema.className }

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
            return _FloeValue(.null, parent: self, column: column)
        }
        do throws(FloeError) {
            let reader = try source.currentReader()
            if let leaf = cachedLeaf, cachedGroup === reader.group, cachedMutationCount == reader.mutationCount {
                return _FloeValue(try leaf.columns[column].load().value(at: cachedRow), parent: self, column: column)
            }
            guard let (leaf, row) = try reader.locate(key, in: tableBinding.table) else {
                throw FloeError.noSuchObject(table: tableBinding.table.name, key: key)
            }
            cachePosition(leaf: leaf, row: row, reader: reader)
            return _FloeValue(try leaf.columns[column].load().value(at: row), parent: self, column: column)
        } catch .noSuchObject {
            if source.hasRecordedDamage { return _FloeValue(placeholder(forColumn: column), parent: self, column: column) }
            preconditionFailure("Cannot read '\(className).\(tableBinding.propertyName(ofColumn: column))': the \(className) object with key \(key) has been deleted or invalidated. Check isInvalidated first.")
        } catch {
            return source.readFailed(error, reading: "\(className).\(tableBinding.propertyName(ofColumn: column))' of the \(className) object with key \(key)",
                                     placeholder: _FloeValue(placeholder(forColumn: column), parent: self, column: column))
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
