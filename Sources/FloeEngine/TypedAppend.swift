@_spi(Engine) import FloeStorage

/// How one column takes its value on the typed append path (see
/// ``WriteTransaction/appendTypedRow(_:key:_:)``): the Swift type the caller writes, so that
/// the column's type and nullability are checked once per layout, not per value.
package enum TypedColumnKind: Equatable, Sendable {
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
package final class TypedAppendLayout {
    package let table: TableHandle
    package let kinds: [TypedColumnKind]
    /// The column whose value is the object key, if any.
    package let keyColumn: Int?
    package let generation: Int
    /// The change log's slot for the table's name, once an append has asked for it.
    package var changeSlot = -1

    package init(table: TableHandle, kinds: [TypedColumnKind], keyColumn: Int?, generation: Int) {
        self.table = table
        self.kinds = kinds
        self.keyColumn = keyColumn
        self.generation = generation
    }
}

/// The columns of the row being appended, in column order: each `append` fills the next
/// column with one value of the kind its layout named. Written straight into the leaf's typed
/// arrays, with no ``Value`` in between.
package struct TypedRowWriter: ~Copyable {
    /// Unretained: the leaf, which the transaction's append cursor holds, owns every one.
    private let columns: UnsafeBufferPointer<Unmanaged<ColumnNode>>
    private var next = 0

    package init(columns: UnsafeBufferPointer<Unmanaged<ColumnNode>>) {
        self.columns = columns
    }

    package var isComplete: Bool { next == columns.count }

    @inline(__always)
    private mutating func appendWord(_ word: UInt64, isNull: Bool) {
        columns[next]._withUnsafeGuaranteedRef { $0.storage.appendWord(word, isNull: isNull) }
        next += 1
    }

    @inline(__always)
    private mutating func appendString(_ string: String, isNull: Bool) {
        columns[next]._withUnsafeGuaranteedRef { $0.storage.appendString(string, isNull: isNull) }
        next += 1
    }

    @inline(__always) package mutating func append(_ int: Int64) { appendWord(UInt64(bitPattern: int), isNull: false) }
    @inline(__always) package mutating func append(_ int: Int64?) { appendWord(UInt64(bitPattern: int ?? 0), isNull: int == nil) }
    @inline(__always) package mutating func append(_ flag: Bool) { appendWord(flag ? 1 : 0, isNull: false) }
    @inline(__always) package mutating func append(_ double: Double) { appendWord(double.bitPattern, isNull: false) }
    @inline(__always) package mutating func append(_ double: Double?) { appendWord(double?.bitPattern ?? 0, isNull: double == nil) }
    @inline(__always) package mutating func append(_ string: String) { appendString(string, isNull: false) }
    @inline(__always) package mutating func append(_ string: String?) { appendString(string ?? "", isNull: string == nil) }
}
