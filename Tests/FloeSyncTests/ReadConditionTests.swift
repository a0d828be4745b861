import Foundation
import Testing
import FloeSync

/// The condition a server's database tests before the read rule runs must let through every
/// object the rule lets a token read (else a device misses objects it may see), over every kind
/// of value a property can hold; and when it claims to be exact, it must be the rule's answer.
@Suite struct ReadConditionTests {
    typealias Object = [String: SyncValue]

    static let schema = SyncSchema(version: 1, classes: [
        SyncClass(name: "Note", primaryKey: "id", properties: [
            SyncProperty(name: "id", kind: .int),
            SyncProperty(name: "ownerId", kind: .string),
            SyncProperty(name: "teamId", kind: .string, isOptional: true),
            SyncProperty(name: "level", kind: .int),
            SyncProperty(name: "score", kind: .double),
            SyncProperty(name: "price", kind: .decimal),
            SyncProperty(name: "due", kind: .date),
            SyncProperty(name: "isPublic", kind: .bool),
            SyncProperty(name: "device", kind: .uuid, isOptional: true),
            SyncProperty(name: "ref", kind: .objectId, isOptional: true),
            SyncProperty(name: "blob", kind: .data, isOptional: true),
            SyncProperty(name: "author", kind: .link, isOptional: true, target: "Person"),
            SyncProperty(name: "tags", kind: .string, collection: .list),
            SyncProperty(name: "labels", kind: .string, collection: .map),
            SyncProperty(name: "extra", kind: .mixed),
            SyncProperty(name: "address", kind: .embedded, isOptional: true, target: "Address",
                         properties: [SyncProperty(name: "city", kind: .string)]),
        ]),
        SyncClass(name: "Person", primaryKey: "id", properties: [SyncProperty(name: "id", kind: .string)]),
    ])

    static let properties = ["ownerId", "teamId", "level", "score", "price", "due", "isPublic", "device", "ref", "blob",
                             "author", "tags", "labels", "extra", "address.city", "id"]

    /// Strings that test the equality a database shares with Floe: canonically equivalent
    /// spellings (U+212A is "K", U+037E is ";", "é" is "e" + U+0301), case, identifiers' text.
    static let strings = ["ann", "K", "k", "\u{212A}", "a;b", "a\u{37E}b", "é", "e\u{301}", "ANN", "", "u1", "red",
                          "5f1b2c3d4e5f60718293a4b5", "5F1B2C3D4E5F60718293A4B5", "e621e1f8-c36c-495a-93fc-0c247a3e6e5f", "5"]
    static let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!

    static func value(_ random: inout SyncRulesModelTests.RandomSource) -> SyncValue? {
        let string = SyncValue.string(strings.randomElement(using: &random)!)
        switch Int.random(in: 0..<17, using: &random) {
        case 0: return nil
        case 1: return .null
        case 2: return .bool(Bool.random(using: &random))
        case 3: return .int([0, 5, -1, Int64.max].randomElement(using: &random)!)
        case 4: return .double([5.0, 0.5, -0.0, .nan, .infinity].randomElement(using: &random)!)
        case 5: return .date([0, 5, 1_700_000_000].randomElement(using: &random)!)
        case 6: return .decimal(["5", "5.00", "0.5", "NaN"].randomElement(using: &random)!)
        case 7: return .objectId("5f1b2c3d4e5f60718293a4b5")
        case 8: return .uuid(uuid)
        case 9: return .data(Data("ann".utf8))
        case 10: return .link(className: "Person", key: string)
        case 11: return .list((0..<Int.random(in: 0...2, using: &random)).map { _ in .string(strings.randomElement(using: &random)!) })
        case 12: return .map(["city": string])
        default: return string
        }
    }

    static func object(_ random: inout SyncRulesModelTests.RandomSource) -> Object {
        var object: Object = [:]
        for property in properties where !property.contains(".") {
            object[property] = value(&random)
        }
        if Bool.random(using: &random) { object["address"] = .map(["city": .string(strings.randomElement(using: &random)!)]) }
        return object
    }

    static func claims(_ random: inout SyncRulesModelTests.RandomSource) -> Object {
        var claims: Object = [:]
        for name in ["sub", "role", "team", "teams", "level", "uid"] where Int.random(in: 0..<5, using: &random) != 0 {
            switch name {
            case "teams": claims[name] = .list((0..<Int.random(in: 0...3, using: &random)).map { _ in .string(strings.randomElement(using: &random)!) })
            case "level", "uid": claims[name] = Bool.random(using: &random) ? .int(5) : .string(strings.randomElement(using: &random)!)
            default: claims[name] = .string(strings.randomElement(using: &random)!)
            }
        }
        return claims
    }

    static let operands = ["$jwt.sub", "$jwt.role", "$jwt.teams", "$jwt.team", "$jwt.level", "$jwt.uid", "$jwt.missing",
                           "'ann'", "'K'", "'é'", "'e\u{301}'", "5", "5.0", "nil", "true", "{'ann', 'red'}", "{$jwt.sub, 'K'}",
                           "{}", "{5, 'ann'}", "'5f1b2c3d4e5f60718293a4b5'"]
    static let operators = ["==", "=", "!=", "IN", "<", ">=", "BEGINSWITH", "CONTAINS", "==[c]", "IN[c]"]

    static func comparison(_ random: inout SyncRulesModelTests.RandomSource) -> String {
        let property = properties.randomElement(using: &random)!
        let other = operands.randomElement(using: &random)!
        let op = operators.randomElement(using: &random)!
        switch Int.random(in: 0..<6, using: &random) {
        case 0: return "\(other) \(op) \(property)"
        case 1: return "\(other) \(op) \(operands.randomElement(using: &random)!)"
        case 2: return ["TRUEPREDICATE", "FALSEPREDICATE"].randomElement(using: &random)!
        default: return "\(property) \(op) \(other)"
        }
    }

    static func rule(_ random: inout SyncRulesModelTests.RandomSource, depth: Int = 0) -> String {
        switch Int.random(in: 0..<(depth < 3 ? 6 : 3), using: &random) {
        case 3: return "(\(rule(&random, depth: depth + 1)) AND \(rule(&random, depth: depth + 1)))"
        case 4: return "(\(rule(&random, depth: depth + 1)) OR \(rule(&random, depth: depth + 1)))"
        case 5: return "NOT (\(rule(&random, depth: depth + 1)))"
        default: return comparison(&random)
        }
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func everyReadableObjectPassesTheCondition(seed: UInt64) throws {
        var random = SyncRulesModelTests.RandomSource(state: seed)
        var filtered = 0, textConditions = 0, exact = 0, readable = 0
        for _ in 0..<400 {
            let text = Self.rule(&random)
            let rules = try SyncRules(["Note": [.read: text]], schema: Self.schema)
            for _ in 0..<4 {
                let claims = Self.claims(&random)
                let condition = rules.readCondition(className: "Note", claims: claims)
                if case .text = condition { textConditions += 1 }
                if condition == .everything || condition == .nothing { exact += 1 }
                for _ in 0..<25 {
                    let object = Self.object(&random)
                    let allowed = rules.allows(.read, className: "Note", object: object, claims: claims)
                    let passes = condition.mayHold(for: object)
                    if allowed { readable += 1 }
                    if !passes { filtered += 1 }
                    #expect(!allowed || passes, "'\(text)' lets \(claims) read \(object), but the condition \(condition) filters it out")
                    if condition == .everything { #expect(allowed, "'\(text)' with \(claims): exactly everything, yet \(object) is not readable") }
                    if condition == .nothing { #expect(!allowed, "'\(text)' with \(claims): exactly nothing, yet \(object) is readable") }
                }
            }
        }
        // The run is not vacuous: objects are read, filtered, and tested by text and exactly.
        #expect(readable > 500 && filtered > 500 && textConditions > 50 && exact > 100,
                "\(readable) readable, \(filtered) filtered, \(textConditions) text conditions, \(exact) exact")
    }

    @Test func theCommonRulesBecomeConditionsTheDatabaseCanTest() throws {
        let rules = try SyncRules(["Note": [.read: "ownerId == $jwt.sub OR $jwt.role == 'admin' OR teamId IN $jwt.teams"]], schema: Self.schema)
        #expect(rules.readCondition(className: "Note", claims: ["sub": .string("ann"), "teams": .list([.string("red")])])
                == .any([.text(property: "ownerId", isOneOf: ["ann"]), .text(property: "teamId", isOneOf: ["red"])]))
        #expect(rules.readCondition(className: "Note", claims: ["sub": .string("ann"), "role": .string("admin")]) == .everything)
        // No claims to compare with: nothing is readable, exactly.
        #expect(rules.readCondition(className: "Note", claims: [:]) == .nothing)
        // A class without a read rule is read by no one.
        #expect(rules.readCondition(className: "Person", claims: ["sub": .string("ann")]) == .nothing)
        // Text outside ASCII, case-insensitive comparisons, orders and negations are the rule's alone.
        #expect(rules.readCondition(className: "Note", claims: ["sub": .string("é")]) == .unknown)
        for text in ["ownerId ==[c] $jwt.sub", "ownerId BEGINSWITH $jwt.sub", "NOT ownerId == $jwt.sub", "level < 5", "tags CONTAINS $jwt.sub"] {
            let other = try SyncRules(["Note": [.read: text]], schema: Self.schema)
            #expect(other.readCondition(className: "Note", claims: ["sub": .string("ann")]) == .unknown, "\(text)")
        }
    }

    @Test func canonicallyEquivalentTextIsLetThrough() throws {
        let rules = try SyncRules(["Note": [.read: "ownerId == $jwt.sub"]], schema: Self.schema)
        let condition = rules.readCondition(className: "Note", claims: ["sub": .string("K")])
        #expect(condition == .text(property: "ownerId", isOneOf: ["K"]))
        // U+212A KELVIN SIGN is "K" to Swift and to the rule: the condition lets it through.
        #expect(rules.allows(.read, className: "Note", object: ["ownerId": .string("\u{212A}")], claims: ["sub": .string("K")]))
        #expect(condition.mayHold(for: ["ownerId": .string("\u{212A}")]))
        #expect(!condition.mayHold(for: ["ownerId": .string("k")]))
        #expect(!condition.mayHold(for: ["ownerId": .string("KK")]))
        // A value that is not a string is the rule's to judge.
        #expect(condition.mayHold(for: ["ownerId": .int(5)]))
        #expect(condition.mayHold(for: [:]))
    }
}
