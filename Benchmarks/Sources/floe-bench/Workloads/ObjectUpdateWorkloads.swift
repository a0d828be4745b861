@_spi(Engine) import Floe
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage
import GRDB

/// W6: `age += 1` on every one of the 100,000 dogs in one write.
///
/// Floe iterates `objects(RealmDog.self)` inside a write and increments each dog's age;
/// GRDB fetches every record and `update`s each in one transaction. Both work on copies of
/// the shared files, kept open across rounds, so every round adds one to every age; the
/// totals are checked after each round.
enum ObjectUpdateWorkloads {
    static let rounds = 5

    static func run(fixtures: Fixtures, reporter: Reporter) async throws {
        let count = Fixtures.dogCount
        let paths = try await fixtures.copyOfDogFiles(suffix: "update")
        defer {
            fixtures.scratch.remove("dogs-update.floe")
            fixtures.scratch.remove("dogs-update.sqlite")
        }
        let realm = try await RealmDogs.open(at: paths.floe)
        let database = try GRDBDogs.open(at: paths.grdb)
        defer { try? database.close() }
        let startSum = Dog.ageSum(count: count)
        var floeRounds: Int64 = 0
        var peerRounds: Int64 = 0
        var largestFile: UInt64 = 0
        var compactions = 0
        let startSize = FileSizes.size(of: paths.floe)
        // The loop inside the write, timed on its own: the rest of a round is the commit (node
        // images, checksums, one `fdatasync`) and the write's begin.
        var loops: [Double] = []
        var commits: [Double] = []
        // The bytes each commit appends (the store the realm shares: the file's size on disk
        // also counts the zeros a `.full` store writes ahead), in rounds that did not compact.
        let store = try Store.open(path: paths.floe)
        var appended: [Double] = []

        let (floe, peer) = try await Runs.alternating(rounds: rounds, floe: {
            let sizeBefore = FileSizes.size(of: paths.floe)
            let committedBefore = store.fileSize
            var loop = 0.0
            let elapsed = try await Clocks.wallTime {
                loop = try await realm.write { realm in
                    Clocks.wallTime { for dog in realm.objects(RealmDog.self) { dog.age += 1 } }
                }
            }
            loops.append(loop)
            commits.append(elapsed - loop)
            floeRounds += 1
            let sizeAfter = FileSizes.size(of: paths.floe)
            largestFile = max(largestFile, sizeAfter)
            // The file shrinks only when the commit compacted it (automatic compaction is on,
            // as in every realm): that round's time includes the compaction.
            if sizeAfter < sizeBefore { compactions += 1 }
            if store.fileSize > committedBefore { appended.append(Double(store.fileSize - committedBefore)) }
            let sum = try await RealmDogs.ageSum(in: realm)
            guard sum == startSum + floeRounds * Int64(count) else {
                throw BenchmarkFailure("Floe's ages sum to \(sum) after \(floeRounds) rounds, expected \(startSum + floeRounds * Int64(count))")
            }
            return elapsed
        }, peer: {
            let elapsed = try Clocks.wallTime {
                try database.write { db in
                    for var dog in try DogRecord.fetchAll(db) {
                        dog.age += 1
                        try dog.update(db)
                    }
                }
            }
            peerRounds += 1
            let sum = try GRDBDogs.ageSumInSQL(in: database)
            guard sum == startSum + peerRounds * Int64(count) else {
                throw BenchmarkFailure("GRDB's ages sum to \(sum) after \(peerRounds) rounds, expected \(startSum + peerRounds * Int64(count))")
            }
            return elapsed
        })
        let loopMedian = Samples(loops).median, commitMedian = Samples(commits).median
        reporter.note("W6 Floe: the loop inside the write \(Format.duration(nanoseconds: loopMedian)), the commit and the write's begin \(Format.duration(nanoseconds: commitMedian)) (medians of the rounds)")
        reporter.note("W6 Floe: a commit appended \(appended.isEmpty ? "(every round compacted)" : Format.bytes(Samples(appended).median)) (median of the \(appended.count) rounds that did not compact)")
        reporter.note("Floe's file: \(Format.bytes(Double(largestFile))) at most (started at \(Format.bytes(Double(startSize)))); automatic compaction ran inside \(compactions) of the \(rounds) timed commits")
        reporter.add(ReportLine(
            workload: "W6 age += 1 on 100k dogs, one write (Floe .full)",
            floe: Format.duration(nanoseconds: floe.median),
            peer: Format.duration(nanoseconds: peer.median),
            ratio: Format.speedup(floe: floe.median, peer: peer.median),
            target: "≥ 100× GRDB",
            verdict: peer.median / floe.median >= 100 ? .met : .missed,
            gate: GateFigure(key: "W6", floe: floe.median, peer: peer.median)))
    }
}
