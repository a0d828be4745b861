import Floe
import GRDB

/// W7: delete all 100,000 dogs in one write: Floe `deleteAll()`, and again
/// `delete(realm.objects(RealmDog.self))`; GRDB `DogRecord.deleteAll`.
///
/// Each round deletes from fresh copies of the shared files, opened and counted first (not
/// timed), and checks that nothing is left.
enum DeleteAllWorkloads {
    static let rounds = 5

    static func run(fixtures: Fixtures, reporter: Reporter) async throws {
        try await run(fixtures: fixtures, reporter: reporter, label: "W7 delete all 100k dogs (Floe .full)", name: "delete") { realm in
            try realm.deleteAll()
        }
        try await run(fixtures: fixtures, reporter: reporter,
                      label: "W7 same, `delete(realm.objects(RealmDog.self))`", name: "delete-results") { realm in
            try realm.delete(realm.objects(RealmDog.self))
        }
    }

    private static func run(fixtures: Fixtures, reporter: Reporter, label: String, name: String,
                            delete: @escaping @Sendable (borrowing Realm.Transaction) throws -> Void) async throws {
        let count = Fixtures.dogCount
        let scratch = fixtures.scratch
        // Copies are made up front, one pair per round, so the rounds' copying does not
        // sit between a measurement and the next.
        var copies: [(floe: String, grdb: String)] = []
        for round in 0..<rounds { copies.append(try await fixtures.copyOfDogFiles(suffix: "\(name)-\(round)")) }
        defer {
            for round in 0..<rounds {
                scratch.remove("dogs-\(name)-\(round).floe")
                scratch.remove("dogs-\(name)-\(round).sqlite")
            }
        }
        var floeRound = 0
        var peerRound = 0

        let (floe, peer) = try await Runs.alternating(rounds: rounds, floe: {
            let realm = try await RealmDogs.open(at: copies[floeRound].floe)
            floeRound += 1
            let before = try await RealmDogs.count(in: realm)
            guard before == count else { throw BenchmarkFailure("the realm copy holds \(before) dogs") }
            let elapsed = try await Clocks.wallTime {
                try await realm.write { realm in try delete(realm) }
            }
            let after = try await RealmDogs.count(in: realm)
            guard after == 0 else { throw BenchmarkFailure("Floe holds \(after) dogs after deleteAll") }
            return elapsed
        }, peer: {
            let database = try GRDBDogs.open(at: copies[peerRound].grdb)
            peerRound += 1
            let before = try GRDBDogs.count(in: database)
            guard before == count else { throw BenchmarkFailure("the GRDB copy holds \(before) dogs") }
            let elapsed = try Clocks.wallTime {
                try database.write { db in _ = try DogRecord.deleteAll(db) }
            }
            let after = try GRDBDogs.count(in: database)
            guard after == 0 else { throw BenchmarkFailure("GRDB holds \(after) dogs after deleteAll") }
            try database.close()
            return elapsed
        })
        reporter.add(ReportLine(
            workload: label,
            floe: Format.duration(nanoseconds: floe.median),
            peer: Format.duration(nanoseconds: peer.median),
            ratio: Format.speedup(floe: floe.median, peer: peer.median),
            target: "≥ 5× GRDB",
            verdict: peer.median / floe.median >= 5 ? .met : .missed))
    }
}
