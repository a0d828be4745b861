@_spi(Engine) import FloeStorage

/// The payload encoding of a column's values, shared by table leaves and collection leaves.
///
/// ```
/// u8 layout, u8 element type, u8 nullable, u8 zero, u32 count
/// [null bitmap, one bit per row, when nullable]
/// words:       count (pairs: 2 × count) little-endian u64
/// packed words (layout tag 7; int, bool and link columns): the words bit-packed, see
///              `ByteWriter.appendPacked` (null cells left out, read back as 0)
/// strings:     per row u32 length + UTF-8 bytes
/// binaries:    per row u32 length + bytes
/// values:      per row one tagged value (see `encodeValue`)
/// collections: nothing; the node's child refs hold one root per row (0: empty)
/// ```
extension ColumnStorage {
    /// The layout byte of a words column written bit-packed. It is not a ``Layout``: the
    /// column reads back as `.words`, and older images (layout 1) keep reading as they are.
    package static let packedWordsTag: UInt8 = 7
    /// More rows than any leaf holds (cluster leaves 256, collection leaves 1,000): a packed
    /// column claiming more is corrupt.
    package static let packedRowLimit = 1 << 16

    /// Whether this column's words are written bit-packed: integers, booleans and links
    /// (float, double and timestamp words are IEEE bit patterns, which do not pack).
    package var writesPackedWords: Bool {
        guard layout == .words, count <= Self.packedRowLimit else { return false }
        switch type {
        case .int, .bool, .link: return true
        default: return false
        }
    }

    package func encode(into writer: inout ByteWriter) {
        let packed = writesPackedWords
        appendHeader(layoutTag: packed ? Self.packedWordsTag : layout.rawValue, rows: count, into: &writer)
        if let nulls { writer.appendBits(nulls) }
        switch layout {
        case .words where packed: words.withUnsafeBufferPointer { writer.appendPacked($0, skipping: nulls) }
        case .words, .pairs: writer.appendWords(words)
        case .strings: for string in strings { writer.appendString(string) }
        case .binaries:
            for bytes in binaries {
                writer.append(UInt32(bytes.count))
                writer.append(bytes)
            }
        case .values: for value in values { Self.encodeValue(value, into: &writer) }
        case .collections: break
        }
    }

    /// The encoding's first eight bytes: `layoutTag`, the type, whether the column stores null
    /// flags, and the number of rows that follow.
    package func appendHeader(layoutTag: UInt8, rows: Int, into writer: inout ByteWriter) {
        writer.append(layoutTag)
        writer.append(type.rawValue)
        writer.append(UInt8(nulls == nil ? 0 : 1))
        writer.append(UInt8(0))
        writer.append(UInt32(rows))
    }

    /// Decodes a column; `children` are the node's child refs (for collection columns).
    package static func decode(from reader: inout ByteReader, children: ArraySlice<UInt64>, source: StorageFile?) throws(DecodeFailure) -> ColumnStorage {
        do {
            let tag = try reader.read(UInt8.self)
            let packed = tag == packedWordsTag
            guard let layout = packed ? .words : Layout(rawValue: tag) else { throw DecodeFailure("unknown column layout \(tag)") }
            guard let type = ColumnType(rawValue: try reader.read(UInt8.self)) else { throw DecodeFailure("unknown column type") }
            let nullable = try reader.read(UInt8.self) != 0
            _ = try reader.read(UInt8.self)
            let count = Int(try reader.read(UInt32.self))
            // One bit a row at least, except packed words of width 0 (every row the same
            // value), which take no bytes at all: those are bounded by a leaf's size instead.
            guard count <= reader.bytes.count * 8 + children.count || (packed && count <= packedRowLimit) else {
                throw DecodeFailure("column count \(count) is impossible")
            }
            var storage = ColumnStorage(layout: layout, type: type, nullable: false)
            if nullable { storage.nulls = try reader.readBits(count) }
            switch layout {
            case .words where packed:
                guard storage.writesPackedWords else { throw DecodeFailure("a \(type) column cannot be bit-packed") }
                storage.words = try reader.readPacked(count)
                if let nulls = storage.nulls {
                    for row in 0..<count where nulls[row] { storage.words[row] = 0 }
                }
            case .words: storage.words = try reader.readWords(count)
            case .pairs: storage.words = try reader.readWords(2 * count)
            case .strings:
                storage.strings.reserveCapacity(count)
                for _ in 0..<count { storage.strings.append(try reader.readString()) }
            case .binaries:
                storage.binaries.reserveCapacity(count)
                for _ in 0..<count {
                    let length = Int(try reader.read(UInt32.self))
                    storage.binaries.append(try reader.readBytes(length))
                }
            case .values:
                storage.values.reserveCapacity(count)
                for _ in 0..<count { storage.values.append(try decodeValue(from: &reader)) }
            case .collections:
                guard children.count == count else { throw DecodeFailure("collection column has \(children.count) roots for \(count) rows") }
                guard let source else { throw DecodeFailure("collection column without a file") }
                storage.collections = children.map { $0 == 0 ? nil : NodeRef<CollectionNode>(offset: $0, source: source) }
            }
            storage.count = count
            return storage
        } catch let truncated as ByteReader.Truncated {
            throw DecodeFailure("column data ends early (needed \(truncated.needed) bytes, \(truncated.available) left)")
        } catch let failure as DecodeFailure {
            throw failure
        } catch let bad as ByteReader.BadWidth {
            throw DecodeFailure("packed integers of width \(bad.width), which is not 0, 1, 2, 4, 8, 16, 32 or 64")
        } catch {
            throw DecodeFailure("\(error)")
        }
    }

    package static func encodeValue(_ value: Value, into writer: inout ByteWriter) {
        switch value {
        case .null: writer.append(UInt8(0))
        case .bool(let flag): writer.append(UInt8(1)); writer.append(UInt8(flag ? 1 : 0))
        case .int(let int): writer.append(UInt8(2)); writer.append(int)
        case .float(let float): writer.append(UInt8(3)); writer.append(float.bitPattern)
        case .double(let double): writer.append(UInt8(4)); writer.append(double.bitPattern)
        case .string(let string): writer.append(UInt8(5)); writer.appendString(string)
        case .binary(let bytes): writer.append(UInt8(6)); writer.append(UInt32(bytes.count)); writer.append(bytes)
        case .timestamp(let seconds): writer.append(UInt8(7)); writer.append(seconds.bitPattern)
        case .decimal128(let word): writer.append(UInt8(8)); writer.append(word.high); writer.append(word.low)
        case .objectId(let word): writer.append(UInt8(9)); writer.append(word.high); writer.append(word.low)
        case .uuid(let word): writer.append(UInt8(10)); writer.append(word.high); writer.append(word.low)
        case .link(let key): writer.append(UInt8(11)); writer.append(key)
        case .typedLink(let table, let key): writer.append(UInt8(12)); writer.appendString(table); writer.append(key)
        case .list(let values):
            writer.append(UInt8(13))
            writer.append(UInt32(values.count))
            for value in values { encodeValue(value, into: &writer) }
        case .dictionary(let entries):
            writer.append(UInt8(14))
            writer.append(UInt32(entries.count))
            for entry in entries {
                writer.appendString(entry.key)
                encodeValue(entry.value, into: &writer)
            }
        }
    }

    package static func decodeValue(from reader: inout ByteReader, depth: Int = 0) throws -> Value {
        guard depth <= Value.maximumNesting else { throw DecodeFailure("a mixed value nests collections more than \(Value.maximumNesting) levels deep") }
        let tag = try reader.read(UInt8.self)
        switch tag {
        case 0: return .null
        case 1: return .bool(try reader.read(UInt8.self) != 0)
        case 2: return .int(try reader.read(Int64.self))
        case 3: return .float(Float(bitPattern: try reader.read(UInt32.self)))
        case 4: return .double(Double(bitPattern: try reader.read(UInt64.self)))
        case 5: return .string(try reader.readString())
        case 6: return .binary(try reader.readBytes(Int(try reader.read(UInt32.self))))
        case 7: return .timestamp(Double(bitPattern: try reader.read(UInt64.self)))
        case 8: return .decimal128(Word128(high: try reader.read(UInt64.self), low: try reader.read(UInt64.self)))
        case 9: return .objectId(Word128(high: try reader.read(UInt64.self), low: try reader.read(UInt64.self)))
        case 10: return .uuid(Word128(high: try reader.read(UInt64.self), low: try reader.read(UInt64.self)))
        case 11: return .link(try reader.read(Int64.self))
        case 12: return .typedLink(table: try reader.readString(), key: try reader.read(Int64.self))
        case 13:
            let count = Int(try reader.read(UInt32.self))
            guard count <= reader.remaining else { throw DecodeFailure("a nested list claims \(count) values") }
            var values: [Value] = []
            values.reserveCapacity(count)
            for _ in 0..<count { values.append(try decodeValue(from: &reader, depth: depth + 1)) }
            return .list(values)
        case 14:
            let count = Int(try reader.read(UInt32.self))
            guard count <= reader.remaining else { throw DecodeFailure("a nested dictionary claims \(count) entries") }
            var entries: [Value.MapEntry] = []
            entries.reserveCapacity(count)
            for _ in 0..<count {
                let key = try reader.readString()
                entries.append(Value.MapEntry(key: key, value: try decodeValue(from: &reader, depth: depth + 1)))
            }
            return .dictionary(entries)
        default: throw DecodeFailure("unknown value tag \(tag)")
        }
    }
}

/// Why a node's payload could not be decoded; turned into ``FloeError/corruptFile(path:offset:detail:)``
/// with the node's offset by the caller.
@usableFromInline package struct DecodeFailure: Error {
    package let detail: String
    package init(_ detail: String) { self.detail = detail }
}
