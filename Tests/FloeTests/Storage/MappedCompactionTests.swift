import Foundation
import Testing
@_spi(Engine) @testable import Floe
@_spi(Engine) @testable import FloeEngine
@_spi(Engine) @testable import FloeStorage

/// Compaction reads the file it copies through a mapping (`MappedNodes`). Damage it meets is a
/// typed error that changes nothing, never a trap or a copy that carries the damage, and a
/// file shorter than its commits claim is damage, never a read past the mapping.
@Suite struct MappedCompactionTests {
    /// One commit of 3,000 dogs: every node in the file is live, so most damaged bytes are in
    /// a node the copy must read.
    static func makeFile(at path: String) throws -> (dogs: TableHandle, rows: [[Value]], bytes: [UInt8]) {
        let store = try Store.open(path: path, options: StoreOptions(durability: .none, compactsAutomatically: false))
        let dogs = try Fixtures.makeDogs(in: store, count: 3000)
        let snapshot = try store.snapshot()
        var rows: [[Value]] = []
        for key in 0..<3000 { rows.append(try snapshot.row(in: dogs, key: Int64(key))) }
        store.close()
        return (dogs, rows, [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
    }

    @Test func damageMetByACompactionIsATypedErrorThatChangesNothing() throws {
        let directory = TemporaryDirectory()
        let pristine = directory.file("pristine.floe")
        let (dogs, rows, bytes) = try Self.makeFile(at: pristine)
        var refused = 0
        // Bytes spread over the chunk's nodes (past the file header, before the commit record).
        for trial in 0..<24 {
            let offset = FileHeader.size + 64 + trial * (bytes.count - FileHeader.size - 256) / 24
            var damaged = bytes
            damaged[offset] ^= 0x5A
            let path = directory.file("damaged-\(trial).floe")
            try Data(damaged).write(to: URL(fileURLWithPath: path))
            let context = "trial \(trial), damage at \(offset)"
            let store = try Store.open(path: path, options: StoreOptions(durability: .none, compactsAutomatically: false))
            do {
                try store.compact()
                // Only a byte no checksum covers (a node's padding) lets the copy through: it
                // then holds exactly the data, as every node it wrote was checked.
                let snapshot = try store.snapshot()
                for key in stride(from: 0, to: 3000, by: 97) {
                    #expect(try snapshot.row(in: dogs, key: Int64(key)) == rows[key], "\(context)")
                }
                #expect(try store.verify().isValid, "\(context)")
            } catch {
                refused += 1
                guard case .corruptFile(let errorPath, _, let detail) = error else {
                    Issue.record("\(context): \(error)")
                    continue
                }
                #expect(errorPath == path, "\(context): \(error)")
                #expect(!detail.isEmpty, "\(context)")
                // The failed copy left the file as it was and no temporary file behind.
                #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) == damaged, "\(context)")
                #expect(!FileManager.default.fileExists(atPath: path + ".compacting"), "\(context)")
                // Writes go on as if the compaction had never been tried.
                let transaction = try store.beginWrite()
                try transaction.insertObject(into: dogs, values: Fixtures.dogRow(5000))
                try transaction.commit()
                #expect(try store.snapshot().objectCount(in: dogs) == 3001, "\(context)")
            }
            store.close()
        }
        #expect(refused >= 20, "only \(refused) of 24 damaged bytes stopped the copy")
    }

    @Test func aFileShorterThanItsCommitsClaimIsDamageNotARead() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        _ = try Self.makeFile(at: path)
        let file = try StorageFile.open(path: path, readOnly: true, durability: .none)
        defer { file.close() }
        let root = try #require(file.lastCommit?.rootRef)
        // Cut short behind the open file's back: the root and the nodes after the cut are gone.
        let cut = Int(root) / 2 / 8 * 8
        #expect(truncate(path, off_t(cut)) == 0)
        let nodes = try MappedNodes(file: file)
        for offset in [root, UInt64(cut), UInt64(cut) - 8] {
            let outcome = Result { () throws(FloeError) -> MappedNode in try nodes.node(at: offset) }
            guard case .failure(.corruptFile(let errorPath, let at, _)) = outcome else {
                Issue.record("offset \(offset) past the cut at \(cut): \(outcome)")
                continue
            }
            #expect(errorPath == path && at == offset)
        }
        // A node wholly before the cut still reads: the first one, right after the chunk header.
        let first = UInt64(FileHeader.size + ChunkHeader.size)
        #expect(try nodes.node(at: first).bytes.count >= NodeImage.headerSize)
    }
}
