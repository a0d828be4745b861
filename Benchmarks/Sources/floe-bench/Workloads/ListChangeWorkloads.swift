import Floe
import Foundation
import Synchronization

/// A kennel: one object holding a list of every dog, for the list change-stream workload.
final class Kennel: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var dogs: List<RealmDog>
}

/// N2L: a `List` of 100k dogs whose writes each replace 1% of its positions (1,000 `replace`
/// edits spread over the list); the update's cost at a consumer of the list's stream is the
/// round trip less the same commit alone.
enum ListChangeWorkloads {
    static let dogs = 100_000
    /// Round trips timed (`N2L_ROUNDS` overrides, for a slow build to compare with).
    static let rounds = ProcessInfo.processInfo.environment["N2L_ROUNDS"].flatMap { Int($0) } ?? 60

    static func run(fixtures: Fixtures, reporter: Reporter) async throws {
        let scratch = fixtures.scratch
        let name = "list-changes.floe"
        scratch.remove(name)
        defer { scratch.remove(name) }
        let realm = try await Realm(configuration: Realm.Configuration(
            fileURL: URL(fileURLWithPath: scratch.file(name)), objectTypes: [RealmDog.self, Kennel.self], durability: .none))
        try await realm.write { realm in
            let kennel = try realm.create(Kennel.self, value: ["id": 1])
            for index in 0..<dogs {
                let dog = RealmDog(index: index)
                try realm.add(dog)
                kennel.dogs.append(dog)
            }
        }
        let changed = dogs / 100
        let stream = try await realm.read { realm in try realm.object(ofType: Kennel.self, forPrimaryKey: 1)!.dogs.changes }
        let committedAt = Atomic<UInt64>(0)
        let (received, receiver) = AsyncStream<UInt64>.makeStream()
        let consumer = Task {
            var iterator = stream.makeAsyncIterator()
            while let _ = await iterator.next() {
                receiver.yield(Clocks.wallNanoseconds() - committedAt.load(ordering: .acquiring))
            }
            receiver.finish()
        }
        // Each round's commit alone (from the end of the write's closure to the write's
        // return) is taken from the same round as its round trip: timed in a separate series
        // after the round trips, it saw a longer history and other compactions, and the
        // difference of the two medians could come out negative.
        var trips = Samples()
        var alone = Samples()
        var updates = Samples()
        var acknowledgements = received.makeAsyncIterator()
        _ = await acknowledgements.next()   // the initial element
        for round in 0..<rounds {
            try await realm.write { realm in
                Self.replace(in: realm, changed: changed, round: round)
                committedAt.store(Clocks.wallNanoseconds(), ordering: .releasing)
            }
            let committed = Double(Clocks.wallNanoseconds() - committedAt.load(ordering: .acquiring))
            guard let latency = await acknowledgements.next() else { throw BenchmarkFailure("the stream ended early") }
            trips.append(Double(latency))
            alone.append(committed)
            updates.append(max(Double(latency) - committed, 0))
        }
        consumer.cancel()
        let update = updates.median
        // The update alone: the consumer asks for it right after the commit, in its own task,
        // so no thread has to be woken (the round trip's share a loaded machine moves).
        let direct = try await realm.read { realm in try realm.object(ofType: Kennel.self, forPrimaryKey: 1)!.dogs.changes }
        var iterator = direct.makeAsyncIterator()
        _ = await iterator.next()
        var computed = Samples()
        for round in 0..<rounds {
            try await realm.write { realm in Self.replace(in: realm, changed: changed, round: round + 2 * rounds) }
            let start = Clocks.wallNanoseconds()
            guard case .update? = await iterator.next() else { throw BenchmarkFailure("no update") }
            computed.append(Double(Clocks.wallNanoseconds() - start))
        }
        reporter.add(ReportLine(
            workload: "N2L the same update computed by its consumer's next() after the commit, in the same task, p50 (p90)",
            floe: "\(Format.duration(nanoseconds: computed.median)) (\(Format.duration(nanoseconds: computed.percentile(90))))",
            target: "diff ≤ 2 ms", verdict: computed.median <= 2_000_000 ? .met : .missed))
        reporter.add(ReportLine(
            workload: "N2L 1% of a 100k-dog List replaced (1,000 edits) → list update at its consumer, over the commit (round trip p50; commit alone)",
            floe: "\(Format.duration(nanoseconds: update)) (\(Format.duration(nanoseconds: trips.median)); \(Format.duration(nanoseconds: alone.median)))",
            target: "diff ≤ 2 ms", verdict: update <= 2_000_000 ? .met : .missed))
    }

    /// Replaces `changed` positions spread over the list with other dogs.
    private static func replace(in realm: borrowing Realm.Transaction, changed: Int, round: Int) {
        let list = realm.object(ofType: Kennel.self, forPrimaryKey: 1)!.dogs
        let stride = dogs / changed
        for index in 0..<changed {
            let position = (index * stride + round) % dogs
            list.replace(index: position, object: realm.object(ofType: RealmDog.self, forPrimaryKey: (position + round * 31 + 1) % dogs)!)
        }
    }
}
