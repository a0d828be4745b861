@_spi(Engine) import Floe
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage
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
        // What lifts Floe's mean above its p50, by kind of write (see `floeRound`).
        var floeKinds: [WriteKind: Samples] = [:]

        let (floe, peer) = try await Runs.alternating(rounds: rounds, floe: {
            let round = try await floeRound(durability: .full, scratch: scratch)
            for value in round.commits.values { floeCommits.append(value) }
            for value in round.commitsOnly.values { floeCommitOnly.append(value) }
            floeAppended.append(round.appendedPerCommit)
            for (kind, samples) in round.kinds { for value in samples.values { floeKinds[kind, default: Samples()].append(value) } }
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
        // Each kind's share of the mean: what its writes took beyond the overall p50, spread
        // over all writes.
        let overall = floeCommits.median
        let allWrites = Double(floeCommits.count)
        let shares = WriteKind.allCases.compactMap { kind -> String? in
            guard let samples = floeKinds[kind], samples.count > 0 else { return nil }
            let excess = samples.values.reduce(0) { $0 + ($1 - overall) } / allWrites
            return "\(kind.rawValue) \(samples.count)× p50 \(Format.duration(nanoseconds: samples.median)) (\(Format.duration(nanoseconds: excess)) of the mean)"
        }
        let mean = floeCommits.values.reduce(0, +) / allWrites
        reporter.note("Floe mean \(Format.duration(nanoseconds: mean)) over p50 \(Format.duration(nanoseconds: overall)), by kind of write: \(shares.joined(separator: "; "))")
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
        -> (commits: Samples, commitsOnly: Samples, appendedPerCommit: Double, kinds: [WriteKind: Samples]) {
        let name = "durable.floe"
        scratch.remove(name)
        defer { scratch.remove(name) }
        let realm = try await RealmDogs.open(at: scratch.file(name), durability: durability)
        // The committed bytes (the store the realm shares): a `.full` file also holds zeros
        // written ahead of its commits, which the file's size on disk would count.
        let store = try Store.open(path: scratch.file(name))
        var commits = Samples()
        var commitsOnly = Samples()
        var kinds: [WriteKind: Samples] = [:]
        var appendedBytes: UInt64 = 0
        var appendingCommits = 0
        for index in 0..<writesPerRound {
            let preallocated = store.preallocatedBytes
            let committedBytes = store.fileSize
            let start = Clocks.wallNanoseconds()
            // The closure reports when it ends: what follows is the commit.
            let addDone = try await realm.write { realm in
                try realm.add(RealmDog(index: index))
                return Clocks.wallNanoseconds()
            }
            let end = Clocks.wallNanoseconds()
            commits.append(Double(end - start))
            commitsOnly.append(Double(end - addDone))
            // A commit that leaves the file shorter compacted it (dead bytes dominated).
            let compacted = store.fileSize < committedBytes
            if !compacted {
                appendedBytes += store.fileSize - committedBytes
                appendingCommits += 1
            }
            let kind: WriteKind = index == 0 ? .first
                : compacted ? .compacting
                : store.preallocatedBytes > preallocated ? .extending : .overwriting
            kinds[kind, default: Samples()].append(Double(end - start))
        }
        let (stored, lastName) = try await realm.read { realm in
            (realm.objects(RealmDog.self).count,
             realm.object(ofType: RealmDog.self, forPrimaryKey: writesPerRound - 1)?.name)
        }
        guard stored == writesPerRound, lastName == Dog.name(writesPerRound - 1) else {
            throw BenchmarkFailure("Floe holds \(stored) dogs after \(writesPerRound) writes (last: \(lastName ?? "nil"))")
        }
        // What the commits appended (the file shrinks at each automatic compaction).
        let appended = Double(appendedBytes) / Double(max(appendingCommits, 1))
        return (commits, commitsOnly, appended, kinds)
    }

    /// What a write's commit did to the file, to tell what lifts the mean above the p50.
    enum WriteKind: String, CaseIterable {
        /// A round's first write (the first commit after open extends the file).
        case first
        /// Compacted the file after its commit (``StoreOptions/compactsAutomatically``): copied
        /// the live nodes to a new file, synced it and renamed it over the old one.
        case compacting = "compacting the file"
        /// Ran past the zeros written ahead: extended the file by a step of zeros.
        case extending = "extending the file"
        /// Overwrote zeros written ahead, nothing else.
        case overwriting
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
