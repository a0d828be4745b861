import Foundation
import Testing
import FloeSync

/// The conflict rules alone: deterministic functions of the server's order.
@Suite struct ConflictRulesTests {
    let todo = SyncObjectID(className: "Todo", key: .int(1))

    func insert(_ values: [String: SyncValue]) -> ObjectChange { ObjectChange(className: "Todo", key: .int(1), operation: .insert, values: values) }
    func update(_ values: [String: SyncValue]) -> ObjectChange { ObjectChange(className: "Todo", key: .int(1), operation: .update, values: values) }
    var delete: ObjectChange { ObjectChange(className: "Todo", key: .int(1), operation: .delete) }

    @Test func lastWriterWinsPerProperty() {
        var objects: [SyncObjectID: [String: SyncValue]] = [:]
        ConflictRules.apply(insert(["id": .int(1), "title": .string("milk"), "done": .bool(false)]), to: &objects)
        // Two clients changed different properties: both survive; the same property: the later one in server order.
        ConflictRules.apply(update(["title": .string("oat milk")]), to: &objects)
        ConflictRules.apply(update(["done": .bool(true)]), to: &objects)
        ConflictRules.apply(update(["title": .string("soy milk")]), to: &objects)
        #expect(objects[todo] == ["id": .int(1), "title": .string("soy milk"), "done": .bool(true)])
    }

    @Test func deleteWinsOverLaterUpdates() {
        var objects: [SyncObjectID: [String: SyncValue]] = [:]
        ConflictRules.apply(insert(["id": .int(1), "title": .string("milk")]), to: &objects)
        #expect(ConflictRules.apply(delete, to: &objects) == delete)
        #expect(ConflictRules.apply(update(["title": .string("late")]), to: &objects) == nil)
        #expect(objects[todo] == nil)
        #expect(ConflictRules.apply(delete, to: &objects) == nil)
        // Creating it again is a new object.
        ConflictRules.apply(insert(["id": .int(1), "title": .string("again")]), to: &objects)
        #expect(objects[todo] == ["id": .int(1), "title": .string("again")])
    }

    @Test func listsAreReplacedWhole() {
        var objects: [SyncObjectID: [String: SyncValue]] = [:]
        ConflictRules.apply(insert(["id": .int(1), "tags": .list([.string("a")])]), to: &objects)
        ConflictRules.apply(update(["tags": .list([.string("a"), .string("b")])]), to: &objects)
        ConflictRules.apply(update(["tags": .list([.string("c")])]), to: &objects)
        #expect(objects[todo]?["tags"] == .list([.string("c")]))
    }

    @Test func sameOrderSameState() {
        // Any replica applying the same log reaches the same state.
        let log = [insert(["id": .int(1), "title": .string("a")]), update(["title": .string("b")]), delete,
                   update(["done": .bool(true)]), insert(["id": .int(1), "title": .string("c")]), update(["done": .bool(false)])]
        var first: [SyncObjectID: [String: SyncValue]] = [:]
        var second: [SyncObjectID: [String: SyncValue]] = [:]
        let applied = ConflictRules.apply(log, to: &first)
        _ = ConflictRules.apply(applied, to: &second)
        #expect(first == second)
        #expect(applied.count == 5)
        #expect(first[todo] == ["id": .int(1), "title": .string("c"), "done": .bool(false)])
    }
}

/// Messages and values as JSON, and the server's schema checks.
@Suite struct ProtocolTests {
    @Test func valuesRoundTripThroughJSON() throws {
        let values: [SyncValue] = [.null, .bool(true), .int(-5), .double(2.5), .string("é"), .data(Data([1, 2])), .date(12.5),
                                   .decimal("1.25"), .objectId("5f1d7b2a9c8e4d3f2a1b0c9d"), .uuid(UUID()),
                                   .link(className: "Person", key: .string("ann")), .list([.int(1), .null]), .map(["a": .int(1)])]
        for value in values {
            let data = try JSONEncoder().encode(value)
            #expect(try JSONDecoder().decode(SyncValue.self, from: data) == value)
        }
        #expect(String(decoding: try JSONEncoder().encode(SyncValue.int(4)), as: UTF8.self) == #"{"int":4}"#)
    }

    @Test func messagesRoundTripThroughJSON() throws {
        let upload = ClientMessage.upload(transactions: [UploadedTransaction(localVersion: 3, changes: [
            ObjectChange(className: "Todo", key: .int(1), operation: .insert, values: ["title": .string("x")])])], throughLocalVersion: 4)
        #expect(try JSONDecoder().decode(ClientMessage.self, from: JSONEncoder().encode(upload)) == upload)
        let error = ServerMessage.error(.wrongType(className: "Todo", property: "done", expected: "bool", value: "string \"yes\""))
        #expect(try JSONDecoder().decode(ServerMessage.self, from: JSONEncoder().encode(error)) == error)
    }

    @Test func schemaRefusesWhatDoesNotFit() {
        #expect(throws: SyncError.unknownClass(className: "Cat")) {
            try testSchema.validate(ObjectChange(className: "Cat", key: .int(1), operation: .insert))
        }
        #expect(throws: SyncError.unknownProperty(className: "Todo", property: "colour")) {
            try testSchema.validate(ObjectChange(className: "Todo", key: .int(1), operation: .update, values: ["colour": .string("red")]))
        }
        #expect(throws: SyncError.wrongType(className: "Todo", property: "done", expected: "bool", value: "string \"yes\"")) {
            try testSchema.validate(ObjectChange(className: "Todo", key: .int(1), operation: .update, values: ["done": .string("yes")]))
        }
        #expect(throws: SyncError.wrongType(className: "Todo", property: "owner", expected: "optional link to Person", value: "link to Todo Todo(1)")) {
            try testSchema.validate(ObjectChange(className: "Todo", key: .int(2), operation: .update, values: ["owner": .link(className: "Todo", key: .int(1))]))
        }
        #expect(throws: SyncError.wrongType(className: "Todo", property: "id", expected: "int", value: "string \"1\"")) {
            try testSchema.validate(ObjectChange(className: "Todo", key: .string("1"), operation: .delete))
        }
        let message = SyncError.wrongType(className: "Todo", property: "done", expected: "bool", value: "string \"yes\"").description
        #expect(message.contains("Todo.done") && message.contains("bool") && message.contains("yes"))
    }

    /// A mixed value takes any type, but a device must still be able to hold it: a decimal or
    /// an object identifier that does not parse, at any depth, would stop every device that
    /// downloads it.
    @Test func aMixedValueThatNoDeviceCanHoldIsRefused() throws {
        let anything = SyncProperty(name: "anything", kind: .mixed)
        for value: SyncValue in [.decimal("1e"), .objectId("xyz"), .list([.int(1), .decimal("abc")]), .map(["a": .map(["b": .objectId("5f")])]),
                                 .link(className: "Todo", key: .objectId("nope"))] {
            #expect(throws: SyncError.self) { try anything.check(value, className: "Todo") }
        }
        for value: SyncValue in [.null, .decimal("1e5"), .decimal("-Inf"), .objectId("5F1D7B2A9C8E4D3F2A1B0C9D"), .list([.decimal(".5"), .string("x")]),
                                 .map(["a": .objectId("5f1d7b2a9c8e4d3f2a1b0c9d")])] {
            try anything.check(value, className: "Todo")
        }
    }
}
