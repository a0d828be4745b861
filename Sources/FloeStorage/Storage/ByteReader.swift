/// Reads little-endian values from a byte buffer, refusing to run past its end.
///
/// Decoding never trusts a length it reads: every read is bounds-checked and a short
/// buffer raises ``ByteReader/Truncated`` so that a corrupt node becomes an error, not a crash.
package struct ByteReader {
    package struct Truncated: Error {
        package let needed: Int
        package let available: Int
    }

    package let bytes: [UInt8]
    package private(set) var position: Int

    package init(_ bytes: [UInt8], position: Int = 0) {
        self.bytes = bytes
        self.position = position
    }

    package var remaining: Int { bytes.count - position }
    package var isAtEnd: Bool { position >= bytes.count }

    private func require(_ count: Int) throws(Truncated) {
        if count < 0 || count > remaining { throw Truncated(needed: count, available: remaining) }
    }

    package mutating func read<T: FixedWidthInteger>(_: T.Type = T.self) throws(Truncated) -> T {
        try require(MemoryLayout<T>.size)
        let value = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: position, as: T.self) }
        position += MemoryLayout<T>.size
        return T(littleEndian: value)
    }

    package mutating func readBytes(_ count: Int) throws(Truncated) -> [UInt8] {
        try require(count)
        let slice = Array(bytes[position..<position + count])
        position += count
        return slice
    }

    package mutating func readString() throws(Truncated) -> String {
        let length = Int(try read(UInt32.self))
        try require(length)
        let string = bytes.withUnsafeBufferPointer { buffer in
            String(decoding: UnsafeBufferPointer(rebasing: buffer[position..<position + length]), as: UTF8.self)
        }
        position += length
        return string
    }

    package mutating func readWords(_ count: Int) throws(Truncated) -> [UInt64] {
        try require(count.multipliedReportingOverflow(by: 8).overflow ? -1 : count * 8)
        // An empty result must not go through `unsafeUninitializedCapacity`: with capacity 0 it
        // writes the count of the shared empty-array storage, which races with every other thread doing so.
        if count == 0 { return [] }
        let words = [UInt64](unsafeUninitializedCapacity: count) { buffer, initialized in
            bytes.withUnsafeBytes { raw in
                let source = UnsafeRawBufferPointer(rebasing: raw[position..<position + count * 8])
                UnsafeMutableRawBufferPointer(buffer).copyMemory(from: source)
            }
            initialized = count
        }
        position += count * 8
        #if _endian(little)
        return words
        #else
        return words.map { UInt64(littleEndian: $0) }
        #endif
    }

    package mutating func readInts(_ count: Int) throws(Truncated) -> [Int64] {
        try readWords(count).map { Int64(bitPattern: $0) }
    }

    /// A width of ``ByteWriter/appendPacked(_:skipping:)`` that no writer produces.
    package struct BadWidth: Error { package let width: UInt8 }

    /// Reads `count` integers written by ``ByteWriter/appendPacked(_:skipping:)``, unpacked
    /// into a plain array (decoding happens once per node load; readers then index the array).
    package mutating func readPacked<T: FixedWidthInteger>(_ count: Int, as _: T.Type = T.self) throws -> [T] {
        precondition(T.bitWidth == 64, "packed values are 64-bit integers")
        let width = try read(UInt8.self)
        switch width {
        case 64:
            let words = try readWords(count)
            return T.self == UInt64.self ? words as! [T] : words.map { T(truncatingIfNeeded: $0) }
        case 0, 1, 2, 4, 8, 16, 32: break
        default: throw BadWidth(width: width)
        }
        let base = T(truncatingIfNeeded: try read(UInt64.self))
        let bits = Int(width)
        let (product, overflow) = count.multipliedReportingOverflow(by: bits)
        let byteCount = overflow ? -1 : (product + 7) / 8
        try require(byteCount)
        if count == 0 { return [] }  // see `readWords`
        let start = position
        let values = [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            bytes.withUnsafeBytes { raw in
                let source = raw.baseAddress!.advanced(by: start)
                switch bits {
                case 0:
                    buffer.initialize(repeating: base)
                case 8:
                    for index in 0..<count { buffer[index] = base &+ T(source.load(fromByteOffset: index, as: UInt8.self)) }
                case 16:
                    for index in 0..<count {
                        buffer[index] = base &+ T(UInt16(littleEndian: source.loadUnaligned(fromByteOffset: 2 * index, as: UInt16.self)))
                    }
                case 32:
                    for index in 0..<count {
                        buffer[index] = base &+ T(UInt32(littleEndian: source.loadUnaligned(fromByteOffset: 4 * index, as: UInt32.self)))
                    }
                default:  // 1, 2 or 4 bits
                    let mask = UInt8((1 << bits) - 1)
                    let perByte = 8 / bits
                    for index in 0..<count {
                        let byte = source.load(fromByteOffset: index / perByte, as: UInt8.self)
                        let field = (byte >> UInt8((index % perByte) * bits)) & mask
                        buffer[index] = base &+ T(field)
                    }
                }
            }
            initialized = count
        }
        position += byteCount
        return values
    }

    package mutating func readBits(_ count: Int) throws(Truncated) -> [Bool] {
        let byteCount = (count + 7) / 8
        try require(byteCount)
        var flags = [Bool](repeating: false, count: count)
        for index in 0..<count {
            flags[index] = bytes[position + index / 8] & (1 << UInt8(index & 7)) != 0
        }
        position += byteCount
        return flags
    }

    package mutating func skip(_ count: Int) throws(Truncated) {
        try require(count)
        position += count
    }
}
