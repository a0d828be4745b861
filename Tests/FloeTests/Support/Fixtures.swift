@_spi(Engine) @testable import Floe
@_spi(Engine) @testable import FloeEngine
@_spi(Engine) @testable import FloeStorage

enum Fixtures {
    static let dog = TableSpec(name: "Dog", columns: [
        ColumnSpec(name: "name", type: .string),
        ColumnSpec(name: "age", type: .int),
        ColumnSpec(name: "color", type: .string, isNullable: true),
        ColumnSpec(name: "weight", type: .double),
    ])

    static func dogRow(_ index: Int) -> [Value] {
        [.string("dog\(index)"), .int(Int64(index % 100)), .string(["red", "brown", "black", "white", "grey"][index % 5]),
         .double(Double(index % 500) / 10 + 1)]
    }

    /// Creates the Dog table with `count` dogs in one commit.
    @discardableResult
    static func makeDogs(in store: Store, count: Int) throws -> TableHandle {
        let transaction = try store.beginWrite()
        let dogs = try transaction.createTable(dog)
        for index in 0..<count { try transaction.insertObject(into: dogs, values: dogRow(index)) }
        try transaction.commit()
        return dogs
    }
}
