/// Appends little-endian values to a growing byte buffer.
///
/// Every on-disk structure is built with this writer and read back with ``ByteReader``,
/// so the byte order and the padding rules live in exactly one place.
///
/// Values are stored in place in a buffer with room past the written bytes
/// (`Array.append(contentsOf:)` costs about 70 instructions a call, more than the bytes it
/// copies: node images append a length per string and a field per header). The room is left
/// unset, not zero-filled: filling a commit's 16 KiB chunk buffer with zeros cost as many
/// instructions as encoding its nodes; padding writes its zeros itself.
package struct ByteWriter {
    /// The written bytes are `storage[0..<count]`; the rest is unset room to grow into, never read.
    private var storage: [UInt8]
    package private(set) var count = 0

    package init(capacity: Int = 256) {
        storage = Self.room(Swift.max(capacity, 16))
    }

    /// `count` bytes whose values are not set (`count` > 0: an empty array must not be made
    /// this way, see `ByteReader.readWords`).
    private static func room(_ count: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { _, initialized in initialized = count }
    }

    /// The written bytes (a copy).
    package var bytes: [UInt8] { count == storage.count ? storage : Array(storage[0..<count]) }

    /// The written bytes, leaving the writer empty (no copy).
    package mutating func takeBytes() -> [UInt8] {
        storage.removeLast(storage.count - count)
        defer {
            storage = []
            count = 0
        }
        return storage
    }

    /// Calls `body` with the written bytes, without copying them.
    package func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try storage.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
    }

    @inline(__always)
    private mutating func reserve(_ extra: Int) {
        if count + extra > storage.count { grow(extra) }
    }

    @inline(never)
    private mutating func grow(_ extra: Int) {
        var larger = Self.room(Swift.max(2 * storage.count, count + extra))
        let written = count
        larger.withUnsafeMutableBytes { target in
            storage.withUnsafeBytes { target.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: written) }
        }
        storage = larger
    }

    @inline(__always)
    package mutating func append<T: FixedWidthInteger>(_ value: T) {
        reserve(MemoryLayout<T>.size)
        let at = count
        storage.withUnsafeMutableBytes { $0.storeBytes(of: value.littleEndian, toByteOffset: at, as: T.self) }
        count += MemoryLayout<T>.size
    }

    package mutating func append(_ data: [UInt8]) {
        data.withUnsafeBytes { append($0) }
    }

    package mutating func append(_ data: UnsafeRawBufferPointer) {
        guard let source = data.baseAddress, data.count > 0 else { return }
        reserve(data.count)
        let at = count
        storage.withUnsafeMutableBytes { $0.baseAddress!.advanced(by: at).copyMemory(from: source, byteCount: data.count) }
        count += data.count
    }

    /// A length-prefixed UTF-8 string.
    package mutating func appendString(_ string: String) {
        var copy = string
        copy.withUTF8 { utf8 in
            append(UInt32(utf8.count))
            append(UnsafeRawBufferPointer(utf8))
        }
    }

    /// Appends an array of integers as raw little-endian words.
    package mutating func appendWords(_ words: [UInt64]) {
        #if _endian(little)
        words.withUnsafeBytes { append($0) }
        #else
        for word in words { append(word) }
        #endif
    }

    package mutating func appendInts(_ values: [Int64]) {
        #if _endian(little)
        values.withUnsafeBytes { append($0) }
        #else
        for value in values { append(value) }
        #endif
    }

    /// The narrowest width of ``appendPacked(_:)`` that holds every value less the smallest:
    /// 0 when all are equal, then 1, 2, 4, 8, 16, 32 or 64 bits.
    package static func packedWidth(range: UInt64) -> Int {
        switch range {
        case 0: 0
        case 1: 1
        case 2...3: 2
        case 4...15: 4
        case 16...0xFF: 8
        case 0x100...0xFFFF: 16
        case 0x1_0000...0xFFFF_FFFF: 32
        default: 64
        }
    }

    /// Appends integers bit-packed to the width their spread needs (see ``ByteReader/readPacked(_:as:)``):
    ///
    /// ```
    /// u8 width (0, 1, 2, 4, 8, 16, 32 or 64)
    /// width 64:  count × u64, the values themselves
    /// otherwise: i64 base (the smallest value), then count fields of `width` bits, each the
    ///            value less the base, packed from the lowest bit of the first byte up; the
    ///            last byte is filled with zero bits (count × width / 8 bytes, rounded up)
    /// ```
    ///
    /// Rows whose flag in `skipping` is set are left out of the base and the width and
    /// written as the base (null cells, whose word the reader sets back to 0).
    package mutating func appendPacked<T: FixedWidthInteger>(_ values: UnsafeBufferPointer<T>, skipping: [Bool]? = nil) {
        precondition(T.bitWidth == 64, "packed values are 64-bit integers")
        values.withMemoryRebound(to: UInt64.self) { words in
            guard let skipping else { return appendPackedWords(words) }
            // Skipped rows take the base (found without them), so that they pack as 0.
            var kept: UInt64?
            var least: Int64 = 0
            skipping.withUnsafeBufferPointer { skip in
                for index in words.indices where !skip[index] {
                    let value = Int64(bitPattern: words[index])
                    least = kept == nil ? value : Swift.min(least, value)
                    kept = words[index]
                }
            }
            guard kept != nil else {
                append(UInt8(0))
                append(UInt64(0))
                return
            }
            let filled = [UInt64](unsafeUninitializedCapacity: words.count) { buffer, initialized in
                skipping.withUnsafeBufferPointer { skip in
                    for index in words.indices { buffer[index] = skip[index] ? UInt64(bitPattern: least) : words[index] }
                }
                initialized = words.count
            }
            filled.withUnsafeBufferPointer { appendPackedWords($0) }
        }
    }

    private mutating func appendPackedWords(_ words: UnsafeBufferPointer<UInt64>) {
        let count = words.count
        guard count > 0 else {
            append(UInt8(0))
            append(UInt64(0))
            return
        }
        var least = Int64(bitPattern: words[0])
        var most = least
        for word in words {
            let value = Int64(bitPattern: word)
            least = Swift.min(least, value)
            most = Swift.max(most, value)
        }
        let base = UInt64(bitPattern: least)
        let width = Self.packedWidth(range: UInt64(bitPattern: most) &- base)
        append(UInt8(width))
        if width == 64 {
            #if _endian(little)
            append(UnsafeRawBufferPointer(words))
            #else
            for word in words { append(word) }
            #endif
            return
        }
        append(base)
        let byteCount = (count * width + 7) / 8
        guard byteCount > 0 else { return }
        reserve(byteCount)
        let at = self.count
        storage.withUnsafeMutableBytes { raw in
            let out = raw.baseAddress!.advanced(by: at)
            switch width {
            case 8:
                let target = out.assumingMemoryBound(to: UInt8.self)
                for index in 0..<count { target[index] = UInt8(truncatingIfNeeded: words[index] &- base) }
            case 16:
                for index in 0..<count {
                    out.storeBytes(of: UInt16(truncatingIfNeeded: words[index] &- base).littleEndian, toByteOffset: 2 * index, as: UInt16.self)
                }
            case 32:
                for index in 0..<count {
                    out.storeBytes(of: UInt32(truncatingIfNeeded: words[index] &- base).littleEndian, toByteOffset: 4 * index, as: UInt32.self)
                }
            default:  // 1, 2 or 4 bits: whole bytes assembled, then stored
                let target = out.assumingMemoryBound(to: UInt8.self)
                var index = 0
                for byteIndex in 0..<byteCount {
                    var byte: UInt8 = 0
                    var shift = 0
                    while shift < 8, index < count {
                        byte |= UInt8(truncatingIfNeeded: words[index] &- base) << UInt8(shift)
                        shift += width
                        index += 1
                    }
                    target[byteIndex] = byte
                }
            }
        }
        self.count += byteCount
    }

    /// One bit per flag, rounded up to whole bytes.
    package mutating func appendBits(_ flags: [Bool]) {
        var byte: UInt8 = 0
        for (index, flag) in flags.enumerated() {
            if flag { byte |= 1 << UInt8(index & 7) }
            if index & 7 == 7 { append(byte); byte = 0 }
        }
        if flags.count & 7 != 0 { append(byte) }
    }

    /// Zero bytes up to the next multiple of `alignment`.
    package mutating func padToMultiple(of alignment: Int) {
        let padding = (alignment - count % alignment) % alignment
        guard padding > 0 else { return }
        reserve(padding)
        let at = count
        storage.withUnsafeMutableBytes { raw in
            for offset in at..<at + padding { raw[offset] = 0 }
        }
        count += padding
    }

    /// Overwrites a previously appended 32-bit value (used for back-patched lengths and checksums).
    package mutating func patch(_ value: UInt32, at offset: Int) {
        precondition(offset + 4 <= count, "patch past the written bytes")
        storage.withUnsafeMutableBytes { $0.storeBytes(of: value.littleEndian, toByteOffset: offset, as: UInt32.self) }
    }

    package mutating func patch(_ value: UInt64, at offset: Int) {
        precondition(offset + 8 <= count, "patch past the written bytes")
        storage.withUnsafeMutableBytes { $0.storeBytes(of: value.littleEndian, toByteOffset: offset, as: UInt64.self) }
    }

    /// Overwrites previously appended bytes at `offset`.
    package mutating func patch(_ data: [UInt8], at offset: Int) {
        precondition(offset + data.count <= count, "patch past the written bytes")
        storage.withUnsafeMutableBytes { target in
            data.withUnsafeBytes { target.baseAddress!.advanced(by: offset).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        }
    }
}
