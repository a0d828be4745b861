import Foundation
import Testing
@_spi(Engine) @testable import Floe
@_spi(Engine) @testable import FloeEngine
@_spi(Engine) @testable import FloeStorage

/// A setter of a plain one-word property on a row whose leaf the open write already owns goes
/// to the column node the previous in-place write went to (the transaction's last target) and
/// extends the change log's run of written keys. These tests pin when that target may no
/// longer be used (any change but an in-place write through it: an insert that splits or
/// shifts the leaf, a delete, a value written the checked way, a schema change, the end of
/// the write), that rows written through it hold their values afterwards and nothing else
/// changed, and that observers still hear of every written object under its property name.
@Suite struct WritesInPlaceTests {
    final class Pet: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var age = 0
        @Persisted var weight = 0.0
        @Persisted var chip: Int?
        @Persisted var born = Date(timeIntervalSinceReferenceDate: 0)
        @Persisted var length: Float = 0
        @Persisted var vaccinated: Bool?
        @Persisted var checked: Date?
    }

    /// More pets than one leaf holds.
    static let pets = 1_200

    static func makeRealm() async throws -> Realm {
        let realm = try await inMemoryRealm("writes-in-place")
        try await realm.write { realm in
            for id in 0..<pets {
                let pet = Pet()
                pet.id = id
                pet.age = id % 20
                pet.weight = Double(id)
                try realm.add(pet)
            }
        }
        return realm
    }

    static func ages(_ realm: Realm) async throws -> [Int: Int] {
        try await realm.read { realm in Dictionary(uniqueKeysWithValues: realm.objects(Pet.self).map { ($0.id, $0.age) }) }
    }

    // MARK: The transaction's last target

    static let dogSpec = TableSpec(name: "Dog", columns: [
        ColumnSpec(name: "age", type: .int),
        ColumnSpec(name: "weight", type: .double, isNullable: true),
    ])

    /// A store with ten dogs (ages 0–9, no weight) and their keys.
    static func makeStore() throws -> (Store, TableHandle, [Int64]) {
        let store = Store.inMemory(identifier: "cell-target-\(UUID())")
        let setup = try store.beginWrite()
        let dogs = try setup.createTable(dogSpec)
        var keys: [Int64] = []
        for age in 0..<10 { keys.append(try setup.insertObject(into: dogs, values: [.int(Int64(age)), .null])) }
        try setup.commit()
        return (store, dogs, keys)
    }

    /// Makes `key`'s leaf the transaction's own and the last target of in-place writes to
    /// `column`; answers the row's position.
    static func target(_ transaction: WriteTransaction, _ dogs: TableHandle, key: Int64, column: Int, word: UInt64,
                       type: ColumnType) throws -> RowPosition {
        var position = try transaction.setValue(type == .int ? .int(Int64(bitPattern: word)) : .double(Double(bitPattern: word)),
                                                in: dogs, key: key, column: column, at: nil)
        #expect(transaction.writeWordInPlace(word, isNull: false, type: type, inTable: dogs.index, column: column, at: &position))
        return position
    }

    static func position(_ transaction: WriteTransaction, _ dogs: TableHandle, key: Int64) throws -> RowPosition {
        try #require(try transaction.position(of: key, in: dogs))
    }

    @Test func theLastTargetTakesRowsOfItsLeafAndColumnOnly() throws {
        let (store, dogs, keys) = try Self.makeStore()
        let transaction = try store.beginWrite()
        _ = try Self.target(transaction, dogs, key: keys[1], column: 0, word: 101, type: .int)
        var second = try Self.position(transaction, dogs, key: keys[2])
        #expect(LaneWriter(transaction).writeWordToLastTarget(102, isNull: false, type: .int, column: 0, at: &second))
        // Another column, another type, or null in a column that cannot hold it: not the target's.
        #expect(!LaneWriter(transaction).writeWordToLastTarget(Double(2.5).bitPattern, isNull: false, type: .double, column: 1, at: &second))
        #expect(!LaneWriter(transaction).writeWordToLastTarget(0, isNull: true, type: .int, column: 0, at: &second))
        #expect(!LaneWriter(transaction).writeWordToLastTarget(Double(2.5).bitPattern, isNull: false, type: .double, column: 0, at: &second))
        // Still the target after the refusals, which changed nothing.
        var third = try Self.position(transaction, dogs, key: keys[3])
        #expect(LaneWriter(transaction).writeWordToLastTarget(103, isNull: false, type: .int, column: 0, at: &third))
        try transaction.commit()
        let snapshot = try store.snapshot()
        #expect(try (0..<10).map { try snapshot.value(in: dogs, key: keys[$0], column: 0) }
            == [.int(0), .int(101), .int(102), .int(103), .int(4), .int(5), .int(6), .int(7), .int(8), .int(9)])
        #expect(try snapshot.value(in: dogs, key: keys[2], column: 1) == .null)
    }

    @Test func aNullableTargetStoresNullsAndValues() throws {
        let (store, dogs, keys) = try Self.makeStore()
        let transaction = try store.beginWrite()
        _ = try Self.target(transaction, dogs, key: keys[0], column: 1, word: Double(1.5).bitPattern, type: .double)
        var second = try Self.position(transaction, dogs, key: keys[1])
        #expect(LaneWriter(transaction).writeWordToLastTarget(Double(2.5).bitPattern, isNull: false, type: .double, column: 1, at: &second))
        #expect(LaneWriter(transaction).writeWordToLastTarget(0, isNull: true, type: .double, column: 1, at: &second))
        var third = try Self.position(transaction, dogs, key: keys[2])
        #expect(LaneWriter(transaction).writeWordToLastTarget(Double(3.5).bitPattern, isNull: false, type: .double, column: 1, at: &third))
        try transaction.commit()
        let snapshot = try store.snapshot()
        #expect(try (0..<4).map { try snapshot.value(in: dogs, key: keys[$0], column: 1) } == [.double(1.5), .null, .double(3.5), .null])
    }

    @Test func everyOtherChangeDropsTheLastTarget() throws {
        let (store, dogs, keys) = try Self.makeStore()
        let transaction = try store.beginWrite()

        // A value written the checked way (it may copy the column node).
        _ = try Self.target(transaction, dogs, key: keys[1], column: 0, word: 11, type: .int)
        try transaction.setValue(.int(12), in: dogs, key: keys[2], column: 0)
        var row = try Self.position(transaction, dogs, key: keys[3])
        #expect(!LaneWriter(transaction).writeWordToLastTarget(13, isNull: false, type: .int, column: 0, at: &row))

        // An insert into the leaf (the rows after it move).
        _ = try Self.target(transaction, dogs, key: keys[3], column: 0, word: 13, type: .int)
        let inserted = try transaction.insertObject(into: dogs, values: [.int(50), .null])
        row = try Self.position(transaction, dogs, key: keys[4])
        #expect(!LaneWriter(transaction).writeWordToLastTarget(14, isNull: false, type: .int, column: 0, at: &row))

        // A delete.
        _ = try Self.target(transaction, dogs, key: keys[4], column: 0, word: 14, type: .int)
        #expect(try transaction.deleteObject(from: dogs, key: keys[0]))
        row = try Self.position(transaction, dogs, key: keys[5])
        #expect(!LaneWriter(transaction).writeWordToLastTarget(15, isNull: false, type: .int, column: 0, at: &row))

        // A schema change, as a migration makes.
        _ = try Self.target(transaction, dogs, key: keys[5], column: 0, word: 15, type: .int)
        try transaction.addColumn(ColumnSpec(name: "name", type: .string, isNullable: true), to: dogs)
        row = try Self.position(transaction, dogs, key: keys[6])
        #expect(!LaneWriter(transaction).writeWordToLastTarget(16, isNull: false, type: .int, column: 0, at: &row))

        // The end of the write.
        var last = try Self.target(transaction, dogs, key: keys[6], column: 0, word: 16, type: .int)
        try transaction.commit()
        #expect(!LaneWriter(transaction).writeWordToLastTarget(17, isNull: false, type: .int, column: 0, at: &last))

        let snapshot = try store.snapshot()
        #expect(try snapshot.position(of: keys[0], in: dogs) == nil)
        #expect(try (1..<10).map { try snapshot.value(in: dogs, key: keys[$0], column: 0) }
            == [.int(11), .int(12), .int(13), .int(14), .int(15), .int(16), .int(7), .int(8), .int(9)])
        #expect(try snapshot.value(in: dogs, key: inserted, column: 0) == .int(50))
    }

    @Test func aRolledBackWriteLeavesNoTargetBehind() throws {
        let (store, dogs, keys) = try Self.makeStore()
        let abandoned = try store.beginWrite()
        var row = try Self.target(abandoned, dogs, key: keys[1], column: 0, word: 99, type: .int)
        abandoned.rollback()
        #expect(!LaneWriter(abandoned).writeWordToLastTarget(98, isNull: false, type: .int, column: 0, at: &row))
        let snapshot = try store.snapshot()
        #expect(try snapshot.value(in: dogs, key: keys[1], column: 0) == .int(1))
        #expect(snapshot.version == 1)
    }

    // MARK: The change log's runs

    @Test func runsOfWritesAreLoggedAsEveryKeyTheyWrote() throws {
        var log = ChangeLog()
        let slot = log.addSlot(named: "Dog", table: 0, layoutCount: 0)
        for key in [1, 2, 2, 3, 7, 8, 3] as [Int64] { log.appendCell(slot: slot, key: key, column: 1) }
        log.appendCell(slot: slot, key: 9, column: 2)
        log.append(.delete("Dog", 2))
        log.appendCell(slot: slot, key: .max, column: 1)
        log.appendCell(slot: slot, key: .min, column: 1)   // not the key after .max
        let changes = try log.changeSet().tables["Dog"]
        #expect(changes?.modified == [1: [1], 3: [1], 7: [1], 8: [1], 9: [2], .max: [1], .min: [1]])
        #expect(changes?.deleted == [2])
    }

    @Test func aWriteLoggedBeforeADeleteIsNotReportedAsAModification() throws {
        var log = ChangeLog()
        let slot = log.addSlot(named: "Dog", table: 0, layoutCount: 0)
        log.appendCell(slot: slot, key: 4, column: 0)
        log.appendCell(slot: slot, key: 5, column: 0)
        log.append(.delete("Dog", 5))
        log.append(.insert("Dog", 6))
        log.appendCell(slot: slot, key: 6, column: 0)   // inside an object created by the same write
        let changes = try log.changeSet().tables["Dog"]
        #expect(changes?.modified == [4: [0]])
        #expect(changes?.deleted == [5] && changes?.inserted == [6])
    }

    // MARK: Through the object API

    @Test func aLoopOfWritesReachesEveryObjectAndIsReportedForEach() async throws {
        let realm = try await Self.makeRealm()
        var changes = try await realm.read { realm in try realm.objects(Pet.self).changes }.makeAsyncIterator()
        _ = await changes.next()
        try await realm.write { realm in
            for pet in realm.objects(Pet.self) where pet.id % 3 != 1 { pet.age += 1 }
        }
        guard case .update(_, let deletions, let insertions, let modifications) = await changes.next() else {
            Issue.record("expected .update"); return
        }
        #expect(deletions.isEmpty && insertions.isEmpty)
        #expect(modifications == (0..<Self.pets).filter { $0 % 3 != 1 })
        let ages = try await Self.ages(realm)
        #expect(ages == Dictionary(uniqueKeysWithValues: (0..<Self.pets).map { ($0, $0 % 20 + ($0 % 3 != 1 ? 1 : 0)) }))
    }

    @Test func writesReportTheirPropertiesToObjectObservers() async throws {
        let realm = try await Self.makeRealm()
        var changes = try await realm.read { realm in try realm.object(ofType: Pet.self, forPrimaryKey: 6)!.changes }.makeAsyncIterator()
        try await realm.write { realm in
            for pet in realm.objects(Pet.self) {
                pet.age += 1             // a run over `age`
                if pet.id == 6 { pet.weight = 0.5 }   // another column in the middle of it
            }
        }
        guard case .change(let pet, let properties) = await changes.next() else { Issue.record("expected a change"); return }
        #expect(pet.age == 7 && pet.weight == 0.5)
        #expect(Set(properties.map(\.name)) == ["age", "weight"])
    }

    @Test func anInsertThatSplitsTheLeafBetweenTwoSetsMovesNoValue() async throws {
        let realm = try await Self.makeRealm()
        try await realm.write { realm in
            let first = realm.object(ofType: Pet.self, forPrimaryKey: 5)!
            let second = realm.object(ofType: Pet.self, forPrimaryKey: 6)!
            first.age = 100
            second.age = 101    // through the last target
            // Keys before every existing one: the first leaf fills, splits and its rows move.
            for id in 1...600 {
                let pet = Pet()
                pet.id = -id
                pet.age = 1_000
                try realm.add(pet)
            }
            first.age = 200
            second.age = 201
            #expect(first.age == 200 && second.age == 201)
            #expect(realm.object(ofType: Pet.self, forPrimaryKey: 4)!.age == 4)
            #expect(realm.object(ofType: Pet.self, forPrimaryKey: 7)!.age == 7)
        }
        let ages = try await Self.ages(realm)
        var expected = Dictionary(uniqueKeysWithValues: (0..<Self.pets).map { ($0, $0 % 20) })
        expected[5] = 200
        expected[6] = 201
        for id in 1...600 { expected[-id] = 1_000 }
        #expect(ages == expected)
    }

    @Test func aDeleteBetweenTwoSetsMovesNoValue() async throws {
        let realm = try await Self.makeRealm()
        try await realm.write { realm in
            let first = realm.object(ofType: Pet.self, forPrimaryKey: 10)!
            let second = realm.object(ofType: Pet.self, forPrimaryKey: 11)!
            first.age = 100
            second.age = 101
            try realm.delete(realm.object(ofType: Pet.self, forPrimaryKey: 9)!)   // the rows after it move up
            second.age = 201
            first.age = 200
            #expect(realm.object(ofType: Pet.self, forPrimaryKey: 12)!.age == 12)
        }
        let ages = try await Self.ages(realm)
        var expected = Dictionary(uniqueKeysWithValues: (0..<Self.pets).map { ($0, $0 % 20) })
        expected[9] = nil
        expected[10] = 200
        expected[11] = 201
        #expect(ages == expected)
    }

    @Test func aRolledBackLoopOfWritesLeavesEveryValueAndTheNextWriteWorks() async throws {
        struct Abandon: Error {}
        let realm = try await Self.makeRealm()
        await #expect(throws: Abandon.self) {
            try await realm.write { realm in
                for pet in realm.objects(Pet.self) {
                    pet.age += 1
                    pet.chip = pet.id
                }
                throw Abandon()
            }
        }
        #expect(try await Self.ages(realm) == Dictionary(uniqueKeysWithValues: (0..<Self.pets).map { ($0, $0 % 20) }))
        #expect(try await realm.read { realm in realm.objects(Pet.self).allSatisfy { $0.chip == nil } })
        try await realm.write { realm in
            for pet in realm.objects(Pet.self) { pet.age += 2 }
        }
        #expect(try await Self.ages(realm) == Dictionary(uniqueKeysWithValues: (0..<Self.pets).map { ($0, $0 % 20 + 2) }))
    }

    @Test func datesFloatsAndOptionalBoolsAndDatesAreWrittenInPlaceAndReadBack() async throws {
        struct Abandon: Error {}
        let realm = try await Self.makeRealm()
        var changes = try await realm.read { realm in try realm.object(ofType: Pet.self, forPrimaryKey: 8)!.changes }.makeAsyncIterator()
        func born(_ id: Int) -> Date { Date(timeIntervalSinceReferenceDate: Double(id) * 86_400.5) }
        func checked(_ id: Int) -> Date? { id % 4 == 0 ? nil : Date(timeIntervalSinceReferenceDate: -Double(id)) }
        func vaccinated(_ id: Int) -> Bool? { id % 3 == 0 ? nil : id % 3 == 1 }
        try await realm.write { realm in
            for pet in realm.objects(Pet.self) {
                pet.born = born(pet.id)
                pet.length = Float(pet.id) / 4
                pet.checked = Date(timeIntervalSinceReferenceDate: 1)   // then nil or another date
                pet.checked = checked(pet.id)
                pet.vaccinated = true
                pet.vaccinated = vaccinated(pet.id)
                #expect(pet.born == born(pet.id) && pet.checked == checked(pet.id) && pet.vaccinated == vaccinated(pet.id))
            }
        }
        let read = try await realm.read { realm in realm.objects(Pet.self).map { "\($0.born) \($0.length) \(String(describing: $0.checked)) \(String(describing: $0.vaccinated))" } }
        let expected = (0..<Self.pets).map { "\(born($0)) \(Float($0) / 4) \(String(describing: checked($0))) \(String(describing: vaccinated($0)))" }
        #expect(read == expected)
        guard case .change(_, let properties) = await changes.next() else { Issue.record("expected a change"); return }
        #expect(Set(properties.map(\.name)) == ["born", "length", "checked", "vaccinated"])

        await #expect(throws: Abandon.self) {
            try await realm.write { realm in
                for pet in realm.objects(Pet.self) {
                    pet.born = Date(timeIntervalSinceReferenceDate: 5)
                    pet.length = -1
                    pet.checked = nil
                    pet.vaccinated = nil
                }
                throw Abandon()
            }
        }
        let afterRollback = try await realm.read { realm in realm.objects(Pet.self).map { "\($0.born) \($0.length) \(String(describing: $0.checked)) \(String(describing: $0.vaccinated))" } }
        #expect(afterRollback == expected)
    }

    @Test func twoObjectsOfOneRowSeeEachOthersWrites() async throws {
        let realm = try await Self.makeRealm()
        try await realm.write { realm in
            let one = realm.object(ofType: Pet.self, forPrimaryKey: 3)!
            let other = realm.object(ofType: Pet.self, forPrimaryKey: 3)!
            one.age = 30
            other.age = 31
            #expect(one.age == 31)
            one.age += 1
            other.age += 1
            #expect(one.age == 33 && other.age == 33)
            one.chip = 7
            other.chip = nil
            #expect(one.chip == nil)
            other.chip = 8
            #expect(one.chip == 8)
        }
        let pet = try await realm.read { realm in
            let pet = realm.object(ofType: Pet.self, forPrimaryKey: 3)!
            return "\(pet.age) \(pet.chip ?? -1)"
        }
        #expect(pet == "33 8")
    }

    @Test func writesWhileIteratingAreReadBackInTheSameWrite() async throws {
        let realm = try await Self.makeRealm()
        try await realm.write { realm in
            let kept = realm.object(ofType: Pet.self, forPrimaryKey: 500)!
            var seen = 0
            for pet in realm.objects(Pet.self) {
                pet.age = pet.id
                pet.weight += 1
                #expect(pet.age == pet.id)
                if pet.id >= 500 { seen += kept.age == 500 ? 1 : 0 }
            }
            #expect(seen == Self.pets - 500)
            #expect(realm.objects(Pet.self).map(\.age) == Array(0..<Self.pets))
            let sum: Int = try realm.objects(Pet.self).sum(ofProperty: "age")
            #expect(sum == (0..<Self.pets).reduce(0, +))
        }
        let weights = try await realm.read { realm in realm.objects(Pet.self).map(\.weight) }
        #expect(weights == (0..<Self.pets).map { Double($0) + 1 })
    }
}
