/// CRC-32C (Castagnoli), the checksum every node, chunk and commit record carries.
///
/// Slicing-by-16 in pure Swift: the tables are built once; the inner loop folds sixteen
/// bytes per step. (Swift can import clang's `_Builtin_intrinsics.intel` and call
/// `_mm_crc32_u64` without a C target, but only in a module compiled with `-Xcc -msse4.2`:
/// an unsafe flag, which SwiftPM refuses in a package others depend on, and Swift has no
/// per-function target attribute to pick the instruction after a CPU check.)
package struct CRC32C {
    package private(set) var state: UInt32 = 0xFFFF_FFFF

    package init() {}

    /// The checksum of everything fed so far.
    package var value: UInt32 { state ^ 0xFFFF_FFFF }

    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        state = CRC32C.fold(state, base, bytes.count)
    }

    package mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    package static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc = CRC32C()
        crc.update(bytes)
        return crc.value
    }

    package static func checksum(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0) }
    }

    /// Sixteen tables of 256 entries: table `k` advances a byte's CRC past `k` more zero bytes.
    private static let tables: [UInt32] = {
        let polynomial: UInt32 = 0x82F6_3B78
        var table = [UInt32](repeating: 0, count: 16 * 256)
        for byte in 0..<256 {
            var crc = UInt32(byte)
            for _ in 0..<8 { crc = (crc & 1) != 0 ? (crc >> 1) ^ polynomial : crc >> 1 }
            table[byte] = crc
        }
        for slice in 1..<16 {
            for byte in 0..<256 {
                let previous = table[(slice - 1) * 256 + byte]
                table[slice * 256 + byte] = (previous >> 8) ^ table[Int(previous & 0xFF)]
            }
        }
        return table
    }()

    /// Slicing-by-16: two independent halves of eight lookups per 16 bytes (11% fewer
    /// instructions than slicing-by-8, and more of them can run at once).
    private static func fold(_ start: UInt32, _ base: UnsafeRawPointer, _ count: Int) -> UInt32 {
        tables.withUnsafeBufferPointer { buffer in
            let table = buffer.baseAddress!
            @inline(__always) func lookup(_ slice: Int, _ word: UInt64, _ shift: UInt64) -> UInt32 {
                table[slice &* 256 &+ Int(truncatingIfNeeded: (word &>> shift) & 0xFF)]
            }
            var crc = start
            var pointer = base
            var remaining = count
            while remaining >= 16 {
                let low = UInt64(littleEndian: pointer.loadUnaligned(as: UInt64.self)) ^ UInt64(crc)
                let high = UInt64(littleEndian: pointer.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
                let first = lookup(15, low, 0) ^ lookup(14, low, 8) ^ lookup(13, low, 16) ^ lookup(12, low, 24)
                    ^ lookup(11, low, 32) ^ lookup(10, low, 40) ^ lookup(9, low, 48) ^ lookup(8, low, 56)
                let second = lookup(7, high, 0) ^ lookup(6, high, 8) ^ lookup(5, high, 16) ^ lookup(4, high, 24)
                    ^ lookup(3, high, 32) ^ lookup(2, high, 40) ^ lookup(1, high, 48) ^ lookup(0, high, 56)
                crc = first ^ second
                pointer += 16
                remaining -= 16
            }
            while remaining > 0 {
                crc = (crc >> 8) ^ table[Int((crc ^ UInt32(pointer.load(as: UInt8.self))) & 0xFF)]
                pointer += 1
                remaining -= 1
            }
            return crc
        }
    }
}
