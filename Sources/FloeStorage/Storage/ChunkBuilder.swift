/// Accumulates one transaction's nodes into a single contiguous chunk.
///
/// Offsets are known as soon as a node is added, because the chunk will be written at
/// `start` in one piece; so parents can be encoded right after their children.
/// Compaction streams very large chunks: it takes the buffered bytes out as it goes
/// (``takeBufferedBytes()``) so that memory stays bounded.
@usableFromInline package struct ChunkBuilder {
    package let start: UInt64
    package private(set) var writer: ByteWriter
    private var headerChecksum = CRC32C()
    private var flushed: UInt64 = 0
    /// Bytes of nodes written before this chunk that its nodes reference anew, although the
    /// transaction counted them as replaced (the columns under column changes): they stay live.
    package var keptAliveBytes = 0

    package init(start: UInt64) {
        self.start = start
        writer = ByteWriter(capacity: 16 * 1024)
        ChunkHeader.encode(length: 0, into: &writer)  // its length patched in `seal`
    }

    package var isEmpty: Bool { flushed == 0 && writer.count == ChunkHeader.size }

    /// Bytes buffered and not yet taken.
    package var bufferedCount: Int { writer.count }

    /// The file offset the next node will get.
    package var nextOffset: UInt64 { start + flushed + UInt64(writer.count) }

    /// Appends a node and returns its file offset.
    package mutating func append(_ node: NodeImage) -> UInt64 {
        let offset = nextOffset
        let position = writer.count
        node.encode(into: &writer)
        addHeaderChecksum(at: position)
        return offset
    }

    /// Appends a node whose child references and payload `body` writes in place (see
    /// ``NodeImage/encode(kind:childCount:into:body:)``); returns its file offset and
    /// the bytes it takes.
    package mutating func appendNode(kind: UInt8, childCount: Int, body: (inout ByteWriter) -> Void) -> (offset: UInt64, size: Int) {
        let offset = nextOffset
        let position = writer.count
        NodeImage.encode(kind: kind, childCount: childCount, into: &writer, body: body)
        addHeaderChecksum(at: position)
        return (offset, writer.count - position)
    }

    /// Appends a checked node as the file it was read from holds it (its checksum still holds):
    /// a copy's nodes without children. Returns its offset.
    package mutating func appendUnchanged(_ node: MappedNode) -> UInt64 {
        let offset = nextOffset
        let position = writer.count
        writer.append(node.bytes)
        writer.padToMultiple(of: 8)
        addHeaderChecksum(at: position)
        return offset
    }

    private mutating func addHeaderChecksum(at position: Int) {
        writer.withUnsafeBytes { raw in
            headerChecksum.update(UnsafeRawBufferPointer(rebasing: raw[position..<position + NodeImage.headerSize]))
        }
    }

    /// Hands out the buffered bytes, which belong at the returned offset, and empties the buffer.
    package mutating func takeBufferedBytes() -> (offset: UInt64, bytes: [UInt8]) {
        let offset = start + flushed
        let bytes = writer.takeBytes()
        flushed += UInt64(bytes.count)
        writer = ByteWriter(capacity: 16 * 1024)
        return (offset, bytes)
    }

    /// Finishes the chunk with its commit record.
    ///
    /// Returns the remaining bytes (which belong at `tailOffset`), the chunk header
    /// (which belongs at `start`; empty, being inside `tail` already, when nothing was taken
    /// out), and the record.
    package mutating func seal(version: UInt64, rootRef: UInt64, previousCommit: UInt64, liveBytes: UInt64)
        -> (tailOffset: UInt64, tail: [UInt8], header: [UInt8], record: CommitRecord)
    {
        let length = flushed + UInt64(writer.count + CommitRecord.size)
        var header: [UInt8] = []
        if flushed == 0 {
            writer.patch(length, at: ChunkHeader.lengthOffset)
        } else {
            header = ChunkHeader.encoded(length: length)
        }
        let record = CommitRecord(version: version, rootRef: rootRef, previousCommit: previousCommit,
                                  chunkStart: start, chunkLength: length, liveBytes: liveBytes,
                                  chunkChecksum: headerChecksum.value)
        record.encode(into: &writer)
        return (start + flushed, writer.takeBytes(), header, record)
    }
}
