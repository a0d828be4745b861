@_spi(Engine) import Floe
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// The Dog table in Floe's storage engine: one column per property, the object key equal to `id`.
enum FloeDogs {
    static let tableName = "Dog"

    static let spec = TableSpec(name: tableName, columns: [
        ColumnSpec(name: "id", type: .int, isPrimaryKey: true),
        ColumnSpec(name: "name", type: .string),
        ColumnSpec(name: "age", type: .int),
        ColumnSpec(name: "color", type: .string),
        ColumnSpec(name: "weight", type: .double),
    ])

    static let ageColumn = spec.columnIndex(named: "age")!

    static func values(_ index: Int) -> [Value] {
        [.int(Int64(index)), .string(Dog.name(index)), .int(Int64(Dog.age(index))),
         .string(Dog.color(index)), .double(Dog.weight(index))]
    }

    /// Creates the table and inserts rows `0..<count` in one write transaction.
    static func insert(count: Int, into store: Store) throws {
        let transaction = try store.beginWrite()
        let dogs = try transaction.createTable(spec)
        for index in 0..<count {
            try transaction.insertObject(into: dogs, key: Int64(index), values: values(index))
        }
        try transaction.commit()
    }

    /// Writes a new file holding `count` dogs in one commit, and closes it.
    static func createFile(at path: String, count: Int) throws {
        let store = try Store.open(path: path, options: StoreOptions(durability: .none, compactsAutomatically: false))
        defer { store.close() }
        try insert(count: count, into: store)
    }

    /// Sets one dog's age in its own commit.
    static func commitAgeChange(in store: Store, table: TableHandle, key: Int64, age: Int64) throws {
        let transaction = try store.beginWrite()
        try transaction.setValue(.int(age), in: table, key: key, column: ageColumn)
        try transaction.commit()
    }
}
