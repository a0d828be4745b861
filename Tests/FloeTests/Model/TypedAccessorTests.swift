import Foundation
import Testing
@_spi(Engine) @testable import Floe
@_spi(Engine) @testable import FloeEngine
@_spi(Engine) @testable import FloeStorage

/// A managed property of a plain type reads straight from its leaf while nothing has moved the
/// store's read epoch since the object last confirmed its row. These tests pin every rule that
/// must move the epoch (or keep the row valid): a write in place, a copied leaf, a rolled-back
/// write, another realm's commit, an object re-pointed by iteration that the caller kept.
@Suite struct TypedAccessorTests {
    final class Sample: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var int = 0
        @Persisted var int64: Int64 = 0
        @Persisted var int8: Int8 = 0
        @Persisted var double = 0.0
        @Persisted var float: Float = 0
        @Persisted var flag = false
        @Persisted var text = ""
        @Persisted var date = Date(timeIntervalSinceReferenceDate: 0)
        @Persisted var optionalInt: Int?
        @Persisted var optionalText: String?
        @Persisted var optionalDouble: Double?
        @Persisted var optionalFlag: Bool?
        @Persisted var optionalDate: Date?
    }

    /// Every plain property of one object, as text (two reads each: the second takes the fast path).
    static func describe(_ sample: Sample) -> String {
        let first = "\(sample.id) \(sample.int) \(sample.int64) \(sample.int8) \(sample.double) \(sample.float) \(sample.flag) \(sample.text) "
            + "\(sample.date.timeIntervalSinceReferenceDate) \(String(describing: sample.optionalInt)) \(String(describing: sample.optionalText)) "
            + "\(String(describing: sample.optionalDouble)) \(String(describing: sample.optionalFlag)) "
            + "\(String(describing: sample.optionalDate?.timeIntervalSinceReferenceDate))"
        let second = "\(sample.id) \(sample.int) \(sample.int64) \(sample.int8) \(sample.double) \(sample.float) \(sample.flag) \(sample.text) "
            + "\(sample.date.timeIntervalSinceReferenceDate) \(String(describing: sample.optionalInt)) \(String(describing: sample.optionalText)) "
            + "\(String(describing: sample.optionalDouble)) \(String(describing: sample.optionalFlag)) "
            + "\(String(describing: sample.optionalDate?.timeIntervalSinceReferenceDate))"
        return first == second ? first : "first read \(first), second read \(second)"
    }

    static func fill(_ sample: Sample, _ seed: Int) {
        sample.int = seed * 3 - 100
        sample.int64 = Int64(seed) << 40
        sample.int8 = Int8(truncatingIfNeeded: seed - 50)
        sample.double = Double(seed) + 0.25
        sample.float = Float(seed) / 4
        sample.flag = seed % 2 == 1
        sample.text = "text \(seed) ✓"
        sample.date = Date(timeIntervalSinceReferenceDate: Double(seed) * 1000.5)
        sample.optionalInt = seed % 3 == 0 ? nil : -seed
        sample.optionalText = seed % 3 == 1 ? nil : "optional \(seed)"
        sample.optionalDouble = seed % 3 == 2 ? nil : Double(seed) / 8
        sample.optionalFlag = seed % 4 == 0 ? nil : seed % 4 == 1
        sample.optionalDate = seed % 5 == 0 ? nil : Date(timeIntervalSinceReferenceDate: Double(-seed))
    }

    static func expected(_ seed: Int, id: Int) -> String {
        let sample = Sample()
        sample.id = id
        fill(sample, seed)
        return describe(sample)
    }

    static func makeRealm(count: Int = 300) async throws -> Realm {
        let realm = try await inMemoryRealm("typed", objectTypes: [Sample.self])
        try await realm.write { realm in
            for id in 0..<count {
                let sample = Sample()
                sample.id = id
                fill(sample, id)
                try realm.add(sample)
            }
        }
        return realm
    }

    @Test func everyPlainTypeReadsWhatWasStoredAndWritten() async throws {
        let realm = try await Self.makeRealm()
        let stored = try await realm.read { realm in realm.objects(Sample.self).map(Self.describe) }
        #expect(stored == (0..<300).map { Self.expected($0, id: $0) })
        // Inside a write: read (row confirmed), write in place, read again; then a neighbour.
        let written = try await realm.write { realm in
            var seen: [String] = []
            for id in [0, 1, 150, 299] {
                let sample = realm.object(ofType: Sample.self, forPrimaryKey: id)!
                _ = Self.describe(sample)
                Self.fill(sample, id + 1000)
                seen.append(Self.describe(sample))
            }
            return seen
        }
        #expect(written == [0, 1, 150, 299].map { Self.expected($0 + 1000, id: $0) })
        let after = try await realm.read { realm in [0, 1, 2, 150, 299].map { Self.describe(realm.object(ofType: Sample.self, forPrimaryKey: $0)!) } }
        #expect(after == [Self.expected(1000, id: 0), Self.expected(1001, id: 1), Self.expected(2, id: 2),
                          Self.expected(1150, id: 150), Self.expected(1299, id: 299)])
    }

    @Test func anObjectReadBeforeAWriteSeesTheWriteAndThenTheRollback() async throws {
        let realm = try await Self.makeRealm()
        let seen = await realm.readAcrossARolledBackWrite()
        // Before, inside the write (through another object of the same row), after the rollback.
        #expect(seen == [Self.expected(7, id: 7), Self.expected(77, id: 7), Self.expected(7, id: 7)])
    }

    @Test func anObjectSeesAnotherRealmsCommitOnTheSameFile() async throws {
        let directory = TemporaryDirectory()
        let configuration = Realm.Configuration(fileURL: directory.url(), objectTypes: [Sample.self])
        let first = try await Realm(configuration: configuration)
        let second = try await Realm(configuration: configuration)
        try await first.write { realm in
            let sample = Sample()
            sample.id = 1
            Self.fill(sample, 1)
            try realm.add(sample)
        }
        let seen = try await first.readAcrossACommit(of: second)
        #expect(seen == [Self.expected(1, id: 1), Self.expected(42, id: 1)])
    }

    /// Two realms' contexts on one store, on one thread, so that the order is exact: the first
    /// confirms its row while the second's write is open (the write's beginning already moved
    /// the epoch), and must still see the second's commit.
    @Test func aRowConfirmedDuringAnotherRealmsWriteIsReadAgainAfterItsCommit() throws {
        let store = Store.inMemory(identifier: "typed-contexts-\(UUID())")
        let first = try ObjectContext(store: store, isReadOnly: false, objectTypes: [Sample.self])
        let second = try ObjectContext(store: store, isReadOnly: false, objectTypes: [Sample.self])
        try first.write {
            let sample = Sample()
            sample.id = 1
            Self.fill(sample, 1)
            try first.add(sample, update: .error)
        }
        let sample = try #require(try first.object(ofType: Sample.self, primaryKey: .int(1)))
        var seen = [Self.describe(sample)]
        try second.beginWrite()
        seen.append(Self.describe(sample))   // confirmed again, at the epoch the write's beginning left
        Self.fill(try #require(try second.object(ofType: Sample.self, primaryKey: .int(1))), 42)
        seen.append(Self.describe(sample))   // the write is not committed: still the old values
        try second.commitWrite()
        seen.append(Self.describe(sample))
        #expect(seen == [Self.expected(1, id: 1), Self.expected(1, id: 1), Self.expected(1, id: 1), Self.expected(42, id: 1)])
    }

    @Test func objectsTheCallerKeepsWhileIteratingKeepTheirOwnRows() async throws {
        let realm = try await Self.makeRealm()
        let (kept, ids) = try await realm.read { realm in
            var kept: [Sample] = []
            var ids: [Int] = []
            for sample in realm.objects(Sample.self) {
                ids.append(sample.id)
                if sample.id % 7 == 0 { kept.append(sample) }
            }
            return (kept.map(Self.describe), ids)
        }
        #expect(ids == Array(0..<300))
        #expect(kept == stride(from: 0, to: 300, by: 7).map { Self.expected($0, id: $0) })
        // The same inside a write that changes each object as it goes (leaves are copied on the way).
        let written = try await realm.write { realm in
            var kept: [Sample] = []
            for sample in realm.objects(Sample.self) {
                sample.int += 1
                if sample.id % 11 == 0 { kept.append(sample) }
            }
            return kept.map { "\($0.id):\($0.int)" }
        }
        #expect(written == stride(from: 0, to: 300, by: 11).map { "\($0):\($0 * 3 - 100 + 1)" })
    }

    /// A walk reads every plain property through the typed reads inlined into the loop: the
    /// trusted read while nothing moved the read epoch, the checked read right after the loop
    /// body moved it (an insert, which changes the rows; a write that copies a leaf). Each
    /// object reads its own values, rewritten ones included, and objects kept after their reads
    /// keep their rows and values (the loop body then retains what it was handed).
    @Test func aWalkReadsEveryPlainTypeThroughTrustedAndCheckedReads() async throws {
        let realm = try await Self.makeRealm()
        let (walked, seen, kept) = try await realm.write { realm in
            var walked: [Int] = []
            var seen: [String] = []
            var kept: [Sample] = []
            for sample in realm.objects(Sample.self) {
                walked.append(sample.id)
                seen.append(Self.describe(sample))
                if sample.id % 13 == 0 { kept.append(sample) }
                if sample.id % 50 == 25 {
                    let added = Sample()
                    added.id = 10_000 + sample.id
                    Self.fill(added, added.id)
                    try realm.add(added)
                }
                if sample.id % 40 == 0 {
                    Self.fill(sample, sample.id + 500)
                    seen.append(Self.describe(sample))
                }
            }
            return (walked, seen, kept.map(Self.describe))
        }
        /// Object `id`'s description after the walk (every 40th rewritten with seed `id + 500`).
        func final(_ id: Int) -> String { Self.expected(id % 40 == 0 ? id + 500 : id, id: id) }
        var expectedSeen: [String] = []
        for id in 0..<300 {
            expectedSeen.append(Self.expected(id, id: id))
            if id % 40 == 0 { expectedSeen.append(final(id)) }
        }
        let expectedKept: [String] = stride(from: 0, to: 300, by: 13).map(final)
        var expectedAfter: [String] = (0..<300).map(final)
        for id in stride(from: 25, to: 300, by: 50) { expectedAfter.append(Self.expected(10_000 + id, id: 10_000 + id)) }
        #expect(walked == Array(0..<300))
        #expect(seen == expectedSeen)
        #expect(kept == expectedKept)
        let after = try await realm.read { realm in
            var described: [String] = []
            for sample in realm.objects(Sample.self) { described.append(Self.describe(sample)) }
            return described
        }
        #expect(after == expectedAfter)
    }

    @Test func rowsMovedByInsertsInFrontAreFoundByObjectsReadBefore() async throws {
        let realm = try await Self.makeRealm()
        let seen = try await realm.write { realm in
            let objects = [10, 200, 299].map { realm.object(ofType: Sample.self, forPrimaryKey: $0)! }
            let before = objects.map(Self.describe)
            for id in -500 ..< 0 {
                let sample = Sample()
                sample.id = id
                try realm.add(sample)
            }
            let afterInserts = objects.map(Self.describe)
            try realm.delete(realm.object(ofType: Sample.self, forPrimaryKey: 11)!)
            return [before, afterInserts, objects.map(Self.describe)]
        }
        let expected = [10, 200, 299].map { Self.expected($0, id: $0) }
        #expect(seen == [expected, expected, expected])
    }
}

extension Realm {
    /// Reads one object before a write, inside it (after another object of the same row wrote
    /// it), and after the write was rolled back.
    fileprivate func readAcrossARolledBackWrite() -> [String] {
        let sample = objects(TypedAccessorTests.Sample.self).filter { $0.id == 7 }.first!
        var seen = [TypedAccessorTests.describe(sample)]
        struct Stop: Error {}
        do {
            try write {
                TypedAccessorTests.fill(object(ofType: TypedAccessorTests.Sample.self, forPrimaryKey: 7)!, 77)
                seen.append(TypedAccessorTests.describe(sample))
                throw Stop()
            }
        } catch {}
        seen.append(TypedAccessorTests.describe(sample))
        return seen
    }

    /// Reads one object, lets `other` (another realm on the same file) commit a change to it,
    /// and reads the same object again.
    fileprivate func readAcrossACommit(of other: Realm) async throws -> [String] {
        let sample = object(ofType: TypedAccessorTests.Sample.self, forPrimaryKey: 1)!
        let before = TypedAccessorTests.describe(sample)
        try await other.write { realm in
            TypedAccessorTests.fill(realm.object(ofType: TypedAccessorTests.Sample.self, forPrimaryKey: 1)!, 42)
        }
        return [before, TypedAccessorTests.describe(sample)]
    }
}
