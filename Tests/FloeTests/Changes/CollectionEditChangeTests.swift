import Foundation
import Testing
@testable @_spi(Engine) import Floe
@testable @_spi(Engine) import FloeEngine
@testable @_spi(Engine) import FloeStorage

/// Lists and sets move on from the positional edits each commit logged for them: the edits
/// composed into a diff match a model list over random edit sequences; the streams' updates,
/// applied to the previous state, rebuild every state over many random commits (element
/// objects written in place included), for a prompt consumer and a slow one.
@Suite struct CollectionEditChangeTests {
    final class Piece: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var value = 0
    }

    final class Box: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var pieces: List<Piece>
        @Persisted var bag: MutableSet<Piece>
        @Persisted var numbers: List<Int>
    }

    // MARK: Composing edits

    /// A model list of distinct tokens: old tokens are their old positions, new ones are negative.
    @Test func composedEditsMatchAModelListOverRandomSequences() {
        var random = SeededGenerator(seed: 7)
        for _ in 0..<2000 {
            let oldCount = Int.random(in: 0..<12, using: &random)
            var model = Array(0..<oldCount)
            var replacedTokens = Set<Int>()
            var composer = CollectionEditDiff(oldCount: oldCount)
            var fresh = -1
            for _ in 0..<Int.random(in: 0..<10, using: &random) {
                let edit: CollectionEdit
                switch Int.random(in: 0..<10, using: &random) {
                case 0...2:
                    let position = Int.random(in: 0...model.count, using: &random)
                    let count = Int.random(in: 1...3, using: &random)
                    edit = .insert(at: position, count: count)
                    for offset in 0..<count { model.insert(fresh, at: position + offset); fresh -= 1 }
                case 3...5 where !model.isEmpty:
                    let position = Int.random(in: 0..<model.count, using: &random)
                    edit = .remove(at: position)
                    model.remove(at: position)
                case 6...8 where !model.isEmpty:
                    let position = Int.random(in: 0..<model.count, using: &random)
                    edit = .set(at: position)
                    if model[position] >= 0 { replacedTokens.insert(model[position]) }
                case 9:
                    edit = .removeAll
                    model = []
                default:
                    continue
                }
                let fits = composer.apply(edit)
                #expect(fits)
            }
            let diff = composer.result()
            #expect(composer.count == model.count)
            #expect(diff.deletions == Array(0..<oldCount).filter { !model.contains($0) })
            #expect(diff.insertions == model.indices.filter { model[$0] < 0 })
            #expect(diff.modifications == replacedTokens.filter { model.contains($0) }.sorted())
            // Applying the diff to the old tokens gives the model.
            var state = Array(0..<oldCount)
            for position in diff.deletions.reversed() { state.remove(at: position) }
            for position in diff.insertions { state.insert(model[position], at: position) }
            #expect(state == model)
        }
    }

    @Test func anEditThatDoesNotFitIsRefused() {
        var composer = CollectionEditDiff(oldCount: 2)
        let refused = [composer.apply(.remove(at: 2)), composer.apply(.insert(at: 3, count: 1)), composer.apply(.set(at: -1))]
        #expect(refused == [false, false, false])
        let appended = composer.apply(.insert(at: 2, count: 1))
        #expect(appended && composer.count == 3)
    }

    @Test func editLogsMergeInOrderAndGiveUpPastTheLimit() {
        var first = ChangeSet()
        first.recordCollectionEdits(table: "Box", key: 1, column: 2, edits: [.insert(at: 0, count: 1)])
        var second = ChangeSet()
        second.recordCollectionEdits(table: "Box", key: 1, column: 2, edits: [.remove(at: 3)])
        first.merge(second)
        let id = ChangeSet.CollectionID(key: 1, column: 2)
        #expect(first.tables["Box"]?.collectionEdits[id]?.edits == [.insert(at: 0, count: 1), .remove(at: 3)])
        #expect(first.tables["Box"]?.modified[1] == [2])
        // A write of the column without a log (another process's commit) makes the edits unknown.
        var unknown = ChangeSet()
        unknown.recordWrite(table: "Box", key: 1, column: 2)
        first.merge(unknown)
        #expect(first.tables["Box"]?.collectionEdits[id]?.isComplete == false)
        // Past the limit the log is dropped.
        var many = ChangeSet()
        many.recordCollectionEdits(table: "Box", key: 1, column: 2, edits: Array(repeating: .set(at: 0), count: CollectionEditLog.limit + 1))
        #expect(many.tables["Box"]?.collectionEdits[id]?.isComplete == false)
        #expect(many.tables["Box"]?.collectionEdits[id]?.edits.isEmpty == true)
        // Edits of an object the same changes delete, or create, are no news.
        var gone = ChangeSet()
        gone.recordCollectionEdits(table: "Box", key: 1, column: 2, edits: [.set(at: 0)])
        gone.recordDelete(table: "Box", key: 1)
        #expect(gone.tables["Box"]?.collectionEdits.isEmpty == true)
        gone.recordInsert(table: "Box", key: 5)
        gone.recordCollectionEdits(table: "Box", key: 5, column: 2, edits: [.set(at: 0)])
        #expect(gone.tables["Box"]?.collectionEdits.isEmpty == true)
    }

    // MARK: Streams

    static func makeRealm(pieces: Int) async throws -> Realm {
        let realm = try await inMemoryRealm("edit-changes")
        try await realm.write { realm in
            let box = try realm.create(Box.self, value: ["id": 1])
            for id in 0..<pieces {
                let piece = try realm.create(Piece.self, value: ["id": id, "value": id])
                if id % 2 == 0 { box.pieces.append(piece) }
                if id % 3 == 0 { box.bag.insert(piece) }
            }
            box.numbers.append(objectsIn: [1, 2, 3])
        }
        return realm
    }

    /// Replacing an element reports a modification at its place, as Realm does, and writing an
    /// element object in place reports its old position; neither re-reads the list to find out.
    @Test func aReplacedElementAndAWrittenElementObjectAreModifications() async throws {
        let realm = try await Self.makeRealm(pieces: 8)
        var pieces = try await realm.read { realm in try realm.object(ofType: Box.self, forPrimaryKey: 1)!.pieces.changes }.makeAsyncIterator()
        guard case .initial(let initial) = await pieces.next() else { Issue.record("expected .initial"); return }
        #expect(initial.map(\.id) == [0, 2, 4, 6])
        try await realm.write { realm in
            let box = realm.object(ofType: Box.self, forPrimaryKey: 1)!
            box.pieces.replace(index: 1, object: realm.object(ofType: Piece.self, forPrimaryKey: 7)!)
            realm.object(ofType: Piece.self, forPrimaryKey: 6)!.value = 60
        }
        guard case .update(let list, let deletions, let insertions, let modifications) = await pieces.next() else { Issue.record("expected .update"); return }
        #expect(list.map(\.id) == [0, 7, 4, 6])
        #expect(deletions.isEmpty && insertions.isEmpty && modifications == [1, 3])
        try await realm.write { realm in
            let box = realm.object(ofType: Box.self, forPrimaryKey: 1)!
            box.pieces.move(from: 0, to: 3)
            try realm.delete(realm.object(ofType: Piece.self, forPrimaryKey: 4)!)
        }
        guard case .update(let moved, let removed, let added, let written) = await pieces.next() else { Issue.record("expected .update"); return }
        #expect(moved.map(\.id) == [7, 6, 0])
        #expect(removed == [0, 2] && added == [2] && written.isEmpty)
    }

    @Test func randomEditsOverManyCommitsRebuildEveryStateForAPromptAndASlowConsumer() async throws {
        let realm = try await Self.makeRealm(pieces: 30)
        // Each consumer iterates its own stream (a stream is iterated from one task at a time).
        let (listStreams, setStreams, numberStream) = try await realm.read { realm in
            let box = realm.object(ofType: Box.self, forPrimaryKey: 1)!
            return ([try box.pieces.changes, try box.pieces.changes], [try box.bag.changes, try box.bag.changes], try box.numbers.changes)
        }
        /// Checks each update: deletions and insertions rebuild the new state from the old one,
        /// and every element that stayed without being reported modified is unchanged.
        func check<C: Sendable>(_ stream: CollectionChanges<C>, slow: Bool, elements: @escaping @Sendable (C) -> [[Int]])
            -> Task<(updates: Int, failures: [String], final: [[Int]]), Never> {
            Task {
                var state: [[Int]] = []
                var updates = 0
                var failures: [String] = []
                for await change in stream {
                    switch change {
                    case .initial(let collection):
                        state = elements(collection)
                    case .update(let collection, let deletions, let insertions, let modifications):
                        updates += 1
                        let new = elements(collection)
                        let survivors = state.indices.filter { !deletions.contains($0) }
                        if deletions != deletions.sorted() || insertions != insertions.sorted() || modifications != modifications.sorted() {
                            failures.append("unsorted positions")
                        }
                        if modifications.contains(where: { deletions.contains($0) || $0 >= state.count }) { failures.append("modification not of a survivor") }
                        guard deletions.allSatisfy({ $0 < state.count }), insertions.allSatisfy({ $0 < new.count }) else {
                            failures.append("positions out of range: \(state.count) → \(new.count), -\(deletions) +\(insertions)")
                            state = new
                            continue
                        }
                        var rebuilt = state
                        for position in deletions.reversed() { rebuilt.remove(at: position) }
                        for position in insertions where position <= rebuilt.count && position < new.count { rebuilt.insert(new[position], at: position) }
                        let stayedAt = new.indices.filter { !insertions.contains($0) }
                        if rebuilt.count != new.count || stayedAt.count != survivors.count {
                            failures.append("diff does not rebuild the count")
                        } else {
                            for (old, now) in zip(survivors, stayedAt) {
                                // An element replaced in place, or whose object was written, is a modification.
                                if state[old] != new[now] && !modifications.contains(old) { failures.append("changed element not reported") }
                            }
                        }
                        state = new
                        if slow { try? await Task.sleep(for: .milliseconds(30)) }
                        // The last commit adds an element no other commit does.
                        if new.contains(where: { $0[0] == 999 || $0[0] == -1 }) { return (updates, failures, state) }
                    }
                }
                return (updates, failures, state)
            }
        }
        let pieceState: @Sendable (FrozenList<Piece>) -> [[Int]] = { list in list.map { [$0.id, $0.value] } }
        let consumers = [
            check(listStreams[0], slow: false, elements: pieceState),
            check(listStreams[1], slow: true, elements: pieceState),
            check(setStreams[0], slow: false, elements: { set in set.map { [$0.id, $0.value] } }),
            check(setStreams[1], slow: true, elements: { set in set.map { [$0.id, $0.value] } }),
            check(numberStream, slow: false, elements: { list in list.map { [$0] } }),
        ]
        var random = SeededGenerator(seed: 15)
        for commit in 0..<120 {
            let operations = (0..<Int.random(in: 1...5, using: &random)).map { _ in
                (Int.random(in: 0..<11, using: &random), Int.random(in: 0..<1000, using: &random), Int.random(in: 0..<1000, using: &random))
            }
            try await realm.write { realm in
                let box = realm.object(ofType: Box.self, forPrimaryKey: 1)!
                let list = box.pieces
                for (operation, a, b) in operations {
                    switch operation {
                    case 0: list.append(realm.object(ofType: Piece.self, forPrimaryKey: a % 30)!)
                    case 1: list.insert(realm.object(ofType: Piece.self, forPrimaryKey: a % 30)!, at: b % (list.count + 1))
                    case 2 where !list.isEmpty: list.remove(at: a % list.count)
                    case 3 where !list.isEmpty: list.move(from: a % list.count, to: b % list.count)
                    case 4 where list.count > 1: list.swapAt(a % list.count, b % list.count)
                    case 5 where !list.isEmpty: list.replace(index: a % list.count, object: realm.object(ofType: Piece.self, forPrimaryKey: b % 30)!)
                    case 6 where a % 10 == 0: list.removeAll()
                    case 7: realm.object(ofType: Piece.self, forPrimaryKey: a % 30)!.value = b   // an element object written in place (maybe in the list)
                    case 8: box.bag.insert(realm.object(ofType: Piece.self, forPrimaryKey: a % 30)!)
                    case 9: box.bag.remove(realm.object(ofType: Piece.self, forPrimaryKey: a % 30)!)
                    case 10:
                        if a % 2 == 0 { box.numbers.append(b) } else if !box.numbers.isEmpty { box.numbers.remove(at: b % box.numbers.count) }
                    default: list.append(realm.object(ofType: Piece.self, forPrimaryKey: b % 30)!)
                    }
                }
            }
            try await Task.sleep(for: .milliseconds(commit % 40 == 39 ? 5 : 1))   // the prompt consumer keeps up
        }
        // A last commit every stream reports, so that each consumer knows it has seen the end.
        let final = try await realm.write { realm in
            let box = realm.object(ofType: Box.self, forPrimaryKey: 1)!
            let last = try realm.create(Piece.self, value: ["id": 999, "value": 0])
            box.pieces.append(last)
            box.bag.insert(last)
            box.bag.remove(last)
            box.bag.insert(last)
            box.numbers.append(-1)
            return (box.pieces.map { [$0.id, $0.value] }, box.bag.map { [$0.id, $0.value] }, box.numbers.map { [$0] })
        }
        let results = await consumers.asyncMap { await $0.value }
        for result in results { #expect(result.failures.isEmpty, "\(result.failures.prefix(5))") }
        #expect(results[0].final == final.0 && results[1].final == final.0)
        #expect(results[2].final == final.1 && results[3].final == final.1)
        #expect(results[4].final == final.2)
        #expect(results[0].updates > 30)
        #expect(results[1].updates < results[0].updates)   // the slow consumer's updates were coalesced
    }
}

extension Array {
    fileprivate func asyncMap<T>(_ transform: (Element) async -> T) async -> [T] {
        var mapped: [T] = []
        for element in self { mapped.append(await transform(element)) }
        return mapped
    }
}
