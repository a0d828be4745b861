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
struct ByteWriter {
    /// The written bytes are `storage[0..<count]`; the rest is unset room to grow into, never read.
    private var storage: [UInt8]
    private(set) var count = 0

    init(capacity: Int = 256) {
        storage = Self.room(Swift.max(capacity, 16))
    }

    /// `count` bytes whose values are not set (`count` > 0: an empty array must not be made
    /// this way, see `ByteReader.readWords`).
    private static func room(_ count: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { _, initialized in initialized = count }
    }

    /// The written bytes (a copy).
    var bytes: [UInt8] { count == storage.count ? storage : Array(storage[0..<count]) }

    /// The written bytes, leaving the writer empty (no copy).
    mutating func takeBytes() -> [UInt8] {
        storage.removeLast(storage.count - count)
        defer {
            storage = []
            count = 0
        }
        return storage
    }

    /// Calls `body` with the written bytes, without copying them.
    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
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
    mutating func append<T: FixedWidthInteger>(_ value: T) {
        reserve(MemoryLayout<T>.size)
        let at = count
        storage.withUnsafeMutableBytes { $0.storeBytes(of: value.littleEndian, toByteOffset: at, as: T.self) }
        count += MemoryLayout<T>.size
    }

    mutating func append(_ data: [UInt8]) {
        data.withUnsafeBytes { append($0) }
    }

    mutating func append(_ data: UnsafeRawBufferPointer) {
        guard let source = data.baseAddress, data.count > 0 else { return }
        reserve(data.count)
        let at = count
        storage.withUnsafeMutableBytes { $0.baseAddress!.advanced(by: at).copyMemory(from: source, byteCount: data.count) }
        count += data.count
    }

    /// A length-prefixed UTF-8 string.
    mutating func appendString(_ string: String) {
        var copy = string
        copy.withUTF8 { utf8 in
            append(UInt32(utf8.count))
            append(UnsafeRawBufferPointer(utf8))
        }
    }

    /// Appends an array of integers as raw little-endian words.
    mutating func appendWords(_ words: [UInt64]) {
        #if _endian(little)
        words.withUnsafeBytes { append($0) }
        #else
        for word in words { append(word) }
        #endif
    }

    mutating func appendInts(_ values: [Int64]) {
        #if _endian(little)
        values.withUnsafeBytes { append($0) }
        #else
        for value in values { append(value) }
        #endif
    }

    /// One bit per flag, rounded up to whole bytes.
    mutating func appendBits(_ flags: [Bool]) {
        var byte: UInt8 = 0
        for (index, flag) in flags.enumerated() {
            if flag { byte |= 1 << UInt8(index & 7) }
            if index & 7 == 7 { append(byte); byte = 0 }
        }
        if flags.count & 7 != 0 { append(byte) }
    }

    /// Zero bytes up to the next multiple of `alignment`.
    mutating func padToMultiple(of alignment: Int) {
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
    mutating func patch(_ value: UInt32, at offset: Int) {
        precondition(offset + 4 <= count, "patch past the written bytes")
        storage.withUnsafeMutableBytes { $0.storeBytes(of: value.littleEndian, toByteOffset: offset, as: UInt32.self) }
    }

    mutating func patch(_ value: UInt64, at offset: Int) {
        precondition(offset + 8 <= count, "patch past the written bytes")
        storage.withUnsafeMutableBytes { $0.storeBytes(of: value.littleEndian, toByteOffset: offset, as: UInt64.self) }
    }

    /// Overwrites previously appended bytes at `offset`.
    mutating func patch(_ data: [UInt8], at offset: Int) {
        precondition(offset + data.count <= count, "patch past the written bytes")
        storage.withUnsafeMutableBytes { target in
            data.withUnsafeBytes { target.baseAddress!.advanced(by: offset).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        }
    }
}
