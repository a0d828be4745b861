import Foundation
import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

/// `@Persisted(deleteRule: .cascade)`: deleting an owner deletes what its cascading links reach,
/// through any depth and around cycles, unless an object that survives the write still links to it.
protocol CascadeKeyed { var id: Int { get } }

@Suite struct CascadingDeleteTests {
    final class Order: Object, CascadeKeyed {
        @Persisted(primaryKey: true) var id = 0
        @Persisted(deleteRule: .cascade) var lines: List<Line>
        @Persisted(deleteRule: .cascade) var invoice: Invoice?
        @Persisted(deleteRule: .cascade) var attachments: MutableSet<Attachment>
        @Persisted(deleteRule: .cascade) var pages: Map<String, Attachment?>
        @Persisted var customer: Customer?
        @Persisted var notes: Note?
    }

    final class Line: Object, CascadeKeyed {
        @Persisted(primaryKey: true) var id = 0
        @Persisted(deleteRule: .cascade) var detail: Attachment?
    }

    final class Invoice: Object, CascadeKeyed {
        @Persisted(primaryKey: true) var id = 0
    }

    final class Attachment: Object, CascadeKeyed {
        @Persisted(primaryKey: true) var id = 0
    }

    final class Customer: Object, CascadeKeyed {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var favourite: Line?
        @Persisted var anything: AnyRealmValue
        @Persisted var keepsakes: List<AnyRealmValue>
    }

    final class Note: EmbeddedObject {
        @Persisted var text = ""
        @Persisted(deleteRule: .cascade) var pinned: List<Attachment>
    }

    final class Node: Object, CascadeKeyed {
        @Persisted(primaryKey: true) var id = 0
        @Persisted(deleteRule: .cascade) var next: Node?
        @Persisted(deleteRule: .cascade) var children: List<Node>
        @Persisted var friend: Node?
    }

    static let types: [ObjectBase.Type] = [Order.self, Line.self, Invoice.self, Attachment.self, Customer.self, Note.self, Node.self]

    static func realm() async throws -> Realm {
        try await inMemoryRealm("cascade", objectTypes: types)
    }

    static func ids<T: Object & CascadeKeyed>(_ realm: Realm, _ type: T.Type) async throws -> Set<Int> {
        try await realm.read { realm in Set(realm.objects(type).map(\.id)) }
    }

    static func makeOrder(_ realm: borrowing Realm.Transaction, id: Int, lines: [Int], invoice: Int?) throws -> Order {
        let order = try realm.create(Order.self, value: ["id": id])
        for line in lines {
            order.lines.append(try realm.object(ofType: Line.self, forPrimaryKey: line) ?? realm.create(Line.self, value: ["id": line]))
        }
        if let invoice {
            order.invoice = try realm.object(ofType: Invoice.self, forPrimaryKey: invoice) ?? realm.create(Invoice.self, value: ["id": invoice])
        }
        return order
    }

    @Test func deletingAnOwnerDeletesItsCascadingTargetsAndNothingElse() async throws {
        let realm = try await Self.realm()
        try await realm.write { realm in
            let order = try Self.makeOrder(realm, id: 1, lines: [10, 11], invoice: 100)
            order.customer = try realm.create(Customer.self, value: ["id": 7])
            order.lines[0].detail = try realm.create(Attachment.self, value: ["id": 1000])
            order.attachments.insert(try realm.create(Attachment.self, value: ["id": 1001]))
            order.pages["cover"] = try realm.create(Attachment.self, value: ["id": 1002])
            order.pages["empty"] = nil
            try realm.create(Line.self, value: ["id": 12])
        }
        try await realm.write { realm in try realm.delete(realm.object(ofType: Order.self, forPrimaryKey: 1)!) }
        #expect(try await Self.ids(realm, Order.self).isEmpty)
        #expect(try await Self.ids(realm, Line.self) == [12])
        #expect(try await Self.ids(realm, Invoice.self).isEmpty)
        #expect(try await Self.ids(realm, Attachment.self).isEmpty)
        #expect(try await Self.ids(realm, Customer.self) == [7])
    }

    @Test func aSharedTargetStaysWhileOneOfItsOwnersStays() async throws {
        let realm = try await Self.realm()
        try await realm.write { realm in
            _ = try Self.makeOrder(realm, id: 1, lines: [10, 11], invoice: 100)
            _ = try Self.makeOrder(realm, id: 2, lines: [11], invoice: 100)
        }
        try await realm.write { realm in try realm.delete(realm.object(ofType: Order.self, forPrimaryKey: 1)!) }
        #expect(try await Self.ids(realm, Line.self) == [11])
        #expect(try await Self.ids(realm, Invoice.self) == [100])
        try await realm.write { realm in try realm.delete(realm.object(ofType: Order.self, forPrimaryKey: 2)!) }
        #expect(try await Self.ids(realm, Line.self).isEmpty)
        #expect(try await Self.ids(realm, Invoice.self).isEmpty)
    }

    @Test func deletingSeveralOwnersTogetherDeletesWhatOnlyTheyShared() async throws {
        let realm = try await Self.realm()
        try await realm.write { realm in
            _ = try Self.makeOrder(realm, id: 1, lines: [10, 11], invoice: 100)
            _ = try Self.makeOrder(realm, id: 2, lines: [11], invoice: 100)
            _ = try Self.makeOrder(realm, id: 3, lines: [12], invoice: 101)
        }
        try await realm.write { realm in try realm.delete(realm.objects(Order.self).filter("id <= 2")) }
        #expect(try await Self.ids(realm, Order.self) == [3])
        #expect(try await Self.ids(realm, Line.self) == [12])
        #expect(try await Self.ids(realm, Invoice.self) == [101])
        // A list naming an owner and one of its targets: both are roots; nothing is deleted twice.
        try await realm.write { realm in
            let order = realm.object(ofType: Order.self, forPrimaryKey: 3)!
            try realm.delete([order, order, order.lines[0]] as [Object])
        }
        #expect(try await Self.ids(realm, Line.self).isEmpty)
        #expect(try await Self.ids(realm, Invoice.self).isEmpty)
    }

    @Test func aPlainLinkFromASurvivorKeepsATarget() async throws {
        let realm = try await Self.realm()
        try await realm.write { realm in
            let order = try Self.makeOrder(realm, id: 1, lines: [10, 11], invoice: nil)
            order.lines[1].detail = try realm.create(Attachment.self, value: ["id": 5])
            try realm.create(Customer.self, value: ["id": 7]).favourite = order.lines[1]
        }
        try await realm.write { realm in try realm.delete(realm.object(ofType: Order.self, forPrimaryKey: 1)!) }
        // Line 11 stays (the customer links to it), and so does what it alone holds.
        #expect(try await Self.ids(realm, Line.self) == [11])
        #expect(try await Self.ids(realm, Attachment.self) == [5])
    }

    @Test func anAnyRealmValueHoldingATargetKeepsIt() async throws {
        let realm = try await Self.realm()
        try await realm.write { realm in
            let order = try Self.makeOrder(realm, id: 1, lines: [10, 11], invoice: 100)
            let customer = try realm.create(Customer.self, value: ["id": 7])
            customer.anything = .object(order.lines[0])
            customer.keepsakes.append(.object(order.invoice!))
        }
        try await realm.write { realm in try realm.delete(realm.object(ofType: Order.self, forPrimaryKey: 1)!) }
        #expect(try await Self.ids(realm, Line.self) == [10])
        #expect(try await Self.ids(realm, Invoice.self) == [100])
    }

    @Test func embeddedObjectsCascadeWithTheirOwnerAndWhenReplaced() async throws {
        let realm = try await Self.realm()
        try await realm.write { realm in
            let order = try Self.makeOrder(realm, id: 1, lines: [], invoice: nil)
            order.notes = Note()
            order.notes!.pinned.append(try realm.create(Attachment.self, value: ["id": 1]))
            let other = try Self.makeOrder(realm, id: 2, lines: [], invoice: nil)
            other.notes = Note()
            other.notes!.pinned.append(try realm.create(Attachment.self, value: ["id": 2]))
        }
        try await realm.write { realm in try realm.delete(realm.object(ofType: Order.self, forPrimaryKey: 1)!) }
        #expect(try await Self.ids(realm, Attachment.self) == [2])
        // Replacing an embedded object deletes it, and its cascading links with it.
        try await realm.write { realm in realm.object(ofType: Order.self, forPrimaryKey: 2)!.notes = Note() }
        #expect(try await Self.ids(realm, Attachment.self).isEmpty)
    }

    @Test func aLongChainGoesWholeWithoutRecursion() async throws {
        let realm = try await Self.realm()
        let length = 10_000
        try await realm.write { realm in
            var previous: Node?
            for id in (0..<length).reversed() {
                let node = try realm.create(Node.self, value: ["id": id])
                node.next = previous
                previous = node
            }
        }
        try await realm.write { realm in try realm.delete(realm.object(ofType: Node.self, forPrimaryKey: 0)!) }
        #expect(try await Self.ids(realm, Node.self).isEmpty)
    }

    @Test func cyclesGoTogetherUnlessASurvivorLinksIn() async throws {
        let realm = try await Self.realm()
        try await realm.write { realm in
            // 1 → 2 → 3 → 1: a cycle of cascading links.
            let nodes = try (1...3).map { try realm.create(Node.self, value: ["id": $0]) }
            nodes[0].next = nodes[1]; nodes[1].next = nodes[2]; nodes[2].next = nodes[0]
            // 10 → 11 ⇄ 12: a cycle only 10 reaches.
            let more = try (10...12).map { try realm.create(Node.self, value: ["id": $0]) }
            more[0].next = more[1]; more[1].next = more[2]; more[2].next = more[1]
            // 20 → 21 ⇄ 22, and 30 (which stays) links to 22 without cascading.
            let kept = try [20, 21, 22, 30].map { try realm.create(Node.self, value: ["id": $0]) }
            kept[0].next = kept[1]; kept[1].next = kept[2]; kept[2].next = kept[1]; kept[3].friend = kept[2]
            // 40 links to itself.
            let selfish = try realm.create(Node.self, value: ["id": 40])
            selfish.children.append(selfish)
        }
        try await realm.write { realm in
            for id in [2, 10, 20, 40] { try realm.delete(realm.object(ofType: Node.self, forPrimaryKey: id)!) }
        }
        #expect(try await Self.ids(realm, Node.self) == [21, 22, 30])
        let (next21, next22, friend30) = try await realm.read { realm in
            (realm.object(ofType: Node.self, forPrimaryKey: 21)!.next?.id,
             realm.object(ofType: Node.self, forPrimaryKey: 22)!.next?.id,
             realm.object(ofType: Node.self, forPrimaryKey: 30)!.friend?.id)
        }
        #expect(next21 == 22 && next22 == 21 && friend30 == 22)
    }

    @Test func aFailedWriteLeavesEveryCascadeUndone() async throws {
        let realm = try await Self.realm()
        try await realm.write { realm in _ = try Self.makeOrder(realm, id: 1, lines: [10, 11], invoice: 100) }
        struct Abandon: Error {}
        await #expect(throws: Abandon.self) {
            try await realm.write { realm in
                try realm.delete(realm.object(ofType: Order.self, forPrimaryKey: 1)!)
                throw Abandon()
            }
        }
        #expect(try await Self.ids(realm, Order.self) == [1])
        #expect(try await Self.ids(realm, Line.self) == [10, 11])
        #expect(try await Self.ids(realm, Invoice.self) == [100])
        let lines = try await realm.read { realm in realm.object(ofType: Order.self, forPrimaryKey: 1)!.lines.map(\.id) }
        #expect(lines == [10, 11])
        // Later writes of every class still work, and the same delete now cascades.
        try await realm.write { realm in
            _ = try Self.makeOrder(realm, id: 2, lines: [12], invoice: 101)
            try realm.create(Customer.self, value: ["id": 7])
            try realm.create(Attachment.self, value: ["id": 8])
        }
        try await realm.write { realm in try realm.delete(realm.object(ofType: Order.self, forPrimaryKey: 1)!) }
        #expect(try await Self.ids(realm, Order.self) == [2])
        #expect(try await Self.ids(realm, Line.self) == [12])
        #expect(try await Self.ids(realm, Invoice.self) == [101])
        #expect(try await Self.ids(realm, Customer.self) == [7])
        #expect(try await Self.ids(realm, Attachment.self) == [8])
    }

    @Test func aBadObjectInTheSequenceDeletesNothing() async throws {
        let realm = try await Self.realm()
        try await realm.write { realm in _ = try Self.makeOrder(realm, id: 1, lines: [10], invoice: 100) }
        try await realm.write { realm in
            let order = realm.object(ofType: Order.self, forPrimaryKey: 1)!
            #expect(throws: FloeError.self) { try realm.delete([order, Order()]) }
            #expect(!order.isInvalidated && order.lines.count == 1)
        }
        #expect(try await Self.ids(realm, Line.self) == [10])
    }

    @Test func changeStreamsReportEveryCascadedDelete() async throws {
        let realm = try await Self.realm()
        try await realm.write { realm in
            _ = try Self.makeOrder(realm, id: 1, lines: [10, 11, 12], invoice: 100)
            _ = try Self.makeOrder(realm, id: 2, lines: [13], invoice: nil)
        }
        let (lines, line11) = try await realm.read { realm in
            (try realm.objects(Line.self).sorted(byKeyPath: "id").changes, try realm.object(ofType: Line.self, forPrimaryKey: 11)!.changes)
        }
        var linesIterator = lines.makeAsyncIterator()
        var line11Iterator = line11.makeAsyncIterator()
        guard case .initial(let initial) = await linesIterator.next() else { Issue.record("no initial results"); return }
        #expect(initial.count == 4)
        try await realm.write { realm in try realm.delete(realm.object(ofType: Order.self, forPrimaryKey: 1)!) }
        guard case .update(let after, let deletions, let insertions, _) = await linesIterator.next() else { Issue.record("no update"); return }
        #expect(after.count == 1 && deletions == [0, 1, 2] && insertions.isEmpty)
        guard case .deleted = await line11Iterator.next() else { Issue.record("the line's own stream did not end with .deleted"); return }
    }

    @Test func theSchemaNamesTheRule() async throws {
        let realm = try await Self.realm()
        let schema = await realm.schema
        #expect(schema["Order"]?["lines"]?.deleteRule == .cascade)
        #expect(schema["Order"]?["invoice"]?.deleteRule == .cascade)
        #expect(schema["Order"]?["customer"]?.deleteRule == .nullify)
        #expect(schema["Order"]?["lines"]?.description.contains("deleteRule = cascade") == true)
        #expect(schema["Order"]?["customer"]?.description.contains("deleteRule") == false)
    }

    @Test func deletingEveryObjectOfAClassStillCascades() async throws {
        let realm = try await Self.realm()
        try await realm.write { realm in
            _ = try Self.makeOrder(realm, id: 1, lines: [10], invoice: 100)
            _ = try Self.makeOrder(realm, id: 2, lines: [11], invoice: 101)
        }
        try await realm.write { realm in try realm.delete(realm.objects(Order.self)) }
        #expect(try await Self.ids(realm, Line.self).isEmpty)
        #expect(try await Self.ids(realm, Invoice.self).isEmpty)
    }
}

/// Deleting an object that an `AnyRealmValue` in a list, set or map holds: the element reads as
/// `.none` afterwards (as a to-one `AnyRealmValue` does), never as a link to a missing object.
@Suite struct MixedCollectionUnlinkTests {
    final class Holder: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var one: AnyRealmValue
        @Persisted var many: List<AnyRealmValue>
        @Persisted var named: Map<String, AnyRealmValue>
    }

    final class Thing: Object {
        @Persisted(primaryKey: true) var id = 0
    }

    @Test func deletedObjectsLeaveNoDanglingMixedElements() async throws {
        let realm = try await inMemoryRealm("mixed-unlink", objectTypes: [Holder.self, Thing.self])
        try await realm.write { realm in
            let holder = try realm.create(Holder.self, value: ["id": 1])
            let thing = try realm.create(Thing.self, value: ["id": 1])
            let other = try realm.create(Thing.self, value: ["id": 2])
            holder.one = .object(thing)
            holder.many.append(.object(thing))
            holder.many.append(.int(5))
            holder.many.append(.object(other))
            holder.named["a"] = .object(thing)
            holder.named["b"] = .object(other)
        }
        try await realm.write { realm in try realm.delete(realm.object(ofType: Thing.self, forPrimaryKey: 1)!) }
        let (one, many, named) = try await realm.read { realm in
            let holder = realm.object(ofType: Holder.self, forPrimaryKey: 1)!
            func describe(_ value: AnyRealmValue) -> String {
                switch value {
                case .none: "none"
                case .int(let int): "int \(int)"
                case .object(let object): "object \((object as? Thing)?.id ?? -1)"
                default: "other"
                }
            }
            return (describe(holder.one), holder.many.map(describe), holder.named.keys.sorted().map { describe(holder.named[$0]!) })
        }
        #expect(one == "none")
        #expect(many == ["none", "int 5", "object 2"])
        #expect(named == ["none", "object 2"])
    }
}
