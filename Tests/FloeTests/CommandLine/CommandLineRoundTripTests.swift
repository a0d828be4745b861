import Foundation
import Testing
@testable @_spi(Engine) import Floe
@testable @_spi(Engine) import FloeEngine
@testable @_spi(Engine) import FloeStorage

/// `floe import`, `dump` and `verify` on embedded objects and on every stored type: a dump
/// imports back to equal values, embedded objects are created from nested JSON and never shared,
/// and a refused import leaves the file exactly as it was.
@Suite struct CommandLineRoundTripTests {
    typealias Tool = CommandLineCommandsTests

    /// Person {name (primary key), address → Address, previous: list → Address, places:
    /// map → Address}, with Address {city, geo → Geo} and Geo {latitude} embedded; no objects.
    static func makeAddressBook(at path: String) throws {
        let store = try Store.open(path: path)
        let transaction = try store.beginWrite()
        _ = try transaction.createTable(TableSpec(name: "Geo", kind: .embedded, columns: [ColumnSpec(name: "latitude", type: .double)]))
        _ = try transaction.createTable(TableSpec(name: "Address", kind: .embedded, columns: [
            ColumnSpec(name: "city", type: .string),
            ColumnSpec(name: "geo", type: .link, isNullable: true, linkTarget: "Geo"),
        ]))
        _ = try transaction.createTable(TableSpec(name: "Person", columns: [
            ColumnSpec(name: "name", type: .string, isIndexed: true, isPrimaryKey: true),
            ColumnSpec(name: "address", type: .link, isNullable: true, linkTarget: "Address"),
            ColumnSpec(name: "previous", type: .link, collection: .list, linkTarget: "Address"),
            ColumnSpec(name: "places", type: .link, isNullable: true, collection: .map, linkTarget: "Address"),
        ]))
        _ = try transaction.commit()
        store.close()
    }

    static func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    @Test func importCreatesEmbeddedObjectsFromNestedJSON() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("book.floe")
        try Self.makeAddressBook(at: path)
        let lines = """
        {"name": "Ada", "address": {"city": "Rome", "geo": {"latitude": 41.9}}, "previous": [{"city": "Oslo"}, {"city": "Pisa"}], "places": {"work": {"city": "Turin"}, "old": null}}
        {"name": "Bo", "address": {"city": "Rome"}}
        {"name": "Cy"}
        """
        try lines.write(toFile: directory.file("people.jsonl"), atomically: true, encoding: .utf8)
        let imported = try Tool.floe(["import", "book.floe", "Person", "people.jsonl"], in: directory.path)
        #expect(imported.status == 0 && imported.stdout.hasPrefix("imported 3 Person objects"), "\(imported.stderr)")
        // Each address its own object, each owned once: the file verifies.
        let verify = try Tool.floe(["verify", "book.floe"], in: directory.path)
        #expect(verify.status == 0 && verify.stdout.contains("class Address: 5 objects") && verify.stdout.contains("class Geo: 1 objects"), "\(verify.stdout)")

        // Dump writes embedded objects inside their owners (no key: they have no identity of their own).
        let dump = try Tool.floe(["dump", "book.floe", "Person", "--jsonl"], in: directory.path)
        #expect(dump.status == 0, "\(dump.stderr)")
        let people = try Tool.jsonLines(dump.stdout)
        let ada = try #require(people.first)
        let address = try #require(ada["address"] as? [String: Any])
        #expect(address["city"] as? String == "Rome" && address["_key"] == nil, "\(ada)")
        #expect((address["geo"] as? [String: Any])?["latitude"] as? Double == 41.9, "\(ada)")
        #expect((ada["previous"] as? [[String: Any]])?.compactMap { $0["city"] as? String } == ["Oslo", "Pisa"], "\(ada)")
        #expect(((ada["places"] as? [String: Any])?["work"] as? [String: Any])?["city"] as? String == "Turin", "\(ada)")
        #expect((ada["places"] as? [String: Any])?["old"] is NSNull, "\(ada)")
        #expect(people[2]["address"] is NSNull, "\(people[2])")
        // The whole-file dump lists owners only; an embedded class alone is refused with where its objects are.
        let whole = try JSONSerialization.jsonObject(with: Data(try Tool.floe(["dump", "book.floe"], in: directory.path).stdout.utf8)) as? [String: Any]
        #expect(whole.map { Set($0.keys) } == ["Person"], "\(String(describing: whole))")
        let embedded = try Tool.floe(["dump", "book.floe", "Address"], in: directory.path)
        #expect(embedded.status == 1 && embedded.stdout.isEmpty
                && embedded.stderr.contains("Address is an embedded class: its objects are written inside the objects that own them (Person.address, Person.previous, Person.places)"),
                "\(embedded.stderr)")

        // A dump imports back into a file without those objects: the same objects, still verified.
        try dump.stdout.write(toFile: directory.file("again.jsonl"), atomically: true, encoding: .utf8)
        let copy = directory.file("copy.floe")
        try Self.makeAddressBook(at: copy)
        let reimported = try Tool.floe(["import", "copy.floe", "Person", "again.jsonl"], in: directory.path)
        #expect(reimported.status == 0, "\(reimported.stderr)")
        #expect(try Tool.floe(["dump", "copy.floe", "Person", "--jsonl"], in: directory.path).stdout == dump.stdout)
        #expect(try Tool.floe(["verify", "copy.floe"], in: directory.path).status == 0)
    }

    /// The key of another owner's embedded object, rows of an embedded class, and mistakes
    /// inside nested objects: each refused with a message naming the class, property and
    /// value, and the file left byte for byte as it was.
    @Test func importRefusesToShareEmbeddedObjects() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("book.floe")
        try Self.makeAddressBook(at: path)
        try #"{"name": "Ada", "address": {"city": "Rome"}}"#.write(toFile: directory.file("ada.jsonl"), atomically: true, encoding: .utf8)
        #expect(try Tool.floe(["import", "book.floe", "Person", "ada.jsonl"], in: directory.path).status == 0)
        let before = try Self.bytes(path)
        let owned = "the Address it owns, as a JSON object of its properties (an embedded object is written in full, never named by its key)"
        let cases: [(className: String, text: String, message: String)] = [
            ("Person", #"{"name": "Bo", "address": 0}"#, "line 1: Person.address takes \(owned), not 0"),
            ("Person", #"{"name": "Bo", "address": "Rome"}"#, "line 1: Person.address takes \(owned), not \"Rome\""),
            ("Person", #"{"name": "Bo", "previous": [{"city": "Oslo"}, 0]}"#, "line 1: Person.previous[1] takes \(owned), not 0"),
            ("Person", #"{"name": "Bo", "previous": [null]}"#, "line 1: Person.previous[0] takes \(owned), not null"),
            ("Person", #"{"name": "Bo", "places": {"home": 0}}"#, #"line 1: Person.places["home"] takes \#(owned), not 0"#),
            ("Person", #"{"name": "Bo", "address": {"city": 5}}"#, "line 1: Person.address.city takes a string, not 5"),
            ("Person", #"{"name": "Bo", "address": {"town": "Rome"}}"#, "line 1: Person.address has no property 'town'"),
            ("Person", #"{"name": "Bo", "address": {"geo": {"latitude": "north"}}}"#, "line 1: Person.address.geo.latitude takes a number (or \"NaN\", \"Infinity\", \"-Infinity\"), not \"north\""),
            ("Person", #"{"name": "Bo", "address": {"city": "Oslo"}}"# + "\n" + #"{"name": "Ada"}"#, "line 2: Person: Attempting to create an object of type 'Person' with an existing primary key value \"Ada\""),
            ("Address", #"{"city": "Rome"}"#,
             "Address is an embedded class: each of its objects belongs to one owner and is imported inside it, as a JSON object in Person.address or Person.previous or Person.places, never on a line of its own"),
        ]
        for (className, text, message) in cases {
            try text.write(toFile: directory.file("bad.jsonl"), atomically: true, encoding: .utf8)
            let run = try Tool.floe(["import", "book.floe", className, "bad.jsonl"], in: directory.path)
            #expect(run.status == 1 && run.stdout.isEmpty && run.stderr.contains(message), "\(text): \(run.stderr)")
            #expect(try Self.bytes(path) == before, "a refused import changed the file: \(text)")
        }
        #expect(try Tool.floe(["verify", "book.floe"], in: directory.path).status == 0)
    }

    /// `floe verify` names each broken rule of the object graph and exits 1.
    @Test func verifyNamesGraphProblems() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("shared.floe")
        try ObjectGraphVerificationTests.makeFile(at: path) { transaction, people, _, dogs in
            try transaction.setValue(.link(0), in: people, key: 1, column: ObjectGraphVerificationTests.personAddress)
            try transaction.deleteObject(from: dogs, key: 1)
        }
        let verify = try Tool.floe(["verify", "shared.floe"], in: directory.path)
        #expect(verify.status == 1, "\(verify.stdout)")
        for line in ["problem: Address 0 is an embedded object with 2 owners (Person 0, property 'address'; Person 1, property 'address')",
                     "problem: Address 1 is an embedded object that no object owns",
                     "problem: Person 0, property 'dogs', links to Dog 1, which does not exist",
                     "3 problem(s)"] {
            #expect(verify.stdout.contains(line), "\(line): \(verify.stdout)")
        }
        // Dump refuses the link to nothing rather than print a key no object has.
        let dump = try Tool.floe(["dump", "shared.floe", "Person"], in: directory.path)
        #expect(dump.status == 1 && dump.stdout.isEmpty && dump.stderr.contains("Person 0, property 'dogs', links to Dog 1, which does not exist"), "\(dump.stderr)")
    }

    /// Thing: one property per stored type, and a mixed value and list.
    static func makeThings(at path: String, rows: [[Value]] = [], mixedLists: [[Value]] = []) throws {
        let store = try Store.open(path: path)
        let transaction = try store.beginWrite()
        let tags = try transaction.createTable(TableSpec(name: "Tag", columns: [ColumnSpec(name: "label", type: .string, isIndexed: true, isPrimaryKey: true)]))
        try transaction.insertObject(into: tags, values: [.string("red")])
        let things = try transaction.createTable(TableSpec(name: "Thing", columns: [
            ColumnSpec(name: "id", type: .int, isPrimaryKey: true),
            ColumnSpec(name: "price", type: .decimal128),
            ColumnSpec(name: "when", type: .timestamp),
            ColumnSpec(name: "bytes", type: .binary),
            ColumnSpec(name: "oid", type: .objectId),
            ColumnSpec(name: "uuid", type: .uuid),
            ColumnSpec(name: "f", type: .float),
            ColumnSpec(name: "d", type: .double),
            ColumnSpec(name: "tiny", type: .int, integerBits: 8),
            ColumnSpec(name: "any", type: .mixed),
            ColumnSpec(name: "anys", type: .mixed, collection: .list),
            ColumnSpec(name: "amounts", type: .decimal128, isNullable: true, collection: .map),
        ]))
        for (index, row) in rows.enumerated() {
            try transaction.insertObject(into: things, values: row + [.null, .null])
            if index < mixedLists.count { try transaction.listAppend(contentsOf: mixedLists[index], in: things, key: row[0].intValue, column: 10) }
        }
        _ = try transaction.commit()
        store.close()
    }

    static func decimal(_ text: String) throws -> Value { try Decimal128(string: text).storedValue }

    /// What `import` reads for a decimal: decimal text as a string or as a JSON number (the bits
    /// form earlier dumps wrote is still read); `dump` writes decimal text.
    @Test func decimalsAreDecimalTextBothWays() throws {
        let directory = TemporaryDirectory()
        try Self.makeThings(at: directory.file("things.floe"))
        let lines = """
        {"id": 1, "price": "12.5"}
        {"id": 2, "price": 12.5}
        {"id": 3, "price": "-0.0010"}
        {"id": 4, "price": 1E+300}
        {"id": 5, "price": "0x30400000000000000000000000000007"}
        {"id": 6, "price": "NaN", "amounts": {"tax": "0.19", "none": null}}
        """
        try lines.write(toFile: directory.file("prices.jsonl"), atomically: true, encoding: .utf8)
        let imported = try Tool.floe(["import", "things.floe", "Thing", "prices.jsonl"], in: directory.path)
        #expect(imported.status == 0, "\(imported.stderr)")
        let store = try Store.open(path: directory.file("things.floe"), options: StoreOptions(readOnly: true))
        let snapshot = try store.snapshot()
        let things = try snapshot.table(named: "Thing")
        let prices = try (1...6).map { try snapshot.value(in: things, key: Int64($0), column: 1) }
        store.close()
        #expect(Array(prices.prefix(5)) == [try Self.decimal("12.5"), try Self.decimal("12.5"), try Self.decimal("-0.0010"), try Self.decimal("1E+300"), try Self.decimal("7")])
        let dump = try Tool.jsonLines(try Tool.floe(["dump", "things.floe", "Thing", "--jsonl"], in: directory.path).stdout)
        #expect(dump.map { $0["price"] as? String } == ["12.5", "12.5", "-0.0010", "1E+300", "7", "NaN"], "\(dump)")
        let amounts = dump[5]["amounts"] as? [String: Any]
        #expect(amounts?["tax"] as? String == "0.19" && amounts?["none"] is NSNull, "\(dump[5])")
        // A value that is no decimal names the property and the value.
        try #"{"id": 7, "price": "twelve"}"#.write(toFile: directory.file("bad.jsonl"), atomically: true, encoding: .utf8)
        let bad = try Tool.floe(["import", "things.floe", "Thing", "bad.jsonl"], in: directory.path)
        #expect(bad.status == 1 && bad.stderr.contains("line 1: Thing.price takes a decimal number such as 12.5 or \"12.5\", not \"twelve\""), "\(bad.stderr)")
    }

    /// Every stored type, at its edges, survives dump then import with equal values.
    @Test func everyTypeRoundTripsThroughDumpAndImport() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("things.floe")
        let oid = try ObjectId(string: "5f5e1000563412907800002a").storedValue
        let uuid = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")).storedValue
        let moment = 736_000_000.123_456_7   // 2024-04-28T12:26:40.1234567Z, finer than milliseconds
        let nested: Value = .dictionary([Value.MapEntry(key: "list", value: .list([.int(1), .double(2), .string("x")])),
                                         Value.MapEntry(key: "tag", value: .typedLink(table: "Tag", key: 0))])
        let rows: [[Value]] = [
            [.int(1), try Self.decimal("12.5"), .timestamp(moment), .binary([0, 1, 254, 255]), oid, uuid,
             .float(0.1), .double(0.1), .int(-128), try Self.decimal("0.001")],
            [.int(Int64.max), try Self.decimal("-Infinity"), .timestamp(-3_187_296_000.25), .binary([]), oid, uuid,
             .float(.nan), .double(-.infinity), .int(127), .timestamp(moment)],
            [.int(Int64.min), try Self.decimal("1.000E-20"), .timestamp(0), .binary([7]), oid, uuid,
             .float(.infinity), .double(.leastNonzeroMagnitude), .int(0), .float(0.1)],
            [.int(0), try Self.decimal("0"), .timestamp(1e20), .binary([7]), oid, uuid,
             .float(-.infinity), .double(.nan), .int(0), nested],
        ]
        let mixedLists: [[Value]] = [
            [oid, uuid, .binary([1, 2]), .double(2), .int(2), .bool(true), .null, .string("2"), .double(.nan)],
            [try Self.decimal("NaN"), .list([.float(-.infinity)])],
        ]
        try Self.makeThings(at: path, rows: rows, mixedLists: mixedLists)
        let first = try Tool.floe(["dump", "things.floe", "Thing", "--jsonl"], in: directory.path)
        #expect(first.status == 0, "\(first.stderr)")
        let objects = try Tool.jsonLines(first.stdout)
        #expect(objects.count == 4)
        // Readable forms, not raw bits.
        let one = try #require(objects.first { $0["id"] as? Int == 1 })
        #expect(one["when"] as? String == "2024-04-28T12:26:40.1234567Z", "\(one)")
        #expect(one["oid"] as? String == "5f5e1000563412907800002a" && one["uuid"] as? String == "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "\(one)")
        #expect((one["any"] as? [String: String]) == ["$decimal128": "0.001"], "\(one)")
        #expect(objects.contains { $0["f"] as? String == "NaN" } && objects.contains { $0["d"] as? String == "-Infinity" })
        #expect(first.stdout.contains("\"id\": 9223372036854775807") && first.stdout.contains("\"id\": -9223372036854775808"))

        // Import into an empty copy of the schema; the dump is the same, value for value.
        try first.stdout.write(toFile: directory.file("things.jsonl"), atomically: true, encoding: .utf8)
        let copy = directory.file("copy.floe")
        try Self.makeThings(at: copy)
        let imported = try Tool.floe(["import", "copy.floe", "Thing", "things.jsonl"], in: directory.path)
        #expect(imported.status == 0, "\(imported.stderr)")
        let second = try Tool.floe(["dump", "copy.floe", "Thing", "--jsonl"], in: directory.path)
        #expect(second.stdout == first.stdout, "first:\n\(first.stdout)\nsecond:\n\(second.stdout)")
        // And the stored values are the same (NaNs aside, which equal nothing).
        let original = try Store.open(path: path, options: StoreOptions(readOnly: true))
        let copied = try Store.open(path: copy, options: StoreOptions(readOnly: true))
        let a = try original.snapshot(), b = try copied.snapshot()
        let thingsA = try a.table(named: "Thing"), thingsB = try b.table(named: "Thing")
        #expect(try a.value(in: thingsA, key: 1, column: 2) == b.value(in: thingsB, key: 1, column: 2))
        #expect(try a.value(in: thingsA, key: 1, column: 6) == b.value(in: thingsB, key: 1, column: 6))
        #expect(try a.value(in: thingsA, key: 0, column: 9) == b.value(in: thingsB, key: 0, column: 9))
        #expect(try a.value(in: thingsA, key: Int64.min, column: 9) == b.value(in: thingsB, key: Int64.min, column: 9))
        #expect(try a.collectionElements(in: thingsA, key: 1, column: 10).prefix(8) == b.collectionElements(in: thingsB, key: 1, column: 10).prefix(8))
        original.close()
        copied.close()
    }

    /// Integers beyond 64 bits or a narrower column's width, and numbers a Float cannot hold, are
    /// refused rather than wrapped or rounded to infinity.
    @Test func numbersOutOfRangeAreRefused() throws {
        let directory = TemporaryDirectory()
        try Self.makeThings(at: directory.file("things.floe"))
        let cases: [(String, String)] = [
            (#"{"id": 9223372036854775808}"#, "line 1: Thing.id takes an integer, not 9223372036854775808"),
            (#"{"id": 1, "tiny": 128}"#, "line 1: Thing.tiny takes an integer of 8 bits, not 128"),
            (#"{"id": 1, "f": 1e39}"#, "line 1: Thing.f takes a number a Float holds (or \"NaN\", \"Infinity\", \"-Infinity\"), not 1e39"),
            (#"{"id": 1, "d": 1e999}"#, "line 1: Thing.d takes a number (or \"NaN\", \"Infinity\", \"-Infinity\"), not 1e999"),
            (#"{"id": 1, "when": "2024-02-30T00:00:00Z"}"#, "line 1: Thing.when takes an ISO 8601 date string"),
            (#"{"id": 1, "any": 99999999999999999999}"#, "line 1: Thing.any takes an integer of 64 bits"),
            (#"{"id": 1, "any": {"$when": 1}}"#, "line 1: Thing.any takes a mixed value; its type tags are $date"),
            (#"{"id": 1, "id": 2}"#, "line 1: not a JSON object (invalid JSON): the key \"id\" appears twice"),
        ]
        for (text, message) in cases {
            try text.write(toFile: directory.file("bad.jsonl"), atomically: true, encoding: .utf8)
            let run = try Tool.floe(["import", "things.floe", "Thing", "bad.jsonl"], in: directory.path)
            #expect(run.status == 1 && run.stderr.contains(message), "\(text): \(run.stderr)")
        }
    }
}

extension Value {
    fileprivate var intValue: Int64 {
        if case .int(let int) = self { return int }
        return -1
    }
}
