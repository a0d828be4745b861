/// The first 128 bytes of every Floe file.
///
/// ```
/// 0   magic            8 bytes  89 46 4C 4F 45 0D 0A 1A  ("\x89FLOE\r\n\x1a")
/// 8   format version   u32
/// 12  CRC32C of 0..<12 u32
/// 16  hint slot A      32 bytes
/// 48  hint slot B      32 bytes
/// 80  reserved (zero)  48 bytes
/// ```
/// A hint slot names the offset of a recent commit record so that open reads only what
/// follows it. Slots are written alternately and never synced: a hint is only ever a
/// shortcut, checked before use, and a missing or stale one costs a longer scan, never data.
package struct FileHeader {
    package static let size = 128
    package static let magic: [UInt8] = [0x89, 0x46, 0x4C, 0x4F, 0x45, 0x0D, 0x0A, 0x1A]
    package static let formatVersion: UInt32 = 1
    package static let slotOffsets: [UInt64] = [16, 48]
    package static let slotSize = 32

    /// Where a commit record was, as remembered by one slot.
    package struct Hint: Equatable {
        package var sequence: UInt64
        package var commitOffset: UInt64
        package var version: UInt64

        package func encoded() -> [UInt8] {
            var writer = ByteWriter(capacity: FileHeader.slotSize)
            writer.append(sequence)
            writer.append(commitOffset)
            writer.append(version)
            let crc = CRC32C.checksum(writer.bytes)
            writer.append(crc)
            writer.append(UInt32(0))
            return writer.bytes
        }

        package static func decode(_ bytes: ArraySlice<UInt8>) -> Hint? {
            var reader = ByteReader(Array(bytes))
            guard let sequence = try? reader.read(UInt64.self),
                  let commitOffset = try? reader.read(UInt64.self),
                  let version = try? reader.read(UInt64.self),
                  let crc = try? reader.read(UInt32.self),
                  sequence > 0,
                  crc == CRC32C.checksum(Array(bytes.prefix(24)))
            else { return nil }
            return Hint(sequence: sequence, commitOffset: commitOffset, version: version)
        }
    }

    /// The bytes of a brand-new file's header (no hints yet).
    package static func initialBytes() -> [UInt8] {
        var writer = ByteWriter(capacity: size)
        writer.append(magic)
        writer.append(formatVersion)
        writer.append(CRC32C.checksum(writer.bytes))
        while writer.count < size { writer.append(UInt8(0)) }
        return writer.bytes
    }

    /// Checks the fixed part of a header and returns its usable hints, newest first.
    package static func validate(_ bytes: [UInt8], path: String) throws(FloeError) -> [Hint] {
        guard bytes.count >= size, Array(bytes[0..<8]) == magic else {
            throw .notAFloeFile(path: path)
        }
        var reader = ByteReader(bytes, position: 8)
        let version = (try? reader.read(UInt32.self)) ?? 0
        let crc = (try? reader.read(UInt32.self)) ?? 0
        guard crc == CRC32C.checksum(Array(bytes[0..<12])) else {
            throw .corruptFile(path: path, offset: 8, detail: "the header checksum does not match")
        }
        guard version == formatVersion else {
            throw .unsupportedFormatVersion(path: path, found: version, supported: formatVersion)
        }
        return slotOffsets
            .compactMap { Hint.decode(bytes[Int($0)..<Int($0) + slotSize]) }
            .sorted { $0.sequence > $1.sequence }
    }
}
