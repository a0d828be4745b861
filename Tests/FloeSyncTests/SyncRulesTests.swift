import Foundation
import Testing
import FloeSync

/// A class with the properties rules are usually written over.
let rulesSchema = SyncSchema(version: 1, classes: [
    SyncClass(name: "Note", primaryKey: "id", properties: [
        SyncProperty(name: "id", kind: .int),
        SyncProperty(name: "ownerId", kind: .string),
        SyncProperty(name: "teamId", kind: .string, isOptional: true),
        SyncProperty(name: "isPublic", kind: .bool),
        SyncProperty(name: "level", kind: .int),
        SyncProperty(name: "tags", kind: .string, collection: .list),
        SyncProperty(name: "device", kind: .uuid, isOptional: true),
        SyncProperty(name: "author", kind: .link, isOptional: true, target: "Person"),
        SyncProperty(name: "address", kind: .embedded, isOptional: true, target: "Address",
                     properties: [SyncProperty(name: "city", kind: .string)]),
    ]),
    SyncClass(name: "Person", primaryKey: "id", properties: [SyncProperty(name: "id", kind: .string)]),
])

@Suite struct SyncRulesTests {
    func rules(_ read: String, write: String? = nil) throws -> SyncRules {
        let write = write ?? read
        return try SyncRules(["Note": [.read: read, .create: write, .update: write, .delete: write]], schema: rulesSchema)
    }

    func note(_ owner: String, team: String? = nil, level: Int64 = 0, tags: [String] = []) -> [String: SyncValue] {
        ["id": .int(1), "ownerId": .string(owner), "teamId": team.map(SyncValue.string) ?? .null, "isPublic": .bool(false),
         "level": .int(level), "tags": .list(tags.map(SyncValue.string))]
    }

    let ann: [String: SyncValue] = ["sub": .string("ann"), "role": .string("user"), "teams": .list([.string("red"), .string("blue")]), "level": .int(3)]
    let bob: [String: SyncValue] = ["sub": .string("bob"), "role": .string("admin"), "teams": .list([]), "level": .double(1.5)]

    // MARK: Evaluation

    @Test func theIssuesThreeRules() throws {
        let owner = try rules("ownerId == $jwt.sub")
        #expect(owner.allows(.read, className: "Note", object: note("ann"), claims: ann))
        #expect(!owner.allows(.read, className: "Note", object: note("bob"), claims: ann))
        let admin = try rules(#"$jwt.role == "admin""#)
        #expect(admin.allows(.read, className: "Note", object: note("ann"), claims: bob))
        #expect(!admin.allows(.read, className: "Note", object: note("ann"), claims: ann))
        let team = try rules("teamId IN $jwt.teams")
        #expect(team.allows(.read, className: "Note", object: note("x", team: "blue"), claims: ann))
        #expect(!team.allows(.read, className: "Note", object: note("x", team: "green"), claims: ann))
        #expect(!team.allows(.read, className: "Note", object: note("x", team: nil), claims: ann))
        #expect(!team.allows(.read, className: "Note", object: note("x", team: "blue"), claims: bob))
    }

    @Test func aMissingClaimGrantsNothing() throws {
        let admin = try rules("$jwt.role == 'admin' OR $jwt.groups CONTAINS 'x'")
        #expect(!admin.allows(.read, className: "Note", object: note("ann"), claims: ["sub": .string("ann")]))
        // A missing claim makes its comparison false, even against a nil property and with !=.
        let team = try rules("teamId IN $jwt.teams")
        #expect(!team.allows(.read, className: "Note", object: note("x", team: nil), claims: ["sub": .string("ann")]))
        #expect(try !rules("teamId == $jwt.team").allows(.read, className: "Note", object: note("x", team: nil), claims: [:]))
        #expect(try !rules("teamId != $jwt.team").allows(.read, className: "Note", object: note("x", team: "red"), claims: [:]))
        #expect(try !rules("$jwt.role == nil").allows(.read, className: "Note", object: note("ann"), claims: [:]))
        #expect(try !rules("address.city == $jwt.org.city").allows(.read, className: "Note", object: note("x"), claims: ["org": .map([:])]))
        // A claim that is there and null is nil.
        #expect(try rules("teamId == $jwt.team").allows(.read, className: "Note", object: note("x", team: nil), claims: ["team": .null]))
        #expect(try !rules("teamId IN $jwt.teams").allows(.read, className: "Note", object: note("x", team: nil), claims: ["teams": .null]))
        // A missing claim in a list is left out of it.
        #expect(try rules("ownerId IN {$jwt.sub, $jwt.alias}").allows(.read, className: "Note", object: note("ann"), claims: ann))
        let owner = try rules("ownerId == $jwt.sub")
        #expect(!owner.allows(.read, className: "Note", object: note("ann"), claims: [:]))
        #expect(!owner.allows(.read, className: "Note", object: ["id": .int(1)], claims: ["sub": .string("")]))
        #expect(!owner.allows(.read, className: "Note", object: ["id": .int(1)], claims: [:]))
    }

    @Test func precedenceAndNegation() throws {
        // AND binds tighter than OR; NOT and ! negate; parentheses group.
        let rule = try rules("$jwt.role == 'admin' OR ownerId == $jwt.sub AND level <= $jwt.level")
        #expect(rule.allows(.read, className: "Note", object: note("ann", level: 3), claims: ann))
        #expect(!rule.allows(.read, className: "Note", object: note("ann", level: 4), claims: ann))
        #expect(rule.allows(.read, className: "Note", object: note("zed", level: 9), claims: bob))
        let grouped = try rules("($jwt.role == 'admin' OR ownerId == $jwt.sub) && level <= $jwt.level")
        #expect(!grouped.allows(.read, className: "Note", object: note("zed", level: 9), claims: bob))
        #expect(grouped.allows(.read, className: "Note", object: note("zed", level: 1), claims: bob))
        let negated = try rules("NOT ownerId == $jwt.sub && !(level > 2)")
        #expect(negated.allows(.read, className: "Note", object: note("bob", level: 2), claims: ann))
        #expect(!negated.allows(.read, className: "Note", object: note("ann", level: 2), claims: ann))
        #expect(!negated.allows(.read, className: "Note", object: note("bob", level: 3), claims: ann))
    }

    @Test func valuesCompareAsFloeQueriesDo() throws {
        // Numbers across int and double; strings with [c]; lists by any element; links by key;
        // uuids with a string claim by their text; embedded objects and object claims by dotted paths.
        #expect(try rules("level > $jwt.level").allows(.read, className: "Note", object: note("a", level: 2), claims: bob))
        #expect(try rules("ownerId ==[c] 'ANN'").allows(.read, className: "Note", object: note("ann"), claims: ann))
        #expect(try !rules("ownerId == 'ANN'").allows(.read, className: "Note", object: note("ann"), claims: ann))
        #expect(try rules("ownerId BEGINSWITH 'a' AND ownerId ENDSWITH 'n' AND ownerId CONTAINS 'n'").allows(.read, className: "Note", object: note("ann"), claims: ann))
        #expect(try rules("tags == 'red'").allows(.read, className: "Note", object: note("x", tags: ["blue", "red"]), claims: ann))
        #expect(try rules("tags CONTAINS $jwt.sub").allows(.read, className: "Note", object: note("x", tags: ["ann"]), claims: ann))
        #expect(try !rules("tags CONTAINS $jwt.sub").allows(.read, className: "Note", object: note("x", tags: ["annie"]), claims: ann))
        #expect(try rules("tags IN $jwt.teams").allows(.read, className: "Note", object: note("x", tags: ["green", "blue"]), claims: ann))
        #expect(try rules("level IN {1, 2, 3}").allows(.read, className: "Note", object: note("x", level: 2), claims: ann))
        #expect(try rules("ownerId IN {$jwt.sub, 'root'}").allows(.read, className: "Note", object: note("root"), claims: ann))
        var linked = note("x")
        linked["author"] = .link(className: "Person", key: .string("ann"))
        #expect(try rules("author == $jwt.sub").allows(.read, className: "Note", object: linked, claims: ann))
        let device = UUID()
        linked["device"] = .uuid(device)
        #expect(try rules("device == $jwt.device").allows(.read, className: "Note", object: linked, claims: ["device": .string(device.uuidString.lowercased())]))
        linked["address"] = .map(["city": .string("Oslo")])
        #expect(try rules("address.city == $jwt.org.city").allows(.read, className: "Note", object: linked, claims: ["org": .map(["city": .string("Oslo")])]))
        #expect(try !rules("address.city == $jwt.org.city").allows(.read, className: "Note", object: linked, claims: ["org": .string("Oslo")]))
        // nil has no order.
        #expect(try !rules("teamId < 'z'").allows(.read, className: "Note", object: note("x"), claims: ann))
        #expect(try rules("teamId != 'z'").allows(.read, className: "Note", object: note("x"), claims: ann))
    }

    // MARK: Refusals of the rules themselves

    @Test func aBadRuleIsATypedErrorNamingClassOperationAndRule() {
        func refusal(_ text: String) -> SyncError? {
            do {
                _ = try SyncRules(["Note": [.update: text]], schema: rulesSchema)
                return nil
            } catch {
                return error
            }
        }
        guard case .invalidRule("Note", "update", "owner == $jwt.sub", let reason)? = refusal("owner == $jwt.sub") else {
            Issue.record("an unknown property is refused")
            return
        }
        #expect(reason.contains("'Note' has no property 'owner'"))
        guard case .invalidRule("Note", "update", "author.name == $jwt.sub", let linkReason)? = refusal("author.name == $jwt.sub") else {
            Issue.record("a path through a link is refused")
            return
        }
        #expect(linkReason.contains("'author.name' goes through 'author'"))
        for bad in ["ownerId == ", "ownerId $jwt.sub", "ownerId == 'open", "ownerId == $user.id", "(ownerId == $jwt.sub", "ownerId == $jwt.sub extra",
                    "", "ownerId == 1e999", String(repeating: "(", count: 500) + "TRUEPREDICATE" + String(repeating: ")", count: 500),
                    String(repeating: "NOT ", count: 500) + "TRUEPREDICATE"] {
            guard case .invalidRule("Note", "update", bad, let reason)? = refusal(bad) else {
                Issue.record("'\(bad)' was accepted")
                continue
            }
            #expect(reason.contains("at character"))
        }
        do {
            _ = try SyncRules(["Nope": [.read: "TRUEPREDICATE"]], schema: rulesSchema)
            Issue.record("a class the schema does not sync was accepted")
        } catch {
            #expect(error == .unknownClass(className: "Nope"))
        }
    }

    @Test func theRulesFile() throws {
        let json = Data(#"{"Note": {"read": "isPublic == true OR ownerId == $jwt.sub", "write": "ownerId == $jwt.sub", "delete": "FALSEPREDICATE"}}"#.utf8)
        let rules = try SyncRules(json: json, schema: rulesSchema)
        #expect(rules.rule(.create, className: "Note") == "ownerId == $jwt.sub")
        #expect(rules.rule(.update, className: "Note") == "ownerId == $jwt.sub")
        #expect(rules.rule(.delete, className: "Note") == "FALSEPREDICATE")
        #expect(rules.rule(.read, className: "Person") == nil)
        #expect(!rules.allows(.read, className: "Person", object: ["id": .string("ann")], claims: ann))
        #expect(throws: SyncError.invalidRule(className: "Note", operation: "erase", rule: "TRUEPREDICATE", reason: "the operations are read, create, update, delete and write")) {
            try SyncRules(json: Data(#"{"Note": {"erase": "TRUEPREDICATE"}}"#.utf8), schema: rulesSchema)
        }
        #expect(throws: SyncError.self) { try SyncRules(json: Data("[1]".utf8), schema: rulesSchema) }
    }

    @Test func claimsFromAToken() throws {
        let claims = try SyncValue.claims(fromJSON: Data(#"{"sub":"ann","exp":1700000000,"ratio":0.5,"admin":true,"teams":["red"],"org":{"id":7},"none":null}"#.utf8))
        #expect(claims == ["sub": .string("ann"), "exp": .int(1_700_000_000), "ratio": .double(0.5), "admin": .bool(true),
                           "teams": .list([.string("red")]), "org": .map(["id": .int(7)]), "none": .null])
        #expect(throws: SyncError.unauthenticated(reason: "the token's payload is not a JSON object")) { try SyncValue.claims(fromJSON: Data("[]".utf8)) }
    }

    // MARK: Writes

    func change(_ operation: ObjectChange.Operation, _ values: [String: SyncValue] = [:]) -> ObjectChange {
        ObjectChange(className: "Note", key: .int(1), operation: operation, values: values)
    }

    @Test func writesAreCheckedBeforeAndAfter() throws {
        let rules = try rules("ownerId == $jwt.sub")
        // Create as oneself; not as another user.
        let created = try rules.authorize(change(.insert, note("ann")), before: nil, claims: ann)
        #expect(created?["ownerId"] == .string("ann"))
        #expect(throws: SyncError.forbidden(className: "Note", key: "1", operation: "create", rule: "ownerId == $jwt.sub")) {
            try rules.authorize(change(.insert, note("bob")), before: nil, claims: ann)
        }
        // Steal: the object is Bob's before.
        #expect(throws: SyncError.forbidden(className: "Note", key: "1", operation: "update", rule: "ownerId == $jwt.sub")) {
            try rules.authorize(change(.update, ["ownerId": .string("ann")]), before: note("bob"), claims: ann)
        }
        // Give away: the object would be Bob's after.
        #expect(throws: SyncError.forbidden(className: "Note", key: "1", operation: "update", rule: "ownerId == $jwt.sub")) {
            try rules.authorize(change(.update, ["ownerId": .string("bob")]), before: note("ann"), claims: ann)
        }
        // An insert over an existing object is an update of it (an upsert cannot take another's object).
        #expect(throws: SyncError.forbidden(className: "Note", key: "1", operation: "update", rule: "ownerId == $jwt.sub")) {
            try rules.authorize(change(.insert, note("ann")), before: note("bob"), claims: ann)
        }
        #expect(throws: SyncError.forbidden(className: "Note", key: "1", operation: "delete", rule: "ownerId == $jwt.sub")) {
            try rules.authorize(change(.delete), before: note("bob"), claims: ann)
        }
        // One's own: updated (the after image merges the change) and deleted.
        #expect(try rules.authorize(change(.update, ["level": .int(7)]), before: note("ann"), claims: ann)?["level"] == .int(7))
        #expect(try rules.authorize(change(.delete), before: note("ann"), claims: ann) == nil)
        // Updating or deleting what is not there changes nothing, so nothing is refused.
        #expect(try rules.authorize(change(.update, ["ownerId": .string("bob")]), before: nil, claims: ann) == nil)
        #expect(try rules.authorize(change(.delete), before: nil, claims: ann) == nil)
        // The key an insert carries is the object's key, whatever its values say.
        let keyRule = try SyncRules(["Note": [.create: "id == 1"]], schema: rulesSchema)
        #expect(throws: SyncError.self) { try keyRule.authorize(ObjectChange(className: "Note", key: .int(2), operation: .insert, values: ["id": .int(1)]), before: nil, claims: ann) }
    }

    @Test func anOperationWithoutARuleIsRefused() throws {
        let readOnly = try SyncRules(["Note": [.read: "TRUEPREDICATE"]], schema: rulesSchema)
        #expect(throws: SyncError.forbidden(className: "Note", key: "1", operation: "create", rule: "no create rule")) {
            try readOnly.authorize(change(.insert, note("ann")), before: nil, claims: ann)
        }
        #expect(throws: SyncError.forbidden(className: "Person", key: "\"ann\"", operation: "create", rule: "no create rule")) {
            try readOnly.authorize(ObjectChange(className: "Person", key: .string("ann"), operation: .insert), before: nil, claims: ann)
        }
        #expect(SyncError.forbidden(className: "Note", key: "1", operation: "create", rule: "x").isRejection)
    }
}
