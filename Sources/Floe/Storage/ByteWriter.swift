/// Appends little-endian values to a growing byte buffer.
///
/// Every on-disk structure is built with this writer and read back with ``ByteReader``,
/// so the byte order and the padding rules live in exactly one place.
struct ByteWriter {
    var bytes: [UInt8]

    init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    var count: Int { bytes.count }

    mutating func append<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func append(_ data: [UInt8]) { bytes.append(contentsOf: data) }

    mutating func append(_ data: UnsafeRawBufferPointer) { bytes.append(contentsOf: data) }

    /// A length-prefixed UTF-8 string.
    mutating func appendString(_ string: String) {
        var copy = string
        copy.withUTF8 { utf8 in
            append(UInt32(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    /// Appends an array of integers as raw little-endian words.
    mutating func appendWords(_ words: [UInt64]) {
        #if _endian(little)
        words.withUnsafeBytes { bytes.append(contentsOf: $0) }
        #else
        for word in words { append(word) }
        #endif
    }

    mutating func appendInts(_ values: [Int64]) {
        #if _endian(little)
        values.withUnsafeBytes { bytes.append(contentsOf: $0) }
        #else
        for value in values { append(value) }
        #endif
    }

    /// One bit per flag, rounded up to whole bytes.
    mutating func appendBits(_ flags: [Bool]) {
        var byte: UInt8 = 0
        for (index, flag) in flags.enumerated() {
            if flag { byte |= 1 << UInt8(index & 7) }
            if index & 7 == 7 { bytes.append(byte); byte = 0 }
        }
        if flags.count & 7 != 0 { bytes.append(byte) }
    }

    mutating func padToMultiple(of alignment: Int) {
        while bytes.count % alignment != 0 { bytes.append(0) }
    }

    /// Overwrites a previously appended 32-bit value (used for back-patched lengths and checksums).
    mutating func patch(_ value: UInt32, at offset: Int) {
        withUnsafeBytes(of: value.littleEndian) { raw in
            for index in 0..<4 { bytes[offset + index] = raw[index] }
        }
    }

    mutating func patch(_ value: UInt64, at offset: Int) {
        withUnsafeBytes(of: value.littleEndian) { raw in
            for index in 0..<8 { bytes[offset + index] = raw[index] }
        }
    }
}
