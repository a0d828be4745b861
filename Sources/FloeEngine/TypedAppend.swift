@_spi(Engine) import FloeStorage

/// How one column takes its value on the typed append path (see
/// ``WriteTransaction/appendTypedRow(_:key:_:)``): the Swift type the caller writes, so that
/// the column's type and nullability are checked once per layout, not per value.
@usableFromInline package enum TypedColumnKind: Equatable, Sendable {
    /// A 64-bit integer (`Int`, `Int64`).
    case int
    case optionalInt
    case bool
    case double
    case optionalDouble
    case string
    case optionalString

    /// Whether a column of `spec` stores this kind as it is: same type, 64-bit integers, null
    /// only where the column allows it, and no search index to keep (the object key column
    /// has none: the key is the row's own).
    package func fits(_ spec: ColumnSpec) -> Bool {
        guard spec.collection == .single, !spec.hasSearchIndex else { return false }
        switch self {
        case .int: return spec.type == .int && spec.integerBits == 64
        case .optionalInt: return spec.type == .int && spec.integerBits == 64 && spec.isNullable && !spec.isPrimaryKey
        case .bool: return spec.type == .bool
        case .double: return spec.type == .double
        case .optionalDouble: return spec.type == .double && spec.isNullable
        case .string: return spec.type == .string
        case .optionalString: return spec.type == .string && spec.isNullable
        }
    }
}

/// A table's columns checked once against the kinds a caller appends typed rows with.
/// Valid in the transaction that made it while no table or column has been added, removed,
/// renamed or re-indexed since (the transaction's schema generation).
@usableFromInline package final class TypedAppendLayout {
    @_spi(Engine) public let table: TableHandle
    @usableFromInline package let kinds: [TypedColumnKind]
    /// The column whose value is the object key, if any.
    @usableFromInline package let keyColumn: Int?
    @usableFromInline package let generation: Int
    /// The change log's slot for the table's name, once an append has asked for it.
    @exclusivity(unchecked) @usableFromInline package var changeSlot = -1

    package init(table: TableHandle, kinds: [TypedColumnKind], keyColumn: Int?, generation: Int) {
        self.table = table
        self.kinds = kinds
        self.keyColumn = keyColumn
        self.generation = generation
    }
}

extension TypedAppendLayout {
    /// ``WriteTransaction/appendTypedRow(_:key:_:)`` with this layout: inlinable, so that an
    /// add compiles the append, and `fill`, into its own code.
    @_spi(Engine) @inlinable @inline(__always)
    public func appendRow(in transaction: WriteTransaction, key: Int64?, _ fill: (inout TypedRowWriter) -> Void) -> Int64? {
        guard transaction.isOpen, generation == transaction.schemaGeneration, transaction.fastPaths.appendCursor != nil,
              transaction.fastPaths.appendCursor!.rowLayout == transaction.rowLayoutCount, table.index < transaction.group.tables.count else { return nil }
        let node = transaction.fastPaths.appendCursor!.table
        guard let resident = transaction.group.tables[table.index].unretainedResidentNode,
              resident.toOpaque() == Unmanaged.passUnretained(node).toOpaque(),
              node.isMutable, let root = node.root, root === transaction.fastPaths.appendCursor!.root,
              transaction.fastPaths.appendCursor!.leaf.keys.count < ClusterTree.leafCapacity else { return nil }
        let objectKey: Int64
        if keyColumn != nil {
            guard let key, key >= node.nextKey, key < .max else { return nil }
            objectKey = key
        } else {
            guard key == nil, node.nextKey < .max else { return nil }
            objectKey = node.nextKey
        }
        if transaction.fastPaths.appendCursor!.columns == nil {
            guard let columns = transaction.ownedColumns(of: transaction.fastPaths.appendCursor!.leaf, count: kinds.count) else { return nil }
            transaction.fastPaths.appendCursor!.columns = columns
        }
        transaction._mutationCount &+= 1
        transaction._rowLayoutCount &+= 1
        transaction.store.readEpoch.advance()
        transaction.fastPaths.appendCursor!.leaf.keys.append(objectKey)
        transaction.fastPaths.appendCursor!.columns!.withUnsafeBufferPointer { columns in
            var writer = TypedRowWriter(columns: columns)
            fill(&writer)
            if !writer.isComplete { Self.incompleteRow(in: node) }
        }
        for inner in transaction.fastPaths.appendCursor!.path { inner.counts[inner.counts.count - 1] += 1 }
        transaction.fastPaths.appendCursor!.rowLayout = transaction.rowLayoutCount
        node.count += 1
        node.nextKey = objectKey + 1
        if changeSlot < 0 { takeChangeSlot(in: transaction, table: node) }
        transaction.changeLog.appendInsert(slot: changeSlot, key: objectKey)
        return objectKey
    }
}

extension TypedAppendLayout {
    /// Stops: a typed append's `fill` wrote fewer columns than the table has.
    @usableFromInline
    static func incompleteRow(in node: TableNode) -> Never {
        preconditionFailure("a typed append wrote fewer columns than '\(node.spec.name)' has")
    }

    /// Asks the transaction's change log for the table's slot, once per layout.
    @_spi(Engine) public func takeChangeSlot(in transaction: WriteTransaction, table node: TableNode) {
        changeSlot = transaction.changeLog.slot(named: node.spec.name)
    }
}

/// The columns of the row being appended, in column order: each `append` fills the next
/// column with one value of the kind its layout named. Written straight into the leaf's typed
/// arrays, with no ``Value`` in between.
@usableFromInline package struct TypedRowWriter: ~Copyable {
    /// Unretained: the leaf, which the transaction's append cursor holds, owns every one.
    @usableFromInline let columns: UnsafeBufferPointer<Unmanaged<ColumnNode>>
    @usableFromInline var next = 0

    @inlinable
    package init(columns: UnsafeBufferPointer<Unmanaged<ColumnNode>>) {
        self.columns = columns
    }

    @inlinable
    package var isComplete: Bool { next == columns.count }

    @inlinable @inline(__always)
    mutating func appendWord(_ word: UInt64, isNull: Bool) {
        columns[next]._withUnsafeGuaranteedRef { $0.storage.appendWord(word, isNull: isNull) }
        next += 1
    }

    @inlinable @inline(__always)
    mutating func appendString(_ string: String, isNull: Bool) {
        columns[next]._withUnsafeGuaranteedRef { $0.storage.appendString(string, isNull: isNull) }
        next += 1
    }

    @inlinable @inline(__always) package mutating func append(_ int: Int64) { appendWord(UInt64(bitPattern: int), isNull: false) }
    @inlinable @inline(__always) package mutating func append(_ int: Int64?) { appendWord(UInt64(bitPattern: int ?? 0), isNull: int == nil) }
    @inlinable @inline(__always) package mutating func append(_ flag: Bool) { appendWord(flag ? 1 : 0, isNull: false) }
    @inlinable @inline(__always) package mutating func append(_ double: Double) { appendWord(double.bitPattern, isNull: false) }
    @inlinable @inline(__always) package mutating func append(_ double: Double?) { appendWord(double?.bitPattern ?? 0, isNull: double == nil) }
    @inlinable @inline(__always) package mutating func append(_ string: String) { appendString(string, isNull: false) }
    @inlinable @inline(__always) package mutating func append(_ string: String?) { appendString(string ?? "", isNull: string == nil) }
}
