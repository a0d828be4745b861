import Floe
import Foundation
import GRDB

/// An object owning a list of integers (C1, C2).
final class NumberOwner: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var numbers: List<Int>
}

/// The target of C3's links.
final class LinkedPerson: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
}

/// A dog with a to-one link to its owner (C3). Named apart from the data set's `Dog`.
final class LinkedDog: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var owner: LinkedPerson?
}

/// C1–C3: collections and links through the object API, against GRDB modelling the same
/// data as child tables and foreign keys.
///
/// - C1: append 1,000,000 integers to one object's `List<Int>` in one write. GRDB: one
///   row per element in `number(ownerId REFERENCES owner(id), position, value)`, inserted
///   in one transaction through one cached statement, as an app sets GRDB up (foreign keys
///   checked, GRDB's default) with the index its read query needs, `(ownerId, position)`.
///   Beside it, GRDB's fastest insert: no index, foreign keys off, unchecked arguments.
/// - C2: read the 1,000,000 integers back in order and sum them: iterating the list inside
///   a read, against `SELECT value FROM number WHERE ownerId = ? ORDER BY position`
///   through a cursor, on both of C1's GRDB databases (with the index: an index scan;
///   without: a scan and a sort). All read the files C1's last round wrote.
/// - C3: 100,000 dogs, each linking to one of 1,000 persons; every dog's owner's name read
///   inside one read. GRDB: `dog.ownerId`, then per dog the person fetched by id (a cached
///   statement; and the record API, as W4), and a JOIN.
///
/// Every workload checks its result (counts, sums and an order-sensitive checksum, every
/// name read).
enum CollectionWorkloads {
    static let listLength = Scale.size(1_000_000)
    static let personCount = 1_000
    static let linkedDogCount = Scale.size(100_000)
    static let appendRounds = 3
    static let sumRounds = 5
    static let linkRounds = 3
    /// Issue 10's bars, against GRDB in the same run: C1 ≥ 5×, C2 and C3 ≥ 10×.
    static let appendTarget = 5.0
    static let readTarget = 10.0
    static let listOwnerId = 1

    /// Element `position` of the list, scrambled so that values differ from positions.
    static func number(_ position: Int) -> Int { (position &* 7_919) % 1_000_003 }

    /// The person dog `index` links to: each person gets exactly 100 dogs, spread over the table.
    static func ownerIndex(ofDog index: Int) -> Int { (index &* 7_919) % personCount }

    static func personName(_ index: Int) -> String { "person\(index)" }

    static func run(fixtures: Fixtures, reporter: Reporter) async throws {
        let paths = try await listWorkloads(fixtures: fixtures, reporter: reporter)
        try await sumWorkloads(paths: paths, reporter: reporter)
        for name in ["list.floe", "list.sqlite", "list-fastest.sqlite"] { fixtures.scratch.remove(name) }
        try await linkWorkloads(fixtures: fixtures, reporter: reporter)
    }

    // MARK: C1

    /// The GRDB side of C1: a database in WAL mode, as `GRDBDogs.open`; `fastest` turns off
    /// foreign-key checks and leaves out the index.
    private static func openNumberDatabase(at path: String, fastest: Bool) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.foreignKeysEnabled = !fastest
        let database = try DatabaseQueue(path: path, configuration: configuration)
        try database.write { db in
            try db.execute(sql: """
                CREATE TABLE owner (id INTEGER PRIMARY KEY);
                CREATE TABLE number (ownerId INTEGER REFERENCES owner(id), position INTEGER, value INTEGER);
                INSERT INTO owner (id) VALUES (\(listOwnerId));
                """)
            if !fastest { try db.execute(sql: "CREATE INDEX number_owner_position ON number(ownerId, position)") }
        }
        return database
    }

    /// Runs C1 and returns the files its last round wrote (for C2).
    private static func listWorkloads(fixtures: Fixtures, reporter: Reporter) async throws -> (floe: String, grdb: String, grdbFastest: String) {
        let scratch = fixtures.scratch
        let values = (0..<listLength).map(number)
        let count = listLength
        let ownerId = listOwnerId
        var rounds = [0, 0, 0]

        /// Counts GRDB's rows, then deletes the file, or keeps it (settled as an app's
        /// database would be) after the last round.
        func finish(_ database: DatabaseQueue, name: String, side: Int) throws {
            let stored = try database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM number WHERE ownerId = ?", arguments: [ownerId]) ?? -1 }
            guard stored == count else { throw BenchmarkFailure("GRDB (\(name)) holds \(stored) numbers after inserting \(count)") }
            rounds[side] += 1
            if rounds[side] == appendRounds {
                try database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
            }
            try database.close()
            if rounds[side] < appendRounds { scratch.remove(name) }
        }

        let samples = try await Runs.interleaved(rounds: appendRounds, [{
            let name = "list.floe"
            scratch.remove(name)
            // The owner exists before the timed write, as GRDB's owner row does.
            let realm = try await Realm(configuration: Realm.Configuration(
                fileURL: URL(fileURLWithPath: scratch.file(name)), objectTypes: [NumberOwner.self], durability: .full))
            try await realm.write { realm in
                let owner = NumberOwner()
                owner.id = ownerId
                try realm.add(owner)
            }
            let elapsed = try await Clocks.wallTime {
                try await realm.write { realm in
                    guard let owner = realm.object(ofType: NumberOwner.self, forPrimaryKey: ownerId) else {
                        throw BenchmarkFailure("the list's owner is missing")
                    }
                    owner.numbers.append(objectsIn: values)
                }
            }
            // Count and spot checks here; C2 reads every element.
            let (stored, first, middle, last) = try await realm.read { realm in
                guard let numbers = realm.object(ofType: NumberOwner.self, forPrimaryKey: ownerId)?.numbers else { return (-1, 0, 0, 0) }
                return (numbers.count, numbers[0], numbers[count / 2], numbers[count - 1])
            }
            guard stored == count, first == number(0), middle == number(count / 2), last == number(count - 1) else {
                throw BenchmarkFailure("Floe's list holds \(stored) elements (\(first), \(middle), \(last)) after appending \(count)")
            }
            rounds[0] += 1
            if rounds[0] < appendRounds { scratch.remove(name) }
            return elapsed
        }, {
            let name = "list.sqlite"
            scratch.remove(name)
            let database = try openNumberDatabase(at: scratch.file(name), fastest: false)
            let elapsed = try Clocks.wallTime {
                try database.write { db in
                    let statement = try db.cachedStatement(sql: "INSERT INTO number (ownerId, position, value) VALUES (?, ?, ?)")
                    for (position, value) in values.enumerated() {
                        try statement.execute(arguments: [ownerId, position, value])
                    }
                }
            }
            try finish(database, name: name, side: 1)
            return elapsed
        }, {
            let name = "list-fastest.sqlite"
            scratch.remove(name)
            let database = try openNumberDatabase(at: scratch.file(name), fastest: true)
            let elapsed = try Clocks.wallTime {
                try database.write { db in
                    let statement = try db.cachedStatement(sql: "INSERT INTO number (ownerId, position, value) VALUES (?, ?, ?)")
                    for (position, value) in values.enumerated() {
                        statement.setUncheckedArguments([ownerId, position, value])
                        try statement.execute()
                    }
                }
            }
            try finish(database, name: name, side: 2)
            return elapsed
        }])
        let (floe, peer, fastest) = (samples[0], samples[1], samples[2])
        reporter.add(ReportLine(
            workload: "C1 append 1M ints to a List<Int>, one write (Floe .full)",
            floe: Format.duration(nanoseconds: floe.median),
            peer: Format.duration(nanoseconds: peer.median),
            ratio: Format.speedup(floe: floe.median, peer: peer.median),
            target: "≥ 5× GRDB",
            verdict: peer.median / floe.median >= appendTarget ? .met : .missed))
        reporter.add(ReportLine(
            workload: "C1 same (GRDB: no index, no FK check, unchecked args)",
            floe: Format.duration(nanoseconds: floe.median),
            peer: Format.duration(nanoseconds: fastest.median),
            ratio: Format.speedup(floe: floe.median, peer: fastest.median)))
        reporter.note("per element: Floe \(Format.duration(nanoseconds: floe.median / Double(count))), GRDB \(Format.duration(nanoseconds: peer.median / Double(count))) (fastest \(Format.duration(nanoseconds: fastest.median / Double(count)))); files: Floe \(Format.bytes(Double(FileSizes.size(of: scratch.file("list.floe"))))), GRDB \(Format.bytes(Double(FileSizes.size(of: scratch.file("list.sqlite"))))) (no index \(Format.bytes(Double(FileSizes.size(of: scratch.file("list-fastest.sqlite"))))))")
        return (scratch.file("list.floe"), scratch.file("list.sqlite"), scratch.file("list-fastest.sqlite"))
    }

    // MARK: C2

    /// What C2 reads: the element count, their sum, and a checksum that depends on their order.
    struct ListDigest: Equatable, Sendable {
        var count = 0
        var sum = 0
        var checksum = 0

        mutating func add(_ value: Int) {
            count += 1
            sum &+= value
            checksum = checksum &* 31 &+ value
        }
    }

    private static func sumWorkloads(paths: (floe: String, grdb: String, grdbFastest: String), reporter: Reporter) async throws {
        var expected = ListDigest()
        for position in 0..<listLength { expected.add(number(position)) }
        let ownerId = listOwnerId
        let realm = try await Realm(configuration: Realm.Configuration(
            fileURL: URL(fileURLWithPath: paths.floe), objectTypes: [NumberOwner.self], durability: .full))
        let indexed = try GRDBDogs.open(at: paths.grdb)
        defer { try? indexed.close() }
        let unindexed = try GRDBDogs.open(at: paths.grdbFastest)
        defer { try? unindexed.close() }

        @Sendable func floeDigest() async throws -> ListDigest {
            try await realm.read { realm in
                var digest = ListDigest()
                guard let owner = realm.object(ofType: NumberOwner.self, forPrimaryKey: ownerId) else { return digest }
                for value in owner.numbers { digest.add(value) }
                return digest
            }
        }

        func grdbDigest(_ database: DatabaseQueue) throws -> ListDigest {
            try database.read { db in
                var digest = ListDigest()
                let values = try Int.fetchCursor(db, sql: "SELECT value FROM number WHERE ownerId = ? ORDER BY position", arguments: [ownerId])
                while let value = try values.next() { digest.add(value) }
                return digest
            }
        }

        func check(_ digest: ListDigest, _ side: String) throws {
            guard digest == expected else {
                throw BenchmarkFailure("\(side) read \(digest.count) elements (sum \(digest.sum), checksum \(digest.checksum)), expected \(expected.count) (sum \(expected.sum), checksum \(expected.checksum))")
            }
        }

        // The first read after open decodes every leaf from the file.
        var first = ListDigest()
        let firstPass = try await Clocks.wallTime { first = try await floeDigest() }
        try check(first, "Floe")

        let samples = try await Runs.interleaved(rounds: sumRounds, [{
            var digest = ListDigest()
            let elapsed = try await Clocks.wallTime { digest = try await floeDigest() }
            try check(digest, "Floe")
            return elapsed
        }, {
            var digest = ListDigest()
            let elapsed = try Clocks.wallTime { digest = try grdbDigest(indexed) }
            try check(digest, "GRDB (index)")
            return elapsed
        }, {
            var digest = ListDigest()
            let elapsed = try Clocks.wallTime { digest = try grdbDigest(unindexed) }
            try check(digest, "GRDB (no index)")
            return elapsed
        }])
        let (floe, peer, sorted) = (samples[0], samples[1], samples[2])
        let count = Double(listLength)
        reporter.note("Floe's first read after open (leaves decoded from the file): \(Format.duration(nanoseconds: firstPass)); per element: Floe \(Format.duration(nanoseconds: floe.median / count)), GRDB \(Format.duration(nanoseconds: peer.median / count)) (index), \(Format.duration(nanoseconds: sorted.median / count)) (scan and sort)")
        reporter.add(ReportLine(
            workload: "C2 iterate the 1M-int list, sum (GRDB: indexed)",
            floe: Format.duration(nanoseconds: floe.median),
            peer: Format.duration(nanoseconds: peer.median),
            ratio: Format.speedup(floe: floe.median, peer: peer.median),
            target: "≥ 10× GRDB",
            verdict: peer.median / floe.median >= readTarget ? .met : .missed,
            gate: GateFigure(key: "C2", floe: floe.median, peer: peer.median)))
        reporter.add(ReportLine(
            workload: "C2 same (GRDB: no index, scan + sort)",
            floe: Format.duration(nanoseconds: floe.median),
            peer: Format.duration(nanoseconds: sorted.median),
            ratio: Format.speedup(floe: floe.median, peer: sorted.median)))
    }

    // MARK: C3

    private static func linkWorkloads(fixtures: Fixtures, reporter: Reporter) async throws {
        let scratch = fixtures.scratch
        let count = linkedDogCount
        let personNames = (0..<personCount).map(personName)
        let expectedNames = (0..<count).map { personNames[ownerIndex(ofDog: $0)] }
        let floePath = scratch.file("links.floe")
        let grdbPath = scratch.file("links.sqlite")
        defer {
            scratch.remove("links.floe")
            scratch.remove("links.sqlite")
        }

        let realm = try await Realm(configuration: Realm.Configuration(
            fileURL: URL(fileURLWithPath: floePath), objectTypes: [LinkedPerson.self, LinkedDog.self], durability: .full))
        let floeBuild = try await Clocks.wallTime {
            try await realm.write { realm in
                var persons: [LinkedPerson] = []
                for index in 0..<personCount {
                    let person = LinkedPerson()
                    person.id = index
                    person.name = personNames[index]
                    try realm.add(person)
                    persons.append(person)
                }
                for index in 0..<count {
                    let dog = LinkedDog()
                    dog.id = index
                    dog.name = Dog.name(index)
                    dog.owner = persons[ownerIndex(ofDog: index)]
                    try realm.add(dog)
                }
            }
        }
        let database = try GRDBDogs.open(at: grdbPath)
        defer { try? database.close() }
        let grdbBuild = try Clocks.wallTime {
            try database.write { db in
                try db.execute(sql: """
                    CREATE TABLE person (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                    CREATE TABLE dog (id INTEGER PRIMARY KEY, name TEXT NOT NULL, ownerId INTEGER REFERENCES person(id));
                    """)
                let person = try db.makeStatement(sql: "INSERT INTO person (id, name) VALUES (?, ?)")
                for index in 0..<personCount { try person.execute(arguments: [index, personNames[index]]) }
                let dog = try db.makeStatement(sql: "INSERT INTO dog (id, name, ownerId) VALUES (?, ?, ?)")
                for index in 0..<count { try dog.execute(arguments: [index, Dog.name(index), ownerIndex(ofDog: index)]) }
            }
            try database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        }
        reporter.note("built 1,000 persons and 100,000 dogs linking to them: realm \(Format.duration(nanoseconds: floeBuild)) (\(Format.bytes(Double(FileSizes.size(of: floePath))))), GRDB \(Format.duration(nanoseconds: grdbBuild)) (\(Format.bytes(Double(FileSizes.size(of: grdbPath)))))")

        // Each body returns (dogs seen, wrong names); `check` turns that into a failure.
        func check(_ result: (seen: Int, mismatches: Int), _ side: String) throws {
            guard result.seen == count, result.mismatches == 0 else {
                throw BenchmarkFailure("\(side): \(result.seen) dogs seen, \(result.mismatches) wrong owner names")
            }
        }

        let samples = try await Runs.interleaved(rounds: linkRounds, [{
            var result = (seen: 0, mismatches: 0)
            let elapsed = try await Clocks.wallTime {
                result = try await realm.read { realm in
                    var seen = 0
                    var mismatches = 0
                    // Dogs iterate in primary-key order.
                    for dog in realm.objects(LinkedDog.self) {
                        if dog.owner?.name != expectedNames[seen] { mismatches += 1 }
                        seen += 1
                    }
                    return (seen, mismatches)
                }
            }
            try check(result, "Floe")
            return elapsed
        }, {
            var result = (seen: 0, mismatches: 0)
            let elapsed = try Clocks.wallTime {
                result = try database.read { db in
                    let ownerIds = try Int.fetchAll(db, sql: "SELECT ownerId FROM dog ORDER BY id")
                    let statement = try db.cachedStatement(sql: "SELECT name FROM person WHERE id = ?")
                    var mismatches = 0
                    for (index, ownerId) in ownerIds.enumerated() where try String.fetchOne(statement, arguments: [ownerId]) != expectedNames[index] {
                        mismatches += 1
                    }
                    return (ownerIds.count, mismatches)
                }
            }
            try check(result, "GRDB statement")
            return elapsed
        }, {
            var result = (seen: 0, mismatches: 0)
            let elapsed = try Clocks.wallTime {
                result = try database.read { db in
                    let dogs = try LinkedDogRecord.fetchAll(db)
                    var mismatches = 0
                    for (index, dog) in dogs.enumerated() where try PersonRecord.fetchOne(db, id: dog.ownerId)?.name != expectedNames[index] {
                        mismatches += 1
                    }
                    return (dogs.count, mismatches)
                }
            }
            try check(result, "GRDB records")
            return elapsed
        }, {
            var result = (seen: 0, mismatches: 0)
            let elapsed = try Clocks.wallTime {
                result = try database.read { db in
                    let names = try String.fetchCursor(db, sql: "SELECT person.name FROM dog JOIN person ON person.id = dog.ownerId ORDER BY dog.id")
                    var seen = 0
                    var mismatches = 0
                    while let name = try names.next() {
                        if seen >= count || name != expectedNames[seen] { mismatches += 1 }
                        seen += 1
                    }
                    return (seen, mismatches)
                }
            }
            try check(result, "GRDB JOIN")
            return elapsed
        }])
        let (floe, statement, records, join) = (samples[0], samples[1], samples[2], samples[3])

        reporter.note("per dog: Floe \(Format.duration(nanoseconds: floe.median / Double(count))), GRDB statement \(Format.duration(nanoseconds: statement.median / Double(count))), records \(Format.duration(nanoseconds: records.median / Double(count))), JOIN \(Format.duration(nanoseconds: join.median / Double(count)))")
        reporter.add(ReportLine(
            workload: "C3 100k dogs → owner.name (GRDB: per dog, statement)",
            floe: Format.duration(nanoseconds: floe.median),
            peer: Format.duration(nanoseconds: statement.median),
            ratio: Format.speedup(floe: floe.median, peer: statement.median),
            target: "≥ 10× GRDB",
            verdict: statement.median / floe.median >= readTarget ? .met : .missed))
        reporter.add(ReportLine(
            workload: "C3 same (GRDB: per dog, fetchAll + fetchOne(id:))",
            floe: Format.duration(nanoseconds: floe.median),
            peer: Format.duration(nanoseconds: records.median),
            ratio: Format.speedup(floe: floe.median, peer: records.median)))
        reporter.add(ReportLine(
            // For scale: the bar's peer is the per-dog statement above, as the issue measured it.
            workload: "C3 same (GRDB: one JOIN, for scale)",
            floe: Format.duration(nanoseconds: floe.median),
            peer: Format.duration(nanoseconds: join.median),
            ratio: Format.speedup(floe: floe.median, peer: join.median)))
    }
}

/// C3's dog as a GRDB record (hand-written decoding, as `DogRecord`).
struct LinkedDogRecord: FetchableRecord, TableRecord {
    static let databaseTableName = "dog"

    var id: Int
    var name: String
    var ownerId: Int

    init(row: Row) throws {
        id = row["id"]
        name = row["name"]
        ownerId = row["ownerId"]
    }
}

/// C3's person as a GRDB record.
struct PersonRecord: FetchableRecord, TableRecord, Identifiable {
    static let databaseTableName = "person"

    var id: Int
    var name: String

    init(row: Row) throws {
        id = row["id"]
        name = row["name"]
    }
}
