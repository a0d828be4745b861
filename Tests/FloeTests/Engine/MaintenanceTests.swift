import Foundation
import Testing
@_spi(Engine) @testable import Floe
@_spi(Engine) @testable import FloeEngine
@_spi(Engine) @testable import FloeStorage

@Suite struct MaintenanceTests {
    @Test func compactionReclaimsSpaceAndKeepsData() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        let store = try Store.open(path: path, options: StoreOptions(durability: .none, compactsAutomatically: false))
        let dogs = try Fixtures.makeDogs(in: store, count: 3000)
        for round in 0..<300 {
            let transaction = try store.beginWrite()
            try transaction.setValue(.int(Int64(round)), in: dogs, key: Int64(round * 7 % 3000), column: 1)
            try transaction.commit()
        }
        let oldSnapshot = try store.snapshot()
        let before = store.fileSize
        #expect(store.deadBytes > before / 2)
        try store.compact()
        let after = store.fileSize
        #expect(after < before / 3)
        // Only the one chunk's framing is not node data.
        #expect(store.deadBytes == UInt64(ChunkHeader.size + CommitRecord.size))
        let snapshot = try store.snapshot()
        #expect(snapshot.version == 301)
        for key in [0, 7, 14, 2099] as [Int64] {
            #expect(try snapshot.row(in: dogs, key: key) == oldSnapshot.row(in: dogs, key: key))
        }
        // The snapshot from before still reads (its nodes come from the replaced file).
        #expect(try oldSnapshot.sumOfIntegers(in: dogs, column: 1) == snapshot.sumOfIntegers(in: dogs, column: 1))
        // Writing continues on the compacted file, and it reopens.
        let transaction = try store.beginWrite()
        try transaction.deleteObject(from: dogs, key: 0)
        try transaction.commit()
        #expect(try store.verify().isValid)
        store.close()
        let reopened = try Store.open(path: path)
        #expect(try reopened.snapshot().version == 302)
        #expect(try reopened.snapshot().objectCount(in: dogs) == 2999)
        #expect(try reopened.verify().isValid)
        reopened.close()
        #expect(!FileManager.default.fileExists(atPath: path + ".compacting"))
    }

    /// A snapshot whose nodes were never loaded before a compaction replaced the file reads
    /// them from the replaced file afterwards (it keeps the old file open, not closed).
    @Test func aSnapshotLoadsNodesFromTheReplacedFileAfterCompaction() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        let writer = try Store.open(path: path, options: StoreOptions(durability: .none, compactsAutomatically: false))
        let dogs = try Fixtures.makeDogs(in: writer, count: 3000)
        let expected = try writer.snapshot().sumOfIntegers(in: dogs, column: 1)
        writer.close()
        let store = try Store.open(path: path, options: StoreOptions(durability: .none, compactsAutomatically: false))
        let old = try store.snapshot()   // only the root is loaded
        try store.compact()
        #expect(try old.sumOfIntegers(in: dogs, column: 1) == expected)
        #expect(try old.objectKeys(in: dogs).count == 3000)
        #expect(try store.snapshot().sumOfIntegers(in: dogs, column: 1) == expected)
        // The replaced file takes no writes; the store writes to its copy.
        let transaction = try store.beginWrite()
        try transaction.deleteObject(from: dogs, key: 1)
        try transaction.commit()
        store.close()
        #expect(try Store.open(path: path).snapshot().objectCount(in: dogs) == 2999)
    }

    @Test func compactsAutomaticallyWhenDeadBytesDominate() throws {
        let directory = TemporaryDirectory()
        var options = StoreOptions(durability: .none)
        options.automaticCompactionMinimumSize = 1 << 20
        let store = try Store.open(path: directory.file(), options: options)
        let dogs = try Fixtures.makeDogs(in: store, count: 1000)
        var largest: UInt64 = 0
        for round in 0..<2000 {
            let transaction = try store.beginWrite()
            try transaction.setValue(.string("name \(round)"), in: dogs, key: Int64(round % 1000), column: 0)
            try transaction.commit()
            largest = max(largest, store.fileSize)
        }
        let live = store.fileSize - store.deadBytes
        #expect(largest < 4 << 20)
        #expect(store.fileSize <= 3 * live + (1 << 20))
        #expect(try store.snapshot().value(in: dogs, key: 999, column: 0) == .string("name 1999"))
        #expect(try store.verify().isValid)
        store.close()
    }

    /// Below the minimum size (8 MiB unless set) a file is left to grow, however dead its
    /// bytes: a compaction's fixed cost is not paid every few hundred commits of a small file.
    @Test func smallFilesAreNotCompactedAutomatically() throws {
        let directory = TemporaryDirectory()
        let store = try Store.open(path: directory.file(), options: StoreOptions(durability: .none))
        #expect(store.options.automaticCompactionMinimumSize == 8 << 20)
        let dogs = try Fixtures.makeDogs(in: store, count: 1000)
        var sizes: [UInt64] = []
        for round in 0..<2000 {
            let transaction = try store.beginWrite()
            try transaction.setValue(.string("name \(round)"), in: dogs, key: Int64(round % 1000), column: 0)
            try transaction.commit()
            sizes.append(store.fileSize)
        }
        let live = store.fileSize - store.deadBytes
        // The file only grew (a compaction would have shrunk it), past three times its live data.
        #expect(zip(sizes, sizes.dropFirst()).allSatisfy { $0 < $1 })
        #expect(store.fileSize > 3 * live)
        #expect(store.fileSize < 8 << 20)
        #expect(try store.snapshot().value(in: dogs, key: 999, column: 0) == .string("name 1999"))
        store.close()
    }

    @Test func compactOnOpenWhenAsked() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        do {
            let store = try Store.open(path: path, options: StoreOptions(durability: .none, compactsAutomatically: false))
            let dogs = try Fixtures.makeDogs(in: store, count: 500)
            for round in 0..<200 {
                let transaction = try store.beginWrite()
                try transaction.setValue(.int(1), in: dogs, key: Int64(round), column: 1)
                try transaction.commit()
            }
            store.close()
        }
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as! UInt64
        let asked = LockedFlag()
        let store = try Store.open(path: path, options: StoreOptions(shouldCompactOnOpen: { total, used in
            asked.set()
            return total > 2 * used
        }))
        #expect(asked.value)
        #expect(store.fileSize < size / 2)
        #expect(try store.snapshot().objectCount(in: store.snapshot().table(named: "Dog")) == 500)
        store.close()
    }

    @Test func writeCopyFromFileAndFromMemory() throws {
        let directory = TemporaryDirectory()
        let store = try Store.open(path: directory.file())
        try Fixtures.makeDogs(in: store, count: 700)
        try store.writeCopy(to: directory.file("copy.floe"))
        #expect(throws: FloeError.self) { try store.writeCopy(to: directory.file("copy.floe")) }
        let memory = Store.inMemory(identifier: "copy-\(UUID())")
        try Fixtures.makeDogs(in: memory, count: 300)
        try memory.writeCopy(to: directory.file("memory.floe"))
        for (name, count) in [("copy.floe", 700), ("memory.floe", 300)] {
            let copy = try Store.open(path: directory.file(name))
            let snapshot = try copy.snapshot()
            let dogs = try snapshot.table(named: "Dog")
            #expect(try snapshot.objectCount(in: dogs) == count)
            #expect(try snapshot.row(in: dogs, key: 299) == Fixtures.dogRow(299))
            #expect(try copy.verify().isValid)
            copy.close()
        }
        store.close()
    }

    @Test func openReadsOnlyTheNewestCommitAndLoadsLazily() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        do {
            let store = try Store.open(path: path, options: StoreOptions(durability: .none))
            let dogs = try Fixtures.makeDogs(in: store, count: 5000)
            for round in 0..<50 {
                let transaction = try store.beginWrite()
                try transaction.setValue(.int(7), in: dogs, key: Int64(round), column: 1)
                try transaction.commit()
            }
            store.close()
        }
        let store = try Store.open(path: path)
        let file = try #require(store.currentFile)
        #expect(file.recovery == StorageFile.RecoveryReport())
        let snapshot = try store.snapshot()
        let table = try snapshot.tableNode(snapshot.table(named: "Dog"))
        let rootRef = try #require(table.root)
        #expect(rootRef.residentNode == nil)
        let root = try rootRef.load()
        #expect(!root.isLeaf)
        // Nothing below the root was read.
        #expect(root.children.allSatisfy { $0.residentNode == nil })
        #expect(try snapshot.value(in: snapshot.table(named: "Dog"), key: 4321, column: 0) == .string("dog4321"))
        #expect(root.children.filter { $0.residentNode != nil }.count == 1)
        store.close()
    }

    @Test func tornTailIsCutOff() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        do {
            let store = try Store.open(path: path)
            try Fixtures.makeDogs(in: store, count: 10)
            store.close()
        }
        // A chunk header that promises 200 bytes, followed by only 100: a write cut short.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes.append(contentsOf: [0x46, 0x54, 0x58, 0x4E, 0, 0, 0, 0, 200, 0, 0, 0, 0, 0, 0, 0] + [UInt8](repeating: 7, count: 100))
        try bytes.write(to: URL(fileURLWithPath: path))
        let store = try Store.open(path: path)
        #expect(store.recoveredTailBytes == 116)
        #expect(try store.snapshot().version == 1)
        #expect(try store.verify().isValid)
        store.close()
    }
}

/// A flag set from a `@Sendable` closure.
final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var flag = false
    func set() { lock.withLock { flag = true } }
    var value: Bool { lock.withLock { flag } }
}

extension MaintenanceTests {
    @Test func compactionKeepsTheStoresDurability() throws {
        let directory = TemporaryDirectory()
        let store = try Store.open(path: directory.file(), options: StoreOptions(durability: .none, compactsAutomatically: false))
        try Fixtures.makeDogs(in: store, count: 10)
        try store.compact()
        #expect(store.currentFile?.durability == Durability.none)
        store.close()
    }
}

extension MaintenanceTests {
    /// Clearing a table counts its whole (in-memory) tree as dead, so compaction can reclaim it.
    @Test func removingEveryObjectCountsTheTreeAsDead() throws {
        let directory = TemporaryDirectory()
        let store = try Store.open(path: directory.file(), options: StoreOptions(durability: .none, compactsAutomatically: false))
        let dogs = try Fixtures.makeDogs(in: store, count: 20_000)
        let transaction = try store.beginWrite()
        try transaction.removeAllObjects(from: dogs)
        try transaction.commit()
        #expect(store.deadBytes > store.fileSize * 9 / 10, "\(store.deadBytes) dead of \(store.fileSize)")
        #expect(try store.verify().isValid)
        store.close()
    }
}

/// A realm released while a frozen snapshot of it lives: the path opens again (the lock goes
/// with the store), and the snapshot keeps reading its version.
@Suite struct ReopenWhileSnapshotsLiveTests {
    @Test func reopeningAfterTheRealmIsReleasedWorksWhileSnapshotsLive() async throws {
        let directory = TemporaryDirectory()
        let url = directory.url()
        var frozen: FrozenResults<Note>?
        do {
            let realm = try await Realm(configuration: Realm.Configuration(fileURL: url))
            try await realm.asyncWrite { realm in try realm.create(Note.self, value: ["id": 1, "text": "kept"]) }
        }
        do {
            // Opened anew: the frozen results read nodes from the file, which they keep open.
            let realm = try await Realm(configuration: Realm.Configuration(fileURL: url))
            frozen = try await realm.read { realm in try realm.objects(Note.self).freeze() }
        }
        for readOnly in [true, false] {
            let reopened = try await Realm(configuration: Realm.Configuration(fileURL: url, readOnly: readOnly))
            #expect(try await reopened.read { realm in realm.objects(Note.self).count } == 1)
            if !readOnly {
                try await reopened.asyncWrite { realm in try realm.create(Note.self, value: ["id": 2]) }
            }
        }
        #expect(frozen?.map(\.text) == ["kept"])
    }
}

extension ReopenWhileSnapshotsLiveTests {
    @Test func aStoreReleasedWhileASnapshotLivesReleasesTheLock() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        var snapshot: Snapshot?
        var dogs: TableHandle?
        do {
            let writer = try Store.open(path: path, options: StoreOptions(durability: .none, compactsAutomatically: false))
            dogs = try Fixtures.makeDogs(in: writer, count: 600)
            writer.close()
        }
        do {
            // Opened anew, its tree is read from the file: the snapshot's nodes hold the file.
            let store = try Store.open(path: path, options: StoreOptions(durability: .none, compactsAutomatically: false))
            snapshot = try store.snapshot()
        }
        let reopened = try Store.open(path: path, options: StoreOptions(durability: .none, compactsAutomatically: false))
        let transaction = try reopened.beginWrite()
        try transaction.deleteObject(from: dogs!, key: 0)
        try transaction.commit()
        #expect(try snapshot!.objectCount(in: dogs!) == 600)
        #expect(try reopened.snapshot().objectCount(in: dogs!) == 599)
        reopened.close()
    }
}
