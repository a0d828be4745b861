/// Finds a file's last valid commit on open.
///
/// The normal path reads one hinted commit record and whatever follows it (nothing, after
/// a clean close). Only when no hint holds does it walk the chunks from the start. A chunk
/// that is not whole and correct ends the walk: everything after it is a torn tail.
package struct CommitScanner {
    package let handle: FileHandle
    package let fileSize: UInt64
    package private(set) var report = StorageFile.RecoveryReport()

    package init(handle: FileHandle, fileSize: UInt64) {
        self.handle = handle
        self.fileSize = fileSize
    }

    package mutating func findLastCommit(hints: [FileHeader.Hint]) throws(FloeError) -> CommitRecord? {
        for hint in hints {
            if let record = try readRecord(at: hint.commitOffset), record.version == hint.version {
                return try followChunks(after: record, from: record.end)
            }
        }
        report.scannedFromStart = true
        return try followChunks(after: nil, from: UInt64(FileHeader.size))
    }

    /// Whether an intact commit record sits anywhere at or after `position` (records are
    /// 8-byte aligned). Used when a walk stops early: a damaged chunk with intact commits
    /// after it is corruption to report, not a torn tail to cut off.
    package func hasIntactCommit(atOrAfter position: UInt64) throws(FloeError) -> Bool {
        var found = false
        try forEachIntactRecord(from: position) { _ in
            found = true
            return false
        }
        return found
    }

    /// Every intact commit record anywhere in the file, newest version first: what recovery
    /// tries when the chain of chunks is broken.
    package func allIntactCommits() throws(FloeError) -> [CommitRecord] {
        var found: [CommitRecord] = []
        try forEachIntactRecord(from: UInt64(FileHeader.size)) { record in
            found.append(record)
            return true
        }
        return found.sorted { $0.version > $1.version }
    }

    /// Calls `body` with each intact commit record at an 8-byte-aligned position from `start`,
    /// reading the file in 1 MiB blocks; `body` returns false to stop.
    private func forEachIntactRecord(from start: UInt64, _ body: (CommitRecord) -> Bool) throws(FloeError) {
        var blockStart = start
        let blockSize: UInt64 = 1 << 20
        while fileSize > blockStart && fileSize - blockStart >= UInt64(CommitRecord.size) {
            let count = Int(min(blockSize + UInt64(CommitRecord.size), fileSize - blockStart))
            // The file may have been shortened since its size was taken: what is gone holds no commit.
            guard let block = try handle.readIfPresent(count: count, at: blockStart) else { return }
            var index = 0
            while index + CommitRecord.size <= block.count && UInt64(index) < blockSize {
                if block[index] == 0x46 && block[index + 1] == 0x43 && block[index + 2] == 0x4D && block[index + 3] == 0x54,
                   let record = CommitRecord.decode(Array(block[index..<index + CommitRecord.size]), at: blockStart + UInt64(index)),
                   !body(record) {
                    return
                }
                index += 8
            }
            blockStart += blockSize
        }
    }

    /// How many zero bytes end the file after `position` (all of them, when nothing but zeros
    /// follows: space extended ahead of the commits). Reads backwards in 1 MiB blocks.
    package func zeroBytesAtEnd(after position: UInt64) throws(FloeError) -> UInt64 {
        var blockEnd = fileSize
        let blockSize: UInt64 = 1 << 20
        while blockEnd > position {
            let blockStart = max(position, blockEnd > blockSize ? blockEnd - blockSize : 0)
            // Shortened meanwhile (a writer in another process trimmed its zeros): nothing to report.
            guard let block = try handle.readIfPresent(count: Int(blockEnd - blockStart), at: blockStart) else { return 0 }
            if let last = block.lastIndex(where: { $0 != 0 }) {
                return blockEnd - blockStart - UInt64(last + 1) + (fileSize - blockEnd)
            }
            blockEnd = blockStart
        }
        return fileSize - position
    }

    /// The commit record at `offset`, if one is there and intact.
    package func readRecord(at offset: UInt64) throws(FloeError) -> CommitRecord? {
        guard offset >= UInt64(FileHeader.size), offset <= fileSize, fileSize - offset >= UInt64(CommitRecord.size) else { return nil }
        guard let bytes = try handle.readIfPresent(count: CommitRecord.size, at: offset) else { return nil }
        return CommitRecord.decode(bytes, at: offset)
    }

    /// Walks whole, valid chunks from `start` (where `base`'s chunk ends) and returns the last one's record.
    package mutating func followChunks(after base: CommitRecord?, from start: UInt64) throws(FloeError) -> CommitRecord? {
        var last = base
        var position = start
        while position + UInt64(ChunkHeader.size + CommitRecord.size) <= fileSize {
            // Bytes past the end (the file was shortened since its size was taken) end the walk.
            guard let headerBytes = try handle.readIfPresent(count: ChunkHeader.size, at: position) else { break }
            // The length is unchecked data: compare without adding, so no value can overflow.
            guard let length = ChunkHeader.decodeLength(headerBytes),
                  length >= UInt64(ChunkHeader.size + CommitRecord.size),
                  length <= fileSize - position
            else { break }
            guard let record = try readRecord(at: position + length - UInt64(CommitRecord.size)),
                  record.chunkStart == position,
                  record.previousCommit == (last?.offset ?? 0),
                  record.version > (last?.version ?? 0),
                  try chunkIsWhole(record)
            else { break }
            report.scannedBytes += length
            last = record
            position = record.end
        }
        return last
    }

    /// Checks every node frame of a chunk against its own checksum and the record's header checksum.
    package func chunkIsWhole(_ record: CommitRecord) throws(FloeError) -> Bool {
        var headers = CRC32C()
        var position = record.chunkStart + UInt64(ChunkHeader.size)
        let end = record.offset
        while position < end {
            guard end - position >= UInt64(NodeImage.headerSize) else { return false }
            guard let header = try handle.readIfPresent(count: NodeImage.headerSize, at: position) else { return false }
            guard let parsed = NodeImage.parseHeader(header) else { return false }
            let bodyLength = parsed.childCount * 8 + parsed.payloadLength
            let frameLength = UInt64((NodeImage.headerSize + bodyLength + 7) & ~7)
            guard bodyLength <= NodeImage.maximumSize, frameLength <= end - position else { return false }
            guard let body = try handle.readIfPresent(count: bodyLength, at: position + UInt64(NodeImage.headerSize)) else { return false }
            guard NodeImage.decode(header: header, body: body, childCount: parsed.childCount,
                                   payloadLength: parsed.payloadLength, checksum: parsed.checksum,
                                   kind: parsed.kind) != nil
            else { return false }
            header.withUnsafeBytes { headers.update($0) }
            position += frameLength
        }
        return position == end && headers.value == record.chunkChecksum
    }
}
