import Foundation
import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

/// Every stored type against a model kept in Swift: filters (with and without an index, `IN`,
/// string and builder forms), sorts both ways, `distinct`, aggregates and sorted-results streams
/// answer as Swift's own comparisons do under Floe's one rule for values: numbers by value
/// across kinds (Decimal128 numerically), NaN equal to NaN and matching no ordered comparison
/// and sorting first among numbers, nulls first, strings by Swift's canonical equivalence.
@Suite struct ValueRuleDifferentialTests {
    final class Specimen: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var int: Int?
        @Persisted var int8: Int8?
        @Persisted var int16: Int16?
        @Persisted var int32: Int32?
        @Persisted var int64: Int64?
        @Persisted var float: Float?
        @Persisted var double: Double?
        @Persisted var decimal: Decimal128?
        @Persisted var date: Date?
        @Persisted var string: String?
        @Persisted var data: Data?
        @Persisted var objectId: ObjectId?
        @Persisted var uuid: UUID?
        @Persisted var bool: Bool?
        @Persisted var requiredDecimal: Decimal128 = 0
        @Persisted var requiredDouble = 0.0
        @Persisted var requiredString = ""
        @Persisted(indexed: true) var indexedInt: Int?
        @Persisted(indexed: true) var indexedString: String?
        @Persisted(indexed: true) var indexedDate: Date?
        @Persisted(indexed: true) var indexedObjectId: ObjectId?
        @Persisted(indexed: true) var indexedUUID: UUID?
        @Persisted(indexed: true) var indexedBool: Bool?
        @Persisted var mixed: AnyRealmValue
        @Persisted(indexed: true) var indexedMixed: AnyRealmValue
        @Persisted var tick = 0
    }

    /// A value as the model sees it.
    enum Ref: Sendable, CustomStringConvertible {
        case null, bool(Bool), number(Decimal128), string(String), data(Data), date(Double), objectId(ObjectId), uuid(UUID)

        var rank: Int {
            switch self {
            case .null: return 0
            case .bool: return 1
            case .number: return 2
            case .string: return 3
            case .data: return 4
            case .date: return 5
            case .objectId: return 6
            case .uuid: return 7
            }
        }

        var isNaN: Bool {
            if case .number(let number) = self { return number.isNaN }
            if case .date(let seconds) = self { return seconds.isNaN }
            return false
        }

        var description: String {
            switch self {
            case .null: return "nil"
            case .bool(let v): return "\(v)"
            case .number(let v): return "\(v)"
            case .string(let v): return "\(v.unicodeScalars.map { String($0.value, radix: 16) })"
            case .data(let v): return "\([UInt8](v))"
            case .date(let v): return "date(\(v))"
            case .objectId(let v): return "\(v)"
            case .uuid(let v): return "\(v)"
            }
        }

        /// The total order a sort follows: null, then kinds in Realm's order, NaN first among
        /// numbers; nil within a kind is never reached.
        static func order(_ a: Ref, _ b: Ref) -> Int {
            if a.rank != b.rank { return a.rank < b.rank ? -1 : 1 }
            if a.isNaN || b.isNaN { return a.isNaN == b.isNaN ? 0 : (a.isNaN ? -1 : 1) }
            func cmp<T: Comparable>(_ x: T, _ y: T) -> Int { x == y ? 0 : (x < y ? -1 : 1) }
            switch (a, b) {
            case (.null, .null): return 0
            case let (.bool(x), .bool(y)): return x == y ? 0 : (!x ? -1 : 1)
            case let (.number(x), .number(y)): return cmp(x, y)
            case let (.string(x), .string(y)): return cmp(x, y)
            case let (.data(x), .data(y)): return x == y ? 0 : (x.lexicographicallyPrecedes(y) ? -1 : 1)
            case let (.date(x), .date(y)): return cmp(x, y)
            case let (.objectId(x), .objectId(y)): return cmp(x, y)
            case let (.uuid(x), .uuid(y)): return x == y ? 0 : (withUnsafeBytes(of: x.uuid) { xb in withUnsafeBytes(of: y.uuid) { yb in xb.lexicographicallyPrecedes(yb) } } ? -1 : 1)
            default: return 0
            }
        }

        /// What a query comparison answers: null equals only null and is never ordered; NaN
        /// equals NaN and is never ordered; different kinds are only unequal.
        static func matches(_ a: Ref, _ op: String, _ b: Ref) -> Bool {
            if case .null = a { return op == "==" ? b.rank == 0 : (op == "!=" ? b.rank != 0 : false) }
            if case .null = b { return op == "!=" }
            if a.rank != b.rank { return op == "!=" }
            if ["<", "<=", ">", ">="].contains(op) && (a.isNaN || b.isNaN) { return false }
            let order = order(a, b)
            switch op {
            case "==": return order == 0
            case "!=": return order != 0
            case "<": return order < 0
            case "<=": return order <= 0
            case ">": return order > 0
            default: return order >= 0
            }
        }
    }

    /// One property: the values it takes (as `create` takes them, and as the model sees them)
    /// and whether ordered comparisons apply.
    struct Column: @unchecked Sendable {
        let name: String
        let pool: [(stored: Any, ref: Ref)]
        /// Further query arguments of other kinds (an Int or Double against a Decimal128).
        let arguments: [(stored: Any, ref: Ref)]
        let ordered: Bool
        let numeric: Bool
    }

    static func number(_ value: Decimal128) -> Ref { .number(value) }

    static let decimals: [Decimal128] = ["12.34", "0", "5", "100", "-3.5", "5.00", "-0", "5.0", "1E+40", "0.1", .nan, .infinity, -Decimal128.infinity]
    static let doubles: [Double] = [.nan, -0.0, 0, 5, 5.5, 12.34, 0.1, 9_007_199_254_740_992, -1e300, .infinity, -.infinity, 100]
    static let floats: [Float] = [.nan, -1.5, 0, 2.5, 5, .infinity, -.infinity]
    static let ints: [Int] = [.min, -1, 0, 1, 5, 9_007_199_254_740_993, .max, 100]
    static let strings = ["", "a", "B", "é", "e\u{301}", "z", "ä", "ab", "A", "\u{1F600}"]
    static let dates = [-1e9, 0, 1.5, 7e8, 7e8 + 0.25].map { Date(timeIntervalSinceReferenceDate: $0) }
    static let objectIds = (0..<4).map { _ in ObjectId.generate() }
    static let uuids = (0..<4).map { _ in UUID() }

    static func pool<T>(_ values: [T], _ ref: (T) -> Ref, optional: Bool = true) -> [(stored: Any, ref: Ref)] {
        values.map { ($0 as Any, ref($0)) } + (optional ? [(NSNull() as Any, Ref.null)] : [])
    }

    nonisolated(unsafe) static let mixedPool: [(stored: Any, ref: Ref)] = [
        (AnyRealmValue.none, .null), (AnyRealmValue.int(5), number(5)), (AnyRealmValue.double(5), number(5)),
        (AnyRealmValue.decimal128("5.00"), number(5)), (AnyRealmValue.float(2.5), number("2.5")), (AnyRealmValue.double(.nan), number(.nan)),
        (AnyRealmValue.int(-3), number(-3)), (AnyRealmValue.string("é"), .string("é")), (AnyRealmValue.string("e\u{301}"), .string("e\u{301}")),
        (AnyRealmValue.bool(true), .bool(true)), (AnyRealmValue.decimal128("12.34"), number("12.34")), (AnyRealmValue.double(12.34), number("12.34")),
        (AnyRealmValue.date(Date(timeIntervalSinceReferenceDate: 3)), .date(3)), (AnyRealmValue.string("5"), .string("5")),
    ]

    static let columns: [Column] = {
        let intRef = { (i: Int) in number(Decimal128(i)) }
        let numberArguments: [(stored: Any, ref: Ref)] = [(10, number(10)), (10.5, number("10.5")), (Decimal128("5.000"), number(5)),
                                                          (Double.nan, number(.nan)), (5, number(5)), (-0.0, number(0))]
        func ints<T: FixedWidthInteger>(_: T.Type) -> [(stored: Any, ref: Ref)] {
            pool(Self.ints.compactMap { T(exactly: $0) } + [T.min, T.max], { number(Decimal128(Int($0))) })
        }
        return [
            Column(name: "int", pool: pool(Self.ints, intRef), arguments: numberArguments + [(9_007_199_254_740_992.0, number(Decimal128(9_007_199_254_740_992)))], ordered: true, numeric: true),
            Column(name: "int8", pool: ints(Int8.self), arguments: numberArguments, ordered: true, numeric: true),
            Column(name: "int16", pool: ints(Int16.self), arguments: numberArguments, ordered: true, numeric: true),
            Column(name: "int32", pool: ints(Int32.self), arguments: numberArguments, ordered: true, numeric: true),
            Column(name: "int64", pool: pool(Self.ints.map(Int64.init), { number(Decimal128(Int($0))) }), arguments: numberArguments, ordered: true, numeric: true),
            Column(name: "indexedInt", pool: pool(Self.ints, intRef), arguments: numberArguments, ordered: true, numeric: true),
            Column(name: "float", pool: pool(floats, { number(Decimal128(Double($0))) }), arguments: numberArguments, ordered: true, numeric: true),
            Column(name: "double", pool: pool(doubles, { number(Decimal128($0)) }), arguments: numberArguments, ordered: true, numeric: true),
            Column(name: "requiredDouble", pool: pool(doubles, { number(Decimal128($0)) }, optional: false), arguments: numberArguments, ordered: true, numeric: true),
            Column(name: "decimal", pool: pool(decimals, number), arguments: numberArguments + [(12.34, number("12.34"))], ordered: true, numeric: true),
            Column(name: "requiredDecimal", pool: pool(decimals, number, optional: false), arguments: numberArguments, ordered: true, numeric: true),
            Column(name: "date", pool: pool(dates, { Ref.date($0.timeIntervalSinceReferenceDate) }), arguments: [], ordered: true, numeric: false),
            Column(name: "indexedDate", pool: pool(dates, { Ref.date($0.timeIntervalSinceReferenceDate) }), arguments: [], ordered: true, numeric: false),
            Column(name: "string", pool: pool(strings, Ref.string), arguments: [], ordered: true, numeric: false),
            Column(name: "requiredString", pool: pool(strings, Ref.string, optional: false), arguments: [], ordered: true, numeric: false),
            Column(name: "indexedString", pool: pool(strings, Ref.string), arguments: [], ordered: true, numeric: false),
            Column(name: "data", pool: pool([Data(), Data([0]), Data([0, 1]), Data([255]), Data([1])], Ref.data), arguments: [], ordered: false, numeric: false),
            Column(name: "objectId", pool: pool(objectIds, Ref.objectId), arguments: [], ordered: true, numeric: false),
            Column(name: "indexedObjectId", pool: pool(objectIds, Ref.objectId), arguments: [], ordered: true, numeric: false),
            Column(name: "uuid", pool: pool(uuids, Ref.uuid), arguments: [], ordered: false, numeric: false),
            Column(name: "indexedUUID", pool: pool(uuids, Ref.uuid), arguments: [], ordered: false, numeric: false),
            Column(name: "bool", pool: pool([false, true], Ref.bool), arguments: [], ordered: false, numeric: false),
            Column(name: "indexedBool", pool: pool([false, true], Ref.bool), arguments: [], ordered: false, numeric: false),
            Column(name: "mixed", pool: mixedPool, arguments: numberArguments, ordered: true, numeric: false),
            Column(name: "indexedMixed", pool: mixedPool, arguments: numberArguments, ordered: true, numeric: false),
        ]
    }()

    /// `count` objects, each property drawn from its pool; the model's rows by id.
    static func makeRealm(seed: UInt64, count: Int) async throws -> (Realm, [[String: Ref]]) {
        var generator = SeededGenerator(seed: seed)
        var rows: [[String: Ref]] = []
        var values: [[String: Any]] = []
        for id in 0..<count {
            var row: [String: Ref] = [:]
            var value: [String: Any] = ["id": id]
            for column in columns {
                let (stored, ref) = column.pool.randomElement(using: &generator)!
                row[column.name] = ref
                value[column.name] = stored
            }
            rows.append(row)
            values.append(value)
        }
        let realm = try await inMemoryRealm("value-rule-\(seed)")
        let sendable = UncheckedBox(values)
        try await realm.write { realm in
            for value in sendable.value { try realm.create(Specimen.self, value: value) }
        }
        return (realm, rows)
    }

    struct UncheckedBox<T>: @unchecked Sendable {
        let value: T
        init(_ value: T) { self.value = value }
    }

    /// Ids in key order whose value matches.
    static func expected(_ rows: [[String: Ref]], _ column: String, _ op: String, _ argument: Ref) -> [Int] {
        rows.indices.filter { Ref.matches(rows[$0][column]!, op, argument) }
    }

    static func expectedSorted(_ rows: [[String: Ref]], _ column: String, ascending: Bool) -> [Int] {
        rows.indices.sorted { a, b in
            let order = Ref.order(rows[a][column]!, rows[b][column]!)
            if order != 0 { return ascending ? order < 0 : order > 0 }
            return a < b
        }
    }

    static func firstOfEach(_ rows: [[String: Ref]], _ column: String) -> [Int] {
        var kept: [Int] = []
        for id in rows.indices where !kept.contains(where: { Ref.order(rows[$0][column]!, rows[id][column]!) == 0 }) { kept.append(id) }
        return kept
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func filtersMatchTheModelForEveryType(seed: UInt64) async throws {
        let (realm, rows) = try await Self.makeRealm(seed: seed, count: 40)
        for column in Self.columns {
            let operators = column.ordered ? ["==", "!=", "<", "<=", ">", ">="] : ["==", "!="]
            for (stored, ref) in column.pool + column.arguments {
                for op in operators {
                    let argument = UncheckedBox(stored)
                    let found = try await realm.read { realm in
                        try realm.objects(Specimen.self).filter("\(column.name) \(op) %@", argument.value).map(\.id)
                    }
                    let wanted = Self.expected(rows, column.name, op, ref)
                    #expect(found == wanted, "\(column.name) \(op) \(ref): \(found) != \(wanted)")
                }
            }
            // IN with two of the pool's values.
            let pair = Array(column.pool.prefix(2))
            let list = UncheckedBox(pair.map(\.stored))
            let found = try await realm.read { realm in try realm.objects(Specimen.self).filter("\(column.name) IN %@", list.value as Any).map(\.id) }
            let wanted = rows.indices.filter { id in pair.contains { Ref.matches(rows[id][column.name]!, "==", $0.ref) } }
            #expect(found == wanted, "\(column.name) IN \(pair.map(\.ref))")
        }
    }

    @Test(arguments: [4, 5] as [UInt64])
    func sortsAndDistinctMatchTheModelForEveryType(seed: UInt64) async throws {
        let (realm, rows) = try await Self.makeRealm(seed: seed, count: 40)
        for column in Self.columns {
            for ascending in [true, false] {
                let found = try await realm.read { realm in
                    try realm.objects(Specimen.self).sorted(byKeyPath: column.name, ascending: ascending).map(\.id)
                }
                #expect(found == Self.expectedSorted(rows, column.name, ascending: ascending), "sorted by \(column.name) ascending: \(ascending)")
            }
            let distinct = try await realm.read { realm in try realm.objects(Specimen.self).distinct(by: [column.name]).map(\.id) }
            #expect(distinct == Self.firstOfEach(rows, column.name), "distinct by \(column.name)")
        }
    }

    @Test func aggregatesMatchTheModelForEveryNumericType() async throws {
        let (realm, rows) = try await Self.makeRealm(seed: 6, count: 40)
        for column in Self.columns where column.numeric {
            let values = rows.compactMap { row -> Decimal128? in
                if case .number(let number) = row[column.name]!, !number.isNaN { return number }
                return nil
            }
            let (least, most): (Decimal128?, Decimal128?) = try await realm.read { realm in
                let all = realm.objects(Specimen.self)
                return (try all.min(ofProperty: column.name), try all.max(ofProperty: column.name))
            }
            #expect(least == values.min() && most == values.max(), "min/max of \(column.name)")
        }
        // Integer sums are exact or an error, never wrapped.
        for column in Self.columns where column.name.hasPrefix("int") || column.name == "indexedInt" {
            var total: Int128 = 0
            for row in rows { if case .number(let number) = row[column.name]! { total += Int128(try #require(Int(number.description))) } }
            let name = column.name
            do {
                let sum = try await realm.read { realm in try realm.objects(Specimen.self).sum(ofProperty: name) as Int }
                #expect(Int128(sum) == total, "sum of \(name)")
            } catch {
                #expect(Int64(exactly: total) == nil, "sum of \(name) failed: \(error)")
                #expect("\(error)".contains(name))
            }
        }
    }

    @Test(arguments: ["decimal", "double", "float", "int", "string", "date", "mixed", "objectId"])
    func sortedResultsStreamsAgreeWithFreshQueries(column name: String) async throws {
        let (realm, _) = try await Self.makeRealm(seed: 7, count: 30)
        let column = try #require(Self.columns.first { $0.name == name })
        let stream = try await realm.read { realm in try realm.objects(Specimen.self).sorted(byKeyPath: name).changes }
        var iterator = stream.makeAsyncIterator()
        guard case .initial = await iterator.next() else { Issue.record("no initial state"); return }
        var generator = SeededGenerator(seed: 8)
        for _ in 0..<12 {
            let id = Int.random(in: 0..<30, using: &generator)
            let value = UncheckedBox(column.pool.randomElement(using: &generator)!.stored)
            try await realm.write { realm in
                let tick = (realm.object(ofType: Specimen.self, forPrimaryKey: id)?.tick ?? 0) + 1
                try realm.create(Specimen.self, value: ["id": id, name: value.value, "tick": tick], update: .modified)
            }
            guard case .update(let results, _, _, _) = await iterator.next() else { Issue.record("no update"); return }
            let fresh = try await realm.read { realm in try realm.objects(Specimen.self).sorted(byKeyPath: name).map(\.id) }
            #expect(results.map(\.id) == fresh, "stream sorted by \(name)")
        }
    }
}
