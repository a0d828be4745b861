import Foundation
import Testing
@_spi(Engine) @_spi(Testing) @testable import Floe
@_spi(Engine) @_spi(Testing) @testable import FloeEngine
@_spi(Engine) @_spi(Testing) @testable import FloeStorage

/// A `.full` store extends its file ahead of its commits with synced zeros, so that durable
/// commits overwrite blocks instead of growing the file. These tests hold the file format's
/// promise: zeros after the last commit are the end of the file, whatever state a crash
/// leaves them in, and nothing that copies, compacts, verifies or follows a file is misled.
@Suite struct PreallocationTests {
    static let spec = TableSpec(name: "Dog", columns: [ColumnSpec(name: "name", type: .string), ColumnSpec(name: "age", type: .int)])

    static func size(_ path: String) throws -> UInt64 { try CrashRecoveryTests.size(of: path) }

    /// Commits `count` one-dog writes (the first creates the class) and returns the last version.
    @discardableResult
    static func commitDogs(_ store: Store, count: Int, from first: Int = 0) throws -> UInt64 {
        var version: UInt64 = 0
        for index in first..<first + count {
            let transaction = try store.beginWrite()
            let table = try transaction.tableNames().contains("Dog") ? transaction.table(named: "Dog") : transaction.createTable(spec)
            try transaction.insertObject(into: table, values: [.string("dog \(index)"), .int(Int64(index))])
            version = try transaction.commit()
        }
        return version
    }

    static func expectDogs(_ store: Store, count: Int, context: String) throws {
        let snapshot = try store.snapshot()
        let table = try snapshot.table(named: "Dog")
        #expect(try snapshot.objectCount(in: table) == count, "\(context)")
        let report = try store.verify()
        #expect(report.isValid, "\(context): \(report)")
    }

    /// The bytes of a file as a writer that is still running (or was killed) leaves them.
    static func crashImage(commits: Int, in directory: TemporaryDirectory, name: String) throws -> (bytes: [UInt8], end: UInt64) {
        let path = directory.file(name)
        let store = try Store.open(path: path)
        try commitDogs(store, count: commits)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let end = store.fileSize
        store.close()
        return (bytes, end)
    }

    @Test func durableCommitsOverwriteZerosWrittenAhead() throws {
        let directory = TemporaryDirectory("prealloc")
        let path = directory.file("ahead.floe")
        let store = try Store.open(path: path)
        try Self.commitDogs(store, count: 1)
        let ahead = store.preallocatedBytes
        #expect(ahead >= StorageFile.preallocationMinimumStep, "only \(ahead) bytes preallocated")
        let physical = try Self.size(path)
        #expect(physical == store.fileSize + ahead)
        // The next commits land inside the zeros: the file's size on disk does not move.
        let before = store.fileSize
        try Self.commitDogs(store, count: 20, from: 1)
        #expect(store.fileSize > before)
        #expect(try Self.size(path) == physical)
        #expect(store.preallocatedBytes == physical - store.fileSize)
        try Self.expectDogs(store, count: 21, context: "while open")
        // A clean close cuts them.
        let end = store.fileSize
        store.close()
        #expect(try Self.size(path) == end)
        let reopened = try Store.open(path: path)
        #expect(try Self.size(path) == reopened.fileSize)
        #expect(reopened.recoveredTailBytes == 0 && reopened.recoveredZeroBytes == 0)
        try Self.expectDogs(reopened, count: 21, context: "reopened")
        reopened.close()
    }

    /// Each extension doubles the one before, from 64 KiB up to 1 MiB, so a writer that keeps
    /// growing the file pays an extension's journal commit once per MiB; a compaction's copy
    /// carries on with the step of the file it replaced instead of starting again at 64 KiB.
    @Test func extensionStepsDoubleAndSurviveCompaction() throws {
        let directory = TemporaryDirectory("prealloc")
        let path = directory.file("steps.floe")
        let store = try Store.open(path: path, options: StoreOptions(compactsAutomatically: false))
        let spec = TableSpec(name: "Note", columns: [ColumnSpec(name: "text", type: .string)])
        // About 24 KiB a commit: a few hundred KiB between extensions at most.
        func commitNote(_ index: Int) throws {
            let transaction = try store.beginWrite()
            let table = try transaction.tableNames().contains("Note") ? transaction.table(named: "Note") : transaction.createTable(spec)
            try transaction.insertObject(into: table, values: [.string(String(repeating: "\(index % 10)", count: 24 << 10))])
            _ = try transaction.commit()
        }
        var steps: [UInt64] = []
        var index = 0
        while steps.count < 5 && index < 200 {
            try commitNote(index)
            index += 1
            let step = store.currentFile?.extensionStep ?? 0
            if step != steps.last { steps.append(step) }
        }
        let kib: UInt64 = 1 << 10
        #expect(steps == [64 * kib, 128 * kib, 256 * kib, 512 * kib, 1024 * kib], "extension steps \(steps)")
        try store.compact()
        #expect(store.preallocatedBytes == 0)
        #expect(store.currentFile?.extensionStep == 1024 * kib, "the copy starts again at \(store.currentFile?.extensionStep ?? 0)")
        // Its first commit extends it by a step that doubles no further (1 MiB; an eighth of
        // the small copy is less).
        try commitNote(index)
        #expect(store.preallocatedBytes >= 1024 * kib, "only \(store.preallocatedBytes) bytes written ahead after the compaction")
        #expect(try Self.size(path) == store.fileSize + store.preallocatedBytes)
        store.close()
        let reopened = try Store.open(path: path)
        #expect(try reopened.verify().isValid)
        reopened.close()
    }

    @Test func storesWithoutFullDurabilityDoNotPreallocate() throws {
        let directory = TemporaryDirectory("prealloc")
        let path = directory.file("none.floe")
        let store = try Store.open(path: path, options: StoreOptions(durability: .none))
        try Self.commitDogs(store, count: 3)
        #expect(store.preallocatedBytes == 0)
        #expect(try Self.size(path) == store.fileSize)
        store.close()
    }

    @Test func aStoreReleasedWithoutClosingTrimsItsZeros() throws {
        let directory = TemporaryDirectory("prealloc")
        let path = directory.file("released.floe")
        var end: UInt64 = 0
        do {
            let store = try Store.open(path: path)
            try Self.commitDogs(store, count: 2)
            end = store.fileSize
            #expect(try Self.size(path) > end)
        }
        #expect(try Self.size(path) == end)
    }

    @Test func aFileEndingInZerosAfterACrashOpensAtItsLastCommit() throws {
        let directory = TemporaryDirectory("prealloc")
        let image = try Self.crashImage(commits: 5, in: directory, name: "source.floe")
        let zeros = UInt64(image.bytes.count) - image.end
        #expect(zeros > 0 && image.bytes[Int(image.end)...].allSatisfy { $0 == 0 })
        let path = directory.file("crashed.floe")
        try Data(image.bytes).write(to: URL(fileURLWithPath: path))

        // Read-only: the zeros are the end; the file is left as it is.
        let reader = try Store.open(path: path, options: StoreOptions(readOnly: true))
        #expect(reader.currentVersion == 5)
        #expect(reader.fileSize == image.end)
        #expect(reader.recoveredTailBytes == zeros && reader.recoveredZeroBytes == zeros)
        try Self.expectDogs(reader, count: 5, context: "read-only")
        reader.close()
        #expect(try Self.size(path) == UInt64(image.bytes.count))

        // Read-write: cut at the last commit, and the next commits work.
        let writer = try Store.open(path: path)
        #expect(writer.currentVersion == 5 && writer.recoveredZeroBytes == zeros)
        #expect(try Self.size(path) == image.end)
        #expect(try Self.commitDogs(writer, count: 3, from: 5) == 8)
        try Self.expectDogs(writer, count: 8, context: "after more commits")
        writer.close()
        let reopened = try Store.open(path: path)
        try Self.expectDogs(reopened, count: 8, context: "reopened")
        reopened.close()
    }

    @Test func aTornCommitIntoZerosIsCutOff() throws {
        let directory = TemporaryDirectory("prealloc")
        // The same five commits, then a sixth: the sixth chunk is the one torn.
        let five = try Self.crashImage(commits: 5, in: directory, name: "five.floe")
        let six = try Self.crashImage(commits: 6, in: directory, name: "six.floe")
        #expect(Array(six.bytes[FileHeader.size..<Int(five.end)]) == Array(five.bytes[FileHeader.size..<Int(five.end)]))
        let chunk = Int(six.end - five.end)
        for kept in [8, chunk / 2, chunk - 1] {
            var bytes = five.bytes
            for index in Int(five.end)..<Int(five.end) + kept { bytes[index] = six.bytes[index] }
            let path = directory.file("torn-\(kept).floe")
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let context = "\(kept) of the sixth chunk's \(chunk) bytes landed"
            for readOnly in [true, false] {
                let store = try Store.open(path: path, options: StoreOptions(readOnly: readOnly))
                #expect(store.currentVersion == 5, "\(context)")
                #expect(store.fileSize == five.end, "\(context)")
                #expect(store.recoveredTailBytes == UInt64(bytes.count) - five.end, "\(context)")
                // The zeros after the torn bytes are told apart from them.
                let lastNonZero = UInt64(bytes.lastIndex { $0 != 0 }! + 1)
                #expect(store.recoveredZeroBytes == UInt64(bytes.count) - lastNonZero, "\(context)")
                try Self.expectDogs(store, count: 5, context: context)
                if !readOnly {
                    #expect(try Self.commitDogs(store, count: 1, from: 5) == 6, "\(context)")
                    try Self.expectDogs(store, count: 6, context: context)
                }
                store.close()
            }
            let reopened = try Store.open(path: path)
            #expect(reopened.currentVersion == 6, "\(context)")
            try Self.expectDogs(reopened, count: 6, context: context)
            reopened.close()
        }
    }

    @Test func compactionAndCopiesOfAPreallocatedFile() throws {
        let directory = TemporaryDirectory("prealloc")
        let path = directory.file("compacted.floe")
        let store = try Store.open(path: path, options: StoreOptions(compactsAutomatically: false))
        try Self.commitDogs(store, count: 30)
        #expect(store.preallocatedBytes > 0)
        let copyPath = directory.file("copy.floe")
        try store.writeCopy(to: copyPath)
        // A copy holds its commit and nothing after it.
        let copy = try Store.open(path: copyPath)
        #expect(try Self.size(copyPath) == copy.fileSize && copy.recoveredTailBytes == 0)
        try Self.expectDogs(copy, count: 30, context: "copy")
        copy.close()

        try store.compact()
        #expect(try Self.size(path) == store.fileSize + store.preallocatedBytes)
        try Self.commitDogs(store, count: 5, from: 30)
        #expect(store.preallocatedBytes > 0)
        try Self.expectDogs(store, count: 35, context: "compacted, then written")
        let end = store.fileSize
        store.close()
        #expect(try Self.size(path) == end)
        let reopened = try Store.open(path: path)
        try Self.expectDogs(reopened, count: 35, context: "reopened after compaction")
        reopened.close()
    }

    @Test func aReaderFollowsAWriterThroughItsZeros() throws {
        let directory = TemporaryDirectory("prealloc")
        let path = directory.file("followed.floe")
        let writer = try Store.open(path: path)
        try Self.commitDogs(writer, count: 2)
        // What a reader in another process does: its own read-only descriptor on the file.
        let reader = try StorageFile.open(path: path, readOnly: true, durability: .full)
        #expect(reader.lastCommit?.version == 2 && reader.endOffset == writer.fileSize)
        #expect(reader.recovery.zeroTailBytes == writer.preallocatedBytes)
        #expect(try reader.followAppendedCommits() == nil)
        try Self.commitDogs(writer, count: 3, from: 2)
        #expect(try reader.followAppendedCommits()?.version == 5)
        #expect(reader.endOffset == writer.fileSize)
        #expect(reader.preallocatedBytes == 0)
        reader.close()
        writer.close()
    }

    /// A reader in another process takes the file's size, then the writer closes and trims its
    /// zeros: the reader's scan reads past the new end and must find nothing, not corruption.
    @Test func aScanOfATailTrimmedMeanwhileStopsAtTheNewEnd() throws {
        let directory = TemporaryDirectory("prealloc")
        let path = directory.file("trimmed.floe")
        let writer = try Store.open(path: path)
        try Self.commitDogs(writer, count: 3)
        let sizeWithZeros = try Self.size(path)
        let reader = try StorageFile.open(path: path, readOnly: true, durability: .full)
        writer.close()
        #expect(try Self.size(path) < sizeWithZeros)
        var scanner = CommitScanner(handle: reader.handle, fileSize: sizeWithZeros)
        #expect(try scanner.followChunks(after: reader.lastCommit, from: reader.endOffset)?.version == 3)
        #expect(try scanner.hasIntactCommit(atOrAfter: reader.endOffset) == false)
        #expect(try scanner.zeroBytesAtEnd(after: reader.endOffset) == 0)
        reader.close()
    }

    @Test func aFullDiskWhileExtendingLeavesTheCommitStanding() throws {
        let directory = TemporaryDirectory("prealloc-fault")
        for failure in [FaultInjection.Failure.error(ENOSPC), .shortWrite, .error(EIO)] {
            let path = directory.file("prealloc-fault-\(failure).floe")
            let store = try Store.open(path: path)
            // Counted from the plan's installation: the first commit writes its chunk (0), then
            // the zeros ahead (1), which fail.
            FaultInjection.install(.init(pathContains: "prealloc-fault-", failing: 1, with: failure, kinds: [.write]))
            #expect(try Self.commitDogs(store, count: 1) == 1, "\(failure)")
            let log = FaultInjection.operations(pathContains: "prealloc-fault-")
            FaultInjection.remove(pathContains: "prealloc-fault-")
            #expect(log.count >= 2, "\(failure): the zeros were never written (\(log))")
            #expect(store.preallocatedBytes == 0, "\(failure)")
            // Later commits append, and extend again once the disk has room.
            try Self.commitDogs(store, count: 4, from: 1)
            #expect(store.preallocatedBytes > 0, "\(failure)")
            try Self.expectDogs(store, count: 5, context: "\(failure)")
            store.close()
            let reopened = try Store.open(path: path)
            try Self.expectDogs(reopened, count: 5, context: "\(failure), reopened")
            reopened.close()
        }
    }
}
