import Foundation
import Testing
@_spi(Engine) @testable import Floe
@_spi(Engine) @testable import FloeEngine
@_spi(Engine) @testable import FloeStorage

@Suite struct EncodingTests {
    /// Every enum whose raw values reach the file, pinned: a renumbered case would make
    /// existing files read as something else.
    @Test func onDiskEnumRawValuesArePinned() {
        #expect(ColumnType.allCases.map { "\($0)=\($0.rawValue)" } == [
            "bool=1", "int=2", "float=3", "double=4", "string=5", "binary=6", "timestamp=7",
            "decimal128=8", "objectId=9", "uuid=10", "link=11", "mixed=12",
        ])
        #expect(CollectionKind.allCases.map(\.rawValue) == [0, 1, 2, 3])
        #expect(CollectionKind.allCases == [.single, .list, .set, .map])
        #expect(TableKind.allCases.map { "\($0)=\($0.rawValue)" } == ["topLevel=0", "embedded=1", "asymmetric=2"])
        #expect(ColumnStorage.Layout.allCases.map { "\($0)=\($0.rawValue)" } == [
            "words=1", "pairs=2", "strings=3", "binaries=4", "values=5", "collections=6",
        ])
        #expect(ColumnStorage.packedWordsTag == 7)
        #expect(ClusterNode.KeyEncoding.allCases.map { "\($0)=\($0.rawValue)" } == [
            "innerWords=0", "leafWords=1", "leafRun=2", "leafPacked=3", "innerPacked=4",
        ])
        #expect(NodeKind.allCases.map { "\($0)=\($0.rawValue)" } == [
            "group=1", "table=2", "clusterInner=3", "clusterLeaf=4", "column=5", "collectionInner=6", "collectionLeaf=7",
            "columnChange=8",
        ])
        #expect(ColumnNode.RowEdit.insert.rawValue == 1 && ColumnNode.RowEdit.replace.rawValue == 2 && ColumnNode.RowEdit.remove.rawValue == 3)
        // Mixed cells tag each value kind; the tags are written by encodeValue.
        let tagged: [(Value, UInt8)] = [
            (.null, 0), (.bool(true), 1), (.int(1), 2), (.float(1), 3), (.double(1), 4), (.string("a"), 5),
            (.binary([1]), 6), (.timestamp(1), 7), (.decimal128(Word128(high: 0, low: 0)), 8),
            (.objectId(Word128(high: 0, low: 0)), 9), (.uuid(Word128(high: 0, low: 0)), 10), (.link(1), 11),
            (.typedLink(table: "Dog", key: 1), 12),
        ]
        for (value, tag) in tagged {
            var writer = ByteWriter()
            ColumnStorage.encodeValue(value, into: &writer)
            #expect(writer.bytes.first == tag, "\(value)")
        }
    }

    @Test func crc32cMatchesKnownVectors() {
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
        #expect(CRC32C.checksum([UInt8](repeating: 0, count: 32)) == 0x8A91_36AA)
        #expect(CRC32C.checksum([UInt8](repeating: 0xFF, count: 32)) == 0x62A8_AB43)
        #expect(CRC32C.checksum([]) == 0)
        // Feeding in pieces gives the same result as all at once.
        let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0 * 31) }
        var pieces = CRC32C()
        pieces.update(Array(bytes[0..<3]))
        pieces.update(Array(bytes[3..<517]))
        pieces.update(Array(bytes[517...]))
        #expect(pieces.value == CRC32C.checksum(bytes))
    }

    @Test func bytesRoundTripAndShortReadsThrow() throws {
        var writer = ByteWriter()
        writer.append(UInt8(7))
        writer.append(Int64(-5))
        writer.appendString("héllo")
        writer.appendWords([1, 2, UInt64.max])
        writer.appendBits([true, false, true, true, false, false, false, false, true])
        var reader = ByteReader(writer.bytes)
        #expect(try reader.read(UInt8.self) == 7)
        #expect(try reader.read(Int64.self) == -5)
        #expect(try reader.readString() == "héllo")
        #expect(try reader.readWords(3) == [1, 2, UInt64.max])
        #expect(try reader.readBits(9) == [true, false, true, true, false, false, false, false, true])
        #expect(reader.isAtEnd)
        #expect(throws: ByteReader.Truncated.self) { try reader.read(UInt32.self) }
        var lying = ByteReader([0xFF, 0xFF, 0xFF, 0x7F, 65])
        #expect(throws: ByteReader.Truncated.self) { try lying.readString() }
    }

    @Test func nodeImagesRoundTripAndDetectDamage() {
        let image = NodeImage(kind: 4, children: [128, 0, 4096], payload: Array("payload".utf8))
        var writer = ByteWriter()
        image.encode(into: &writer)
        #expect(writer.count == image.encodedSize)
        #expect(writer.count % 8 == 0)
        let header = Array(writer.bytes[0..<16])
        let parsed = NodeImage.parseHeader(header)!
        let body = Array(writer.bytes[16...])
        #expect(NodeImage.decode(header: header, body: body, childCount: parsed.childCount, payloadLength: parsed.payloadLength,
                                 checksum: parsed.checksum, kind: parsed.kind) == image)
        for index in body.indices.prefix(3 * 8 + 7) {
            var damaged = body
            damaged[index] ^= 0x10
            #expect(NodeImage.decode(header: header, body: damaged, childCount: parsed.childCount, payloadLength: parsed.payloadLength,
                                     checksum: parsed.checksum, kind: parsed.kind) == nil, "flip at body byte \(index)")
        }
    }

    /// A node copied unchanged (compaction) is appended as it was read, checksum and all: the
    /// bytes must be exactly those of a fresh encoding, padding included, at another offset.
    @Test(arguments: [0, 1, 7, 8, 100, 4093])
    func aNodeCopiedUnchangedIsTheSameBytes(payloadLength: Int) {
        let image = NodeImage(kind: 5, children: [], payload: (0..<payloadLength).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) })
        var fresh = ByteWriter()
        image.encode(into: &fresh)
        let parsed = NodeImage.parseHeader(Array(fresh.bytes[0..<16]))!
        let unpadded = Array(fresh.bytes[0..<NodeImage.headerSize + payloadLength])
        unpadded.withUnsafeBytes { bytes in
            #expect(NodeImage.checksum(ofEncoded: bytes) == parsed.checksum)
            var chunk = ChunkBuilder(start: 4096)
            _ = chunk.append(NodeImage(kind: 2, payload: [1, 2, 3]))
            let at = chunk.nextOffset
            #expect(chunk.appendUnchanged(MappedNode(bytes: bytes, kind: parsed.kind, childCount: 0)) == at)
            let sealed = chunk.seal(version: 1, rootRef: at, previousCommit: 0, liveBytes: 0)
            let start = Int(at - 4096)
            #expect(Array(sealed.tail[start..<start + fresh.count]) == fresh.bytes)
        }
    }

    @Test func commitRecordsRoundTripAndRejectDamage() {
        let record = CommitRecord(version: 9, rootRef: 4000, previousCommit: 2000, chunkStart: 3000, chunkLength: 1064,
                                  liveBytes: 777, chunkChecksum: 0xDEAD_BEEF)
        let bytes = record.encoded()
        #expect(bytes.count == CommitRecord.size)
        #expect(CommitRecord.decode(bytes, at: record.offset) == record)
        #expect(CommitRecord.decode(bytes, at: record.offset + 8) == nil)
        for index in bytes.indices {
            var damaged = bytes
            damaged[index] ^= 1
            #expect(CommitRecord.decode(damaged, at: record.offset) == nil, "flip at byte \(index)")
        }
    }

    @Test func headerHintsRoundTrip() throws {
        var header = FileHeader.initialBytes()
        #expect(try FileHeader.validate(header, path: "x").isEmpty)
        let older = FileHeader.Hint(sequence: 4, commitOffset: 128, version: 3)
        let newer = FileHeader.Hint(sequence: 5, commitOffset: 512, version: 4)
        header.replaceSubrange(16..<48, with: older.encoded())
        header.replaceSubrange(48..<80, with: newer.encoded())
        #expect(try FileHeader.validate(header, path: "x") == [newer, older])
        header[50] ^= 1
        #expect(try FileHeader.validate(header, path: "x") == [older])
        header[0] = 0
        #expect(throws: FloeError.notAFloeFile(path: "x")) { try FileHeader.validate(header, path: "x") }
    }

    @Test func everyColumnLayoutRoundTrips() throws {
        let samples: [(ColumnType, Bool, [Value])] = [
            (.bool, true, [.bool(true), .null, .bool(false)]),
            (.int, false, [.int(.min), .int(0), .int(.max)]),
            (.float, true, [.float(1.5), .null, .float(-.infinity)]),
            (.double, false, [.double(.pi), .double(-0.0), .double(1e300)]),
            (.string, true, [.string(""), .null, .string("ünïcødé 🐕")]),
            (.binary, false, [.binary([]), .binary([0, 255, 7])]),
            (.timestamp, true, [.timestamp(-1.5), .null, .timestamp(7e8)]),
            (.decimal128, false, [.decimal128(Word128(high: 1, low: 2))]),
            (.objectId, true, [.null, .objectId(Word128(high: .max, low: 0xFFFF_FFFF_0000_0000))]),
            (.uuid, false, [.uuid(Word128(high: 3, low: 4))]),
            (.link, true, [.link(5), .null]),
            (.mixed, false, [.null, .bool(true), .int(3), .float(2), .double(4), .string("s"), .binary([1]), .timestamp(9),
                             .decimal128(Word128(high: 5, low: 6)), .objectId(Word128(high: 7, low: 8)),
                             .uuid(Word128(high: 9, low: 10)), .typedLink(table: "Dog", key: 11)]),
        ]
        for (type, nullable, values) in samples {
            var storage = ColumnStorage(elementType: type, nullable: nullable)
            for value in values { storage.append(value) }
            var writer = ByteWriter()
            storage.encode(into: &writer)
            var reader = ByteReader(writer.bytes)
            let decoded = try ColumnStorage.decode(from: &reader, children: [], source: nil)
            #expect(reader.isAtEnd)
            #expect((0..<decoded.count).map { decoded.value(at: $0) } == values, "\(type)")
            // A cut-short encoding is an error, not a crash.
            if writer.count > 9 {
                var short = ByteReader(Array(writer.bytes.dropLast(1)))
                #expect(throws: DecodeFailure.self) { _ = try ColumnStorage.decode(from: &short, children: [], source: nil) }
            }
        }
    }

    @Test func valueOrderIsTotal() {
        let values: [Value] = [.null, .bool(false), .bool(true), .int(-1), .int(2), .double(-.infinity), .double(.nan),
                               .string("a"), .string("b"), .timestamp(1), .uuid(Word128(high: 0, low: 1))]
        for (i, a) in values.enumerated() {
            for (j, b) in values.enumerated() {
                let order = Value.compare(a, b)
                #expect(order == -Value.compare(b, a))
                if i == j { #expect(order == 0) }
            }
        }
    }
}
