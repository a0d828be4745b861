import Foundation
import Testing
@_spi(Engine) @testable import Floe
@_spi(Engine) @testable import FloeEngine
@_spi(Engine) @testable import FloeStorage

/// The typed row path of `add`: a class whose stored properties are all plain scalars
/// (`Int`, `Int64`, `Bool`, `Double`, `String`, optional `Int`, `Double`, `String`) is
/// stored by reading each field in place and appending it to its column of the table's last
/// leaf. Each case checks the stored values, and where the path must give way (a key the
/// table may hold, a full leaf, a value that fails a check, another class in between) that
/// the general path takes over with the same outcome.
@Suite struct TypedInsertTests {
    final class Reading: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var label = ""
        @Persisted var note: String?
        @Persisted var count: Int?
        @Persisted var big: Int64 = 0
        @Persisted var ratio = 0.0
        @Persisted var weight: Double?
        @Persisted var isOn = false

        convenience init(_ id: Int, label: String? = nil) {
            self.init()
            self.id = id
            self.label = label ?? "r\(id)"
            note = id % 3 == 0 ? nil : "n\(id)"
            count = id % 4 == 0 ? nil : id * 2
            big = Int64(id) * 1_000_000_007
            ratio = Double(id) / 8
            weight = id % 5 == 0 ? nil : Double(id) + 0.5
            isOn = id % 2 == 0
        }

        var summary: String {
            "\(id)|\(label)|\(note ?? "nil")|\(count.map(String.init) ?? "nil")|\(big)|\(ratio)|\(weight.map { "\($0)" } ?? "nil")|\(isOn)"
        }
    }

    /// No primary key: the next key is the object's.
    final class Entry: Object {
        @Persisted var text = ""
        @Persisted var amount = 0
    }

    /// A narrower integer and an indexed string: the general path, always.
    final class Narrow: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var small: Int8 = 0
        @Persisted(indexed: true) var code = ""
    }

    static func realm() async throws -> Realm {
        try await inMemoryRealm("typed-insert", objectTypes: [Reading.self, Entry.self, Narrow.self])
    }

    static func stored(_ realm: Realm) async throws -> [String] {
        try await realm.read { realm in realm.objects(Reading.self).map(\.summary) }
    }

    static func expected(_ ids: some Sequence<Int>) -> [String] {
        ids.sorted().map { Reading($0).summary }
    }

    @Test func optionalAndPlainFieldsReadBackAsGivenAndAsDefaults() async throws {
        let realm = try await Self.realm()
        try await realm.write { realm in
            for id in 0..<1_000 { try realm.add(Reading(id)) }
            // Nothing set at all: every field stores its type's default.
            let blank = Reading()
            blank.id = 1_000
            try realm.add(blank)
        }
        var expected = Self.expected(0..<1_000)
        expected.append("1000||nil|nil|0|0.0|nil|false")
        #expect(try await Self.stored(realm) == expected)
        // Nulls are stored as nulls, not as zeros: queries tell them apart.
        let (noNote, noCount, noWeight, on) = try await realm.read { realm in
            let readings = realm.objects(Reading.self)
            return (try readings.filter("note == nil").count, try readings.filter("count == nil").count,
                    try readings.filter("weight == nil").count, try readings.filter("isOn == true").count)
        }
        #expect(noNote == 335)     // ids divisible by 3, and the blank one
        #expect(noCount == 251)    // by 4, and the blank one
        #expect(noWeight == 201)   // by 5, and the blank one
        #expect(on == 500)
    }

    @Test func stringsOfEverySizeAreStoredWhole() async throws {
        let realm = try await Self.realm()
        // Empty, small (inline in the String), large, non-ASCII, and one of a megabyte.
        let labels = ["", "a", String(repeating: "x", count: 15), String(repeating: "y", count: 16), String(repeating: "z", count: 1_000),
                      "ção ñandú 漢字 🐕", String(repeating: "é", count: 70_000), String(repeating: "m", count: 1 << 20)]
        try await realm.write { realm in
            for (id, label) in labels.enumerated() { try realm.add(Reading(id, label: label)) }
        }
        let stored = try await realm.read { realm in realm.objects(Reading.self).map(\.label) }
        #expect(stored == labels)
    }

    @Test func aStringOverTheLimitIsRefusedNamingClassAndPropertyAndNothingOfTheWriteStays() async throws {
        let realm = try await Self.realm()
        try await realm.write { realm in
            for id in 0..<100 { try realm.add(Reading(id)) }
        }
        let huge = String(repeating: "h", count: WriteTransaction.maximumValueSize + 1)
        await #expect {
            try await realm.write { realm in
                for id in 100..<400 { try realm.add(Reading(id)) }
                try realm.add(Reading(400, label: huge))
            }
        } throws: { error in
            let message = "\(error)"
            return message.contains("Reading") && message.contains("label") && !message.contains("column")
        }
        #expect(try await Self.stored(realm) == Self.expected(0..<100))
        // Caught inside the write: the object refused is not stored and is still unmanaged.
        try await realm.write { realm in
            let refused = Reading(100, label: huge)
            #expect(throws: FloeError.self) { try realm.add(refused) }
            #expect(!refused.isManaged)
            for id in 100..<300 { try realm.add(Reading(id)) }
        }
        #expect(try await Self.stored(realm) == Self.expected(0..<300))
    }

    @Test func aPrimaryKeyClashInTheMiddleOfABatchRollsEverythingBack() async throws {
        let realm = try await Self.realm()
        try await realm.write { realm in
            for id in 0..<500 { try realm.add(Reading(id)) }
        }
        await #expect {
            try await realm.write { realm in
                for id in 500..<1_200 { try realm.add(Reading(id)) }
                try realm.add(Reading(900))   // added earlier in this very write, through the typed path
                for id in 1_200..<1_300 { try realm.add(Reading(id)) }
            }
        } throws: { error in
            guard case FloeError.duplicatePrimaryKey(let className, let property, let value) = error else { return false }
            return className == "Reading" && property == "id" && value == "900"
        }
        #expect(try await Self.stored(realm) == Self.expected(0..<500))
        // The table takes the same keys again, and appends run from where the first write ended.
        try await realm.write { realm in
            for id in 500..<1_300 { try realm.add(Reading(id)) }
        }
        #expect(try await Self.stored(realm) == Self.expected(0..<1_300))
    }

    @Test func aClashCaughtInsideTheWriteLeavesTheObjectUnmanagedAndTheRestStored() async throws {
        let realm = try await Self.realm()
        try await realm.write { realm in
            for id in 0..<300 { try realm.add(Reading(id)) }
            let clash = Reading(299, label: "other")
            #expect(throws: FloeError.self) { try realm.add(clash) }
            #expect(!clash.isManaged)
            for id in 300..<600 { try realm.add(Reading(id)) }
        }
        #expect(try await Self.stored(realm) == Self.expected(0..<600))
    }

    @Test func keysBelowTheLargestAndAfterADeleteGoWhereTheyBelong() async throws {
        let realm = try await Self.realm()
        try await realm.write { realm in
            for id in stride(from: 0, to: 2_000, by: 2) { try realm.add(Reading(id)) }
            // Below the largest key: each one is searched for and placed in its leaf.
            for id in stride(from: 1, to: 1_000, by: 2) { try realm.add(Reading(id)) }
            // Above again: appended.
            for id in 2_000..<2_300 { try realm.add(Reading(id)) }
        }
        #expect(try await Self.stored(realm) == Self.expected(Array(stride(from: 0, to: 2_000, by: 2)) + Array(stride(from: 1, to: 1_000, by: 2)) + Array(2_000..<2_300)))
        try await realm.write { realm in
            try realm.delete(realm.objects(Reading.self).filter("id >= 2200"))
            try realm.delete(realm.object(ofType: Reading.self, forPrimaryKey: 10)!)
            // After the deletes: the deleted keys are free again, the next ones are appended.
            for id in 2_200..<2_700 { try realm.add(Reading(id)) }
            try realm.add(Reading(10))
        }
        #expect(try await Self.stored(realm) == Self.expected(Array(stride(from: 0, to: 2_000, by: 2)) + Array(stride(from: 1, to: 1_000, by: 2)) + Array(2_000..<2_700)))
    }

    @Test func aBatchThatMixesClassesStoresEachInItsOwnTable() async throws {
        let realm = try await Self.realm()
        try await realm.write { realm in
            for id in 0..<1_500 {
                try realm.add(Reading(id))
                let entry = Entry()
                entry.text = "e\(id)"
                entry.amount = id
                try realm.add(entry)
                if id % 3 == 0 {
                    let narrow = Narrow()
                    narrow.id = id
                    narrow.small = Int8(id % 100)
                    narrow.code = "c\(id)"
                    try realm.add(narrow)
                }
            }
            // Then long runs of one class each.
            for id in 1_500..<2_000 { try realm.add(Reading(id)) }
            for id in 1_500..<2_000 {
                let entry = Entry()
                entry.text = "e\(id)"
                entry.amount = id
                try realm.add(entry)
            }
        }
        #expect(try await Self.stored(realm) == Self.expected(0..<2_000))
        let (entries, narrows, found) = try await realm.read { realm in
            (realm.objects(Entry.self).map { "\($0.text)=\($0.amount)" },
             realm.objects(Narrow.self).map { "\($0.id):\($0.small):\($0.code)" },
             try realm.objects(Narrow.self).filter("code == 'c999'").first?.id)
        }
        #expect(entries == (0..<2_000).map { "e\($0)=\($0)" })
        #expect(narrows == stride(from: 0, to: 1_500, by: 3).map { "\($0):\($0 % 100):c\($0)" })
        #expect(found == 999)
    }

    @Test func aClassWithoutPrimaryKeyGetsIncreasingKeysAcrossWrites() async throws {
        let realm = try await Self.realm()
        for round in 0..<3 {
            try await realm.write { realm in
                for index in 0..<700 {
                    let entry = Entry()
                    entry.text = "\(round)-\(index)"
                    try realm.add(entry)
                }
                if round == 1 { try realm.delete(realm.objects(Entry.self).filter("text BEGINSWITH '0-'")) }
            }
        }
        let texts = try await realm.read { realm in realm.objects(Entry.self).map(\.text) }
        #expect(texts == (1..<3).flatMap { round in (0..<700).map { "\(round)-\($0)" } })
    }

    @Test func addedObjectsAreManagedAndWriteThroughToTheirOwnRow() async throws {
        let realm = try await Self.realm()
        try await realm.write { realm in
            var added: [Reading] = []
            for id in 0..<600 {
                let reading = Reading(id)
                try realm.add(reading)
                added.append(reading)
            }
            let allManaged = added.allSatisfy { $0.isManaged }
            #expect(allManaged)
            // Adding a managed object again does nothing; each object reads and writes its row.
            try realm.add(added[3])
            #expect(added[257].label == "r257" && added[599].count == 1_198 && added[0].note == nil)
            added[257].label = "changed"
            added[12].note = "set"
            added[600 - 1].weight = nil
        }
        var expected = Self.expected(0..<600)
        let changed = Reading(257, label: "changed")
        let noted = Reading(12)
        noted.note = "set"
        let last = Reading(599)
        last.weight = nil
        expected[257] = changed.summary
        expected[12] = noted.summary
        expected[599] = last.summary
        #expect(try await Self.stored(realm) == expected)
    }

    @Test func updatePoliciesUpdateExistingKeysAndAppendNewOnes() async throws {
        let realm = try await Self.realm()
        try await realm.write { realm in
            for id in 0..<300 { try realm.add(Reading(id)) }
        }
        try await realm.write { realm in
            // Existing keys are updated; keys above all are added (by the typed path).
            for id in 250..<600 { try realm.add(Reading(id, label: "u\(id)"), update: .modified) }
            for id in 600..<700 { try realm.add(Reading(id, label: "a\(id)"), update: .all) }
            try realm.add(Reading(5, label: "a5"), update: .all)
        }
        let labels = try await realm.read { realm in realm.objects(Reading.self).map(\.label) }
        #expect(labels == (0..<700).map { id in
            id == 5 ? "a5" : id < 250 ? "r\(id)" : id < 600 ? "u\(id)" : "a\(id)"
        })
    }

    @Test func observersSeeTypedInsertionsAtTheirIndices() async throws {
        let realm = try await Self.realm()
        try await realm.write { realm in
            for id in stride(from: 0, to: 100, by: 10) { try realm.add(Reading(id)) }
        }
        var changes = try await realm.read { realm in try realm.objects(Reading.self).changes }.makeAsyncIterator()
        guard case .initial(let initial)? = await changes.next() else { Issue.record("expected .initial"); return }
        #expect(initial.count == 10)
        try await realm.write { realm in
            for id in 100..<400 { try realm.add(Reading(id)) }   // a run of appends
            try realm.add(Reading(55))                           // one below the largest key
            for id in 400..<450 { try realm.add(Reading(id)) }   // and another run
        }
        guard case .update(let readings, let deletions, let insertions, let modifications)? = await changes.next() else {
            Issue.record("expected .update"); return
        }
        #expect(readings.count == 361)
        #expect(deletions.isEmpty && modifications.isEmpty)
        // Sorted by key: 55 sits after 50 (index 6); the runs follow the first ten objects and it.
        let expectedInsertions: [Int] = [6] + Array(11..<361)
        #expect(insertions == expectedInsertions)
        var expectedIds: [Int] = [0, 10, 20, 30, 40, 50, 55, 60, 70, 80, 90]
        expectedIds += Array(100..<450)
        #expect(readings.map(\.id) == expectedIds)
    }

    @Test func narrowIntegersAndIndexedColumnsStillCheckEveryValue() async throws {
        let realm = try await Self.realm()
        try await realm.write { realm in
            for id in 0..<300 {
                let narrow = Narrow()
                narrow.id = id
                narrow.code = "c\(id)"
                try realm.add(narrow)
            }
        }
        let found = try await realm.read { realm in try realm.objects(Narrow.self).filter("code == 'c123'").first?.id }
        #expect(found == 123)
    }

    @Test func engineTypedAppendGivesWayWhenItCannotAppend() throws {
        let directory = TemporaryDirectory()
        let store = try Store.open(path: directory.file(), options: StoreOptions(durability: .none))
        let transaction = try store.beginWrite()
        let table = try transaction.createTable(TableSpec(name: "Row", columns: [
            ColumnSpec(name: "id", type: .int, isPrimaryKey: true), ColumnSpec(name: "s", type: .string, isNullable: true),
        ]))
        // Kinds the columns do not take as they are: no layout.
        #expect(try transaction.typedAppendLayout(for: table, kinds: [.int, .int]) == nil)
        #expect(try transaction.typedAppendLayout(for: table, kinds: [.optionalInt, .string]) == nil)
        let layout = try #require(try transaction.typedAppendLayout(for: table, kinds: [.int, .optionalString]))
        // No insert yet (no cursor): the caller must take the general path.
        #expect(transaction.appendTypedRow(layout, key: 0) { _ in Issue.record("filled without a cursor") } == nil)
        try transaction.insertObject(into: table, values: [.int(0), .null])
        for key in Int64(1)..<Int64(ClusterTree.leafCapacity) {
            let appended = transaction.appendTypedRow(layout, key: key) { row in
                row.append(key)
                row.append(key % 2 == 0 ? "s\(key)" : nil)
            }
            #expect(appended == key)
        }
        // A key the table may hold, and a full leaf: not appended, nothing changed.
        #expect(transaction.appendTypedRow(layout, key: 7) { _ in Issue.record("filled for a key below the largest") } == nil)
        #expect(transaction.appendTypedRow(layout, key: Int64(ClusterTree.leafCapacity)) { _ in Issue.record("filled a full leaf") } == nil)
        #expect(try transaction.objectCount(in: table) == ClusterTree.leafCapacity)
        // A schema change makes the layout stale.
        try transaction.insertObject(into: table, values: [.int(Int64(ClusterTree.leafCapacity)), .null])
        try transaction.addColumn(ColumnSpec(name: "n", type: .int), to: table)
        #expect(transaction.appendTypedRow(layout, key: 1_000) { _ in Issue.record("filled under a stale layout") } == nil)
        try transaction.commit()
        let snapshot = try store.snapshot()
        let stored = try snapshot.table(named: "Row")
        #expect(try snapshot.objectCount(in: stored) == ClusterTree.leafCapacity + 1)
        #expect(try snapshot.value(in: stored, key: 2, column: 1) == .string("s2"))
        #expect(try snapshot.value(in: stored, key: 3, column: 1) == .null)
        #expect(try snapshot.value(in: stored, key: 100, column: 0) == .int(100))
    }
}
