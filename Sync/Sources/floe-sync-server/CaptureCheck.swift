import Foundation
import FloeSync
import Logging
import PostgresNIO

/// `--check-capture N`: holds the capture triggers (``CaptureSQL``) to the server's own rules on
/// the database the server would use, inside one transaction that is rolled back (nothing of
/// it stays; the sequence of server versions skips the numbers it drew).
///
/// 1. N random writes made directly in SQL to a class with a property of every kind (every
///    scalar, optional ones, a link, a mixed value, lists, a set, a map, embedded objects and
///    lists of them): inserts, updates of a few properties, deletes, primary keys changed,
///    statements over every row, `TRUNCATE`. Replaying the captured log with ``ConflictRules``
///    must give exactly the objects written, and each logged image must be the object as it was.
/// 2. Writes a device could not hold must fail, naming the class and property; the write before
///    them stays.
/// 3. What the triggers accept must be what ``SyncProperty/check(_:className:)`` accepts: random
///    values of every kind and raw JSON, judged by both.
/// 4. The server's own writes (`floe.origin` = `sync`) are not captured.
struct CaptureCheck {
    let client: PostgresClient
    let logger: Logger

    typealias Generator = ReadConditionCheck.Generator

    static let targetClass = SyncClass(name: "FloeCheckTarget", primaryKey: "id", properties: [
        SyncProperty(name: "id", kind: .uuid), SyncProperty(name: "name", kind: .string),
    ])
    static let place: [SyncProperty] = [
        SyncProperty(name: "city", kind: .string), SyncProperty(name: "visits", kind: .int),
        SyncProperty(name: "tags", kind: .string, collection: .list),
        SyncProperty(name: "inner", kind: .embedded, target: "FloeCheckInner", properties: [SyncProperty(name: "city", kind: .string)]),
    ]
    static let objectClass = SyncClass(name: "FloeCheckObject", primaryKey: "id", properties: [
        SyncProperty(name: "id", kind: .int), SyncProperty(name: "flag", kind: .bool), SyncProperty(name: "count", kind: .int),
        SyncProperty(name: "ratio", kind: .float), SyncProperty(name: "score", kind: .double), SyncProperty(name: "title", kind: .string),
        SyncProperty(name: "blob", kind: .data), SyncProperty(name: "when", kind: .date), SyncProperty(name: "amount", kind: .decimal),
        SyncProperty(name: "oid", kind: .objectId), SyncProperty(name: "uid", kind: .uuid),
        SyncProperty(name: "maybeTitle", kind: .string, isOptional: true), SyncProperty(name: "maybeCount", kind: .int, isOptional: true),
        SyncProperty(name: "maybeWhen", kind: .date, isOptional: true), SyncProperty(name: "maybeAmount", kind: .decimal, isOptional: true),
        SyncProperty(name: "target", kind: .link, target: "FloeCheckTarget"), SyncProperty(name: "anything", kind: .mixed),
        SyncProperty(name: "names", kind: .string, collection: .list), SyncProperty(name: "numbers", kind: .int, collection: .set),
        SyncProperty(name: "weights", kind: .double, collection: .map), SyncProperty(name: "targets", kind: .link, collection: .list, target: "FloeCheckTarget"),
        SyncProperty(name: "maybeNames", kind: .string, collection: .list, isOptional: true),
        SyncProperty(name: "amounts", kind: .decimal, collection: .map),
        SyncProperty(name: "place", kind: .embedded, target: "FloeCheckPlace", properties: place),
        SyncProperty(name: "stops", kind: .embedded, collection: .list, target: "FloeCheckPlace", properties: place),
    ])
    static let schema = SyncSchema(version: 1, classes: [targetClass, objectClass])
    static let targetKeys = (0..<4).map { UUID(uuidString: String(format: "E621E1F8-C36C-495A-93FC-0C247A3E6E5%01X", $0))! }

    // MARK: Values

    static func strings(_ random: inout Generator) -> String {
        ["", "ann", "it's", "日本", "e\u{301}", "\u{1}", #"back\slash"#, "\"quoted\"", "\u{10FFFF}", "line\nbreak"].randomElement(using: &random)!
    }

    /// A value of one element of `property` that a device accepts.
    static func element(_ property: SyncProperty, _ random: inout Generator) -> SyncValue {
        let nullable = property.isOptional || property.kind == .mixed || property.kind == .link
            || (property.kind == .embedded && property.collection != .list && property.collection != .set)
        if nullable && Int.random(in: 0..<5, using: &random) == 0 { return .null }
        switch property.kind {
        case .bool: return .bool(Bool.random(using: &random))
        case .int: return .int([Int64.min, Int64.max, 0, -1, Int64.random(in: -1000...1000, using: &random)].randomElement(using: &random)!)
        case .float: return .double(Double(Float.random(in: -1e6...1e6, using: &random)))
        case .double: return .double([0.1, -0.0, 1e308, .leastNonzeroMagnitude, -2.5e-8, Double.random(in: -1e9...1e9, using: &random)].randomElement(using: &random)!)
        case .string: return .string(strings(&random))
        case .data: return .data(Data((0..<Int.random(in: 0..<70, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }))
        case .date: return .date([0, 1.7e9, -1e9, 1.5e9 + 0.25, Double.random(in: 0...2e9, using: &random)].randomElement(using: &random)!)
        case .decimal: return .decimal(["5.00", "-0.001", "1E+10", "NaN", "-Inf", ".5", "123456789012345678901234567890.1234"].randomElement(using: &random)!)
        case .objectId: return .objectId(["5f1b2c3d4e5f60718293a4b5", "5F1B2C3D4E5F60718293A4B5", "000000000000000000000000"].randomElement(using: &random)!)
        case .uuid: return .uuid(UUID())
        case .link: return .link(className: targetClass.name, key: .uuid(targetKeys.randomElement(using: &random)!))
        case .mixed:
            return [.int(7), .string(strings(&random)), .double(2.5), .bool(false), .list([.int(1), .string("x"), .null]),
                    .map(["a": .bool(true), "b": .list([])]), .link(className: targetClass.name, key: .uuid(targetKeys[0])),
                    .decimal("1.5"), .date(12), .uuid(targetKeys[1]), .data(Data([0, 1, 2]))].randomElement(using: &random)!
        case .embedded:
            var object: [String: SyncValue] = [:]
            for nested in property.properties ?? [] where Bool.random(using: &random) { object[nested.name] = value(nested, &random) }
            return .map(object)
        }
    }

    /// A whole value of `property` (a collection's elements, or the single value) that a device accepts.
    static func value(_ property: SyncProperty, _ random: inout Generator) -> SyncValue {
        switch property.collection {
        case .single: return element(property, &random)
        case .list, .set: return .list((0..<Int.random(in: 0..<4, using: &random)).map { _ in element(property, &random) })
        case .map:
            return .map(Dictionary(uniqueKeysWithValues: (0..<Int.random(in: 0..<3, using: &random)).map { ("k\($0)", element(property, &random)) }))
        }
    }

    /// What a device accepts for `property`: what the server's check accepts, and JSON can carry
    /// (no number that is not finite). A collection left NULL in SQL reads as empty.
    static func accepts(_ value: SyncValue, _ property: SyncProperty) -> Bool {
        if value == .null && property.collection != .single { return true }
        return (try? property.check(value, className: objectClass.name)) != nil && (try? JSONEncoder().encode(value)) != nil
    }

    /// A value that may or may not fit `property` (for comparing SQL with Swift), always one the
    /// property's column can be bound to.
    static func candidate(_ property: SyncProperty, _ random: inout Generator) -> SyncValue {
        if Bool.random(using: &random) { return value(property, &random) }
        if CaptureSQL.isJSON(property) {
            let wrong: [SyncValue] = [.null, .int(1), .string("x"), .list([.int(1)]), .list([.string("x")]), .list([.null]),
                                      .map(["a": .int(1)]), .map(["city": .int(1)]), .map(["city": .string("x"), "other": .int(1)]),
                                      .map(["inner": .map(["city": .null])]), .list([.map(["visits": .string("1")])]),
                                      .list([.link(className: "Elsewhere", key: .uuid(targetKeys[0]))]), .list([.decimal("abc")]),
                                      .map(["k": .decimal("1.5")]), .map(["k": .double(1)]), .list([.int(1), .int(1)])]
            return wrong.randomElement(using: &random)!
        }
        switch property.kind {
        case .float, .double, .date:
            let number = [Double.nan, .infinity, -.infinity].randomElement(using: &random)!
            return Bool.random(using: &random) ? .null : property.kind == .date ? .date(number) : .double(number)
        case .decimal: return [SyncValue.null, .decimal("abc"), .decimal("1.2.3"), .decimal(""), .decimal("infinite")].randomElement(using: &random)!
        case .objectId: return [SyncValue.null, .objectId("xyz"), .objectId("5f1b2c3d4e5f60718293a4b"), .objectId("5f1b2c3d4e5f60718293a4bg")].randomElement(using: &random)!
        default: return .null
        }
    }

    /// Raw JSON a service might write into a `jsonb` property, decodable or not.
    static let rawJSON = [
        #"[1]"#, #"{"list": [1]}"#, #"{"list": [{"string": 5}]}"#, #"{"list": [{"string": "a", "int": 1}]}"#, #"{"int": "x"}"#,
        #"{"map": {"a": {"double": "x"}}}"#, #"{"map": []}"#, #"{"list": {}}"#, #"{"int": 1.5}"#, #"{"int": 99999999999999999999}"#,
        #"{"uuid": "nope"}"#, #"{"data": "@@@"}"#, #"{"data": "AAE="}"#, #"{"link": {"class": "FloeCheckTarget"}}"#,
        #"{"map": {"city": {"string": "x"}, "inner": null}}"#, #"{"list": [{"double": 1e400}]}"#, #""text""#, #"null"#,
        #"{"list": [null]}"#, #"{"map": {"k0": {"decimal": "1e5"}}}"#, #"{"map": {"k0": {"decimal": "1e"}}}"#,
    ]

    // MARK: The run

    private let database: Database
    init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
        database = Database(client: client, schema: Self.schema, logger: logger)
    }

    /// Runs the check; returns the failures' descriptions (empty: the capture agrees with the server everywhere).
    func run(writes: Int, seed: UInt64) async throws -> [String] {
        try await client.withConnection { connection in
            try await connection.query("BEGIN", logger: logger)
            do {
                let failures = try await run(writes: writes, seed: seed, on: connection)
                try await connection.query("ROLLBACK", logger: logger)
                return failures
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                throw error
            }
        }
    }

    private func execute(_ sql: String, _ binds: PostgresBindings = PostgresBindings(), on connection: PostgresConnection) async throws {
        try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger)
    }

    /// An insert of `object` (or an update of its `values`) as plain SQL, every value bound as text.
    private func write(_ values: [String: SyncValue], key: SyncValue?, into syncClass: SyncClass, on connection: PostgresConnection) async throws {
        var binds = PostgresBindings()
        var names: [String] = [], placeholders: [String] = []
        for (name, value) in values.sorted(by: { $0.key < $1.key }) {
            guard let property = syncClass.property(named: name) else { continue }
            binds.append(try Database.text(value, for: property))
            names.append(Database.quote(name))
            placeholders.append(database.placeholder(binds.count, property))
        }
        let table = Database.quote(syncClass.name)
        if let key, let keyProperty = syncClass.property(named: syncClass.primaryKey) {
            binds.append(try Database.text(key))
            let match = "\(Database.quote(syncClass.primaryKey)) = \(database.placeholder(binds.count, keyProperty))"
            try await execute("UPDATE \(table) SET \(zip(names, placeholders).map { "\($0) = \($1)" }.joined(separator: ", ")) WHERE \(match)", binds, on: connection)
        } else {
            try await execute("INSERT INTO \(table) (\(names.joined(separator: ", "))) VALUES (\(placeholders.joined(separator: ", ")))", binds, on: connection)
        }
    }

    private func run(writes: Int, seed: UInt64, on connection: PostgresConnection) async throws -> [String] {
        var random = Generator(state: seed)
        var failures: [String] = []
        for statement in Database.logStatements + database.tableStatements() { try await execute(statement, on: connection) }
        try await database.installCapture(on: connection)
        let capture = CaptureSQL(schema: Self.schema)

        // 4. The server's own writes are not captured.
        try await execute("SELECT set_config('floe.origin', 'sync', true)", on: connection)
        try await write(["id": .uuid(Self.targetKeys[3]), "name": .string("server")], key: nil, into: Self.targetClass, on: connection)
        try await execute("DELETE FROM \"FloeCheckTarget\"", on: connection)
        try await execute("SELECT set_config('floe.origin', '', true)", on: connection)
        if try await loggedCount(on: connection) != 0 { failures.append("a write of the server's own was captured") }

        // 1 and 2: random writes, and refused ones, against a model of what was written.
        var model: [SyncObjectID: [String: SyncValue]] = [:]
        for key in Self.targetKeys.prefix(3) {
            let object: [String: SyncValue] = ["id": .uuid(key), "name": .string(Self.strings(&random))]
            try await write(object, key: nil, into: Self.targetClass, on: connection)
            model[SyncObjectID(className: Self.targetClass.name, key: .uuid(key))] = object
        }
        func objectID(_ key: Int64) -> SyncObjectID { SyncObjectID(className: Self.objectClass.name, key: .int(key)) }
        var refusals = 0
        for step in 0..<writes {
            let present = model.keys.filter { $0.className == Self.objectClass.name }.compactMap { id -> Int64? in
                if case .int(let key) = id.key { return key } else { return nil }
            }.sorted()
            let free = (0..<Int64(40)).filter { !present.contains($0) }
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<35 where !free.isEmpty:
                let key = free.randomElement(using: &random)!
                var object: [String: SyncValue] = ["id": .int(key)]
                for property in Self.objectClass.properties where property.name != "id" { object[property.name] = Self.value(property, &random) }
                try await write(object, key: nil, into: Self.objectClass, on: connection)
                model[objectID(key)] = object
            case 35..<70 where !present.isEmpty:
                let key = present.randomElement(using: &random)!
                var values: [String: SyncValue] = [:]
                for _ in 0..<Int.random(in: 1...3, using: &random) {
                    let property = Self.objectClass.properties.dropFirst().randomElement(using: &random)!
                    values[property.name] = Self.value(property, &random)
                }
                try await write(values, key: .int(key), into: Self.objectClass, on: connection)
                model[objectID(key)]!.merge(values) { _, new in new }
            case 70..<80 where !present.isEmpty:
                let key = present.randomElement(using: &random)!
                try await execute("DELETE FROM \"FloeCheckObject\" WHERE id = \(key)", on: connection)
                model[objectID(key)] = nil
            case 80..<87 where !present.isEmpty && !free.isEmpty:
                let key = present.randomElement(using: &random)!, moved = free.randomElement(using: &random)!
                try await execute("UPDATE \"FloeCheckObject\" SET id = \(moved) WHERE id = \(key)", on: connection)
                var object = model.removeValue(forKey: objectID(key))!
                object["id"] = .int(moved)
                model[objectID(moved)] = object
            case 87..<90:
                try await execute("UPDATE \"FloeCheckObject\" SET flag = NOT flag", on: connection)
                for id in model.keys where id.className == Self.objectClass.name {
                    if case .bool(let flag)? = model[id]!["flag"] { model[id]!["flag"] = .bool(!flag) }
                }
            case 90..<91:
                try await execute("TRUNCATE \"FloeCheckObject\"", on: connection)
                model = model.filter { $0.key.className != Self.objectClass.name }
            default:
                // A value a device could not hold: refused, naming the class and property.
                guard let key = present.randomElement(using: &random) else { continue }
                let property = Self.objectClass.properties.dropFirst().randomElement(using: &random)!
                let bad = Self.candidate(property, &random)
                if Self.accepts(bad, property) { continue }
                try await execute("SAVEPOINT refused", on: connection)
                do {
                    try await write([property.name: bad], key: .int(key), into: Self.objectClass, on: connection)
                    failures.append("step \(step): \(property.name) = \(bad) was not refused")
                    try await execute("RELEASE SAVEPOINT refused", on: connection)
                    model[objectID(key)]![property.name] = bad
                } catch let error as PSQLError {
                    let message = error.serverInfo?[.message] ?? "\(error)"
                    if !message.contains("FloeCheckObject.\(property.name) cannot hold") {
                        failures.append("step \(step): \(property.name) = \(bad) refused as: \(message)")
                    }
                    refusals += 1
                    try await execute("ROLLBACK TO SAVEPOINT refused", on: connection)
                }
            }
        }

        // Replay the log: every image must be the object as it was, and the end the objects written.
        var replayed: [SyncObjectID: [String: SyncValue]] = [:]
        let decoder = JSONDecoder()
        var logged = 0
        let rows = try await connection.query("""
            SELECT change::text, images::text FROM floe_log WHERE class IN ('FloeCheckTarget', 'FloeCheckObject') ORDER BY version, seq
            """, logger: logger)
        for try await (changeText, imagesText) in rows.decode((String, String?).self) {
            logged += 1
            let change = try decoder.decode(FloeSync.ObjectChange.self, from: Data(changeText.utf8))
            let images = try imagesText.map { try decoder.decode(ObjectImages.self, from: Data($0.utf8)) }
            if change.operation != .insert, images?.before != replayed[change.objectID] {
                failures.append("the image before \(change.operation) of \(change.objectID) is \(String(describing: images?.before)), the object was \(String(describing: replayed[change.objectID]))")
            }
            ConflictRules.apply(change, to: &replayed)
            if change.operation == .update, images?.after != replayed[change.objectID] {
                failures.append("the image after the update of \(change.objectID) differs from the object")
            }
        }
        for id in Set(model.keys).union(replayed.keys) where model[id] != replayed[id] {
            let written = model[id].map { $0.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") } ?? "nothing"
            let replay = replayed[id].map { $0.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") } ?? "nothing"
            failures.append("\(id): written \(written); the log replays \(replay)")
        }
        print("captured \(logged) changes; \(refusals) writes refused; \(model.count) objects compared")
        if refusals == 0 { failures.append("no write was refused: the check of refusals did not run") }
        if model.count < 3 { failures.append("the run left too few objects to compare") }

        // 3. What the triggers accept is what the server accepts, value by value.
        for _ in 0..<writes {
            let property = Self.objectClass.properties.dropFirst().randomElement(using: &random)!
            let value = Self.candidate(property, &random)
            let swift = Self.accepts(value, property)
            var binds = PostgresBindings()
            binds.append(try Database.text(value, for: property))
            let sql = "SELECT \(capture.holds(database.placeholder(1, property), property))"
            var holds = false
            for try await result in try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger).decode(Bool.self) { holds = result }
            if holds != swift { failures.append("\(property.name) = \(value): SQL says \(holds), the server's check \(swift)") }
        }
        for property in Self.objectClass.properties where CaptureSQL.isJSON(property) {
            for text in Self.rawJSON {
                let decoded = try? JSONDecoder().decode(SyncValue.self, from: Data(text.utf8))
                // JSON's null is no SQL NULL: a collection holding it is no collection.
                let swift = decoded.map { $0 == .null && property.collection != .single ? false : Self.accepts($0, property) } ?? false
                var binds = PostgresBindings()
                binds.append(text)
                var holds = false
                let sql = "SELECT \(capture.holds("$1::jsonb", property))"
                for try await result in try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger).decode(Bool.self) { holds = result }
                if holds != swift { failures.append("\(property.name) = \(text): SQL says \(holds), the server's check \(swift)") }
            }
        }
        return failures
    }

    private func loggedCount(on connection: PostgresConnection) async throws -> Int {
        var count = 0
        for try await value in try await connection.query("SELECT count(*)::bigint FROM floe_log WHERE class IN ('FloeCheckTarget', 'FloeCheckObject')", logger: logger).decode(Int64.self) {
            count = Int(value)
        }
        return count
    }
}
