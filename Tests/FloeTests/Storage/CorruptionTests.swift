import Foundation
import Testing
@_spi(Engine) @testable import Floe
@_spi(Engine) @testable import FloeEngine
@_spi(Engine) @testable import FloeStorage
@testable import FloeCrashChild

/// Damaged files: flipped bits, truncations and overwritten ranges anywhere in a file of a few
/// dozen commits, plus foreign, future, empty and locked files.
///
/// The only acceptable outcomes of opening a damaged file are a `FloeError`, or a store at
/// some version V whose every read either throws a `FloeError` or returns exactly the content
/// of version V. (The engine recovers to an earlier version when the newest commit is damaged.)
/// The trials are seeded, so a failure names a reproducible damage.
@Suite(.ownThread) struct CorruptionTests {
    // MARK: Random damage

    @Test func flippedBits() throws {
        let fixture = try Fixture.shared.get()
        let directory = TemporaryDirectory()
        var random = WorkloadRandom(seed: 0xF11B)
        var tally = Tally()
        for trial in 0..<200 {
            var bytes = fixture.bytes
            let offset = fixture.damageOffset(&random)
            let bit = random.below(8)
            bytes[offset] ^= UInt8(1) << UInt8(bit)
            tally.add(try fixture.open(bytes, in: directory, trial: trial, context: "bit \(bit) of byte \(offset) flipped"))
        }
        tally.expectVariety(trials: 200)
    }

    @Test func truncations() throws {
        let fixture = try Fixture.shared.get()
        let directory = TemporaryDirectory()
        var random = WorkloadRandom(seed: 0x7256)
        for trial in 0..<120 {
            let length: Int
            switch random.below(10) {
            case 0: length = random.below(FileHeader.size + 64)
            case 1...3: length = random.int(in: fixture.tailStart...(fixture.bytes.count - 1))
            default: length = random.below(fixture.bytes.count)
            }
            let context = "truncated to \(length) bytes"
            let outcome = try fixture.open(Array(fixture.bytes.prefix(length)), in: directory, trial: trial, context: context)
            if length < FileHeader.size {
                // No whole header: refused, or (what was there matching a new file's header) an empty store.
                if case .opened(let version, _, let failures) = outcome {
                    #expect(version == 0 && failures == 0, "\(context): opened at version \(version)")
                }
                continue
            }
            // Every chunk before the cut is intact: the newest of them is found and reads in full,
            // and what follows it is exactly the discarded tail.
            let whole = fixture.chunkEnds.lastIndex { $0 <= UInt64(length) }.map { $0 + 1 } ?? 0
            let end = whole == 0 ? UInt64(FileHeader.size) : fixture.chunkEnds[whole - 1]
            #expect(outcome == .opened(version: UInt64(whole), discardedTail: UInt64(length) - end, failedReads: 0), "\(context)")
        }
    }

    @Test func overwrittenRanges() throws {
        let fixture = try Fixture.shared.get()
        let directory = TemporaryDirectory()
        var random = WorkloadRandom(seed: 0x0BE5)
        var tally = Tally()
        for trial in 0..<150 {
            var bytes = fixture.bytes
            let offset = fixture.damageOffset(&random)
            let length: Int
            switch random.below(10) {
            case 0...4: length = random.int(in: 1...16)
            case 5...7: length = random.int(in: 17...512)
            default: length = random.int(in: 513...8192)
            }
            let end = min(offset + length, bytes.count)
            for index in offset..<end { bytes[index] = UInt8(truncatingIfNeeded: random.next()) }
            tally.add(try fixture.open(bytes, in: directory, trial: trial, context: "bytes \(offset)..<\(end) overwritten"))
        }
        tally.expectVariety(trials: 150)
    }

    /// Without usable hints open walks the chunks from the start; a damaged chunk ends the
    /// walk. Read-only, the file opens at the version before it, whole. Read-write, intact
    /// commit records after the damage mean it is not a torn tail, so open refuses to cut them
    /// off and reports the corruption instead. (A flip in the zero padding after a node, which
    /// no checksum covers, changes nothing.)
    @Test func flippedBitsWithoutHints() throws {
        let fixture = try Fixture.shared.get()
        let directory = TemporaryDirectory()
        var random = WorkloadRandom(seed: 0x4117)
        var hintless = fixture.bytes
        for index in 16..<80 { hintless[index] = 0 }
        let latest = UInt64(fixture.chunkEnds.count)
        #expect(try fixture.open(hintless, in: directory, trial: -1, context: "hints cleared") == .opened(version: latest, discardedTail: 0, failedReads: 0))
        for trial in 0..<80 {
            var bytes = hintless
            let offset = random.int(in: FileHeader.size...(bytes.count - 1))
            let bit = random.below(8)
            bytes[offset] ^= UInt8(1) << UInt8(bit)
            let context = "hints cleared, bit \(bit) of byte \(offset) flipped"
            let outcome = try fixture.open(bytes, in: directory, trial: trial, context: context)
            let damaged = UInt64(fixture.chunkEnds.firstIndex { UInt64(offset) < $0 }! + 1)
            let intact = Outcome.opened(version: damaged - 1, discardedTail: UInt64(bytes.count) - fixture.end(of: damaged - 1), failedReads: 0)
            let unnoticed = Outcome.opened(version: latest, discardedTail: 0, failedReads: 0)
            var refusedToTruncate = false
            if case .refused(.corruptFile(_, let at, _)) = outcome, trial % 2 == 1 {
                refusedToTruncate = at == fixture.end(of: damaged - 1)
            }
            #expect(outcome == intact || outcome == unnoticed || refusedToTruncate, "\(context): the damage is in commit \(damaged)")
        }
    }

    // MARK: Specific files

    @Test func foreignFilesAreNotFloeFiles() throws {
        let directory = TemporaryDirectory()
        var random = WorkloadRandom(seed: 0xF0E1)
        var samples: [(String, [UInt8])] = [50, 127, 128, 4096].map { count in
            ("\(count) random bytes", (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) })
        }
        samples.append(("a text file", Array(String(repeating: "This is a text file, not a database.\n", count: 20).utf8)))
        samples.append(("a one-line text file", Array("hello\n".utf8)))
        for (name, bytes) in samples {
            for readOnly in [false, true] {
                let path = directory.file("foreign.bin")
                try Data(bytes).write(to: URL(fileURLWithPath: path))
                let error = Self.openError(path, readOnly: readOnly)
                #expect(error.map(Self.isNotAFloeFile) == true, "\(name), read-only \(readOnly): \(String(describing: error))")
                #expect(try Self.contents(path) == bytes, "opening \(name) changed it")
            }
        }
    }

    @Test func futureFormatVersionIsRefused() throws {
        let fixture = try Fixture.shared.get()
        let directory = TemporaryDirectory()
        for future in [FileHeader.formatVersion + 1, 1000, UInt32.max] {
            var bytes = fixture.bytes
            withUnsafeBytes(of: future.littleEndian) { bytes.replaceSubrange(8..<12, with: $0) }
            withUnsafeBytes(of: CRC32C.checksum(Array(bytes[0..<12])).littleEndian) { bytes.replaceSubrange(12..<16, with: $0) }
            for readOnly in [false, true] {
                let path = directory.file("future.floe")
                try Data(bytes).write(to: URL(fileURLWithPath: path))
                let error = Self.openError(path, readOnly: readOnly)
                guard case .unsupportedFormatVersion(_, let found, let supported)? = error else {
                    Issue.record("format version \(future), read-only \(readOnly): \(String(describing: error))")
                    continue
                }
                #expect(found == future && supported == FileHeader.formatVersion)
                #expect(error?.description.contains("\(future)") == true)
                #expect(try Self.contents(path) == bytes, "refusing a future file changed it")
            }
        }
    }

    @Test func emptyFile() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        let error = Self.openError(path, readOnly: true)
        #expect(error.map(Self.isNotAFloeFile) == true, "\(String(describing: error))")
        #expect(error?.description.contains("test.floe") == true, "the error names the file")
        #expect(try Self.contents(path).isEmpty, "a read-only open wrote to the file")
        // Writable, an empty file is a file whose creation stopped before its header: it becomes a new store.
        let store = try Store.open(path: path)
        #expect(store.currentVersion == 0)
        #expect(try store.snapshot().tableNames().isEmpty)
        store.close()
        #expect(try Self.contents(path).count == FileHeader.size)
    }

    @Test func missingFileOpenedReadOnly() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("absent.floe")
        let error = Self.openError(path, readOnly: true)
        guard case .io(_, _, let code)? = error else {
            Issue.record("expected an I/O error, got \(String(describing: error))")
            return
        }
        #expect(code == ENOENT)
        #expect(!FileManager.default.fileExists(atPath: path), "a read-only open created the file")
    }

    @Test func fileLockedByAnotherProcess() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        let holder = try CrashChildProcess(["hold-lock", path])
        let ready = holder.readLine(killingAfter: 30)
        guard ready == "READY" else {
            let ending = holder.kill()
            Issue.record("the lock holder said \(String(describing: ready)) and \(ending): \(holder.errorText())")
            return
        }
        // A second writer is refused; a reader takes no lock and opens (MultiProcessTests follows a live writer).
        let error = Self.openError(path, readOnly: false)
        guard case .fileLocked? = error else {
            Issue.record("expected fileLocked, got \(String(describing: error))")
            return
        }
        #expect(error?.description.contains("locked by another process") == true)
        #expect(Self.openError(path, readOnly: true) == nil)
        #expect(holder.kill() == .signalled(SIGKILL))
        // The lock goes with the process.
        let store = try Store.open(path: path)
        #expect(store.currentVersion == 0)
        store.close()
    }

    /// Damage to a chunk header, the one structure without a checksum of its own: its length
    /// claims (nearly) all of 2^64 bytes, as when the header is garbage or its length field
    /// reads back as all ones (an erased flash page). Opening, reading and verifying run in a
    /// child process, so that a crash fails this test without ending the test run.
    enum ChunkHeaderDamage: String, CaseIterable, Sendable {
        /// After the last commit, as a torn tail: cut off; the newest version opens.
        case tailClaimingAllOnes, tailClaimingNearlyAllOnes, tailClaimingTwoToThe63
        /// In commit 20, whose header open does not read while a hint names the newest commit:
        /// the newest version opens and verification reports the damage.
        case middleLengthAllOnes
        /// In commit 20, with no usable hint: the scan from the start stops before it. Read-only,
        /// version 19 opens; read-write, open refuses (intact commits follow the damage, so it is
        /// not a torn tail to cut off).
        case middleLengthAllOnesWithoutHints

        func apply(to fixture: Fixture) -> (bytes: [UInt8], version: Int, verifies: Bool) {
            var bytes = fixture.bytes
            func tail(_ length: UInt64) -> [UInt8] {
                var writer = ByteWriter(capacity: 256)
                writer.append(ChunkHeader.magic)
                writer.append(UInt32(0))
                writer.append(length)
                writer.append([UInt8](repeating: 0, count: 200))
                return writer.bytes
            }
            let latest = fixture.states.count - 1
            let lengthField = Int(fixture.chunkStarts[19]) + 8
            switch self {
            case .tailClaimingAllOnes: return (bytes + tail(.max), latest, true)
            case .tailClaimingNearlyAllOnes: return (bytes + tail(.max - 4095), latest, true)
            case .tailClaimingTwoToThe63: return (bytes + tail(1 << 63), latest, true)
            case .middleLengthAllOnes:
                bytes.replaceSubrange(lengthField..<lengthField + 8, with: repeatElement(0xFF, count: 8))
                return (bytes, latest, false)
            case .middleLengthAllOnesWithoutHints:
                bytes.replaceSubrange(lengthField..<lengthField + 8, with: repeatElement(0xFF, count: 8))
                bytes.replaceSubrange(16..<80, with: repeatElement(0, count: 64))
                return (bytes, 19, true)
            }
        }
    }

    @Test(arguments: ChunkHeaderDamage.allCases)
    func chunkHeaderClaimingAnImpossibleLength(damage: ChunkHeaderDamage) throws {
        let fixture = try Fixture.shared.get()
        let directory = TemporaryDirectory()
        let (bytes, version, verifies) = damage.apply(to: fixture)
        let path = directory.file()
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        for readOnly in [true, false] {
            let child = try CrashChildProcess(["open", path] + (readOnly ? ["read-only"] : []))
            let lines = child.remainingLines()
            let ending = child.waitForExit()
            guard ending == .exited(0) else {
                Issue.record("\(damage), read-only \(readOnly): opening, reading and verifying the file, the child \(ending)\n\(child.errorText())")
                continue
            }
            if damage == .middleLengthAllOnesWithoutHints && !readOnly {
                #expect(lines.count == 1 && lines[0].hasPrefix("ERROR") && lines[0].contains("intact commits follow"), "\(lines)")
                #expect(try Self.contents(path) == bytes, "a refused open changed the file")
                continue
            }
            let expected = ["VERSION \(version)", "STATE \(fixture.states[version].digest)", "VERIFY \(verifies ? "valid" : "invalid")"]
            #expect(lines == expected, "\(damage), read-only \(readOnly)")
        }
    }

    // MARK: Helpers

    static func openError(_ path: String, readOnly: Bool) -> FloeError? {
        let result = Result { () throws(FloeError) -> Store in try Store.open(path: path, options: StoreOptions(readOnly: readOnly)) }
        switch result {
        case .success(let store):
            store.close()
            return nil
        case .failure(let error):
            return error
        }
    }

    static func isNotAFloeFile(_ error: FloeError) -> Bool {
        if case .notAFloeFile = error { return true }
        return false
    }

    static func contents(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }
}

extension CorruptionTests {
    /// What opening a damaged file did.
    enum Outcome: Equatable {
        case refused(FloeError)
        /// Opened at `version`; `failedReads` reads threw (every other one returned the right data).
        case opened(version: UInt64, discardedTail: UInt64, failedReads: Int)
    }

    /// Counts outcomes, to show that the damage reached live data and not only dead bytes.
    struct Tally {
        var refused = 0, earlier = 0, failedReads = 0, intact = 0

        mutating func add(_ outcome: Outcome) {
            switch outcome {
            case .refused: refused += 1
            case .opened(_, _, let failures) where failures > 0: failedReads += 1
            case .opened(let version, _, _) where version < UInt64(Fixture.versions): earlier += 1
            case .opened: intact += 1
            }
        }

        func expectVariety(trials: Int) {
            #expect(refused + earlier + failedReads + intact == trials)
            #expect(refused > 0 && earlier > 0 && failedReads > 0 && intact > 0,
                    "refused \(refused), earlier version \(earlier), failed reads \(failedReads), intact \(intact)")
        }
    }

    /// A file of a few dozen commits of varied sizes, with the content of every version.
    struct Fixture: Sendable {
        static let seed: UInt64 = 0x5EED_C0DE
        static let versions = 40
        static let shared = Result { try Fixture() }

        let bytes: [UInt8]
        /// `states[v]`: the content of version v.
        let states: [WorkloadState]
        /// Where each commit's chunk starts and ends (index v - 1 for version v).
        let chunkStarts: [UInt64]
        let chunkEnds: [UInt64]

        struct Malformed: Error, CustomStringConvertible {
            let description: String
        }

        private init() throws {
            let directory = TemporaryDirectory("damagefixture")
            let path = directory.file()
            let store = try Store.open(path: path, options: StoreOptions(durability: .none, compactsAutomatically: false))
            var states = [WorkloadState()]
            for version in 1...Self.versions {
                var state = states[version - 1]
                let transaction = try store.beginWrite()
                for operation in Workload.plan(seed: Self.seed, version: UInt64(version), state: state, profile: .corruption) {
                    _ = try operation.perform(in: transaction)
                    state.apply(operation)
                }
                guard try transaction.commit() == UInt64(version) else { throw Malformed(description: "commit \(version) got another number") }
                states.append(state)
            }
            store.close()
            bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            self.states = states

            // The chunks, walked with the documented layout (CommitRecord.swift).
            var starts: [UInt64] = [], ends: [UInt64] = []
            var position = FileHeader.size
            while position < bytes.count {
                let length = Int(Self.word(bytes, at: position + 8))
                let version = Self.word(bytes, at: position + length - CommitRecord.size + 8)
                guard version == UInt64(starts.count + 1) else { throw Malformed(description: "chunk at \(position) holds version \(version)") }
                starts.append(UInt64(position))
                ends.append(UInt64(position + length))
                position += length
            }
            guard starts.count == Self.versions else { throw Malformed(description: "\(starts.count) chunks for \(Self.versions) commits") }
            chunkStarts = starts
            chunkEnds = ends
        }

        private static func word(_ bytes: [UInt8], at offset: Int) -> UInt64 {
            bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) }
        }

        /// Where the last two chunks begin.
        var tailStart: Int { Int(chunkStarts[chunkStarts.count - 2]) }

        /// The end of version `version`'s chunk (the header's end for version 0).
        func end(of version: UInt64) -> UInt64 { version == 0 ? UInt64(FileHeader.size) : chunkEnds[Int(version) - 1] }

        /// A byte to damage: anywhere, in the newest commits, in the header, or in a commit record or chunk header.
        func damageOffset(_ random: inout WorkloadRandom) -> Int {
            switch random.below(20) {
            case 0..<8: return random.below(bytes.count)
            case 8..<13: return random.int(in: tailStart...(bytes.count - 1))
            case 13..<16: return random.below(FileHeader.size)
            default:
                let chunk = random.below(chunkStarts.count)
                return random.chance(50)
                    ? Int(chunkStarts[chunk]) + random.below(ChunkHeader.size)
                    : Int(chunkEnds[chunk]) - CommitRecord.size + random.below(CommitRecord.size)
            }
        }

        /// Writes `damaged` to a file, opens it and holds the engine to the acceptable outcomes.
        ///
        /// Even trials open read-only; odd ones read-write, and then also reopen (same version
        /// again) and, when everything read back intact, commit the workload's next commit on the
        /// recovered file and check it after another reopen.
        func open(_ damaged: [UInt8], in directory: TemporaryDirectory, trial: Int, context: String) throws -> Outcome {
            let readOnly = trial % 2 == 0
            let context = "\(context) (trial \(trial), \(readOnly ? "read-only" : "read-write"))"
            let path = directory.file("trial.floe")
            try Data(damaged).write(to: URL(fileURLWithPath: path))
            defer { try? FileManager.default.removeItem(atPath: path) }
            let options = StoreOptions(readOnly: readOnly, compactsAutomatically: false)

            let store: Store
            switch Result(catching: { () throws(FloeError) -> Store in try Store.open(path: path, options: options) }) {
            case .failure(let error): return .refused(error)
            case .success(let opened): store = opened
            }
            let snapshot = try store.snapshot()
            let version = snapshot.version
            let discarded = store.recoveredTailBytes
            try #require(version < UInt64(states.count), "opened at version \(version), which was never written: \(context)")
            let reads = ReadComparison(snapshot, expected: states[Int(version)])
            #expect(reads.mismatches.isEmpty, "wrong data at version \(version) after \(context): \(reads.mismatches.prefix(3))")
            // Verification reads everything too: where a read met damage, it must report a problem
            // (or throw). It may also report damage in bytes no read reaches, such as old versions.
            if case .success(let report) = Result(catching: { () throws(FloeError) in try store.verify() }) {
                #expect(report.version == version, "\(context)")
                #expect(reads.failures == 0 || !report.isValid, "\(reads.failures) reads failed but verification found nothing (\(context))")
            }
            store.close()
            if readOnly {
                #expect(Array(try Data(contentsOf: URL(fileURLWithPath: path))) == damaged, "a read-only open changed the file: \(context)")
                return .opened(version: version, discardedTail: discarded, failedReads: reads.failures)
            }

            // Opening again finds the same version.
            let reopened = try Store.open(path: path, options: options)
            #expect(reopened.currentVersion == version, "opened at version \(version), then at \(reopened.currentVersion): \(context)")
            if reads.failures == 0 && reopened.currentVersion == version {
                // The recovered file takes new commits.
                var next = states[Int(version)]
                let transaction = try reopened.beginWrite()
                for operation in Workload.plan(seed: Self.seed, version: version + 1, state: next, profile: .corruption) {
                    _ = try operation.perform(in: transaction)
                    next.apply(operation)
                }
                #expect(try transaction.commit() == version + 1)
                reopened.close()
                let extended = try Store.open(path: path, options: options)
                let snapshot = try extended.snapshot()
                #expect(snapshot.version == version + 1, "\(context)")
                let after = ReadComparison(snapshot, expected: next)
                #expect(after.mismatches.isEmpty && after.failures == 0,
                        "after a commit on the recovered file (\(context)): \(after.failures) failed reads, \(after.mismatches.prefix(3))")
                extended.close()
            } else {
                reopened.close()
            }
            return .opened(version: version, discardedTail: discarded, failedReads: reads.failures)
        }
    }

    /// Every read of a version compared with the expected content. A read that throws the error
    /// of damaged bytes (`corruptFile`, or `io` for a short read) is counted as a failure; a read
    /// that returns something else than the expected content, or throws any other error (such as
    /// `noSuchObject` for an object the version holds), is a mismatch.
    struct ReadComparison {
        private(set) var mismatches: [String] = []
        private(set) var failures = 0

        init(_ reader: Snapshot, expected: WorkloadState) {
            if let names = attempt({ () throws(FloeError) in try reader.tableNames() }) {
                check(names == expected.tables.map(\.spec.name), "table names \(names)")
            }
            for table in expected.tables {
                let name = table.spec.name
                guard let handle = attempt({ () throws(FloeError) in try reader.table(named: name) }) else { continue }
                if let spec = attempt({ () throws(FloeError) in try reader.spec(of: handle) }) {
                    check(spec == table.spec, "\(name) schema \(spec)")
                }
                if let node = attempt({ () throws(FloeError) in try reader.tableNode(handle) }) {
                    check(node.nextKey == table.nextKey, "\(name) next key \(node.nextKey)")
                }
                if let count = attempt({ () throws(FloeError) in try reader.objectCount(in: handle) }) {
                    check(count == table.keys.count, "\(name) count \(count)")
                }
                if let keys = attempt({ () throws(FloeError) in try reader.objectKeys(in: handle) }) {
                    check(keys == table.keys, "\(name) keys (\(keys.count))")
                }
                var firstColumn: [Int64: Value] = [:]
                if attempt({ () throws(FloeError) in
                    try reader.forEachValue(in: handle, column: 0) { key, value in
                        firstColumn[key] = value
                        return true
                    }
                }) != nil {
                    check(firstColumn == table.rows.mapValues { $0[0] }, "\(name) first column")
                }
                if let integer = table.spec.columns.firstIndex(where: { $0.type == .int && $0.collection == .single }),
                   let sum = attempt({ () throws(FloeError) in try reader.sumOfIntegers(in: handle, column: integer) }) {
                    let wanted = table.keys.reduce(Int64(0)) { total, key in
                        if case .int(let value) = table.rows[key]![integer] { return total &+ value }
                        return total
                    }
                    check(sum == wanted, "\(name) sum \(sum)")
                }
                if let absent = attempt({ () throws(FloeError) in try reader.contains(table.nextKey, in: handle) }) {
                    check(!absent, "\(name) holds key \(table.nextKey), never assigned")
                }
                let listColumn = table.listColumn
                for key in table.keys {
                    if let row = attempt({ () throws(FloeError) in try reader.row(in: handle, key: key) }) {
                        check(row == table.rows[key], "\(name) key \(key) row \(Workload.describe(row))")
                    }
                    if let list = attempt({ () throws(FloeError) in try reader.collectionElements(in: handle, key: key, column: listColumn) }) {
                        check(list == table.lists[key], "\(name) key \(key) list \(Workload.describe(list))")
                    }
                }
            }
        }

        private mutating func attempt<T>(_ read: () throws(FloeError) -> T) -> T? {
            do {
                return try read()
            } catch {
                switch error {
                case .corruptFile, .io: failures += 1
                default: mismatches.append("a read threw \(error)")
                }
                return nil
            }
        }

        private mutating func check(_ condition: Bool, _ description: @autoclosure () -> String) {
            if !condition { mismatches.append(description()) }
        }
    }
}
