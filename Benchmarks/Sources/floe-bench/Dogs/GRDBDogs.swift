import GRDB

/// The peer's Dog: a GRDB record in a `dog` table.
///
/// Encoding and decoding are written by hand rather than derived from `Codable`: that is
/// GRDB's fastest record path, so the ratios reported against it are not flattered.
struct DogRecord: FetchableRecord, PersistableRecord, Identifiable {
    static let databaseTableName = "dog"

    var id: Int
    var name: String
    var age: Int
    var color: String
    var weight: Double

    init(index: Int) {
        id = index
        name = Dog.name(index)
        age = Dog.age(index)
        color = Dog.color(index)
        weight = Dog.weight(index)
    }

    init(row: Row) throws {
        id = row["id"]
        name = row["name"]
        age = row["age"]
        color = row["color"]
        weight = row["weight"]
    }

    func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id
        container["name"] = name
        container["age"] = age
        container["color"] = color
        container["weight"] = weight
    }
}

/// Opening, filling and reading the peer's database.
enum GRDBDogs {
    /// A database in WAL mode, as GRDB sets it up for applications (which also means
    /// `synchronous = NORMAL`: commits do not wait for fsync, checkpoints do).
    static func open(at path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.journalMode = .wal
        return try DatabaseQueue(path: path, configuration: configuration)
    }

    /// A database in WAL mode whose every commit is synced to the disk (`synchronous = FULL`),
    /// the peer of Floe's durability `.full` in W2.
    ///
    /// GRDB sets `synchronous = NORMAL` when it enables WAL, after `prepareDatabase` has run,
    /// so the pragma is set on the open connection (a queue has only one) and checked.
    static func openDurable(at path: String) throws -> DatabaseQueue {
        let database = try open(at: path)
        let level = try database.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            return try Int.fetchOne(db, sql: "PRAGMA synchronous")
        }
        guard level == 2 else { throw BenchmarkFailure("GRDB runs with synchronous = \(level.map(String.init) ?? "nil"), expected 2 (FULL)") }
        return database
    }

    static func createTable(in database: DatabaseQueue) throws {
        try database.write { db in
            try db.create(table: DogRecord.databaseTableName) { table in
                table.primaryKey("id", .integer)
                table.column("name", .text).notNull()
                table.column("age", .integer).notNull()
                table.column("color", .text).notNull()
                table.column("weight", .double).notNull()
            }
        }
    }

    /// Inserts the records in one transaction, each through `PersistableRecord.insert`.
    static func insert(_ records: [DogRecord], into database: DatabaseQueue) throws {
        try database.write { db in
            for record in records { try record.insert(db) }
        }
    }

    /// Fills a large table quickly through one prepared statement (setup, not measured),
    /// then checkpoints so that reads come from the database file as in a settled app.
    static func createFilledDatabase(at path: String, count: Int) throws -> DatabaseQueue {
        let database = try open(at: path)
        try createTable(in: database)
        try database.write { db in
            let statement = try db.makeStatement(sql: "INSERT INTO dog (id, name, age, color, weight) VALUES (?, ?, ?, ?, ?)")
            for index in 0..<count {
                try statement.execute(arguments: [index, Dog.name(index), Dog.age(index), Dog.color(index), Dog.weight(index)])
            }
        }
        try database.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
        return database
    }

    /// Every dog fetched as a record (`fetchAll`), then their ages summed: W3's peer.
    static func fetchRecordsAndSumAges(in database: DatabaseQueue) throws -> Int64 {
        try database.read { db in
            let dogs = try DogRecord.fetchAll(db)
            return dogs.reduce(Int64(0)) { $0 + Int64($1.age) }
        }
    }

    /// `SELECT SUM(age)`, for checking a workload's result (never timed).
    static func ageSumInSQL(in database: DatabaseQueue) throws -> Int64 {
        try database.read { db in try Int64.fetchOne(db, sql: "SELECT SUM(age) FROM dog") ?? 0 }
    }

    static func count(in database: DatabaseQueue) throws -> Int {
        try database.read { db in try DogRecord.fetchCount(db) }
    }

    /// `SELECT age FROM dog`, fetched into an array and summed.
    static func fetchAndSumAges(in database: DatabaseQueue) throws -> Int64 {
        try database.read { db in
            let ages = try Int.fetchAll(db, sql: "SELECT age FROM dog")
            return ages.reduce(Int64(0)) { $0 + Int64($1) }
        }
    }
}
