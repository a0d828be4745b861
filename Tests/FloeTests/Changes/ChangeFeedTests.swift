import Foundation
import Testing
@_spi(Engine) @testable import Floe
@_spi(Engine) @testable import FloeEngine
@_spi(Engine) @testable import FloeStorage

/// The keyed change feed: every transaction in order with each object's class, key and
/// operation, read back from the file; replayed onto an empty model it gives the realm;
/// resumable; typed errors for versions compacted away or not yet committed.
@Suite struct ChangeFeedTests {
    final class Account: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var owner = ""
        @Persisted var balance = 0.0
        @Persisted var tags: List<String>
        @Persisted var partner: Account?
        @Persisted var notes: Map<String, Int>
    }

    final class LogLine: Object {
        @Persisted var text = ""
    }

    typealias Model = [String: [PrimaryKeyValue: [String: FeedValue]]]

    static func apply(_ transaction: ChangeFeedTransaction, to model: inout Model) {
        for object in transaction.objects {
            switch object.operation {
            case .insert(let values): model[object.className, default: [:]][object.key] = values
            case .update(let values): model[object.className, default: [:]][object.key]!.merge(values) { $1 }
            case .delete: model[object.className]?[object.key] = nil
            }
        }
    }

    /// The realm's state at `snapshot`, as the feed describes objects.
    static func model(of snapshot: Snapshot) throws -> Model {
        var model: Model = [:]
        apply(try ChangeFeedReader.transaction(from: Snapshot(version: 0, group: GroupNode(isMutable: false), pin: nil), to: snapshot), to: &model)
        return model.filter { !$0.value.isEmpty }
    }

    static func randomWrites(_ realm: Realm, count: Int, seed: UInt64) async throws {
        var random = SeededGenerator(seed: seed)
        for _ in 0..<count {
            let steps = (0..<Int.random(in: 1...3, using: &random)).map { _ in
                (Int.random(in: 0..<6, using: &random), Int.random(in: 0..<20, using: &random), Int.random(in: 0..<20, using: &random))
            }
            try await realm.write { realm in
                for (operation, id, other) in steps {
                    let account = realm.object(ofType: Account.self, forPrimaryKey: id)
                    switch (operation, account) {
                    case (_, nil): try realm.create(Account.self, value: ["id": id, "owner": "o\(other)", "balance": Double(other)])
                    case (0, let account?): try realm.delete(account)
                    case (1, let account?): account.balance += 1
                    case (2, let account?): account.tags.append("t\(other)")
                    case (3, let account?): account.partner = realm.object(ofType: Account.self, forPrimaryKey: other)
                    case (4, let account?): account.notes["n\(other % 3)"] = other
                    default: try realm.create(LogLine.self, value: ["text": "line \(id)"])
                    }
                }
            }
        }
    }

    @Test func theFeedReplayedOntoAnEmptyModelEqualsTheRealm() async throws {
        let directory = TemporaryDirectory()
        let realm = try await Realm(configuration: Realm.Configuration(fileURL: directory.url()))
        try await Self.randomWrites(realm, count: 120, seed: 5)
        let final = try realm.store.snapshot()
        var model: Model = [:]
        var versions: [UInt64] = []
        for try await transaction in try realm.changeFeed(since: 0) {
            versions.append(transaction.version)
            Self.apply(transaction, to: &model)
            if transaction.version == final.version { break }
        }
        #expect(versions == Array(1...final.version))
        #expect(model.filter { !$0.value.isEmpty } == (try Self.model(of: final)))
        #expect((model["Account"]?.count ?? 0) > 5)
    }

    /// Each update's `before` is the model's previous value of every property it changed, each
    /// deletion's the whole object; undoing the feed from its end with them returns the first state.
    @Test func beforeValuesAreTheModelsPreviousValues() async throws {
        let directory = TemporaryDirectory()
        let realm = try await Realm(configuration: Realm.Configuration(fileURL: directory.url()))
        try await Self.randomWrites(realm, count: 150, seed: 11)
        let final = realm.store.currentVersion
        var model: Model = [:]
        var states: [Model] = [model]
        var transactions: [ChangeFeedTransaction] = []
        var checked = (updates: 0, deletions: 0)
        for try await transaction in try realm.changeFeed(since: 0) {
            for object in transaction.objects {
                let previous = model[object.className]?[object.key]
                switch object.operation {
                case .insert:
                    #expect(object.before.isEmpty)
                case .update(let values):
                    #expect(Set(object.before.keys) == Set(values.keys))
                    for name in values.keys { #expect(object.before[name] == previous?[name], "\(object.className).\(name) at \(transaction.version)") }
                    checked.updates += 1
                case .delete:
                    #expect(object.before == previous, "\(object.className) \(object.key) at \(transaction.version)")
                    checked.deletions += 1
                }
            }
            Self.apply(transaction, to: &model)
            transactions.append(transaction)
            states.append(model)
            if transaction.version == final { break }
        }
        #expect(checked.updates > 50 && checked.deletions > 10)
        // Undo, newest first: deletions come back whole, updates take their old values, insertions go.
        for (index, transaction) in transactions.enumerated().reversed() {
            for object in transaction.objects.reversed() {
                switch object.operation {
                case .insert: model[object.className]?[object.key] = nil
                case .update: model[object.className]![object.key]!.merge(object.before) { $1 }
                case .delete: model[object.className, default: [:]][object.key] = object.before
                }
            }
            #expect(model.filter { !$0.value.isEmpty } == states[index].filter { !$0.value.isEmpty }, "undoing version \(transaction.version)")
        }
    }

    @Test func operationsNameTheObjectAndTheChangedProperties() async throws {
        let directory = TemporaryDirectory()
        let realm = try await Realm(configuration: Realm.Configuration(fileURL: directory.url()))
        try await realm.asyncWrite { realm in _ = try realm.create(Account.self, value: ["id": 1, "owner": "Ann"]) }
        let start = realm.store.currentVersion
        try await realm.write { realm in
            let account = realm.object(ofType: Account.self, forPrimaryKey: 1)!
            account.balance = 10
            account.owner = "Ann"   // an equal value: not a change of the stored state
            try realm.create(Account.self, value: ["id": 2, "owner": "Bo", "partner": account])
        }
        try await realm.write { realm in try realm.delete(realm.object(ofType: Account.self, forPrimaryKey: 1)!) }
        var feed = try realm.changeFeed(since: start).makeAsyncIterator()
        let first = try await feed.next()
        #expect(first?.version == start + 1)
        #expect(first?.objects.last == ChangeFeedObject(className: "Account", key: .int(1), operation: .update(["balance": .double(10)]), before: ["balance": .double(0)]))
        guard case .insert(let values)? = first?.objects.first?.operation else { Issue.record("expected an insert"); return }
        #expect(values["partner"] == .link(className: "Account", key: .int(1)))
        #expect(values["owner"] == .string("Bo"))
        let second = try await feed.next()
        // A deletion carries the whole object as it was.
        let ann: [String: FeedValue] = ["id": .int(1), "owner": .string("Ann"), "balance": .double(10), "tags": .list([]),
                                        "partner": .null, "notes": .dictionary([:])]
        #expect(second?.objects.contains(ChangeFeedObject(className: "Account", key: .int(1), operation: .delete, before: ann)) == true)
        #expect(second?.objects.first?.after == [:])
        // Deleting Ann nils Bo's link to her: that is in the same transaction.
        #expect(second?.objects.contains(ChangeFeedObject(className: "Account", key: .int(2), operation: .update(["partner": .null]),
                                                          before: ["partner": .link(className: "Account", key: .int(1))])) == true)
    }

    final class Spot: EmbeddedObject {
        @Persisted var name = ""
        @Persisted var inner: Spot?
    }

    final class Trip: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var start: Spot?
        @Persisted var stops: List<Spot>
    }

    @Test func embeddedObjectsTravelInsideTheirOwner() async throws {
        let directory = TemporaryDirectory()
        var configuration = Realm.Configuration(fileURL: directory.url())
        configuration.objectTypes = [Trip.self, Spot.self]
        let realm = try await Realm(configuration: configuration)
        let start = realm.store.currentVersion
        try await realm.write { realm in
            _ = try realm.create(Trip.self, value: ["id": 1, "start": ["name": "home", "inner": ["name": "door"]], "stops": [["name": "a"]]])
        }
        try await realm.write { realm in realm.object(ofType: Trip.self, forPrimaryKey: 1)!.start!.inner!.name = "gate" }
        try await realm.write { realm in realm.object(ofType: Trip.self, forPrimaryKey: 1)!.stops[0].name = "b" }
        var feed = try realm.changeFeed(since: start).makeAsyncIterator()
        let door: FeedValue = .dictionary(["name": .string("door"), "inner": .null])
        let stop: FeedValue = .dictionary(["name": .string("a"), "inner": .null])
        let first = try await feed.next()
        #expect(first?.objects == [ChangeFeedObject(className: "Trip", key: .int(1), operation: .insert([
            "id": .int(1), "start": .dictionary(["name": .string("home"), "inner": door]), "stops": .list([stop]),
        ]))])
        // A change made only inside a nested embedded object is an update of the owner's property.
        let gate: FeedValue = .dictionary(["name": .string("gate"), "inner": .null])
        #expect(try await feed.next()?.objects == [ChangeFeedObject(className: "Trip", key: .int(1), operation: .update([
            "start": .dictionary(["name": .string("home"), "inner": gate]),
        ]), before: ["start": .dictionary(["name": .string("home"), "inner": door])])])
        #expect(try await feed.next()?.objects == [ChangeFeedObject(className: "Trip", key: .int(1), operation: .update([
            "stops": .list([.dictionary(["name": .string("b"), "inner": .null])]),
        ]), before: ["stops": .list([stop])])])
    }

    @Test func aConsumerThatFallsBehindLosesNothing() async throws {
        let directory = TemporaryDirectory()
        let realm = try await Realm(configuration: Realm.Configuration(fileURL: directory.url()))
        let start = realm.store.currentVersion
        let feed = try realm.changeFeed(since: start)
        let consumer = Task { () throws -> [UInt64] in
            var versions: [UInt64] = []
            for try await transaction in feed {
                versions.append(transaction.version)
                if versions.count == 1 { try await Task.sleep(for: .milliseconds(50)) }   // held back while most commits happen
                if versions.count == 40 { break }
            }
            return versions
        }
        for id in 0..<40 { try await realm.asyncWrite { realm in _ = try realm.create(LogLine.self, value: ["text": "\(id)"]) } }
        #expect(try await consumer.value == Array(start + 1...start + 40))
    }

    @Test func versionsCompactedAwayOrInTheFutureAreTypedErrors() async throws {
        let directory = TemporaryDirectory()
        let realm = try await Realm(configuration: Realm.Configuration(fileURL: directory.url()))
        try await Self.randomWrites(realm, count: 10, seed: 1)
        let newest = realm.store.currentVersion
        #expect(throws: FloeError.versionUnavailable(path: realm.store.path, version: newest + 1, oldest: newest, newest: newest)) {
            _ = try realm.changeFeed(since: newest + 1)
        }
        try realm.store.compact()
        do {
            _ = try realm.changeFeed(since: 3)
            Issue.record("a compacted-away version was accepted")
        } catch let error as FloeError {
            guard case .versionUnavailable(_, 3, let oldest, _) = error else { Issue.record("\(error)"); return }
            #expect(oldest == newest)
            #expect("\(error)".contains("compacted"))
        }
        // From the version compaction kept, the feed goes on.
        var feed = try realm.changeFeed(since: newest).makeAsyncIterator()
        try await realm.asyncWrite { realm in _ = try realm.create(LogLine.self, value: ["text": "after"]) }
        #expect(try await feed.next()?.version == newest + 1)
    }

    @Test func anInMemoryRealmsFeedFollowsItsCurrentVersion() async throws {
        let realm = try await inMemoryRealm("feed")
        try await realm.asyncWrite { realm in _ = try realm.create(LogLine.self, value: ["text": "a"]) }
        #expect(throws: FloeError.self) { _ = try realm.changeFeed(since: 0) }
        var feed = try realm.changeFeed(since: realm.store.currentVersion).makeAsyncIterator()
        try await realm.asyncWrite { realm in _ = try realm.create(LogLine.self, value: ["text": "b"]) }
        let transaction = try await feed.next()
        #expect(transaction?.objects.map(\.operation) == [.insert(["text": .string("b")])])
    }

    @Test func aFeedBehindACompactionReadsOnFromTheReplacedFile() async throws {
        let directory = TemporaryDirectory()
        let realm = try await Realm(configuration: Realm.Configuration(fileURL: directory.url()))
        try await Self.randomWrites(realm, count: 5, seed: 3)
        let start = realm.store.currentVersion
        var feed = try realm.changeFeed(since: start - 2).makeAsyncIterator()
        #expect(try await feed.next()?.version == start - 1)
        for id in 0..<3 { try await realm.asyncWrite { realm in _ = try realm.create(LogLine.self, value: ["text": "before \(id)"]) } }
        try realm.store.compact()
        try await realm.asyncWrite { realm in _ = try realm.create(LogLine.self, value: ["text": "after"]) }
        var versions: [UInt64] = []
        while versions.last != start + 4, let transaction = try await feed.next() { versions.append(transaction.version) }
        #expect(versions == Array(start...start + 4))
    }
}
