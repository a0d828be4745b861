/// Walks every chunk of a file from the start and checks every checksum: the header, each
/// chunk's frame, each node's CRC32C, each commit record and the chain between them.
///
/// This reads the whole file; it is what `verify` runs, never what open runs.
package struct FileAudit {
    package struct Result {
        package var commits = 0
        package var nodes = 0
        package var bytes: UInt64 = 0
        package var problems: [String] = []
    }

    package static func run(_ file: StorageFile) throws(FloeError) -> Result {
        var result = Result()
        let end = file.endOffset
        result.bytes = end
        let header = try file.handle.read(count: FileHeader.size, at: 0)
        do {
            _ = try FileHeader.validate(header, path: file.path)
        } catch {
            result.problems.append("\(error)")
            return result
        }
        let scanner = CommitScanner(handle: file.handle, fileSize: end)
        var position = UInt64(FileHeader.size)
        var previous: CommitRecord?
        while position < end {
            guard end - position >= UInt64(ChunkHeader.size + CommitRecord.size) else {
                result.problems.append("offset \(position): \(end - position) trailing bytes do not form a chunk")
                break
            }
            let frame = try file.handle.read(count: ChunkHeader.size, at: position)
            guard let length = ChunkHeader.decodeLength(frame), length <= end - position,
                  length >= UInt64(ChunkHeader.size + CommitRecord.size) else {
                result.problems.append("offset \(position): no valid chunk header")
                break
            }
            guard let record = try scanner.readRecord(at: position + length - UInt64(CommitRecord.size)),
                  record.chunkStart == position else {
                result.problems.append("offset \(position + length - UInt64(CommitRecord.size)): commit record missing or its checksum does not match")
                break
            }
            if record.previousCommit != (previous?.offset ?? 0) {
                result.problems.append("offset \(record.offset): commit \(record.version) names previous commit \(record.previousCommit), expected \(previous?.offset ?? 0)")
            }
            if let previous, record.version <= previous.version {
                result.problems.append("offset \(record.offset): commit version \(record.version) does not follow \(previous.version)")
            }
            if !(try scanner.chunkIsWhole(record)) {
                result.problems.append("chunk at offset \(position) (version \(record.version)): a node checksum or the chunk checksum does not match")
            }
            result.nodes += try countNodes(in: record, handle: file.handle)
            result.commits += 1
            previous = record
            position = record.end
        }
        if let last = file.lastCommit, previous?.offset != last.offset {
            result.problems.append("the last commit found by the audit is not the one open used (offset \(last.offset))")
        }
        return result
    }

    private static func countNodes(in record: CommitRecord, handle: FileHandle) throws(FloeError) -> Int {
        var count = 0
        var position = record.chunkStart + UInt64(ChunkHeader.size)
        while position < record.offset {
            let header = try handle.read(count: NodeImage.headerSize, at: position)
            guard let parsed = NodeImage.parseHeader(header) else { break }
            position += UInt64((NodeImage.headerSize + parsed.childCount * 8 + parsed.payloadLength + 7) & ~7)
            count += 1
        }
        return count
    }
}
