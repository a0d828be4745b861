import Foundation
import Testing
@_spi(Engine) @_spi(Testing) @testable import Floe

/// Automatic compaction copies the file off the writer's turn and finishes in a later commit's
/// turn: the commits made while the copy ran must all be in the compacted file, a copy that
/// fails must change nothing, and a store that closes meanwhile must leave nothing behind.
@Suite struct BackgroundCompactionTests {
    /// A store with 2,000 dogs whose names were rewritten until most of the file is dead.
    private func makeDeadFile(at path: String) throws -> (Store, TableHandle) {
        let store = try Store.open(path: path, options: StoreOptions(compactsAutomatically: false))
        let dogs = try Fixtures.makeDogs(in: store, count: 2000)
        for round in 0..<200 {
            let transaction = try store.beginWrite()
            try transaction.setValue(.string("renamed \(round)"), in: dogs, key: Int64(round * 9 % 2000), column: 0)
            _ = try transaction.commit(deferringSync: true)
        }
        return (store, dogs)
    }

    /// Starts a background copy of the store's newest version and waits until it is written.
    private func copyInBackground(_ store: Store) throws -> (BackgroundCompaction, StorageFile) {
        let file = try #require(store.state.withLock { $0.file })
        store.startBackgroundCompaction(of: file)
        let running = try #require(store.backgroundCompaction.withLock { $0 })
        guard case .success = running.wait() else {
            Issue.record("the background copy failed")
            throw FloeError.closed(path: store.path)
        }
        return (running, file)
    }

    /// What the writes after the copy began do: rename some copied dogs, add new ones, delete one.
    private func writeDuringTheCopy(_ store: Store, _ dogs: TableHandle) throws {
        for round in 0..<40 {
            let transaction = try store.beginWrite()
            try transaction.setValue(.string("meanwhile \(round)"), in: dogs, key: Int64(round * 37 % 2000), column: 0)
            try transaction.insertObject(into: dogs, key: Int64(5000 + round), values: Fixtures.dogRow(5000 + round))
            _ = try transaction.commit(deferringSync: true)
        }
        let transaction = try store.beginWrite()
        #expect(try transaction.deleteObject(from: dogs, key: 1999))
        _ = try transaction.commit(deferringSync: true)
    }

    private func finishInTurn(_ store: Store, _ running: BackgroundCompaction, _ file: StorageFile) throws {
        store.gate.enter()
        defer { store.gate.leave() }
        store.backgroundCompaction.withLock { $0 = nil }
        try store.finishBackgroundCompaction(running, file: file)
    }

    private func expectWritesDuringTheCopy(in snapshot: VersionReading, _ dogs: TableHandle) throws {
        #expect(try snapshot.objectCount(in: dogs) == 2000 + 40 - 1)
        for round in 0..<40 {
            let value = try snapshot.value(in: dogs, key: Int64(round * 37 % 2000), column: 0)
            #expect(value == .string("meanwhile \(round)"), "key \(round * 37 % 2000)")
            #expect(try snapshot.value(in: dogs, key: Int64(5000 + round), column: 0) == .string("dog\(5000 + round)"))
        }
        // Renamed before the copy began and not since: 199 * 9 % 2000 = 1791.
        #expect(try snapshot.value(in: dogs, key: 1791, column: 0) == .string("renamed 199"))
        #expect(try snapshot.value(in: dogs, key: 3, column: 3) == Fixtures.dogRow(3)[3])
        #expect(throws: FloeError.self) { _ = try snapshot.value(in: dogs, key: 1999, column: 0) }
    }

    @Test func commitsMadeWhileTheCopyRanAreInTheCompactedFile() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        let (store, dogs) = try makeDeadFile(at: path)
        let (running, file) = try copyInBackground(store)
        #expect(FileHandle.exists(path + ".compacting"))
        try writeDuringTheCopy(store, dogs)
        let olderSnapshot = try store.snapshot()
        let version = store.currentVersion
        let before = store.fileSize
        try finishInTurn(store, running, file)

        #expect(!FileHandle.exists(path + ".compacting"))
        #expect(store.currentVersion == version)
        #expect(store.fileSize < before / 3)
        // The copy counts as live exactly what its newest version reaches (the copied nodes the
        // writes meanwhile replaced are dead): what a second compaction of it keeps.
        let live = store.fileSize - store.deadBytes
        #expect(store.deadBytes > 0)
        try expectWritesDuringTheCopy(in: store.snapshot(), dogs)
        // A snapshot taken before still reads the replaced file.
        try expectWritesDuringTheCopy(in: olderSnapshot, dogs)
        #expect(try store.verify().isValid)
        // The compaction made every commit durable: nothing waits for a sync.
        try awaitDurable(store, version)
        try store.compact()
        #expect(store.fileSize - store.deadBytes == live)

        let transaction = try store.beginWrite()
        try transaction.setValue(.string("after"), in: dogs, key: 1, column: 0)
        try transaction.commit()
        store.close()
        let reopened = try Store.open(path: path, options: StoreOptions(compactsAutomatically: false))
        let snapshot = try reopened.snapshot()
        #expect(reopened.currentVersion == version + 1)
        #expect(try snapshot.value(in: dogs, key: 1, column: 0) == .string("after"))
        try expectWritesDuringTheCopy(in: snapshot, dogs)
        #expect(try reopened.verify().isValid)
        reopened.close()
    }

    private func awaitDurable(_ store: Store, _ version: UInt64) throws {
        let done = Locked<FloeError??>(nil)
        store.whenDurable(version) { error in done.withLock { $0 = .some(error) } }
        let outcome = try #require(done.withLock { $0 })   // called at once: already durable
        #expect(outcome == nil)
    }

    @Test(arguments: [FaultInjection.Operation.write, .sync, .rename])
    func aCopyThatFailsToFinishChangesNothing(failing operation: FaultInjection.Operation) throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        let (store, dogs) = try makeDeadFile(at: path)
        let (running, file) = try copyInBackground(store)
        try writeDuringTheCopy(store, dogs)
        let version = store.currentVersion
        let size = store.fileSize
        FaultInjection.install(.init(pathContains: path, failing: 0, with: .error(EIO), kinds: [operation]))
        #expect(throws: FloeError.self) { try finishInTurn(store, running, file) }
        FaultInjection.remove(pathContains: path)

        #expect(!FileHandle.exists(path + ".compacting"))
        #expect(store.state.withLock { $0.file } === file)
        #expect(store.fileSize == size)
        #expect(store.currentVersion == version)
        try expectWritesDuringTheCopy(in: store.snapshot(), dogs)
        // The store takes writes as before, and a later compaction succeeds.
        let transaction = try store.beginWrite()
        try transaction.setValue(.string("after"), in: dogs, key: 1, column: 0)
        try transaction.commit()
        try store.compact()
        #expect(store.fileSize < size / 3)
        store.close()
        let reopened = try Store.open(path: path, options: StoreOptions(compactsAutomatically: false))
        #expect(try reopened.snapshot().value(in: dogs, key: 1, column: 0) == .string("after"))
        try expectWritesDuringTheCopy(in: reopened.snapshot(), dogs)
        reopened.close()
    }

    @Test func closingWhileTheCopyRunsLeavesNothingBehind() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        let (store, dogs) = try makeDeadFile(at: path)
        let file = try #require(store.state.withLock { $0.file })
        let version = store.currentVersion
        store.startBackgroundCompaction(of: file)
        store.close()
        #expect(store.backgroundCompaction.withLock { $0 } == nil)
        #expect(!FileHandle.exists(path + ".compacting"))
        let reopened = try Store.open(path: path, options: StoreOptions(compactsAutomatically: false))
        #expect(reopened.currentVersion == version)
        #expect(try reopened.snapshot().value(in: dogs, key: 1791, column: 0) == .string("renamed 199"))
        reopened.close()
    }

    /// An explicit compaction in the turn stops a background copy first (both write the same
    /// temporary file) and compacts on its own.
    @Test func anExplicitCompactionReplacesARunningCopy() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        let (store, dogs) = try makeDeadFile(at: path)
        _ = try copyInBackground(store)
        try writeDuringTheCopy(store, dogs)
        let size = store.fileSize
        try store.compact()
        #expect(store.backgroundCompaction.withLock { $0 } == nil)
        #expect(!FileHandle.exists(path + ".compacting"))
        #expect(store.fileSize < size / 3)
        try expectWritesDuringTheCopy(in: store.snapshot(), dogs)
        store.close()
    }

    /// Through commits alone: writes go on while copies run, each finished by a later commit.
    @Test func automaticCompactionFinishesInALaterCommit() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        var options = StoreOptions()
        options.automaticCompactionMinimumSize = 1 << 20
        let store = try Store.open(path: path, options: options)
        let dogs = try Fixtures.makeDogs(in: store, count: 1000)
        var largest: UInt64 = 0
        var compactions = 0
        var previous = store.fileSize
        for round in 0..<3000 {
            let transaction = try store.beginWrite()
            try transaction.setValue(.string("name \(round)"), in: dogs, key: Int64(round % 1000), column: 0)
            _ = try transaction.commit(deferringSync: true)
            if store.fileSize < previous { compactions += 1 }
            previous = store.fileSize
            largest = max(largest, store.fileSize)
        }
        #expect(compactions > 0)
        #expect(largest < 5 << 20)
        for key in 0..<1000 {
            #expect(try store.snapshot().value(in: dogs, key: Int64(key), column: 0) == .string("name \(2000 + key)"))
        }
        #expect(try store.verify().isValid)
        store.close()
        #expect(!FileHandle.exists(path + ".compacting"))
        let reopened = try Store.open(path: path)
        #expect(try reopened.snapshot().value(in: dogs, key: 999, column: 0) == .string("name 2999"))
        reopened.close()
    }
}
