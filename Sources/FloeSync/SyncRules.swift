import Foundation

/// Who may read, create, update and delete the objects of each synced class: per class and
/// operation, a predicate in Floe's query dialect over the object's properties and the
/// connection's token claims (`$jwt.sub`). The server checks every uploaded change and every
/// downloaded object against them. A class, or an operation, without a rule is refused.
///
/// - read: the object's values (an object stops being readable when they change).
/// - create: the new object's values.
/// - update: the object's values before *and* after the change (no one updates an object
///   into, or out of, their reach).
/// - delete: the object's values before.
///
/// ```swift
/// let rules = try SyncRules(["Todo": [
///     .read: "ownerId == $jwt.sub OR $jwt.role == 'admin'",
///     .create: "ownerId == $jwt.sub", .update: "ownerId == $jwt.sub", .delete: "ownerId == $jwt.sub",
/// ]], schema: schema)
/// let visible = rules.allows(.read, className: "Todo", object: todo, claims: ["sub": .string("ann")])
/// ```
public struct SyncRules: Sendable {
    /// What a rule grants.
    public enum Operation: String, Sendable, Hashable, Codable, CaseIterable {
        case read, create, update, delete
    }

    /// The rules' text, by class and operation.
    public let text: [String: [Operation: String]]
    private let compiled: [String: [Operation: RuleExpression]]
    private let primaryKeys: [String: String]

    /// Rules from their text, checked against `schema`.
    ///
    /// - Throws: ``SyncError/unknownClass(className:)`` for a class the schema does not sync,
    ///   ``SyncError/invalidRule(className:operation:rule:reason:)`` for a rule that does not parse
    ///   or names a property the class does not have.
    public init(_ text: [String: [Operation: String]], schema: SyncSchema) throws(SyncError) {
        var compiled: [String: [Operation: RuleExpression]] = [:]
        for (className, rules) in text {
            guard let syncClass = schema[className] else { throw .unknownClass(className: className) }
            for (operation, rule) in rules {
                let expression: RuleExpression
                do {
                    expression = try RuleParser.parse(rule)
                } catch {
                    throw .invalidRule(className: className, operation: operation.rawValue, rule: rule, reason: error.reason)
                }
                for path in expression.propertyPaths {
                    guard let property = syncClass.property(named: path[0]) else {
                        throw .invalidRule(className: className, operation: operation.rawValue, rule: rule,
                                           reason: "'\(className)' has no property '\(path[0])'")
                    }
                    // The server holds the object's own values: a path goes into embedded objects and maps, not through links.
                    if path.count > 1 && property.kind != .embedded && property.kind != .mixed && property.collection != .map {
                        throw .invalidRule(className: className, operation: operation.rawValue, rule: rule,
                                           reason: "'\(path.joined(separator: "."))' goes through '\(path[0])', which is no embedded object or map")
                    }
                }
                compiled[className, default: [:]][operation] = expression
            }
        }
        self.text = text
        self.compiled = compiled
        self.primaryKeys = Dictionary(uniqueKeysWithValues: schema.classes.map { ($0.name, $0.primaryKey) })
    }

    /// Rules from the server's rules file: a JSON object of classes, each an object of
    /// operations (`read`, `create`, `update`, `delete`, and `write` for the three writes
    /// that are not given on their own) to rule text.
    ///
    /// ```json
    /// {"Todo": {"read": "ownerId == $jwt.sub", "write": "ownerId == $jwt.sub"}}
    /// ```
    ///
    /// - Throws: ``SyncError/invalidRule(className:operation:rule:reason:)`` for a file that is
    ///   not such an object, and the errors of ``init(_:schema:)``.
    public init(json: Data, schema: SyncSchema) throws(SyncError) {
        let object: [String: [String: String]]
        do {
            object = try JSONDecoder().decode([String: [String: String]].self, from: json)
        } catch {
            throw .invalidRule(className: "", operation: "", rule: "", reason: "the rules file is not an object of classes, each an object of operations to rule text: \(error)")
        }
        var text: [String: [Operation: String]] = [:]
        for (className, operations) in object {
            var rules: [Operation: String] = [:]
            for (name, rule) in operations where name != "write" {
                guard let operation = Operation(rawValue: name) else {
                    throw .invalidRule(className: className, operation: name, rule: rule, reason: "the operations are read, create, update, delete and write")
                }
                rules[operation] = rule
            }
            if let write = operations["write"] {
                for operation in [Operation.create, .update, .delete] where rules[operation] == nil { rules[operation] = write }
            }
            text[className] = rules
        }
        try self.init(text, schema: schema)
    }

    /// The text of the rule for `operation` on `className` (nil: refused).
    public func rule(_ operation: Operation, className: String) -> String? { text[className]?[operation] }

    /// The parsed rule for `operation` on `className` (nil: refused).
    func expression(_ operation: Operation, className: String) -> RuleExpression? { compiled[className]?[operation] }

    /// Whether the token with `claims` may do `operation` to an object of `className` whose
    /// values are `object`.
    ///
    /// ```swift
    /// rules.allows(.read, className: "Todo", object: ["ownerId": .string("ann")], claims: ["sub": .string("ann")])
    /// ```
    public func allows(_ operation: Operation, className: String, object: [String: SyncValue], claims: [String: SyncValue]) -> Bool {
        guard let expression = expression(operation, className: className) else { return false }
        return expression.evaluate(object: object, claims: claims)
    }

    /// Checks one uploaded change against the rules, given the object's values before it (nil:
    /// there is no such object), and returns its values after it (nil: it does not exist then).
    /// An insert over an existing object is an update; an update or a delete of a missing
    /// object changes nothing and is allowed.
    ///
    /// ```swift
    /// let after = try rules.authorize(change, before: stored[change.objectID], claims: claims)
    /// ```
    ///
    /// - Throws: ``SyncError/forbidden(className:key:operation:rule:)`` naming the class, the
    ///   key, the operation and the rule that refused it.
    public func authorize(_ change: ObjectChange, before: [String: SyncValue]?, claims: [String: SyncValue]) throws(SyncError) -> [String: SyncValue]? {
        var after = before ?? [:]
        switch change.operation {
        case .delete:
            guard let before else { return nil }
            try require(.delete, change, before, claims)
            return nil
        case .update:
            guard let before else { return nil }
            after.merge(change.values) { _, new in new }
            try require(.update, change, before, claims)
            try require(.update, change, after, claims)
        case .insert:
            after.merge(change.values) { _, new in new }
            if let key = primaryKeys[change.className] { after[key] = change.key }
            if let before {
                try require(.update, change, before, claims)
                try require(.update, change, after, claims)
            } else {
                try require(.create, change, after, claims)
            }
        }
        return after
    }

    /// What a client with `claims` receives of a change the server applied, given the object's
    /// values before and after it: the change itself while the object stays readable, the whole
    /// object (an insert) when it becomes readable, a delete when it stops being readable (it
    /// leaves the device), and nothing while it is not readable.
    ///
    /// ```swift
    /// if let visible = rules.visibleChange(change, before: before, after: after, claims: claims) { send(visible) }
    /// ```
    public func visibleChange(_ change: ObjectChange, before: [String: SyncValue]?, after: [String: SyncValue]?,
                              claims: [String: SyncValue]) -> ObjectChange? {
        let wasReadable = before.map { allows(.read, className: change.className, object: $0, claims: claims) } ?? false
        let isReadable = after.map { allows(.read, className: change.className, object: $0, claims: claims) } ?? false
        switch (wasReadable, isReadable) {
        case (true, true): return change
        case (false, true): return ObjectChange(className: change.className, key: change.key, operation: .insert, values: after ?? [:])
        case (true, false): return ObjectChange(className: change.className, key: change.key, operation: .delete)
        case (false, false): return nil
        }
    }

    private func require(_ operation: Operation, _ change: ObjectChange, _ object: [String: SyncValue], _ claims: [String: SyncValue]) throws(SyncError) {
        guard !allows(operation, className: change.className, object: object, claims: claims) else { return }
        throw .forbidden(className: change.className, key: change.key.description, operation: operation.rawValue,
                         rule: rule(operation, className: change.className) ?? "no \(operation.rawValue) rule")
    }
}

extension SyncValue {
    /// Claims from a token's JSON payload: strings, numbers (whole ones as ints), booleans,
    /// nulls, arrays as lists and objects as maps.
    ///
    /// ```swift
    /// let claims = try SyncValue.claims(fromJSON: Data(#"{"sub":"ann","teams":["red"]}"#.utf8))
    /// ```
    public static func claims(fromJSON data: Data) throws(SyncError) -> [String: SyncValue] {
        guard let claims = try? JSONDecoder().decode(SyncClaims.self, from: data).values else {
            throw .unauthenticated(reason: "the token's payload is not a JSON object")
        }
        return claims
    }
}

/// A token's claims, decoded from its JSON payload as ``SyncValue/claims(fromJSON:)`` reads them
/// (a server decodes its verified payload with it).
///
/// ```swift
/// let claims = try JSONDecoder().decode(SyncClaims.self, from: payload).values
/// ```
public struct SyncClaims: Sendable, Decodable {
    /// The claims by name.
    public let values: [String: SyncValue]

    /// Reads a JSON object of claims.
    public init(from decoder: any Decoder) throws {
        guard case .map(let values) = try PlainJSON(from: decoder).value else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "the claims are not a JSON object"))
        }
        self.values = values
    }
}

/// A JSON value read as it is written (not in sync's tagged form).
struct PlainJSON: Decodable {
    let value: SyncValue

    init(from decoder: any Decoder) throws {
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            value = .null
        } else if let bool = try? single.decode(Bool.self) {
            value = .bool(bool)
        } else if let int = try? single.decode(Int64.self) {
            value = .int(int)
        } else if let double = try? single.decode(Double.self) {
            value = .double(double)
        } else if let string = try? single.decode(String.self) {
            value = .string(string)
        } else if let list = try? single.decode([PlainJSON].self) {
            value = .list(list.map(\.value))
        } else {
            value = .map(try single.decode([String: PlainJSON].self).mapValues(\.value))
        }
    }
}
