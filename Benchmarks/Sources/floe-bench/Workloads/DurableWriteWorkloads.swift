@_spi(Engine) import Floe
import GRDB

/// W2: 1,000 writes of one new dog each, every commit synced to the disk: Floe with
/// durability `.full`, GRDB (WAL) with `synchronous = FULL`.
///
/// Each write is awaited from outside the realm's actor, as an app writes; GRDB's writes
/// are its synchronous calls, with no hop. Both start from an empty table.
enum DurableWriteWorkloads {
    static let rounds = 5
    static let writesPerRound = 1_000

    static func run(fixtures: Fixtures, reporter: Reporter) async throws {
        let scratch = fixtures.scratch
        var floeCommits = Samples()
        var peerCommits = Samples()
        var floeAppended = Samples()
        var floeCommitOnly = Samples()
        var peerWALBytes = Samples()

        let (floe, peer) = try await Runs.alternating(rounds: rounds, floe: {
            let round = try await floeRound(durability: .full, scratch: scratch)
            for value in round.commits.values { floeCommits.append(value) }
            for value in round.commitsOnly.values { floeCommitOnly.append(value) }
            floeAppended.append(round.appendedPerCommit)
            return round.commits.values.reduce(0, +)
        }, peer: {
            let name = "durable.sqlite"
            scratch.remove(name)
            defer { scratch.remove(name) }
            let database = try GRDBDogs.openDurable(at: scratch.file(name))
            try GRDBDogs.createTable(in: database)
            var commits = Samples()
            for index in 0..<writesPerRound {
                let record = DogRecord(index: index)
                commits.append(try Clocks.wallTime {
                    try database.write { db in try record.insert(db) }
                })
            }
            let stored = try GRDBDogs.count(in: database)
            guard stored == writesPerRound else { throw BenchmarkFailure("GRDB holds \(stored) dogs after \(writesPerRound) writes") }
            // SQLite checkpoints at 1,000 WAL pages and then rewrites the WAL from its start:
            // its size shows the frames since then, not all that was written.
            peerWALBytes.append(Double(FileSizes.size(of: scratch.file(name) + "-wal")))
            try database.close()
            for value in commits.values { peerCommits.append(value) }
            return commits.values.reduce(0, +)
        })

        // The same writes unsynced: what Floe itself spends per write.
        var unsynced = Samples()
        for _ in 0..<3 { unsynced.append(try await floeRound(durability: .none, scratch: scratch).commits.median) }
        // The disk probed with writes the size of Floe's commits.
        let commitSize = Int(floeAppended.median.rounded())
        let disk = DiskProbe.appendAndSyncLatencies(path: scratch.file("disk-probe"), blockSize: commitSize, count: 300)
        let diskOverwrite = DiskProbe.overwriteAndSyncLatencies(path: scratch.file("disk-probe"), blockSize: commitSize, count: 300)
        let hop = try await emptyReadLatencies(scratch: scratch)
        reporter.note("per commit over all rounds: Floe p50 \(Format.duration(nanoseconds: floeCommits.median)), p90 \(Format.duration(nanoseconds: floeCommits.percentile(90))); GRDB p50 \(Format.duration(nanoseconds: peerCommits.median)), p90 \(Format.duration(nanoseconds: peerCommits.percentile(90)))")
        reporter.note("Floe: the commit alone (from the end of the write's closure to the write's return: encode, write, fdatasync) p50 \(Format.duration(nanoseconds: floeCommitOnly.median)); an empty read awaited from outside the actor p50 \(Format.duration(nanoseconds: hop.median))")
        reporter.note("Floe with durability .none (no fdatasync): p50 \(Format.duration(nanoseconds: unsynced.median)) per write")
        reporter.note("Floe appended \(Format.bytes(floeAppended.median)) per commit on average; GRDB's WAL held \(Format.bytes(peerWALBytes.median)) after the 1,000 commits (a 4 KiB page frame or more per commit)")
        let perCommit = Double(writesPerRound)
        reporter.add(ReportLine(
            workload: "W2 1,000 durable one-dog writes, per commit",
            floe: Format.duration(nanoseconds: floe.median / perCommit),
            peer: Format.duration(nanoseconds: peer.median / perCommit),
            ratio: Format.speedup(floe: floe.median, peer: peer.median),
            target: "≥ 1.5× GRDB (synchronous=FULL)",
            verdict: peer.median / floe.median >= 1.5 ? .met : .missed))
        reporter.add(ReportLine(
            workload: "W2 durable one-dog write, p50 per commit",
            floe: Format.duration(nanoseconds: floeCommits.median),
            peer: Format.duration(nanoseconds: peerCommits.median),
            ratio: Format.speedup(floe: floeCommits.median, peer: peerCommits.median),
            target: "≤ 150 µs",
            verdict: floeCommits.median <= 150_000 ? .met : .missed))
        reporter.add(ReportLine(
            workload: "W2 disk alone: \(Format.bytes(Double(commitSize))) append + fdatasync, p50",
            floe: Format.duration(nanoseconds: disk.median)))
        reporter.add(ReportLine(
            workload: "W2 disk alone: \(Format.bytes(Double(commitSize))) overwrite + fdatasync, p50",
            floe: Format.duration(nanoseconds: diskOverwrite.median)))
    }

    /// One round on the Floe side: `writesPerRound` writes of one new dog each into a new realm.
    private static func floeRound(durability: Realm.Durability, scratch: ScratchDirectory) async throws
        -> (commits: Samples, commitsOnly: Samples, appendedPerCommit: Double) {
        let name = "durable.floe"
        scratch.remove(name)
        defer { scratch.remove(name) }
        let realm = try await RealmDogs.open(at: scratch.file(name), durability: durability)
        // The committed bytes (the store the realm shares): a `.full` file also holds zeros
        // written ahead of its commits, which the file's size on disk would count.
        let store = try Store.open(path: scratch.file(name))
        var commits = Samples()
        var commitsOnly = Samples()
        var growths: [Double] = []
        for index in 0..<writesPerRound {
            let committed = store.fileSize
            defer { if store.fileSize > committed { growths.append(Double(store.fileSize - committed)) } }
            let start = Clocks.wallNanoseconds()
            // The closure reports when it ends: what follows is the commit.
            let addDone = try await realm.write { realm in
                try realm.add(RealmDog(index: index))
                return Clocks.wallNanoseconds()
            }
            let end = Clocks.wallNanoseconds()
            commits.append(Double(end - start))
            commitsOnly.append(Double(end - addDone))
        }
        let (stored, lastName) = try await realm.read { realm in
            (realm.objects(RealmDog.self).count,
             realm.object(ofType: RealmDog.self, forPrimaryKey: writesPerRound - 1)?.name)
        }
        guard stored == writesPerRound, lastName == Dog.name(writesPerRound - 1) else {
            throw BenchmarkFailure("Floe holds \(stored) dogs after \(writesPerRound) writes (last: \(lastName ?? "nil"))")
        }
        // The mean of each commit's growth, leaving out commits that compacted the file (it shrank).
        let appended = growths.isEmpty ? 0 : growths.reduce(0, +) / Double(growths.count)
        return (commits, commitsOnly, appended)
    }

    /// Round trips of `realm.read` with an empty closure: the cost of reaching the actor.
    private static func emptyReadLatencies(scratch: ScratchDirectory) async throws -> Samples {
        let name = "hop.floe"
        scratch.remove(name)
        defer { scratch.remove(name) }
        let realm = try await RealmDogs.open(at: scratch.file(name))
        var samples = Samples()
        for _ in 0..<1_000 {
            samples.append(try await Clocks.wallTime { _ = try await realm.read { _ in 0 } })
        }
        return samples
    }
}
