@_spi(Engine) import FloeStorage

/// The type of a column (or of a collection column's elements).
///
/// The raw values are written in every table's schema: each is spelled out, so that a case
/// added anywhere cannot renumber the file format (`EncodingTests` pins them).
@_spi(Engine) public enum ColumnType: UInt8, Sendable, Hashable, CaseIterable {
    case bool = 1
    case int = 2
    case float = 3
    case double = 4
    case string = 5
    case binary = 6
    case timestamp = 7
    case decimal128 = 8
    case objectId = 9
    case uuid = 10
    case link = 11
    case mixed = 12
}

/// Whether a column holds one value per object or a collection of them.
@_spi(Engine) public enum CollectionKind: UInt8, Sendable, Hashable, CaseIterable {
    case single = 0
    /// Ordered, duplicates allowed.
    case list = 1
    /// Distinct values, kept in ``Value``'s total order.
    case set = 2
    /// String keys to values, kept in key order.
    case map = 3
}

/// What kind of objects a table holds; the engine stores it for the schema layer.
@_spi(Engine) public enum TableKind: UInt8, Sendable, Hashable, CaseIterable {
    case topLevel = 0
    case embedded = 1
    case asymmetric = 2
}

/// One column of a table.
///
/// ```swift
/// let age = ColumnSpec(name: "age", type: .int)
/// let nickname = ColumnSpec(name: "nickname", type: .string, isNullable: true)
/// let dogs = ColumnSpec(name: "dogs", type: .link, collection: .list, linkTarget: "Dog")
/// ```
@_spi(Engine) public struct ColumnSpec: Sendable, Hashable {
    public var name: String
    public var type: ColumnType
    /// For a collection column: whether its elements may be null.
    public var isNullable: Bool
    public var collection: CollectionKind
    /// The table a `.link` column points into.
    public var linkTarget: String?
    /// For `.int`: 8, 16, 32 or 64; values outside the width are refused.
    public var integerBits: UInt8
    public var isIndexed: Bool
    public var isPrimaryKey: Bool

    public init(name: String, type: ColumnType, isNullable: Bool = false, collection: CollectionKind = .single,
                linkTarget: String? = nil, integerBits: UInt8 = 64, isIndexed: Bool = false, isPrimaryKey: Bool = false) {
        self.name = name
        self.type = type
        self.isNullable = isNullable
        self.collection = collection
        self.linkTarget = linkTarget
        self.integerBits = integerBits
        self.isIndexed = isIndexed
        self.isPrimaryKey = isPrimaryKey
    }
}

/// A table's name, kind and columns: the schema the engine stores in every version.
///
/// ```swift
/// let dog = TableSpec(name: "Dog", columns: [
///     ColumnSpec(name: "name", type: .string),
///     ColumnSpec(name: "age", type: .int),
/// ])
/// ```
@_spi(Engine) public struct TableSpec: Sendable, Hashable {
    /// Longest table name, in UTF-8 bytes.
    public static let maximumNameLength = 57
    /// Longest column name, in UTF-8 bytes.
    public static let maximumColumnNameLength = 63

    public var name: String
    public var kind: TableKind
    public var columns: [ColumnSpec]

    public init(name: String, kind: TableKind = .topLevel, columns: [ColumnSpec]) {
        self.name = name
        self.kind = kind
        self.columns = columns
    }

    /// The column whose value is the object key, if any (see ``ColumnSpec/isObjectKey``).
    package var objectKeyColumn: Int? { columns.firstIndex { $0.isObjectKey } }

    /// The index of the column named `name`.
    public func columnIndex(named name: String) -> Int? {
        columns.firstIndex { $0.name == name }
    }

    package func validate() throws(FloeError) {
        try Self.validateName(name, kind: "table", limit: Self.maximumNameLength)
        var seen = Set<String>()
        for column in columns {
            try Self.validateName(column.name, kind: "column '\(name).\(column.name)'", limit: Self.maximumColumnNameLength)
            guard seen.insert(column.name).inserted else { throw .duplicateColumn(table: name, column: column.name) }
            try column.validate(in: name)
        }
    }

    package static func validateName(_ name: String, kind: String, limit: Int) throws(FloeError) {
        if name.isEmpty { throw .invalidName(kind: kind, name: name, reason: "names cannot be empty") }
        if name.utf8.count > limit {
            throw .invalidName(kind: kind, name: name, reason: "\(name.utf8.count) UTF-8 bytes is more than the limit of \(limit)")
        }
    }
}

extension ColumnSpec {
    package func validate(in table: String) throws(FloeError) {
        if type == .link && (linkTarget ?? "").isEmpty {
            throw .invalidName(kind: "link target of '\(table).\(name)'", name: "", reason: "a link column needs a target table")
        }
        if type == .int && ![8, 16, 32, 64].contains(integerBits) {
            throw .typeMismatch(table: table, column: name, expected: "an integer width of 8, 16, 32 or 64", value: "\(integerBits)")
        }
    }

    /// A non-optional integer primary key is the object key itself: each object is stored
    /// under its primary key value, so lookups need no index and inserts maintain none.
    package var isObjectKey: Bool { isPrimaryKey && type == .int && !isNullable && collection == .single }

    /// Whether the column's storage keeps null flags: optional columns, and every single link
    /// (a link may always be null; without the flag a null link would read as object key 0).
    package var storesNulls: Bool { isNullable || (type == .link && collection == .single) }

    /// Whether the engine keeps a search index for this column. (A link column's index slot
    /// holds its backlinks instead.)
    package var hasSearchIndex: Bool { (isIndexed || isPrimaryKey) && collection == .single && !isObjectKey && type != .link }

    /// How a leaf lays this column out.
    package var layout: ColumnStorage.Layout {
        collection == .single ? ColumnStorage.Layout(elementType: type) : .collections
    }
}
