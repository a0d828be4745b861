import Foundation
import Testing
@_spi(Engine) @testable import Floe
@_spi(Engine) @testable import FloeEngine
@_spi(Engine) @testable import FloeStorage

/// Batch paths: inserts in key order fill a table's last leaf in place (the write's append
/// cursor), `append(objectsIn:)` fills a list's last leaf in runs, iterating a list of
/// scalars reads its leaves' typed storage, and deleting every object of a class that nothing
/// links to drops them at once. Each is checked where it must give way to the general path.
@Suite struct BulkWriteTests {
    final class Item: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var size = 0
    }

    final class Owner: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var items: List<Item>
        @Persisted var favourite: Item?
    }

    final class Tag: EmbeddedObject {
        @Persisted var label = ""
    }

    final class Tagged: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var tag: Tag?
    }

    final class Numbers: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var ints: List<Int>
        @Persisted var int32s: List<Int32>
        @Persisted var doubles: List<Double>
        @Persisted var floats: List<Float>
        @Persisted var flags: List<Bool>
        @Persisted var strings: List<String>
        @Persisted var dates: List<Date>
        @Persisted var optionalInts: List<Int?>
    }

    static func realm(_ types: [ObjectBase.Type] = [Item.self, Owner.self, Tag.self, Tagged.self, Numbers.self]) async throws -> Realm {
        try await inMemoryRealm("bulk", objectTypes: types)
    }

    static func item(_ id: Int) -> Item {
        let item = Item()
        item.id = id
        item.name = "item\(id)"
        item.size = id % 7
        return item
    }

    static func contents(_ realm: Realm) async throws -> [String] {
        try await realm.read { realm in realm.objects(Item.self).map { "\($0.id):\($0.name):\($0.size)" } }
    }

    static func expected(_ ids: some Sequence<Int>) -> [String] {
        ids.sorted().map { "\($0):item\($0):\($0 % 7)" }
    }

    // MARK: The append cursor

    @Test func addingInKeyOrderFillsLeavesAndEveryObjectReadsBack() async throws {
        let realm = try await Self.realm()
        // Several leaves' worth, so runs end in splits of the leaf and of inner nodes.
        let count = 20_000
        let sizes = try await realm.write { realm in
            var added: [Item] = []
            for id in 0..<count {
                let item = Self.item(id)
                try realm.add(item)
                added.append(item)
            }
            // Objects added early still read their own row after the leaf grew and split.
            return added.reduce(0) { $0 + $1.size }
        }
        #expect(sizes == (0..<count).reduce(0) { $0 + $1 % 7 })
        #expect(try await Self.contents(realm) == Self.expected(0..<count))
        let found = try await realm.read { realm in
            [0, 255, 256, 257, 12_345, count - 1].map { realm.object(ofType: Item.self, forPrimaryKey: $0)?.name ?? "-" }
        }
        #expect(found == ["item0", "item255", "item256", "item257", "item12345", "item\(count - 1)"])
    }

    @Test func keysThatDoNotIncreaseTakeTheGeneralPathAndStaySorted() async throws {
        let realm = try await Self.realm()
        try await realm.write { realm in
            for id in 500..<1_000 { try realm.add(Self.item(id)) }
            for id in 0..<500 { try realm.add(Self.item(id)) }        // below every key: a descent each
            for id in 2_000..<2_600 { try realm.add(Self.item(id)) }  // above again: appended
            for id in stride(from: 1_999, through: 1_000, by: -1) { try realm.add(Self.item(id)) }
        }
        #expect(try await Self.contents(realm) == Self.expected(0..<2_600))
    }

    @Test func addingAfterADeleteInTheSameWriteKeepsTheTreeRight() async throws {
        let realm = try await Self.realm()
        try await realm.write { realm in
            for id in 0..<600 { try realm.add(Self.item(id)) }
            // Deletes move rows: the cursor must not be trusted after them.
            try realm.delete(realm.object(ofType: Item.self, forPrimaryKey: 599)!)
            try realm.delete(realm.objects(Item.self).filter("id < 300"))
            for id in 600..<1_200 { try realm.add(Self.item(id)) }
            // A value written in the last leaf does not move rows; appending goes on.
            realm.object(ofType: Item.self, forPrimaryKey: 1_199)!.size = 100
            for id in 1_200..<1_300 { try realm.add(Self.item(id)) }
        }
        var expected = Self.expected(Array(300..<599) + Array(600..<1_300))
        expected[expected.firstIndex(of: "1199:item1199:\(1_199 % 7)")!] = "1199:item1199:100"
        #expect(try await Self.contents(realm) == expected)
        try await realm.write { realm in
            for id in 1_300..<1_400 { try realm.add(Self.item(id)) }
        }
        #expect(try await realm.read { realm in realm.objects(Item.self).count } == 1_099)
    }

    @Test func interleavedAddsIntoTwoClassesAreAllStored() async throws {
        let realm = try await Self.realm()
        try await realm.write { realm in
            for id in 0..<700 {
                let owner = Owner()
                owner.id = id
                owner.favourite = Self.item(id)   // added with its owner: inserts alternate between the tables
                try realm.add(owner)
            }
        }
        #expect(try await Self.contents(realm) == Self.expected(0..<700))
        let favourites = try await realm.read { realm in realm.objects(Owner.self).map { $0.favourite?.id ?? -1 } }
        #expect(favourites == Array(0..<700))
    }

    @Test func aBatchAddThatFailsHalfWayOnADuplicateKeyLeavesNothing() async throws {
        let realm = try await Self.realm()
        try await realm.write { realm in
            for id in 0..<300 { try realm.add(Self.item(id)) }
        }
        await #expect(throws: FloeError.self) {
            try await realm.write { realm in
                for id in 300..<900 { try realm.add(Self.item(id)) }
                try realm.add(Self.item(450))   // a duplicate, after a long run of appends
            }
        }
        #expect(try await Self.contents(realm) == Self.expected(0..<300))
        // The next write appends from a clean start.
        try await realm.write { realm in
            for id in 300..<900 { try realm.add(Self.item(id)) }
        }
        #expect(try await Self.contents(realm) == Self.expected(0..<900))
    }

    @Test func aDuplicateCaughtInsideTheWriteLeavesTheRunUsable() async throws {
        let realm = try await Self.realm()
        try await realm.write { realm in
            for id in 0..<400 { try realm.add(Self.item(id)) }
            #expect(throws: FloeError.self) { try realm.add(Self.item(399)) }
            for id in 400..<800 { try realm.add(Self.item(id)) }
        }
        #expect(try await Self.contents(realm) == Self.expected(0..<800))
    }

    @Test func aBatchAddRolledBackByAThrowingClosureLeavesNothing() async throws {
        struct Stop: Error {}
        let realm = try await Self.realm()
        try await realm.write { realm in
            for id in 0..<300 { try realm.add(Self.item(id)) }
        }
        await #expect(throws: Stop.self) {
            try await realm.write { realm in
                for id in 300..<1_000 { try realm.add(Self.item(id)) }
                throw Stop()
            }
        }
        #expect(try await Self.contents(realm) == Self.expected(0..<300))
        try await realm.write { realm in
            for id in 300..<400 { try realm.add(Self.item(id)) }
        }
        #expect(try await Self.contents(realm) == Self.expected(0..<400))
    }

    @Test func engineInsertsInKeyOrderMixedWithEveryOtherChangeVerify() throws {
        let directory = TemporaryDirectory()
        let store = try Store.open(path: directory.file(), options: StoreOptions(durability: .none))
        let spec = TableSpec(name: "Row", columns: [ColumnSpec(name: "n", type: .int), ColumnSpec(name: "s", type: .string)])
        var random = SeededGenerator(seed: 7)
        var expected: [Int64: Int64] = [:]
        do {
            let transaction = try store.beginWrite()
            try transaction.createTable(spec)
            try transaction.commit()
        }
        for round in 0..<6 {
            let transaction = try store.beginWrite()
            let table = try transaction.table(named: "Row")
            for _ in 0..<2_000 {
                switch Int.random(in: 0..<20, using: &random) {
                case 0:
                    if let key = expected.keys.randomElement(using: &random) {
                        #expect(try transaction.deleteObject(from: table, key: key))
                        expected[key] = nil
                    }
                case 1:
                    if let key = expected.keys.randomElement(using: &random) {
                        let n = Int64.random(in: 0..<1_000, using: &random)
                        try transaction.setValue(.int(n), in: table, key: key, column: 0)
                        expected[key] = n
                    }
                case 2:
                    // Below the largest key: the general path.
                    let key = Int64.random(in: 0..<Int64(20_000), using: &random)
                    guard expected[key] == nil else { continue }
                    try transaction.insertObject(into: table, key: key, values: [.int(key), .string("\(key)")])
                    expected[key] = key
                default:
                    let n = Int64(expected.count)
                    let key = try transaction.insertObject(into: table, values: [.int(n), .string("\(n)")])
                    expected[key] = n
                }
            }
            if round == 3 {
                transaction.rollback()
                // Everything of this round goes: reload what the store holds.
                let snapshot = try store.snapshot()
                let table = try snapshot.table(named: "Row")
                expected = [:]
                for key in try snapshot.objectKeys(in: table) {
                    if case .int(let n) = try snapshot.value(in: table, key: key, column: 0) { expected[key] = n }
                }
                continue
            }
            #expect(try transaction.objectKeys(in: table) == expected.keys.sorted())
            try transaction.commit()
            let report = try store.verify()
            #expect(report.isValid, "\(report)")
        }
        let snapshot = try store.snapshot()
        let table = try snapshot.table(named: "Row")
        for (key, n) in expected { #expect(try snapshot.value(in: table, key: key, column: 0) == .int(n)) }
        store.close()
    }

    // MARK: Lists filled in runs

    @Test func appendingASequenceFillsLeavesAcrossWrites() async throws {
        let realm = try await Self.realm()
        try await realm.write { realm in
            let numbers = Numbers()
            try realm.add(numbers)
            numbers.ints.append(objectsIn: 0..<2_500)          // three leaves, the last part full
        }
        let frozen = try await realm.read { realm in try realm.freeze() }
        try await realm.write { realm in
            let numbers = realm.object(ofType: Numbers.self, forPrimaryKey: 0)!
            numbers.ints.append(objectsIn: 2_500..<4_100)      // fills the committed last leaf first
            numbers.ints.append(7)
            numbers.ints.append(objectsIn: [Int]())
            numbers.ints.append(objectsIn: 4_100..<4_105)
            numbers.ints.insert(-1, at: 1_000)
        }
        let read = try await realm.read { realm in Array(realm.object(ofType: Numbers.self, forPrimaryKey: 0)!.ints) }
        var expected = Array(0..<4_100) + [7] + Array(4_100..<4_105)
        expected.insert(-1, at: 1_000)
        #expect(read == expected)
        let counted = try await realm.read { realm in
            let list = realm.object(ofType: Numbers.self, forPrimaryKey: 0)!.ints
            return (list.count, list[999], list[1_000], list[4_106])
        }
        #expect(counted.0 == expected.count && counted.1 == 999 && counted.2 == -1 && counted.3 == 4_104)
        // The version frozen before the second write still holds the first write's list.
        #expect(Array(try frozen.object(ofType: Numbers.self, forPrimaryKey: 0)!.ints) == Array(0..<2_500))
    }

    @Test func aListAppendedWhileIteratedIteratesWhatItHeldAtTheStart() async throws {
        let realm = try await Self.realm()
        let (seen, total) = try await realm.write { realm in
            let numbers = Numbers()
            try realm.add(numbers)
            numbers.ints.append(objectsIn: 0..<1_500)
            var seen = 0
            for value in numbers.ints {
                if value % 500 == 0 { numbers.ints.append(objectsIn: [value, value]) }
                seen += 1
            }
            return (seen, numbers.ints.count)
        }
        #expect(seen == 1_500)
        #expect(total == 1_506)
    }

    @Test func aListAppendOfAValueThatDoesNotFitFailsTheWholeWrite() async throws {
        let realm = try await Self.realm()
        try await realm.write { realm in
            let numbers = Numbers()
            try realm.add(numbers)
            numbers.strings.append(objectsIn: ["a", "b"])
        }
        await #expect(throws: FloeError.self) {
            try await realm.write { realm in
                let numbers = realm.object(ofType: Numbers.self, forPrimaryKey: 0)!
                numbers.strings.append(objectsIn: ["c", String(repeating: "x", count: WriteTransaction.maximumValueSize + 1), "d"])
            }
        }
        #expect(try await realm.read { realm in Array(realm.object(ofType: Numbers.self, forPrimaryKey: 0)!.strings) } == ["a", "b"])
    }

    // MARK: Typed list iteration

    @Test func iteratingListsOfScalarsReadsEveryElement() async throws {
        let realm = try await Self.realm()
        let base = Date(timeIntervalSinceReferenceDate: 1_000)
        try await realm.write { realm in
            let numbers = Numbers()
            try realm.add(numbers)
            numbers.ints.append(objectsIn: (0..<2_100).map { $0 * 3 - 1_000 })
            numbers.int32s.append(objectsIn: [Int32.min, -1, 0, Int32.max])
            numbers.doubles.append(objectsIn: [-0.5, 0, 1e300, .infinity])
            numbers.floats.append(objectsIn: [1.5, -2.25])
            numbers.flags.append(objectsIn: [true, false, true])
            numbers.strings.append(objectsIn: (0..<1_200).map { "s\($0)" })
            numbers.dates.append(objectsIn: [base, base.addingTimeInterval(0.25)])
            numbers.optionalInts.append(objectsIn: [1, nil, 3])
        }
        try await realm.read { realm in
            let numbers = realm.object(ofType: Numbers.self, forPrimaryKey: 0)!
            #expect(Array(numbers.ints) == (0..<2_100).map { $0 * 3 - 1_000 })
            #expect(Array(numbers.int32s) == [Int32.min, -1, 0, Int32.max])
            #expect(Array(numbers.doubles) == [-0.5, 0, 1e300, .infinity])
            #expect(Array(numbers.floats) == [1.5, -2.25])
            #expect(Array(numbers.flags) == [true, false, true])
            #expect(Array(numbers.strings) == (0..<1_200).map { "s\($0)" })
            #expect(Array(numbers.dates) == [base, base.addingTimeInterval(0.25)])
            #expect(Array(numbers.optionalInts) == [1, nil, 3])
            // The typed read agrees with the element-by-element subscript.
            #expect(numbers.ints.indices.allSatisfy { numbers.ints[$0] == $0 * 3 - 1_000 })
        }
        // Inside a write the iteration sees the write's own appends.
        let inWrite = try await realm.write { realm in
            let numbers = realm.object(ofType: Numbers.self, forPrimaryKey: 0)!
            numbers.ints.removeAll()
            numbers.ints.append(objectsIn: [5, 6])
            return Array(numbers.ints)
        }
        #expect(inWrite == [5, 6])
    }

    // MARK: Deleting every object of a class

    @Test func deletingEveryObjectOfAClassNothingLinksToEmptiesItAndInvalidatesItsObjects() async throws {
        let realm = try await inMemoryRealm("bulk", objectTypes: [Item.self])
        let (invalidated, count) = try await realm.write { realm in
            for id in 0..<1_000 { try realm.add(Self.item(id)) }
            let kept = realm.object(ofType: Item.self, forPrimaryKey: 10)!
            _ = kept.name
            try realm.delete(realm.objects(Item.self))
            return (kept.isInvalidated, realm.objects(Item.self).count)
        }
        #expect(invalidated)
        #expect(count == 0)
        #expect(try await Self.contents(realm).isEmpty)
        // New objects go in after the drop, keys from the start again included.
        try await realm.write { realm in for id in 0..<10 { try realm.add(Self.item(id)) } }
        #expect(try await Self.contents(realm) == Self.expected(0..<10))
    }

    @Test func deletingEveryObjectOfAClassThatIsLinkedToClearsTheLinks() async throws {
        let realm = try await Self.realm()
        try await realm.write { realm in
            for id in 0..<50 {
                let owner = Owner()
                owner.id = id
                owner.favourite = Self.item(id)
                owner.items.append(objectsIn: [Self.item(100 + id)])
                try realm.add(owner)
            }
            try realm.delete(realm.objects(Item.self))
        }
        let state = try await realm.read { realm in
            (realm.objects(Item.self).count, realm.objects(Owner.self).map { "\($0.favourite == nil):\($0.items.count)" })
        }
        #expect(state.0 == 0)
        #expect(state.1 == Array(repeating: "true:0", count: 50))
    }

    @Test func deletingEveryOwnerOfEmbeddedObjectsDeletesThemToo() async throws {
        let realm = try await Self.realm()
        try await realm.write { realm in
            for id in 0..<20 {
                let tagged = Tagged()
                tagged.id = id
                tagged.tag = Tag()
                tagged.tag!.label = "t\(id)"
                try realm.add(tagged)
            }
            try realm.delete(realm.objects(Tagged.self))
        }
        let embedded = try await realm.read { realm in
            try realm.freeze().objects(Tagged.self).count
        }
        #expect(embedded == 0)
        // The embedded class's table holds nothing once its owners are gone (checked through the engine).
        let left = try await realm.read { realm in
            try realm._access.context.currentReader().objectCount(in: try realm._access.context.currentReader().table(named: "Tag"))
        }
        #expect(left == 0)
    }

    @Test func deletingEveryObjectInAWriteThatThrowsLeavesThemAll() async throws {
        struct Stop: Error {}
        let realm = try await inMemoryRealm("bulk", objectTypes: [Item.self])
        try await realm.write { realm in for id in 0..<400 { try realm.add(Self.item(id)) } }
        await #expect(throws: Stop.self) {
            try await realm.write { realm in
                try realm.delete(realm.objects(Item.self))
                throw Stop()
            }
        }
        #expect(try await Self.contents(realm) == Self.expected(0..<400))
        // Filtered results delete only what matches.
        try await realm.write { realm in try realm.delete(realm.objects(Item.self).filter("id >= 100")) }
        #expect(try await Self.contents(realm) == Self.expected(0..<100))
    }
}
