import Foundation
import FloeSync

// libFuzzer target: any bytes as a client message, as the sync server reads it (decoded, checked
// against a schema, authorized by rules), and as the text of a rule and of a rules file.
// Each must end in a value or a typed error: never a crash or a hang.

private func makeSchema() -> SyncSchema { SyncSchema(version: 1, classes: [
    SyncClass(name: "Note", primaryKey: "id", properties: [
        SyncProperty(name: "id", kind: .int),
        SyncProperty(name: "ownerId", kind: .string),
        SyncProperty(name: "tags", kind: .string, collection: .list),
        SyncProperty(name: "owner", kind: .link, isOptional: true, target: "Note"),
        SyncProperty(name: "place", kind: .embedded, isOptional: true, target: "Place", properties: [SyncProperty(name: "city", kind: .string)]),
    ]),
]) }

// Made for each input rather than kept in a global: the leak checker cannot see pointers that
// Swift stores with tag bits in an enum's payload, and would report a global's rule tree.
private func makeRules(_ schema: SyncSchema) -> SyncRules { try! SyncRules(["Note": [.read: "ownerId == $jwt.sub OR tags CONTAINS 'x'", .create: "ownerId == $jwt.sub",
                                              .update: "ownerId == $jwt.sub OR $jwt.role == 'admin'", .delete: "ownerId == $jwt.sub"]], schema: schema) }

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSyncMessage(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = Data(UnsafeRawBufferPointer(start: start, count: count))
    let schema = makeSchema()
    let rules = makeRules(schema)
    if let message = try? JSONDecoder().decode(ClientMessage.self, from: data), case .upload(let transactions, _) = message {
        var objects: [SyncObjectID: [String: SyncValue]] = [:]
        for change in transactions.flatMap(\.changes) {
            guard (try? schema.validate(change)) != nil else { continue }
            if let after = try? rules.authorize(change, before: objects[change.objectID], claims: ["sub": .string("ann")]) {
                _ = rules.visibleChange(change, before: objects[change.objectID], after: after, claims: ["sub": .string("bob")])
                objects[change.objectID] = after
            }
        }
    }
    let text = String(decoding: data, as: UTF8.self)
    _ = try? SyncRules(["Note": [.read: text]], schema: schema)
    _ = try? SyncRules(json: data, schema: schema)
    _ = try? SyncValue.claims(fromJSON: data)
    return 0
}
