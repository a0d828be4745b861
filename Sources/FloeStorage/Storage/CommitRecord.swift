/// The 64-byte record that ends every transaction chunk and makes it a version.
///
/// ```
/// 0   magic "FCMT"        u32
/// 4   format version      u32
/// 8   version             u64   monotonically increasing, 1 for the first commit
/// 16  root ref            u64   offset of the version's root node (0: empty)
/// 24  previous commit     u64   offset of the previous commit record (0: none)
/// 32  chunk start         u64   offset of this chunk's header
/// 40  chunk length        u64   bytes from chunk start to the end of this record
/// 48  live bytes          u64   bytes of nodes reachable from this root
/// 56  chunk CRC32C        u32   over the 16-byte headers of the chunk's nodes, in order
///                               (each node header carries the CRC32C of that node)
/// 60  record CRC32C       u32   over bytes 0..<60 of this record
/// ```
package struct CommitRecord: Equatable {
    package static let size = 64
    package static let magic: UInt32 = 0x544D_4346  // "FCMT"

    package var version: UInt64
    package var rootRef: UInt64
    package var previousCommit: UInt64
    package var chunkStart: UInt64
    package var chunkLength: UInt64
    package var liveBytes: UInt64
    package var chunkChecksum: UInt32

    /// Where this record itself starts. (Wrapping: a decoded record's fields are checked
    /// against its real position before anything relies on them.)
    package var offset: UInt64 { chunkStart &+ chunkLength &- UInt64(Self.size) }
    /// The first byte after this chunk.
    package var end: UInt64 { chunkStart &+ chunkLength }

    package func encoded() -> [UInt8] {
        var writer = ByteWriter(capacity: Self.size)
        encode(into: &writer)
        return writer.takeBytes()
    }

    /// Appends the record's 64 bytes to `writer`, its checksum computed in place.
    package func encode(into writer: inout ByteWriter) {
        let start = writer.count
        writer.append(Self.magic)
        writer.append(FileHeader.formatVersion)
        writer.append(version)
        writer.append(rootRef)
        writer.append(previousCommit)
        writer.append(chunkStart)
        writer.append(chunkLength)
        writer.append(liveBytes)
        writer.append(chunkChecksum)
        let checksum = writer.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[start..<start + 60])) }
        writer.append(checksum)
    }

    /// Decodes a record, or returns nil when its magic or checksum does not hold,
    /// or when it does not describe itself as sitting at `offset`.
    package static func decode(_ bytes: [UInt8], at offset: UInt64) -> CommitRecord? {
        guard bytes.count >= size else { return nil }
        var reader = ByteReader(bytes)
        guard (try? reader.read(UInt32.self)) == magic,
              (try? reader.read(UInt32.self)) == FileHeader.formatVersion,
              CRC32C.checksum(Array(bytes[0..<60])) == bytes.withUnsafeBytes({ UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: 60, as: UInt32.self)) })
        else { return nil }
        guard let version = try? reader.read(UInt64.self),
              let rootRef = try? reader.read(UInt64.self),
              let previousCommit = try? reader.read(UInt64.self),
              let chunkStart = try? reader.read(UInt64.self),
              let chunkLength = try? reader.read(UInt64.self),
              let liveBytes = try? reader.read(UInt64.self),
              let chunkChecksum = try? reader.read(UInt32.self)
        else { return nil }
        let record = CommitRecord(version: version, rootRef: rootRef, previousCommit: previousCommit,
                                  chunkStart: chunkStart, chunkLength: chunkLength,
                                  liveBytes: liveBytes, chunkChecksum: chunkChecksum)
        guard chunkLength >= UInt64(ChunkHeader.size + size),
              chunkStart >= UInt64(FileHeader.size),
              chunkLength <= UInt64.max - chunkStart,
              record.offset == offset
        else { return nil }
        return record
    }
}

/// The 16 bytes that open every transaction chunk.
///
/// ```
/// 0  magic "FTXN"  u32
/// 4  reserved      u32 (zero)
/// 8  chunk length  u64  bytes from this header to the end of the commit record
/// ```
package struct ChunkHeader {
    package static let size = 16
    package static let magic: UInt32 = 0x4E58_5446  // "FTXN"
    /// Where the chunk length sits in the header (after the magic and four zero bytes).
    package static let lengthOffset = 8

    package static func encoded(length: UInt64) -> [UInt8] {
        var writer = ByteWriter(capacity: size)
        encode(length: length, into: &writer)
        return writer.takeBytes()
    }

    package static func encode(length: UInt64, into writer: inout ByteWriter) {
        writer.append(magic)
        writer.append(UInt32(0))
        writer.append(length)
    }

    package static func decodeLength(_ bytes: [UInt8]) -> UInt64? {
        var reader = ByteReader(bytes)
        guard (try? reader.read(UInt32.self)) == magic, (try? reader.read(UInt32.self)) == 0,
              let length = try? reader.read(UInt64.self)
        else { return nil }
        return length
    }
}
