/// A node as the storage layer sees it: a kind tag, references to child nodes, and
/// opaque payload bytes.
///
/// The engine decides what kinds and payloads mean; storage frames, checksums, writes
/// and reads them, and can walk the child references without understanding the payload
/// (compaction and verification do).
///
/// On disk (8-byte aligned):
/// ```
/// 0   magic 0xF10E       u16
/// 2   kind               u8
/// 3   flags              u8 (zero)
/// 4   child count        u32
/// 8   payload length     u32
/// 12  CRC32C             u32  over bytes 0..<12, the child refs and the payload
/// 16  child refs         u64 × child count  (0 = no child)
/// ..  payload            payload length bytes, then zero padding to a multiple of 8
/// ```
@usableFromInline package struct NodeImage: Equatable {
    package static let headerSize = 16
    package static let magic: UInt16 = 0xF10E
    /// Nodes larger than this are refused on read as corrupt.
    package static let maximumSize = 1 << 30

    package var kind: UInt8
    package var children: [UInt64]
    package var payload: [UInt8]

    package init(kind: UInt8, children: [UInt64] = [], payload: [UInt8] = []) {
        self.kind = kind
        self.children = children
        self.payload = payload
    }

    /// Bytes this node occupies in the file, padding included.
    package var encodedSize: Int {
        let raw = Self.headerSize + children.count * 8 + payload.count
        return (raw + 7) & ~7
    }

    /// Appends the framed node to `writer`.
    package func encode(into writer: inout ByteWriter) {
        Self.encode(kind: kind, childCount: children.count, into: &writer) { writer in
            writer.appendWords(children)
            writer.append(payload)
        }
    }

    /// Appends a framed node whose `body` — its `childCount` child references, then its
    /// payload — is written straight into `writer`, with no arrays built for them first: the
    /// same bytes as encoding a ``NodeImage`` of that kind, children and payload.
    package static func encode(kind: UInt8, childCount: Int, into writer: inout ByteWriter, body: (inout ByteWriter) -> Void) {
        let start = writer.count
        writer.append(magic)
        writer.append(kind)
        writer.append(UInt8(0))
        writer.append(UInt32(childCount))
        writer.append(UInt32(0))  // payload length, patched below
        writer.append(UInt32(0))  // checksum, patched below
        body(&writer)
        let bodyLength = writer.count - start - headerSize
        precondition(bodyLength >= childCount * 8, "a node of kind \(kind) wrote \(bodyLength) bytes for \(childCount) child references")
        writer.patch(UInt32(bodyLength - childCount * 8), at: start + 8)
        writer.padToMultiple(of: 8)
        let crc = writer.withUnsafeBytes { raw in
            checksum(ofEncoded: UnsafeRawBufferPointer(rebasing: raw[start..<start + headerSize + bodyLength]))
        }
        writer.patch(crc, at: start + 12)
    }

    /// Parses a framed node header: child count and payload length, or nil when the magic is wrong.
    package static func parseHeader(_ bytes: [UInt8]) -> (kind: UInt8, childCount: Int, payloadLength: Int, checksum: UInt32)? {
        bytes.withUnsafeBytes { parseHeader($0) }
    }

    /// ``parseHeader(_:)-([UInt8])`` of bytes in place (a mapped file's).
    package static func parseHeader(_ bytes: UnsafeRawBufferPointer) -> (kind: UInt8, childCount: Int, payloadLength: Int, checksum: UInt32)? {
        guard bytes.count >= headerSize,
              UInt16(littleEndian: bytes.loadUnaligned(as: UInt16.self)) == magic,
              bytes[3] == 0
        else { return nil }
        let childCount = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
        let payloadLength = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
        let checksum = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 12, as: UInt32.self))
        return (bytes[2], Int(childCount), Int(payloadLength), checksum)
    }

    /// The checksum a node's header holds, computed over its encoded bytes (header and body,
    /// without padding): the header's first 12 bytes, then the body.
    package static func checksum(ofEncoded bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc = CRC32C()
        crc.update(UnsafeRawBufferPointer(rebasing: bytes[0..<12]))
        crc.update(UnsafeRawBufferPointer(rebasing: bytes[headerSize...]))
        return crc.value
    }

    /// Decodes a node from its header and body bytes, checking the checksum. The body starts
    /// at `bodyOffset` of `body` (the header and body read together: `body` is the whole frame).
    package static func decode(header: [UInt8], body: [UInt8], bodyOffset: Int = 0, childCount: Int, payloadLength: Int,
                       checksum: UInt32, kind: UInt8) -> NodeImage? {
        let bodyLength = childCount * 8 + payloadLength
        guard bodyOffset >= 0, body.count - bodyOffset >= bodyLength else { return nil }
        var crc = CRC32C()
        header.withUnsafeBytes { crc.update(UnsafeRawBufferPointer(rebasing: $0[0..<12])) }
        body.withUnsafeBytes { crc.update(UnsafeRawBufferPointer(rebasing: $0[bodyOffset..<bodyOffset + bodyLength])) }
        guard crc.value == checksum else { return nil }
        var reader = ByteReader(body, position: bodyOffset)
        guard let children = try? reader.readWords(childCount),
              let payload = try? reader.readBytes(payloadLength)
        else { return nil }
        return NodeImage(kind: kind, children: children, payload: payload)
    }
}
