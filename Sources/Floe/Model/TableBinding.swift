@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// How one model class maps onto one realm's table: the table, and which column each
/// property reads.
@usableFromInline
final class TableBinding: Sendable {
    let schema: ObjectSchemaInfo
    let table: TableHandle
    /// For each property of `schema`, its column in the stored table.
    @usableFromInline let columnOfProperty: [Int]
    /// For each column of the stored table, the property it backs (nil: not in this class).
    let propertyOfColumn: [Int?]
    /// For each column of the stored table, whether it holds lists, sets or maps.
    let isCollectionColumn: [Bool]

    /// Columns the stored table has (computed properties' pseudo columns come after).
    let storedColumnCount: Int
    /// For each property, whether inserting an object stores it after the row itself (links,
    /// mixed values, collections and computed properties), worked out once, not per insert.
    let isStoredAfterRow: [Bool]
    /// Whether the primary key's column is the table's object key (then a lookup by key is
    /// one tree walk); false when not known.
    let primaryKeyIsObjectKey: Bool

    /// - Parameter mappedPropertiesAfter: for a binding that reads properties through extra
    ///   columns placed after the real ones (the key-path probe), the first such
    ///   column: each single type-projected property's extra column names it too, so a failable
    ///   mapping that meets a placeholder finds the property's declared value.
    init(schema: ObjectSchemaInfo, table: TableHandle, columnOfProperty: [Int], columnCount: Int, primaryKeyIsObjectKey: Bool = false,
         mappedPropertiesAfter extraColumns: Int? = nil) {
        self.schema = schema
        self.primaryKeyIsObjectKey = primaryKeyIsObjectKey
        storedColumnCount = columnCount - schema.properties.filter(\.isComputed).count
        self.table = table
        self.columnOfProperty = columnOfProperty
        var propertyOfColumn = [Int?](repeating: nil, count: columnCount)
        var isCollectionColumn = [Bool](repeating: false, count: columnCount)
        for (property, column) in columnOfProperty.enumerated() {
            propertyOfColumn[column] = property
            isCollectionColumn[column] = schema.properties[property].type.collection != .single || schema.properties[property].isComputed
        }
        if let extraColumns {
            for (property, info) in schema.properties.enumerated() where info.type.isMapped && info.type.collection == .single
                && extraColumns + property < columnCount {
                propertyOfColumn[extraColumns + property] = property
            }
        }
        self.propertyOfColumn = propertyOfColumn
        self.isCollectionColumn = isCollectionColumn
        isStoredAfterRow = schema.properties.map {
            ($0.type.columnType == .link || $0.type.columnType == .mixed) && $0.type.collection == .single || $0.type.collection != .single || $0.isComputed
        }
    }

    func propertyName(ofColumn column: Int) -> String {
        propertyOfColumn[column].map { schema.properties[$0].name } ?? "#\(column)"
    }
}
