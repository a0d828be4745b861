import Foundation
import Testing
import FloeSync

/// Random operations by five users under random rules, applied as the server applies them
/// (each change authorized against the stored object, refused ones leaving the store as it
/// was), checked against a model written in plain Swift of who may see and write what.
@Suite struct SyncRulesModelTests {
    typealias Object = [String: SyncValue]
    typealias Check = @Sendable (Object, Object) -> Bool

    /// Rule text beside the same rule as a Swift function of (object, claims).
    static let catalogue: [(String, Check)] = [
        ("ownerId == $jwt.sub", owner),
        ("$jwt.role == 'admin'", admin),
        ("teamId IN $jwt.teams", team),
        ("isPublic == true", isPublic),
        ("level <= $jwt.level", level),
        ("ownerId == $jwt.sub OR teamId IN $jwt.teams", ownerOrTeam),
        ("NOT ownerId == $jwt.sub AND isPublic == true", publicOfOthers),
        ("tags CONTAINS $jwt.sub", tagged),
        ("ownerId BEGINSWITH 'u1' || $jwt.role == 'admin'", prefixOrAdmin),
        ("TRUEPREDICATE", anyone),
        ("FALSEPREDICATE", noOne),
    ]

    static func owner(_ object: Object, _ claims: Object) -> Bool { object["ownerId"] == claims["sub"] }
    static func admin(_ object: Object, _ claims: Object) -> Bool { claims["role"] == .string("admin") }
    static func team(_ object: Object, _ claims: Object) -> Bool {
        guard case .string(let team)? = object["teamId"], case .list(let teams)? = claims["teams"] else { return false }
        return teams.contains(.string(team))
    }
    static func isPublic(_ object: Object, _ claims: Object) -> Bool { object["isPublic"] == .bool(true) }
    static func level(_ object: Object, _ claims: Object) -> Bool {
        guard case .int(let level)? = object["level"], case .int(let limit)? = claims["level"] else { return false }
        return level <= limit
    }
    static func ownerOrTeam(_ object: Object, _ claims: Object) -> Bool { owner(object, claims) || team(object, claims) }
    static func publicOfOthers(_ object: Object, _ claims: Object) -> Bool { !owner(object, claims) && isPublic(object, claims) }
    static func tagged(_ object: Object, _ claims: Object) -> Bool {
        guard case .list(let tags)? = object["tags"], let sub = claims["sub"] else { return false }
        return tags.contains(sub)
    }
    static func prefixOrAdmin(_ object: Object, _ claims: Object) -> Bool {
        if case .string(let owner)? = object["ownerId"], owner.hasPrefix("u1") { return true }
        return admin(object, claims)
    }
    static func anyone(_ object: Object, _ claims: Object) -> Bool { true }
    static func noOne(_ object: Object, _ claims: Object) -> Bool { false }

    struct RandomSource: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let teams = ["red", "blue", "green"]

    static func randomNote(_ key: Int64, using random: inout RandomSource) -> Object {
        [
            "id": .int(key), "ownerId": .string("u\(Int.random(in: 0..<5, using: &random))"),
            "teamId": Bool.random(using: &random) ? .string(teams.randomElement(using: &random)!) : .null,
            "isPublic": .bool(Bool.random(using: &random)), "level": .int(Int64.random(in: 0..<5, using: &random)),
            "tags": .list((0..<Int.random(in: 0..<3, using: &random)).map { _ in .string("u\(Int.random(in: 0..<5, using: &random))") }),
        ]
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8])
    func tenThousandOperationsLeakNothingAndApplyNoForbiddenWrite(seed: UInt64) throws {
        var random = RandomSource(state: seed)
        // Five users with random claims; random rules per operation (one left out: refused).
        let users: [Object] = (0..<5).map { index in
            var claims: Object = ["sub": .string("u\(index)"), "level": .int(Int64.random(in: 0..<5, using: &random)),
                                  "teams": .list(Self.teams.filter { _ in Bool.random(using: &random) }.map(SyncValue.string))]
            if index == 0 || Bool.random(using: &random) && Bool.random(using: &random) { claims["role"] = .string("admin") }
            return claims
        }
        var text: [SyncRules.Operation: String] = [:]
        var model: [SyncRules.Operation: Check] = [:]
        for operation in SyncRules.Operation.allCases where Int.random(in: 0..<8, using: &random) != 0 {
            let (rule, check) = Self.catalogue.randomElement(using: &random)!
            text[operation] = rule
            model[operation] = check
        }
        let rules = try SyncRules(["Note": text], schema: rulesSchema)
        func allowed(_ operation: SyncRules.Operation, _ object: Object, _ claims: Object) -> Bool {
            model[operation]?(object, claims) ?? false
        }

        var store: [Int64: Object] = [:]
        var expected: [Int64: Object] = [:]
        var applied = 0, refused = 0
        for _ in 0..<10_000 {
            let user = users[Int.random(in: 0..<5, using: &random)]
            let key = Int64.random(in: 0..<40, using: &random)
            let change: ObjectChange
            switch Int.random(in: 0..<4, using: &random) {
            case 0:
                change = ObjectChange(className: "Note", key: .int(key), operation: .insert, values: Self.randomNote(key, using: &random))
            case 1:
                let values = Self.randomNote(key, using: &random).filter { $0.key != "id" && Bool.random(using: &random) }
                change = ObjectChange(className: "Note", key: .int(key), operation: .update, values: values)
            case 2:
                change = ObjectChange(className: "Note", key: .int(key), operation: .delete)
            default:
                // Taking or giving away: only the owner changes.
                change = ObjectChange(className: "Note", key: .int(key), operation: .update,
                                      values: ["ownerId": .string("u\(Int.random(in: 0..<5, using: &random))")])
            }
            try rulesSchema.validate(change)

            // The model: what may happen, and the object after it.
            let before = expected[key]
            var modelAfter = before ?? [:]
            let modelAllows: Bool
            switch change.operation {
            case .delete:
                modelAllows = before.map { allowed(.delete, $0, user) } ?? true
                modelAfter = [:]
            case .update:
                modelAfter.merge(change.values) { _, new in new }
                modelAllows = before.map { allowed(.update, $0, user) && allowed(.update, modelAfter, user) } ?? true
            case .insert:
                modelAfter.merge(change.values) { _, new in new }
                modelAllows = before.map { allowed(.update, $0, user) && allowed(.update, modelAfter, user) } ?? allowed(.create, modelAfter, user)
            }

            // The engine, as the server runs it: a refusal leaves the store as it was.
            do {
                let after = try rules.authorize(change, before: store[key], claims: user)
                #expect(modelAllows, "the rules allowed \(change) by \(user) (before: \(String(describing: before))), the model does not")
                store[key] = after
                if before != nil || change.operation == .insert { applied += 1 }
            } catch {
                #expect(!modelAllows, "the rules refused \(change) by \(user), the model allows it")
                guard case .forbidden("Note", let refusedKey, let operation, let rule) = error else {
                    Issue.record("a refusal that is not typed: \(error)")
                    continue
                }
                #expect(refusedKey == "\(key)" && rule == (rules.rule(SyncRules.Operation(rawValue: operation)!, className: "Note") ?? "no \(operation) rule"))
                refused += 1
            }
            if modelAllows {
                if change.operation == .delete || (change.operation == .update && before == nil) {
                    expected[key] = change.operation == .delete ? nil : before
                } else {
                    expected[key] = modelAfter
                }
            }
            #expect(store[key] == expected[key])
        }
        // No forbidden write applied: the store is the model's.
        #expect(store == expected)
        // No object leaked: each user reads exactly what the model lets them see.
        for user in users {
            let visible = Set(store.filter { rules.allows(.read, className: "Note", object: $0.value, claims: user) }.keys)
            let modelVisible = Set(expected.filter { allowed(.read, $0.value, user) }.keys)
            #expect(visible == modelVisible, "\(user) reads \(visible.sorted()), the model \(modelVisible.sorted())")
        }
        // Each of the fixed seeds exercises both sides (how much of each depends on the rules drawn).
        #expect(applied > 0 && refused > 0, "\(applied) applied, \(refused) refused under \(text)")
    }
}
