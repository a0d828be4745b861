import Floe
import GRDB

/// W1: N dogs added in one write through the object API, against GRDB inserting records
/// in one transaction.
enum ObjectAddWorkloads {
    static let rounds = 5

    static func run(fixtures: Fixtures, reporter: Reporter) async throws {
        let count = Fixtures.dogCount
        let scratch = fixtures.scratch
        var floeBuilds = Samples()
        var peerBuilds = Samples()

        let (floe, peer) = try await Runs.alternating(rounds: rounds, floe: {
            let name = "add.floe"
            scratch.remove(name)
            defer { scratch.remove(name) }
            // The realm (and its table) is opened first, as GRDB's table is created first:
            // only the write is timed.
            let realm = try await RealmDogs.open(at: scratch.file(name))
            // Both sides get their objects ready-made, as in E1: the figure compares storing.
            let buildStart = Clocks.wallNanoseconds()
            let dogs = (0..<count).map(RealmDog.init(index:))
            floeBuilds.append(Double(Clocks.wallNanoseconds() - buildStart))
            // Timed by hand: the objects go into the write's closure, which must not share them.
            let start = Clocks.wallNanoseconds()
            try await realm.write { realm in
                for dog in dogs { try realm.add(dog) }
            }
            let elapsed = Double(Clocks.wallNanoseconds() - start)
            try await verify(realm, count: count)
            return elapsed
        }, peer: {
            let name = "add.sqlite"
            scratch.remove(name)
            defer { scratch.remove(name) }
            let database = try GRDBDogs.open(at: scratch.file(name))
            try GRDBDogs.createTable(in: database)
            let buildStart = Clocks.wallNanoseconds()
            let records = (0..<count).map(DogRecord.init(index:))
            peerBuilds.append(Double(Clocks.wallNanoseconds() - buildStart))
            let elapsed = try Clocks.wallTime { try GRDBDogs.insert(records, into: database) }
            let stored = try GRDBDogs.count(in: database)
            guard stored == count else { throw BenchmarkFailure("GRDB holds \(stored) dogs after inserting \(count)") }
            try database.close()
            return elapsed
        })
        reporter.note("building the objects (not timed above): \(Format.grouped(Int64(count))) unmanaged RealmDogs \(Format.duration(nanoseconds: floeBuilds.median)), \(Format.grouped(Int64(count))) DogRecords \(Format.duration(nanoseconds: peerBuilds.median)) (medians)")
        reporter.add(ReportLine(
            workload: "W1 add 100k dogs, one write (Floe .full)",
            floe: Format.duration(nanoseconds: floe.median),
            peer: Format.duration(nanoseconds: peer.median),
            ratio: Format.speedup(floe: floe.median, peer: peer.median),
            target: "≥ 6× GRDB",
            verdict: peer.median / floe.median >= 6 ? .met : .missed,
            gate: GateFigure(key: "W1", floe: floe.median, peer: peer.median)))
        // What an app waits for when it builds its objects to add them.
        let floeWithBuild = floe.median + floeBuilds.median
        let peerWithBuild = peer.median + peerBuilds.median
        reporter.add(ReportLine(
            workload: "W1 same, building the objects included",
            floe: Format.duration(nanoseconds: floeWithBuild),
            peer: Format.duration(nanoseconds: peerWithBuild),
            ratio: Format.speedup(floe: floeWithBuild, peer: peerWithBuild)))
    }

    /// Checks that every dog arrived, with its values.
    private static func verify(_ realm: Realm, count: Int) async throws {
        let (stored, ageSum, sample) = try await realm.read { realm in
            let dogs = realm.objects(RealmDog.self)
            let sample = realm.object(ofType: RealmDog.self, forPrimaryKey: count / 2)
            return (dogs.count, dogs.reduce(Int64(0)) { $0 + Int64($1.age) },
                    sample.map { "\($0.name) \($0.color) \($0.weight)" } ?? "nil")
        }
        let expectedSample = "\(Dog.name(count / 2)) \(Dog.color(count / 2)) \(Dog.weight(count / 2))"
        guard stored == count, ageSum == Dog.ageSum(count: count), sample == expectedSample else {
            throw BenchmarkFailure("Floe holds \(stored) dogs (age sum \(ageSum), dog \(count / 2): \(sample)) after adding \(count)")
        }
    }
}
