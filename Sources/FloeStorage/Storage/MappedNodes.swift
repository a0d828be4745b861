/// The nodes of a file read through a mapping of it (``FileMapping``), checked exactly as
/// ``StorageFile/readNode(at:)`` checks them: for walks that visit every live node of a file
/// once and copy most of them unchanged (``Compactor``).
package struct MappedNodes {
    private let mapping: FileMapping
    private let path: String
    /// The file's end as it knew it when mapped: references past it are damage.
    private let end: UInt64

    package init(file: StorageFile) throws(FloeError) {
        path = file.path
        end = file.endOffset
        mapping = try file.handle.mapForReading(length: end)
    }

    /// The checked node at `offset`, valid while this value lives.
    package func node(at offset: UInt64) throws(FloeError) -> MappedNode {
        // Bytes past the mapping (a file shorter than the end its commits claim) are missing.
        let available = min(end, UInt64(mapping.bytes.count))
        try StorageFile.checkNodeReference(offset, end: end, path: path)
        guard available - min(offset, available) >= UInt64(NodeImage.headerSize) else {
            throw .corruptFile(path: path, offset: offset, detail: "expected \(NodeImage.headerSize) bytes but the file ends after \(available - min(offset, available))")
        }
        let start = Int(offset)
        guard let parsed = NodeImage.parseHeader(UnsafeRawBufferPointer(rebasing: mapping.bytes[start..<start + NodeImage.headerSize])) else {
            throw .corruptFile(path: path, offset: offset, detail: "no node magic at a node reference")
        }
        let length = NodeImage.headerSize + (try StorageFile.checkNodeLength(
            childCount: parsed.childCount, payloadLength: parsed.payloadLength, at: offset, end: end, path: path))
        guard UInt64(length) <= available - offset else {
            throw .corruptFile(path: path, offset: offset, detail: "expected \(length) bytes but the file ends after \(available - offset)")
        }
        let bytes = UnsafeRawBufferPointer(rebasing: mapping.bytes[start..<start + length])
        guard NodeImage.checksum(ofEncoded: bytes) == parsed.checksum else {
            throw .corruptFile(path: path, offset: offset, detail: "node checksum mismatch")
        }
        return MappedNode(bytes: bytes, kind: parsed.kind, childCount: parsed.childCount)
    }
}

/// One checked node in a mapping: its header and body, as the file holds them.
package struct MappedNode {
    /// The header and the body, without the padding after it.
    package let bytes: UnsafeRawBufferPointer
    package let kind: UInt8
    package let childCount: Int

    /// The file offset of child reference `index` (0: none).
    package func child(at index: Int) -> UInt64 {
        UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: NodeImage.headerSize + index * 8, as: UInt64.self))
    }

    /// The bytes after the child references.
    package var payload: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: bytes[(NodeImage.headerSize + childCount * 8)...])
    }
}
