import Foundation
import FloeSync
import Logging
import PostgresNIO

/// `--check-read-conditions N`: holds the SQL of ``ReadCondition`` to ``ReadCondition/mayHold(for:)``
/// on the database the server would use. N random conditions are tested over random objects
/// stored as the log stores them (values of every kind, strings outside ASCII, canonically
/// equivalent spellings, quotes and backslashes); every row where the two disagree is a failure.
/// The opt-in security script runs it; `swift test` holds `mayHold` to the rules themselves.
struct ReadConditionCheck {
    let client: PostgresClient
    let logger: Logger

    static let properties = ["p", "q", "r"]
    static let texts = ["ann", "K", "k", "a;b", "it's", #"back\slash"#, "%_", "", "\u{1}", "\u{7f}", "ANN", "a b"]
    static let strings = texts + ["\u{212A}", "a\u{37E}b", "é", "e\u{301}", "ann\u{80}", "日本", "Ωmega", "\u{10FFFF}"]

    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static func value(_ random: inout Generator) -> SyncValue? {
        switch Int.random(in: 0..<14, using: &random) {
        case 0: return nil
        case 1: return .null
        case 2: return .bool(Bool.random(using: &random))
        case 3: return .int(Int64.random(in: -3...3, using: &random))
        case 4: return .double(Double.random(in: -2...2, using: &random))
        case 5: return .date(1_700_000_000)
        case 6: return .decimal("5.00")
        case 7: return .objectId("5f1b2c3d4e5f60718293a4b5")
        case 8: return .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!)
        case 9: return .link(className: "Person", key: .string(strings.randomElement(using: &random)!))
        case 10: return .list([.string(strings.randomElement(using: &random)!)])
        case 11: return .map(["p": .string(strings.randomElement(using: &random)!)])
        default: return .string(strings.randomElement(using: &random)!)
        }
    }

    static func condition(_ random: inout Generator, depth: Int = 0) -> ReadCondition {
        switch Int.random(in: 0..<(depth < 3 ? 8 : 5), using: &random) {
        case 0: return .everything
        case 1: return .nothing
        case 2: return .unknown
        case 3, 4:
            let count = Int.random(in: 0...3, using: &random)
            return .text(property: properties.randomElement(using: &random)!,
                         isOneOf: (0..<count).map { _ in texts.randomElement(using: &random)! })
        case 5: return .all((0..<Int.random(in: 1...3, using: &random)).map { _ in condition(&random, depth: depth + 1) })
        default: return .any((0..<Int.random(in: 1...3, using: &random)).map { _ in condition(&random, depth: depth + 1) })
        }
    }

    /// Runs the check; returns the failures' descriptions (empty: SQL and Swift agree everywhere).
    func run(conditions: Int, seed: UInt64) async throws -> [String] {
        var random = Generator(state: seed)
        var objects: [[String: SyncValue]] = []
        for _ in 0..<200 {
            var object: [String: SyncValue] = [:]
            for property in Self.properties { object[property] = Self.value(&random) }
            objects.append(object)
        }
        let encoder = JSONEncoder()
        let texts = try objects.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
        return try await client.withConnection { connection in
            try await connection.query("CREATE TEMPORARY TABLE floe_condition_check (id integer PRIMARY KEY, image jsonb NOT NULL)", logger: logger)
            try await connection.query("""
                INSERT INTO floe_condition_check (id, image) SELECT i - 1, im::jsonb FROM unnest(\(texts)::text[]) WITH ORDINALITY AS u(im, i)
                """, logger: logger)
            var failures: [String] = []
            for _ in 0..<conditions {
                let condition = Self.condition(&random)
                var binds = PostgresBindings()
                let sql = "SELECT id FROM floe_condition_check WHERE \(condition.sql(over: "image", binds: &binds)) ORDER BY id"
                var selected: Set<Int> = []
                for try await id in try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger).decode(Int32.self) {
                    selected.insert(Int(id))
                }
                for (index, object) in objects.enumerated() where selected.contains(index) != condition.mayHold(for: object) {
                    failures.append("\(condition) over \(object): SQL says \(selected.contains(index)), Swift \(condition.mayHold(for: object))")
                }
            }
            try await connection.query("DROP TABLE floe_condition_check", logger: logger)
            return failures
        }
    }
}
