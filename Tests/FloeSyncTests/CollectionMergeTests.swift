import Foundation
import Testing
import FloeSync

/// Lists, sets and maps that merge: an update carries each collection's value before it
/// (`bases`), and the server merges what the device did into what it holds.
@Suite struct CollectionMergeTests {
    let todo = SyncObjectID(className: "Todo", key: .int(1))

    func strings(_ values: String...) -> SyncValue { .list(values.map(SyncValue.string)) }

    /// A device's update of list `tags` from `before` to `after`.
    func edit(_ name: String = "tags", from before: SyncValue, to after: SyncValue, set: Bool = false) -> ObjectChange {
        let base: CollectionBase
        switch before {
        case .list(let elements): base = set ? .set(elements) : .list(elements)
        case .map(let entries): base = .map(entries)
        default: fatalError("not a collection")
        }
        return ObjectChange(className: "Todo", key: .int(1), operation: .update, values: [name: after], bases: [name: base])
    }

    func start(_ values: [String: SyncValue]) -> [SyncObjectID: [String: SyncValue]] {
        var objects: [SyncObjectID: [String: SyncValue]] = [:]
        ConflictRules.apply(ObjectChange(className: "Todo", key: .int(1), operation: .insert, values: values.merging(["id": .int(1)]) { $1 }), to: &objects)
        return objects
    }

    @Test func insertionsOnTwoDevicesBothSurvive() {
        var objects = start(["tags": strings("a", "b")])
        // Both inserted between a and b, and both appended, from the same base.
        let first = ConflictRules.apply(edit(from: strings("a", "b"), to: strings("a", "x", "b", "end1")), to: &objects)
        ConflictRules.apply(edit(from: strings("a", "b"), to: strings("a", "y", "b", "end2")), to: &objects)
        // The one that reached the server first comes first at the same place.
        #expect(objects[todo]?["tags"] == strings("a", "x", "y", "b", "end1", "end2"))
        // What is logged is the merged value, without the base: every replica takes it whole.
        #expect(first?.bases == nil && first?.values["tags"] == strings("a", "x", "b", "end1"))
    }

    @Test func aRemovalAppliesOnce() {
        var objects = start(["tags": strings("a", "a", "b", "c")])
        ConflictRules.apply(edit(from: strings("a", "a", "b", "c"), to: strings("a", "b", "c")), to: &objects)
        ConflictRules.apply(edit(from: strings("a", "a", "b", "c"), to: strings("a", "b", "c")), to: &objects)
        #expect(objects[todo]?["tags"] == strings("a", "b", "c"))
        // Removing b, which another device moved to the front first, still removes it.
        ConflictRules.apply(edit(from: strings("a", "b", "c"), to: strings("b", "a", "c")), to: &objects)
        ConflictRules.apply(edit(from: strings("a", "b", "c"), to: strings("a", "c")), to: &objects)
        #expect(objects[todo]?["tags"] == strings("a", "c"))
    }

    @Test func theFirstMoveOfAnElementWins() {
        var objects = start(["tags": strings("a", "b", "c", "d")])
        ConflictRules.apply(edit(from: strings("a", "b", "c", "d"), to: strings("b", "c", "d", "a")), to: &objects)
        ConflictRules.apply(edit(from: strings("a", "b", "c", "d"), to: strings("b", "a", "c", "d")), to: &objects)
        #expect(objects[todo]?["tags"] == strings("b", "c", "d", "a"))
        // A move of an element another device removed does nothing either.
        ConflictRules.apply(edit(from: strings("b", "c", "d", "a"), to: strings("b", "d", "a")), to: &objects)
        ConflictRules.apply(edit(from: strings("b", "c", "d", "a"), to: strings("c", "b", "d", "a")), to: &objects)
        #expect(objects[todo]?["tags"] == strings("b", "d", "a"))
    }

    @Test func aReplacedElementThatAnotherDeviceRemovedStaysRemoved() {
        var objects = start(["stops": .list([.map(["name": .string("a")]), .map(["name": .string("b")])])])
        let base: SyncValue = .list([.map(["name": .string("a")]), .map(["name": .string("b")])])
        // One device renames stop b (an edit inside an embedded object replaces it); another removed it first.
        ConflictRules.apply(edit("stops", from: base, to: .list([.map(["name": .string("a")])])), to: &objects)
        ConflictRules.apply(edit("stops", from: base, to: .list([.map(["name": .string("a")]), .map(["name": .string("b2")])])), to: &objects)
        #expect(objects[todo]?["stops"] == .list([.map(["name": .string("a")])]))
        // A replacement of an element still there applies in place.
        ConflictRules.apply(edit("stops", from: .list([.map(["name": .string("a")])]), to: .list([.map(["name": .string("a2")])])), to: &objects)
        #expect(objects[todo]?["stops"] == .list([.map(["name": .string("a2")])]))
    }

    @Test func setsMergeAsSetsAndMapsPerKey() {
        var objects = start(["labels": strings("a", "b"), "scores": .map(["x": .int(1), "y": .int(2)])])
        ConflictRules.apply(edit("labels", from: strings("a", "b"), to: strings("a", "b", "c"), set: true), to: &objects)
        ConflictRules.apply(edit("labels", from: strings("a", "b"), to: strings("b", "d"), set: true), to: &objects)
        #expect(objects[todo]?["labels"] == strings("b", "c", "d"))
        ConflictRules.apply(edit("scores", from: .map(["x": .int(1), "y": .int(2)]), to: .map(["x": .int(5), "y": .int(2)])), to: &objects)
        ConflictRules.apply(edit("scores", from: .map(["x": .int(1), "y": .int(2)]), to: .map(["x": .int(1), "z": .int(3)])), to: &objects)
        #expect(objects[todo]?["scores"] == .map(["x": .int(5), "z": .int(3)]))
    }

    @Test func withoutAConcurrentChangeTheDevicesValueIsKept() {
        var random = SyncRulesModelTests.RandomSource(state: 3)
        for _ in 0..<2_000 {
            let base = (0..<Int.random(in: 0...8, using: &random)).map { _ in SyncValue.int(Int64.random(in: 0..<4, using: &random)) }
            var mine = base
            for _ in 0..<Int.random(in: 0...4, using: &random) {
                if !mine.isEmpty && Bool.random(using: &random) {
                    mine.remove(at: Int.random(in: 0..<mine.count, using: &random))
                } else {
                    mine.insert(.int(Int64.random(in: 0..<6, using: &random)), at: Int.random(in: 0...mine.count, using: &random))
                }
            }
            var objects = start(["tags": .list(base)])
            ConflictRules.apply(edit(from: .list(base), to: .list(mine)), to: &objects)
            #expect(objects[todo]?["tags"] == .list(mine), "\(base) → \(mine)")
        }
    }

    /// A differing stretch with no element once on each side, longer than the bound, is not
    /// compared (its cost grows with its square): the device's list replaces the server's.
    @Test func aListTooCostlyToCompareIsReplacedWhole() {
        let base = (0..<5_000).map { SyncValue.string($0 % 2 == 0 ? "a" : "b") }
        let mine = Array(base.dropFirst()) + [.string("z")]
        var objects = start(["tags": .list(base)])
        ConflictRules.apply(edit(from: .list(base), to: .list(base + [.string("y")])), to: &objects)
        ConflictRules.apply(edit(from: .list(base), to: .list(mine)), to: &objects)
        #expect(objects[todo]?["tags"] == .list(mine))
    }

    @Test func basesThatDoNotFitAreRefused() {
        let schema = SyncSchema(version: 1, classes: [SyncClass(name: "Todo", primaryKey: "id", properties: [
            SyncProperty(name: "id", kind: .int), SyncProperty(name: "title", kind: .string),
            SyncProperty(name: "tags", kind: .string, collection: .list), SyncProperty(name: "labels", kind: .string, collection: .set),
        ])])
        func refusal(_ change: ObjectChange) -> String? {
            do { try schema.validate(change); return nil } catch { return "\(error)" }
        }
        #expect(refusal(edit(from: strings("a"), to: strings("a", "b"))) == nil)
        // A set's base for a list, a base of a scalar, a base beside no value, a base holding the wrong type, a base on an insert.
        #expect(refusal(edit(from: strings("a"), to: strings("b"), set: true))?.contains("Todo.tags") == true)
        #expect(refusal(ObjectChange(className: "Todo", key: .int(1), operation: .update, values: ["title": .string("x")], bases: ["title": .list([])]))?.contains("Todo.title") == true)
        #expect(refusal(ObjectChange(className: "Todo", key: .int(1), operation: .update, values: [:], bases: ["tags": .list([])]))?.contains("Todo.tags") == true)
        #expect(refusal(edit(from: .list([.int(5)]), to: strings("b")))?.contains("Todo.tags") == true)
        #expect(refusal(ObjectChange(className: "Todo", key: .int(1), operation: .insert, values: ["id": .int(1), "tags": strings("a")], bases: ["tags": .list([])]))?.contains("Todo.tags") == true)
        #expect(refusal(ObjectChange(className: "Todo", key: .int(1), operation: .update, values: ["nope": strings("a")], bases: ["nope": .list([])]))?.contains("nope") == true)
    }

    /// Three replicas edit one object's list, set and map at random (10,000 edits), their
    /// uploads reach the server and the server's log reaches them in random orders, as the real
    /// client works: local edits apply at once and upload with their base; the server's changes
    /// replace what they carry. When everything is delivered every replica equals the server;
    /// every element inserted and never removed is there once, every element removed is gone.
    @Test(arguments: [1, 2]) func threeReplicasConverge(seed: UInt64) {
        var random = SyncRulesModelTests.RandomSource(state: seed)
        let initial: [String: SyncValue] = ["id": .int(1), "list": .list([]), "set": .list([]), "map": .map([:])]
        var server = start(initial)
        var log: [ObjectChange] = []
        struct Replica {
            var objects: [SyncObjectID: [String: SyncValue]]
            var pending: [ObjectChange] = []
            var applied = 0
        }
        var replicas = Array(repeating: Replica(objects: server), count: 3)
        var next: Int64 = 0
        var inserted = Set<SyncValue>(), removed = Set<SyncValue>(), replacements = Set<SyncValue>()
        var setAdded = Set<SyncValue>(), setRemoved = Set<SyncValue>()
        var edits = 0
        func list(_ value: SyncValue?) -> [SyncValue] { if case .list(let elements)? = value { elements } else { [] } }
        while edits < 10_000 {
            let index = Int.random(in: 0..<3, using: &random)
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<6:
                // A local edit, applied at once and queued with its base.
                edits += 1
                let object = replicas[index].objects[todo]!
                var change: ObjectChange
                switch Int.random(in: 0..<3, using: &random) {
                case 0:
                    let before = list(object["list"])
                    var after = before
                    next += 1
                    let fresh = SyncValue.int(next)
                    switch Int.random(in: 0..<4, using: &random) {
                    case 0 where !after.isEmpty:
                        removed.insert(after.remove(at: Int.random(in: 0..<after.count, using: &random)))
                    case 1 where after.count > 1:
                        let element = after.remove(at: Int.random(in: 0..<after.count, using: &random))
                        after.insert(element, at: Int.random(in: 0...after.count, using: &random))
                    case 2 where !after.isEmpty:
                        let at = Int.random(in: 0..<after.count, using: &random)
                        removed.insert(after[at])
                        after[at] = fresh
                        replacements.insert(fresh)
                    default:
                        after.insert(fresh, at: Int.random(in: 0...after.count, using: &random))
                        inserted.insert(fresh)
                    }
                    change = edit("list", from: .list(before), to: .list(after))
                case 1:
                    let before = list(object["set"])
                    var after = before
                    if !after.isEmpty && Bool.random(using: &random) {
                        setRemoved.insert(after.remove(at: Int.random(in: 0..<after.count, using: &random)))
                    } else {
                        next += 1
                        after.append(.int(next))
                        setAdded.insert(.int(next))
                    }
                    change = edit("set", from: .list(before), to: .list(after), set: true)
                default:
                    guard case .map(let before)? = object["map"] else { Issue.record("no map"); return }
                    var after = before
                    let key = "k\(Int.random(in: 0..<6, using: &random))"
                    after[key] = Bool.random(using: &random) ? nil : .int(Int64.random(in: 0..<100, using: &random))
                    change = edit("map", from: .map(before), to: .map(after))
                }
                // Locally the device's own value is what it wrote.
                replicas[index].objects[todo]!.merge(change.values) { $1 }
                replicas[index].pending.append(change)
            case 6..<8:
                // The server receives this replica's oldest upload.
                guard !replicas[index].pending.isEmpty else { continue }
                if let applied = ConflictRules.apply(replicas[index].pending.removeFirst(), to: &server) { log.append(applied) }
            default:
                // This replica receives some of the log.
                let count = Int.random(in: 0...3, using: &random)
                while replicas[index].applied < min(log.count, replicas[index].applied + count) {
                    ConflictRules.apply(log[replicas[index].applied], to: &replicas[index].objects)
                    replicas[index].applied += 1
                }
            }
        }
        // Heal: every upload reaches the server in some order, then the log reaches everyone.
        while replicas.contains(where: { !$0.pending.isEmpty }) {
            let index = Int.random(in: 0..<3, using: &random)
            guard !replicas[index].pending.isEmpty else { continue }
            if let applied = ConflictRules.apply(replicas[index].pending.removeFirst(), to: &server) { log.append(applied) }
        }
        for index in replicas.indices {
            for change in log[replicas[index].applied...] { ConflictRules.apply(change, to: &replicas[index].objects) }
            #expect(replicas[index].objects == server, "replica \(index), seed \(seed)")
        }
        #expect(log.allSatisfy { $0.bases == nil })
        let final = list(server[todo]?["list"])
        #expect(Set(final).count == final.count, "an element twice, seed \(seed)")
        // A replacement's new element is there unless what it replaced was gone first (or it was removed since).
        let expected = inserted.subtracting(removed)
        let missing = expected.subtracting(final), extra = Set(final).subtracting(expected).subtracting(replacements.subtracting(removed))
        #expect(missing.isEmpty && extra.isEmpty, "seed \(seed): missing \(missing), extra \(extra)")
        let set = list(server[todo]?["set"])
        #expect(Set(set) == setAdded.subtracting(setRemoved) && Set(set).count == set.count, "seed \(seed)")
        #expect(final.count > 20)
    }
}
