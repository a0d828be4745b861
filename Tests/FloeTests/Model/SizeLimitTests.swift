import Foundation
import Testing
@_spi(Engine) @testable import Floe
@_spi(Engine) @testable import FloeEngine
@_spi(Engine) @testable import FloeStorage

/// The 16 MiB limit on strings, binary values and map keys holds on every way into a realm
/// (properties, list, set and map elements, map keys, mixed values at the top and nested,
/// `create`, setters, `add`, migrations), each refusal a typed error naming the class,
/// property and value, and each refused write leaving the realm exactly as it was. Map keys'
/// other rules, and a migration's other checks, are here too.
@Suite struct SizeLimitTests {
    static let limit = WriteTransaction.maximumValueSize
    static let oversizedString = String(repeating: "a", count: limit + 1)
    static let oversizedData = Data(count: limit + 1)

    typealias Attempt = (name: String, property: String, write: @Sendable (borrowing Realm.Transaction) throws -> Void)

    static func realm() async throws -> Realm {
        let realm = try await inMemoryRealm("limits", objectTypes: [ValueHolder.self])
        try await realm.asyncWrite { realm in
            try realm.create(ValueHolder.self, value: ["name": "kept", "strings": ["s"], "map": ["k": "v"],
                                                      "mixed": AnyRealmValue.fromArray([.fromArray([])]),
                                                      "mixedList": [1], "mixedMap": ["m": 1]])
        }
        return realm
    }

    /// Everything a refused write could have touched, as text (sizes only: no 16 MiB strings).
    @Sendable static func state(_ realm: borrowing Realm.ReadTransaction) -> String {
        realm.objects(ValueHolder.self).map { holder in
            let mixedList = holder.mixedList.map { $0._floeEncoded.value.debugText }
            return "\(holder.name.utf8.count) \(holder.data.count) \(holder.strings.map(\.utf8.count)) \(holder.stringSet.count) "
                + "\(holder.dataList.count) \(holder.map.keys.map(\.utf8.count)) \(holder.mixed._floeEncoded.value.debugText) \(mixedList) "
                + "\(holder.mixedMap.keys.map(\.utf8.count))"
        }.joined(separator: "; ")
    }

    /// Runs each attempt in a write of its own: each must throw the error `expected` makes,
    /// and leave the realm as it was.
    static func expectRefused(_ attempts: [Attempt], in realm: Realm, _ expected: @Sendable (Attempt) -> FloeError) async throws {
        let before = try await realm.read { realm in state(realm) }
        for attempt in attempts {
            // Caught and compared outside `#expect`, which would spell out a 16 MiB key to
            // describe the error.
            var error: FloeError?
            do {
                try await realm.write { realm in try attempt.write(realm) }
            } catch let thrown as FloeError {
                error = thrown
            }
            let isExpected = error == expected(attempt)
            #expect(isExpected, "\(attempt.name): \(error?.description ?? "no error")")
            #expect(error?.description.contains("'ValueHolder.\(attempt.property)'") == true, "\(attempt.name)")
            // Values are shortened in messages.
            #expect((error?.description.utf8.count ?? .max) < 400, "\(attempt.name)")
            #expect(try await realm.read { realm in state(realm) } == before, "\(attempt.name)")
        }
    }

    @Test func oversizedStringsAndDataAreRefusedOnEveryPath() async throws {
        let realm = try await Self.realm()
        let big = Self.oversizedString, bigData = Self.oversizedData
        let attempts: [Attempt] = [
            ("setter", "name", { realm in realm.objects(ValueHolder.self).first!.name = big }),
            ("data setter", "data", { realm in realm.objects(ValueHolder.self).first!.data = bigData }),
            ("list append", "strings", { realm in realm.objects(ValueHolder.self).first!.strings.append(big) }),
            ("set insert", "stringSet", { realm in realm.objects(ValueHolder.self).first!.stringSet.insert(big) }),
            ("data list", "dataList", { realm in realm.objects(ValueHolder.self).first!.dataList.append(bigData) }),
            ("map value", "map", { realm in realm.objects(ValueHolder.self).first!.map["k"] = big }),
            ("mixed", "mixed", { realm in realm.objects(ValueHolder.self).first!.mixed = .string(big) }),
            ("mixed list", "mixed", { realm in realm.objects(ValueHolder.self).first!.mixed = .fromArray([.int(1), .string(big)]) }),
            ("mixed dictionary", "mixed", { realm in realm.objects(ValueHolder.self).first!.mixed = .fromDictionary(["k": .data(bigData)]) }),
            ("mixed, deeper", "mixed", { realm in
                realm.objects(ValueHolder.self).first!.mixed = .fromArray([.fromDictionary(["k": .fromArray([.string(big)])])])
            }),
            ("nested list in place", "mixed", { realm in
                realm.objects(ValueHolder.self).first!.mixed.listValue![0].listValue!.append(.string(big))
            }),
            ("list of mixed", "mixedList", { realm in realm.objects(ValueHolder.self).first!.mixedList.append(.fromArray([.string(big)])) }),
            ("map of mixed", "mixedMap", { realm in realm.objects(ValueHolder.self).first!.mixedMap["k"] = .fromDictionary(["k": .string(big)]) }),
            ("create", "name", { realm in try realm.create(ValueHolder.self, value: ["name": big]) }),
            ("create list", "strings", { realm in try realm.create(ValueHolder.self, value: ["strings": ["s", big]]) }),
            ("create JSON array in mixed", "mixed", { realm in try realm.create(ValueHolder.self, value: ["mixed": [1, [big]]]) }),
            ("create JSON object in mixed", "mixed", { realm in try realm.create(ValueHolder.self, value: ["mixed": ["k": ["j": big]]]) }),
            ("create list of mixed", "mixedList", { realm in try realm.create(ValueHolder.self, value: ["mixedList": [[big]]]) }),
            ("add", "mixedMap", { realm in
                let holder = ValueHolder()
                holder.mixedMap["k"] = .fromArray([.data(bigData)])
                try realm.add(holder)
            }),
            ("add linked", "mixed", { realm in
                let holder = ValueHolder()
                holder.link = ValueHolder()
                holder.link!.mixed = .fromArray([.string(big)])
                try realm.add(holder)
            }),
        ]
        try await Self.expectRefused(attempts, in: realm) { attempt in
            .valueTooLarge(table: "ValueHolder", column: attempt.property, size: Self.limit + 1, limit: Self.limit)
        }
        // The limit itself is allowed, nested too.
        let atLimit = String(repeating: "b", count: Self.limit)
        let stored = try await realm.write { realm in
            let holder = try realm.create(ValueHolder.self, value: ["mixed": AnyRealmValue.fromArray([.string(atLimit)])])
            return holder.mixed.listValue![0].stringValue?.utf8.count
        }
        #expect(stored == Self.limit)
    }

    @Test func oversizedMapKeysAreRefusedOnEveryPath() async throws {
        let realm = try await Self.realm()
        let key = Self.oversizedString
        let attempts: [Attempt] = [
            ("map", "map", { realm in realm.objects(ValueHolder.self).first!.map[key] = "v" }),
            ("map of mixed", "mixedMap", { realm in realm.objects(ValueHolder.self).first!.mixedMap[key] = .int(1) }),
            ("nested dictionary", "mixed", { realm in realm.objects(ValueHolder.self).first!.mixed = .fromDictionary([key: .int(1)]) }),
            ("nested in a list of mixed", "mixedList", { realm in
                realm.objects(ValueHolder.self).first!.mixedList.append(.fromArray([.fromDictionary([key: .int(1)])]))
            }),
            ("create", "map", { realm in try realm.create(ValueHolder.self, value: ["map": [key: "v"]]) }),
            ("create JSON object in mixed", "mixed", { realm in try realm.create(ValueHolder.self, value: ["mixed": [key: 1]]) }),
            ("add", "map", { realm in
                let holder = ValueHolder()
                holder.map[key] = "v"
                try realm.add(holder)
            }),
        ]
        try await Self.expectRefused(attempts, in: realm) { attempt in
            .invalidMapKey(table: "ValueHolder", column: attempt.property, key: key)
        }
        let error = FloeError.invalidMapKey(table: "ValueHolder", column: "map", key: key)
        #expect(error.description == "Invalid map key '\(String(repeating: "a", count: 61))...' (\(Self.limit + 1) bytes) for 'ValueHolder.map': keys may be at most \(Self.limit) bytes long, as string values may.")
    }

    /// Each refused key gets the message for what is wrong with it.
    @Test func mapKeyMessagesSayWhatIsWrong() async throws {
        let realm = try await Self.realm()
        let attempts: [(key: String, property: String, problem: String, write: @Sendable (borrowing Realm.Transaction) throws -> Void)] = [
            ("$x", "map", "keys may not start with '$'", { realm in realm.objects(ValueHolder.self).first!.map["$x"] = "v" }),
            ("a.b", "map", "keys may not contain '.'", { realm in realm.objects(ValueHolder.self).first!.map["a.b"] = "v" }),
            ("$a.b", "mixedMap", "keys may not start with '$'", { realm in realm.objects(ValueHolder.self).first!.mixedMap["$a.b"] = .int(1) }),
            ("x.y", "mixed", "keys may not contain '.'", { realm in
                realm.objects(ValueHolder.self).first!.mixed = .fromArray([.fromDictionary(["x.y": .int(1)])])
            }),
        ]
        let before = try await realm.read { realm in Self.state(realm) }
        for attempt in attempts {
            let error = await #expect(throws: FloeError.self) { try await realm.write { realm in try attempt.write(realm) } }
            #expect(error == .invalidMapKey(table: "ValueHolder", column: attempt.property, key: attempt.key))
            #expect(error?.description == "Invalid map key '\(attempt.key)' for 'ValueHolder.\(attempt.property)': \(attempt.problem).")
        }
        #expect(try await realm.read { realm in Self.state(realm) } == before)
    }

    /// Realm allows the empty key (only `$` first and `.` are refused), in maps and in
    /// dictionaries nested in mixed values alike.
    @Test func emptyMapKeysAreAllowedAsInRealm() async throws {
        let realm = try await Self.realm()
        let read = try await realm.write { realm -> [String] in
            let holder = realm.objects(ValueHolder.self).first!
            holder.map[""] = "empty"
            holder.mixedMap[""] = .int(1)
            holder.mixed = .fromDictionary(["": .fromDictionary(["": .string("inner")])])
            let created = try realm.create(ValueHolder.self, value: ["name": "created", "map": ["": "json"], "mixed": ["": [1]]])
            return [holder.map[""] ?? "-", "\(holder.mixedMap[""]?.intValue ?? 0)",
                    holder.mixed.dictionaryValue?[""]?.dictionaryValue?[""]?.stringValue ?? "-",
                    created.map[""] ?? "-", "\(created.mixed.dictionaryValue?[""]?.listValue?.count ?? 0)"]
        }
        #expect(read == ["empty", "1", "inner", "json", "1"])
        let keys = try await realm.write { realm -> [String] in
            let holder = realm.objects(ValueHolder.self).first!
            holder.map[""] = nil
            return holder.map.keys
        }
        #expect(keys == ["k"])
    }

    enum Migrated {
        final class HolderV1: Object {
            override class func className() -> String { "MigratedHolder" }
            @Persisted var name = ""
        }

        final class HolderV2: Object {
            override class func className() -> String { "MigratedHolder" }
            @Persisted var name = ""
            @Persisted var mixed: AnyRealmValue
            @Persisted var tags: List<String>
        }
    }

    /// A file holding one `MigratedHolder` named "old", at schema version 0.
    static func oldFile(in directory: TemporaryDirectory) async throws -> URL {
        let url = directory.url()
        let realm = try await Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [Migrated.HolderV1.self]))
        try await realm.asyncWrite { realm in try realm.create(Migrated.HolderV1.self, value: ["name": "old"]) }
        return url
    }

    /// The names the file holds, opened at schema version 0 again.
    static func names(in url: URL) async throws -> [String] {
        let realm = try await Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [Migrated.HolderV1.self]))
        return try await realm.read { realm in realm.objects(Migrated.HolderV1.self).map(\.name) }
    }

    /// A migration writing an oversized string nested in a mixed value fails to open with
    /// the typed error, and leaves the file as it was.
    @Test func migrationWritesKeepTheLimit() async throws {
        let directory = TemporaryDirectory()
        let url = try await Self.oldFile(in: directory)
        let big = Self.oversizedString
        var configuration = Realm.Configuration(fileURL: url, schemaVersion: 1, objectTypes: [Migrated.HolderV2.self])
        configuration.migrationBlock = { migration, _ in
            migration.enumerateObjects(ofType: "MigratedHolder") { _, newObject in
                newObject!["mixed"] = AnyRealmValue.fromArray([.fromDictionary(["k": .string(big)])])
            }
        }
        await #expect(throws: FloeError.valueTooLarge(table: "MigratedHolder", column: "mixed", size: Self.limit + 1, limit: Self.limit)) {
            _ = try await Realm(configuration: configuration)
        }
        #expect(try await Self.names(in: url) == ["old"])
    }

    /// A migration writing one value to a list property (rather than stopping the process) fails
    /// to open with a typed error naming the class, the property and the value.
    @Test func migrationWritingOneValueToAListIsATypedError() async throws {
        let directory = TemporaryDirectory()
        let url = try await Self.oldFile(in: directory)
        var configuration = Realm.Configuration(fileURL: url, schemaVersion: 1, objectTypes: [Migrated.HolderV2.self])
        configuration.migrationBlock = { migration, _ in
            migration.enumerateObjects(ofType: "MigratedHolder") { _, newObject in newObject!["tags"] = "one tag" }
        }
        let error = await #expect(throws: FloeError.self) { _ = try await Realm(configuration: configuration) }
        guard case .typeMismatch(let table, let column, _, let value)? = error else {
            Issue.record("expected a type mismatch, got \(String(describing: error))")
            return
        }
        #expect([table, column, value] == ["MigratedHolder", "tags", "'one tag'"])
        #expect(try await Self.names(in: url) == ["old"])
    }
}
