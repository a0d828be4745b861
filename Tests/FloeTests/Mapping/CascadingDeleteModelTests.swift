import Foundation
import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

/// Cascading deletes over random graphs, checked against a model kept in memory: after every
/// delete the surviving objects and every link, list, set and map between them are exactly the
/// model's.
///
/// The model's rule, written independently of the engine's: the objects deleted are the largest
/// set that holds the roots, holds only objects the roots reach through cascading links, and in
/// which no object is linked to (by any relationship) from an object outside the set.
@Suite struct CascadingDeleteModelTests {
    final class GraphNode: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted(deleteRule: .cascade) var next: GraphNode?
        @Persisted(deleteRule: .cascade) var children: List<GraphNode>
        @Persisted(deleteRule: .cascade) var bag: MutableSet<GraphNode>
        @Persisted(deleteRule: .cascade) var named: Map<String, GraphNode?>
        @Persisted var friend: GraphNode?
        @Persisted var acquaintances: List<GraphNode>
    }

    /// One node's relationships, by target id.
    struct ModelNode: Equatable {
        var next: Int?
        var children: [Int] = []
        var bag: Set<Int> = []
        var named: [String: Int?] = [:]
        var friend: Int?
        var acquaintances: [Int] = []

        var cascadeTargets: [Int] { [next].compactMap { $0 } + children + Array(bag) + named.values.compactMap { $0 } }
        var allTargets: [Int] { cascadeTargets + [friend].compactMap { $0 } + acquaintances }

        /// Links to `id` removed, as deleting it does: to-one links become nil, list and set
        /// elements go, map keys stay with nil.
        mutating func unlink(_ id: Int) {
            if next == id { next = nil }
            if friend == id { friend = nil }
            children.removeAll { $0 == id }
            acquaintances.removeAll { $0 == id }
            bag.remove(id)
            for (key, value) in named where value == id { named[key] = .some(nil) }
        }
    }

    /// The roots and every object their cascading links reach.
    static func reached(from roots: Set<Int>, in model: [Int: ModelNode]) -> Set<Int> {
        var reached = roots
        var frontier = Array(roots)
        while let id = frontier.popLast() {
            for target in model[id]!.cascadeTargets where reached.insert(target).inserted { frontier.append(target) }
        }
        return reached
    }

    static func expectedDeletion(of roots: Set<Int>, in model: [Int: ModelNode]) -> Set<Int> {
        var deleted = reached(from: roots, in: model)
        var changed = true
        while changed {
            changed = false
            for candidate in deleted.subtracting(roots) {
                let held = model.contains { origin, node in !deleted.contains(origin) && node.allTargets.contains(candidate) }
                if held {
                    deleted.remove(candidate)
                    changed = true
                }
            }
        }
        return deleted
    }

    static func snapshot(_ realm: Realm) async throws -> [Int: ModelNode] {
        try await realm.read { realm in
            var nodes: [Int: ModelNode] = [:]
            for node in realm.objects(GraphNode.self) {
                var named: [String: Int?] = [:]
                for (key, value) in node.named { named[key] = .some(value?.id) }
                nodes[node.id] = ModelNode(next: node.next?.id, children: node.children.map(\.id), bag: Set(node.bag.map(\.id)),
                                           named: named, friend: node.friend?.id, acquaintances: node.acquaintances.map(\.id))
            }
            return nodes
        }
    }

    /// Four batches of six seeds, run side by side; each batch must see objects go with a
    /// root and objects a cascade reached but kept, or it tested little.
    @Test(arguments: 0..<4)
    func randomGraphsMatchTheModel(batch: Int) async throws {
        var cascaded = 0, kept = 0
        for seed in UInt64(batch * 6 + 1)...UInt64(batch * 6 + 6) {
            try await Self.check(seed: seed, cascaded: &cascaded, kept: &kept)
        }
        #expect(cascaded > 0 && kept > 0, "batch \(batch): cascaded \(cascaded), kept \(kept)")
    }

    static func check(seed: UInt64, cascaded: inout Int, kept: inout Int) async throws {
        var random = SeededGenerator(seed: seed)
        let realm = try await inMemoryRealm("cascade-model-\(seed)", objectTypes: [GraphNode.self])
        var model: [Int: ModelNode] = [:]
        var nextID = 0
        for round in 0..<12 {
            // Grow: new nodes, and random relationships among every living node (sparse, so
            // that cascades reach both far and not at all).
            let newCount = Int.random(in: 4...14, using: &random)
            let newIDs = Array(nextID..<(nextID + newCount))
            nextID += newCount
            for id in newIDs { model[id] = ModelNode() }
            let living = Array(model.keys).sorted()
            var edits: [(Int, ModelNode)] = []
            for id in living where newIDs.contains(id) || Int.random(in: 0..<4, using: &random) == 0 {
                var node = model[id]!
                // Rewriting a map drops the keys a delete left holding nil (assigning nil removes a key).
                node.named = node.named.filter { $0.value != nil }
                func pick() -> Int { living.randomElement(using: &random)! }
                if Int.random(in: 0..<2, using: &random) == 0 { node.next = pick() }
                for _ in 0..<Int.random(in: 0...2, using: &random) { node.children.append(pick()) }
                if Int.random(in: 0..<3, using: &random) == 0 { node.bag.insert(pick()) }
                if Int.random(in: 0..<3, using: &random) == 0 { node.named["k\(Int.random(in: 0..<3, using: &random))"] = .some(pick()) }
                if Int.random(in: 0..<3, using: &random) == 0 { node.friend = pick() }
                if Int.random(in: 0..<4, using: &random) == 0 { node.acquaintances.append(pick()) }
                model[id] = node
                edits.append((id, node))
            }
            try await realm.write { realm in
                for id in newIDs { try realm.create(GraphNode.self, value: ["id": id]) }
                // By id, read once: a local function may not capture the write's transaction.
                var byID: [Int: GraphNode] = [:]
                for object in realm.objects(GraphNode.self) { byID[object.id] = object }
                let node = { (id: Int) in byID[id]! }
                for (id, wanted) in edits {
                    let object = node(id)
                    object.next = wanted.next.map(node)
                    object.friend = wanted.friend.map(node)
                    object.children.removeAll()
                    for child in wanted.children { object.children.append(node(child)) }
                    object.acquaintances.removeAll()
                    for other in wanted.acquaintances { object.acquaintances.append(node(other)) }
                    object.bag.removeAll()
                    for member in wanted.bag { object.bag.insert(node(member)) }
                    object.named.removeAll()
                    for (key, value) in wanted.named { object.named[key] = value.flatMap { $0 }.map(node) }
                }
            }
            #expect(try await snapshot(realm) == model, "seed \(seed) round \(round): the graph was not built as the model says")

            // Delete one to three random roots together, and compare.
            let roots = Set((0..<Int.random(in: 1...3, using: &random)).map { _ in model.keys.sorted().randomElement(using: &random)! })
            let expected = expectedDeletion(of: roots, in: model)
            cascaded += expected.subtracting(roots).count
            kept += reached(from: roots, in: model).subtracting(expected).count
            try await realm.write { realm in
                try realm.delete(roots.sorted().map { realm.object(ofType: GraphNode.self, forPrimaryKey: $0)! })
            }
            for id in expected { model[id] = nil }
            for id in Array(model.keys) {
                for gone in expected { model[id]!.unlink(gone) }
            }
            let actual = try await snapshot(realm)
            #expect(Set(actual.keys) == Set(model.keys), "seed \(seed) round \(round): deleting \(roots.sorted()) left \(Set(actual.keys).symmetricDifference(model.keys).sorted()) different from the model")
            #expect(actual == model, "seed \(seed) round \(round): the survivors' relationships differ from the model")
            if actual != model { return }
        }
    }
}
