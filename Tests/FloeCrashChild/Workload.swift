@_spi(Engine) import Floe
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// The deterministic workload shared by the crash child and the tests.
//
// Sharing: this file belongs to the `FloeCrashChild` executable target, and the test target
// depends on that target and reaches these declarations with `@testable import FloeCrashChild`
// (SwiftPM builds executable modules so that tests can import them). The child performs the
// commits against a store; the tests replay the very same code against the in-memory model
// below. There is no second copy of the generator that could drift from the first.
//
// Determinism: the operations of commit `v` are a pure function of the seed, `v`, the
// profile and the state before the commit, and only of the parts of the state a store can
// report back (table names, the sorted object keys, list lengths). So a child started on a
// file that is already at version `v` reads the state from the file and continues the same
// sequence as if it had never been killed.

/// SplitMix64: small, fast and identical on every platform, so that a seed names one sequence.
struct WorkloadRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    /// A number in `0..<bound`.
    mutating func below(_ bound: Int) -> Int {
        precondition(bound > 0, "an empty range")
        return Int(next() % UInt64(bound))
    }

    mutating func int(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + below(range.upperBound - range.lowerBound + 1)
    }

    /// True `percent` times in a hundred.
    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
}

/// How big the workload's data and commits get.
struct WorkloadProfile: Sendable, Hashable {
    /// The number of `Item` objects the workload steers towards (`Event` gets a third).
    var targetRows: Int
    /// Operations in a large commit.
    var largeCommit: ClosedRange<Int>
    /// The longest string, in characters.
    var longestString: Int

    /// What the crash child runs.
    static let crash = WorkloadProfile(targetRows: 400, largeCommit: 80...300, longestString: 4096)
    /// A smaller file for the corruption trials, which read everything hundreds of times.
    static let corruption = WorkloadProfile(targetRows: 120, largeCommit: 30...120, longestString: 2048)
}

/// One change of a commit. Inserts carry no key: the store assigns the next free one.
enum WorkloadOperation: Sendable, Hashable {
    case createTable(TableSpec)
    case removeTable(String)
    case insert(table: String, values: [Value])
    case update(table: String, key: Int64, column: Int, value: Value)
    case delete(table: String, key: Int64)
    case removeAllObjects(table: String)
    case listAppend(table: String, key: Int64, value: Value)
    case listRemove(table: String, key: Int64, position: Int)
}

/// The content of a store as the workload sees it: every table with its schema, key
/// allocation, objects and list contents.
struct WorkloadState: Sendable, Hashable {
    struct Table: Sendable, Hashable {
        var spec: TableSpec
        /// The key the next insert gets.
        var nextKey: Int64
        /// Object keys in increasing order.
        var keys: [Int64]
        /// Each object's non-collection values in column order (collection columns read as `.null`).
        var rows: [Int64: [Value]]
        /// Each object's list (every workload table has exactly one list column).
        var lists: [Int64: [Value]]

        init(spec: TableSpec, nextKey: Int64 = 0) {
            self.spec = spec
            self.nextKey = nextKey
            keys = []
            rows = [:]
            lists = [:]
        }

        /// The index of the table's list column.
        var listColumn: Int { Workload.listColumn(of: spec) }
    }

    /// Tables in creation order.
    var tables: [Table] = []

    func index(of table: String) -> Int? { tables.firstIndex { $0.spec.name == table } }

    /// Applies one operation. `assignedKey` is the key the store gave an insert; the model
    /// (nil) uses the table's next key.
    mutating func apply(_ operation: WorkloadOperation, assignedKey: Int64? = nil) {
        switch operation {
        case .createTable(let spec):
            precondition(index(of: spec.name) == nil, "table \(spec.name) exists")
            tables.append(Table(spec: spec))
        case .removeTable(let name):
            tables.remove(at: index(of: name)!)
        case .insert(let name, let values):
            let position = index(of: name)!
            let key = assignedKey ?? tables[position].nextKey
            precondition(key > (tables[position].keys.last ?? -1), "keys are allocated in increasing order")
            tables[position].keys.append(key)
            tables[position].rows[key] = values
            tables[position].lists[key] = []
            tables[position].nextKey = max(tables[position].nextKey, key + 1)
        case .update(let name, let key, let column, let value):
            tables[index(of: name)!].rows[key]![column] = value
        case .delete(let name, let key):
            let position = index(of: name)!
            tables[position].rows[key] = nil
            tables[position].lists[key] = nil
            tables[position].keys.remove(at: Workload.search(key, in: tables[position].keys)!)
        case .removeAllObjects(let name):
            let position = index(of: name)!
            tables[position].keys = []
            tables[position].rows = [:]
            tables[position].lists = [:]
        case .listAppend(let name, let key, let value):
            tables[index(of: name)!].lists[key]!.append(value)
        case .listRemove(let name, let key, let position):
            tables[index(of: name)!].lists[key]!.remove(at: position)
        }
    }

    /// The first way in which `self` differs from `expected`, described for a failure message; nil when equal.
    func firstDifference(from expected: WorkloadState) -> String? {
        let names = tables.map(\.spec.name), expectedNames = expected.tables.map(\.spec.name)
        if names != expectedNames { return "tables \(names), expected \(expectedNames)" }
        for (table, wanted) in zip(tables, expected.tables) {
            let name = wanted.spec.name
            if table.spec != wanted.spec { return "the schema of \(name) differs: \(table.spec), expected \(wanted.spec)" }
            if table.nextKey != wanted.nextKey { return "\(name): next key \(table.nextKey), expected \(wanted.nextKey)" }
            if table.keys != wanted.keys {
                let extra = Set(table.keys).subtracting(wanted.keys).sorted().prefix(5)
                let missing = Set(wanted.keys).subtracting(table.keys).sorted().prefix(5)
                return "\(name): \(table.keys.count) keys, expected \(wanted.keys.count); unexpected \(Array(extra)), missing \(Array(missing))"
            }
            for key in wanted.keys {
                if table.rows[key] != wanted.rows[key] {
                    return "\(name) key \(key): \(Workload.describe(table.rows[key])), expected \(Workload.describe(wanted.rows[key]))"
                }
                if table.lists[key] != wanted.lists[key] {
                    return "\(name) key \(key) list: \(Workload.describe(table.lists[key])), expected \(Workload.describe(wanted.lists[key]))"
                }
            }
        }
        return nil
    }

    /// A digest of the content that is the same in every process (FNV-1a over a canonical
    /// encoding), for comparing a state read by a child with the model's. The next key is
    /// left out, as ``load(from:)`` cannot read it.
    var digest: UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        func feed(_ bytes: some Sequence<UInt8>) {
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        }
        func feed(_ word: UInt64) { withUnsafeBytes(of: word.littleEndian) { feed($0) } }
        func feed(_ string: String) {
            feed(UInt64(string.utf8.count))
            feed(string.utf8)
        }
        func feed(_ value: Value) {
            switch value {
            case .null: feed(0)
            case .bool(let flag): feed(1); feed(flag ? 1 : 0)
            case .int(let int): feed(2); feed(UInt64(bitPattern: int))
            case .float(let float): feed(3); feed(UInt64(float.bitPattern))
            case .double(let double): feed(4); feed(double.bitPattern)
            case .string(let string): feed(5); feed(string)
            case .binary(let bytes): feed(6); feed(UInt64(bytes.count)); feed(bytes)
            case .timestamp(let seconds): feed(7); feed(seconds.bitPattern)
            case .decimal128(let word): feed(8); feed(word.high); feed(word.low)
            case .objectId(let word): feed(9); feed(word.high); feed(word.low)
            case .uuid(let word): feed(10); feed(word.high); feed(word.low)
            case .link(let key): feed(11); feed(UInt64(bitPattern: key))
            case .typedLink(let table, let key): feed(12); feed(table); feed(UInt64(bitPattern: key))
            case .list(let values): feed(13); feed(UInt64(values.count)); for element in values { feed(element) }
            case .dictionary(let entries): feed(14); feed(UInt64(entries.count)); for entry in entries { feed(entry.key); feed(entry.value) }
            }
        }
        feed(UInt64(tables.count))
        for table in tables {
            feed(String(describing: table.spec))
            feed(UInt64(table.keys.count))
            for key in table.keys {
                feed(UInt64(bitPattern: key))
                for value in table.rows[key] ?? [] { feed(value) }
                let list = table.lists[key] ?? []
                feed(UInt64(list.count))
                for value in list { feed(value) }
            }
        }
        return hash
    }

    /// Reads the whole content of a version. The next key is not part of the engine's public
    /// reads: it is set to one past the highest key, which is all the child needs (it takes
    /// inserted keys from the store); the tests overwrite it with the stored value.
    static func load(from reader: some VersionReading) throws(FloeError) -> WorkloadState {
        var state = WorkloadState()
        for name in try reader.tableNames() {
            let handle = try reader.table(named: name)
            var table = Table(spec: try reader.spec(of: handle))
            let listColumn = table.listColumn
            table.keys = try reader.objectKeys(in: handle)
            for key in table.keys {
                table.rows[key] = try reader.row(in: handle, key: key)
                table.lists[key] = try reader.collectionElements(in: handle, key: key, column: listColumn)
            }
            table.nextKey = (table.keys.last ?? -1) + 1
            state.tables.append(table)
        }
        return state
    }
}

extension WorkloadOperation {
    /// Performs the operation in a write transaction; returns the key of an inserted object.
    func perform(in transaction: WriteTransaction) throws(FloeError) -> Int64? {
        switch self {
        case .createTable(let spec):
            try transaction.createTable(spec)
        case .removeTable(let name):
            try transaction.removeTable(transaction.table(named: name))
        case .insert(let name, let values):
            return try transaction.insertObject(into: transaction.table(named: name), values: values)
        case .update(let name, let key, let column, let value):
            try transaction.setValue(value, in: transaction.table(named: name), key: key, column: column)
        case .delete(let name, let key):
            let removed = try transaction.deleteObject(from: transaction.table(named: name), key: key)
            precondition(removed, "the workload deletes only existing objects, but \(name) has no key \(key)")
        case .removeAllObjects(let name):
            try transaction.removeAllObjects(from: transaction.table(named: name))
        case .listAppend(let name, let key, let value):
            let table = try transaction.table(named: name)
            try transaction.listAppend(value, in: table, key: key, column: Workload.listColumn(of: transaction.spec(of: table)))
        case .listRemove(let name, let key, let position):
            let table = try transaction.table(named: name)
            try transaction.collectionRemove(at: position, in: table, key: key, column: Workload.listColumn(of: transaction.spec(of: table)))
        }
        return nil
    }
}

enum Workload {
    static let itemSpec = TableSpec(name: "Item", columns: [
        ColumnSpec(name: "title", type: .string),
        ColumnSpec(name: "count", type: .int),
        ColumnSpec(name: "note", type: .string, isNullable: true),
        ColumnSpec(name: "ratio", type: .double),
        ColumnSpec(name: "flag", type: .bool),
        ColumnSpec(name: "payload", type: .binary, isNullable: true),
        ColumnSpec(name: "small", type: .int, integerBits: 16),
        ColumnSpec(name: "tags", type: .string, collection: .list),
    ])

    static let eventSpec = TableSpec(name: "Event", columns: [
        ColumnSpec(name: "id", type: .uuid),
        ColumnSpec(name: "at", type: .timestamp),
        ColumnSpec(name: "label", type: .string),
        ColumnSpec(name: "extra", type: .mixed),
        ColumnSpec(name: "scores", type: .int, isNullable: true, collection: .list),
    ])

    static func listColumn(of spec: TableSpec) -> Int {
        spec.columns.firstIndex { $0.collection == .list }!
    }

    /// The position of `key` in sorted `keys`.
    static func search(_ key: Int64, in keys: [Int64]) -> Int? {
        var low = 0, high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] < key { low = middle + 1 } else { high = middle }
        }
        return low < keys.count && keys[low] == key ? low : nil
    }

    /// Applies commit `version` (the one that turns version `version - 1` into `version`) to the model.
    static func advance(_ state: inout WorkloadState, seed: UInt64, to version: UInt64, profile: WorkloadProfile) {
        for operation in plan(seed: seed, version: version, state: state, profile: profile) {
            state.apply(operation)
        }
    }

    /// The model's state after `version` commits of the sequence named by `seed`.
    static func state(seed: UInt64, version: UInt64, profile: WorkloadProfile) -> WorkloadState {
        var state = WorkloadState()
        var current: UInt64 = 0
        while current < version {
            current += 1
            advance(&state, seed: seed, to: current, profile: profile)
        }
        return state
    }

    /// The operations of commit `version`, given the state before it.
    ///
    /// Updates, deletes and list changes only target objects that existed before the commit
    /// (the keys of objects inserted by the same commit are the store's to assign).
    static func plan(seed: UInt64, version: UInt64, state: WorkloadState, profile: WorkloadProfile) -> [WorkloadOperation] {
        var random = WorkloadRandom(seed: seed ^ (version &* 0xD6E8_FEB8_6659_FD93))
        var planner = Planner(state: state, profile: profile)
        if state.index(of: itemSpec.name) == nil {
            planner.emit(.createTable(itemSpec))
        }
        if version >= 3 && !planner.exists(eventSpec.name) && random.chance(30) {
            planner.emit(.createTable(eventSpec))
        }
        if version >= 8 && planner.exists(eventSpec.name) && random.chance(2) {
            planner.emit(.removeTable(eventSpec.name))
        }
        let size = random.below(100)
        let count: Int
        switch size {
        case ..<60: count = random.int(in: 1...4)
        case ..<88: count = random.int(in: 5...40)
        case ..<98: count = random.int(in: profile.largeCommit)
        default:
            // A commit that empties a table in one go, then refills a little.
            if planner.exists(eventSpec.name), planner.rowCount(eventSpec.name) > 0 {
                planner.emit(.removeAllObjects(table: eventSpec.name))
            }
            count = random.int(in: 1...10)
        }
        for _ in 0..<count { planner.emitRandomOperation(&random) }
        return planner.operations
    }

    /// Plans one commit against the state it started from.
    private struct Planner {
        let state: WorkloadState
        let profile: WorkloadProfile
        var operations: [WorkloadOperation] = []
        /// Existing tables with the keys that operations may still target.
        var targets: [String: [Int64]] = [:]
        var listLengths: [String: [Int64: Int]] = [:]
        var specs: [String: TableSpec] = [:]
        var inserted: [String: Int] = [:]
        var order: [String] = []

        init(state: WorkloadState, profile: WorkloadProfile) {
            self.state = state
            self.profile = profile
            for table in state.tables {
                targets[table.spec.name] = table.keys
                specs[table.spec.name] = table.spec
                order.append(table.spec.name)
            }
        }

        func exists(_ table: String) -> Bool { specs[table] != nil }

        func rowCount(_ table: String) -> Int { (targets[table]?.count ?? 0) + (inserted[table] ?? 0) }

        mutating func emit(_ operation: WorkloadOperation) {
            operations.append(operation)
            switch operation {
            case .createTable(let spec):
                specs[spec.name] = spec
                targets[spec.name] = []
                inserted[spec.name] = 0
                listLengths[spec.name] = [:]
                order.append(spec.name)
            case .removeTable(let name):
                specs[name] = nil
                targets[name] = nil
                inserted[name] = nil
                listLengths[name] = nil
                order.removeAll { $0 == name }
            case .insert(let name, _):
                inserted[name, default: 0] += 1
            case .delete(let name, let key):
                targets[name]!.remove(at: Workload.search(key, in: targets[name]!)!)
            case .removeAllObjects(let name):
                targets[name] = []
                inserted[name] = 0
            case .listAppend(let name, let key, _):
                listLengths[name, default: [:]][key] = listLength(name, key) + 1
            case .listRemove(let name, let key, _):
                listLengths[name, default: [:]][key] = listLength(name, key) - 1
            case .update:
                break
            }
        }

        func listLength(_ table: String, _ key: Int64) -> Int {
            if let length = listLengths[table]?[key] { return length }
            guard let position = state.index(of: table) else { return 0 }
            return state.tables[position].lists[key]?.count ?? 0
        }

        mutating func emitRandomOperation(_ random: inout WorkloadRandom) {
            let name = order.count > 1 && random.chance(30) ? order[1] : order[0]
            let spec = specs[name]!
            let target = name == Workload.itemSpec.name ? profile.targetRows : max(profile.targetRows / 3, 8)
            let rows = rowCount(name)
            let insertWeight = rows < target / 2 ? 70 : (rows > target * 2 ? 10 : 30)
            let deleteWeight = rows > target * 2 ? 50 : (rows < target / 2 ? 5 : 20)
            let roll = random.below(insertWeight + deleteWeight + 35 + 15 + 8)
            let keys = targets[name]!
            guard roll >= insertWeight, !keys.isEmpty else {
                emit(.insert(table: name, values: Workload.randomRow(spec, &random, profile: profile)))
                return
            }
            let key = keys[random.below(keys.count)]
            switch roll - insertWeight {
            case ..<deleteWeight:
                emit(.delete(table: name, key: key))
            case ..<(deleteWeight + 35):
                // Several columns of one object.
                let columns = spec.columns.indices.filter { spec.columns[$0].collection == .single }
                for _ in 0..<random.int(in: 1...3) {
                    let column = columns[random.below(columns.count)]
                    emit(.update(table: name, key: key, column: column,
                                 value: Workload.randomValue(spec.columns[column], &random, profile: profile)))
                }
            case ..<(deleteWeight + 50):
                let element = spec.columns[Workload.listColumn(of: spec)]
                for _ in 0..<random.int(in: 1...6) {
                    emit(.listAppend(table: name, key: key, value: Workload.randomValue(element, &random, profile: profile, single: true)))
                }
            default:
                let length = listLength(name, key)
                if length > 0 {
                    emit(.listRemove(table: name, key: key, position: random.below(length)))
                } else {
                    emit(.insert(table: name, values: Workload.randomRow(spec, &random, profile: profile)))
                }
            }
        }
    }

    static func randomRow(_ spec: TableSpec, _ random: inout WorkloadRandom, profile: WorkloadProfile) -> [Value] {
        spec.columns.map { column in
            column.collection == .single ? randomValue(column, &random, profile: profile) : .null
        }
    }

    /// A value for a column (or, with `single`, for one element of a collection column).
    static func randomValue(_ column: ColumnSpec, _ random: inout WorkloadRandom, profile: WorkloadProfile, single: Bool = false) -> Value {
        if column.isNullable && random.chance(15) { return .null }
        switch column.type {
        case .string: return .string(randomString(&random, profile: profile))
        case .int:
            if column.integerBits < 64 {
                let half = 1 << (Int(column.integerBits) - 1)
                return .int(Int64(random.below(2 * half) - half))
            }
            return .int(Int64(bitPattern: random.next()))
        case .double: return .double((Double(random.below(2_000_000)) - 1_000_000) / 64)
        case .bool: return .bool(random.chance(50))
        case .binary: return .binary((0..<random.below(300)).map { _ in UInt8(truncatingIfNeeded: random.next()) })
        case .uuid: return .uuid(Word128(high: random.next(), low: random.next()))
        case .timestamp: return .timestamp(Double(random.below(4_000_000_000)) / 4)
        case .mixed:
            switch random.below(6) {
            case 0: return .null
            case 1: return .int(Int64(bitPattern: random.next()))
            case 2: return .string(randomString(&random, profile: profile))
            case 3: return .double(Double(random.below(1_000_000)) / 8)
            case 4: return .bool(random.chance(50))
            default: return .binary((0..<random.below(40)).map { _ in UInt8(truncatingIfNeeded: random.next()) })
            }
        default:
            preconditionFailure("the workload has no \(column.type) column")
        }
    }

    private static let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -_.,:")
    private static let wide: [Character] = ["é", "ß", "漢", "字", "🐟", "\u{0}"]

    /// Mostly short strings, some hundreds of characters, a few up to the profile's longest.
    static func randomString(_ random: inout WorkloadRandom, profile: WorkloadProfile) -> String {
        let roll = random.below(100)
        let length: Int
        switch roll {
        case ..<60: length = random.below(25)
        case ..<85: length = random.int(in: 25...200)
        case ..<97: length = random.int(in: 200...1000)
        default: length = random.int(in: 1000...profile.longestString)
        }
        var characters: [Character] = []
        characters.reserveCapacity(length)
        for _ in 0..<length {
            let pick = random.below(100)
            characters.append(pick < 3 ? wide[random.below(wide.count)] : alphabet[random.below(alphabet.count)])
        }
        return String(characters)
    }

    static func describe(_ values: [Value]?) -> String {
        guard let values else { return "nothing" }
        return "[" + values.map(\.debugText).joined(separator: ", ") + "]"
    }
}
