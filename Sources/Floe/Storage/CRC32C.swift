/// CRC-32C (Castagnoli), the checksum every node, chunk and commit record carries.
///
/// Slicing-by-8 in pure Swift: the tables are built once; the inner loop folds eight
/// bytes per step so that a commit's checksum costs a few microseconds, not tens.
struct CRC32C {
    private(set) var state: UInt32 = 0xFFFF_FFFF

    init() {}

    /// The checksum of everything fed so far.
    var value: UInt32 { state ^ 0xFFFF_FFFF }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        state = CRC32C.fold(state, base, bytes.count)
    }

    mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc = CRC32C()
        crc.update(bytes)
        return crc.value
    }

    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0) }
    }

    private static let tables: [UInt32] = {
        let polynomial: UInt32 = 0x82F6_3B78
        var table = [UInt32](repeating: 0, count: 8 * 256)
        for byte in 0..<256 {
            var crc = UInt32(byte)
            for _ in 0..<8 { crc = (crc & 1) != 0 ? (crc >> 1) ^ polynomial : crc >> 1 }
            table[byte] = crc
        }
        for slice in 1..<8 {
            for byte in 0..<256 {
                let previous = table[(slice - 1) * 256 + byte]
                table[slice * 256 + byte] = (previous >> 8) ^ table[Int(previous & 0xFF)]
            }
        }
        return table
    }()

    private static func fold(_ start: UInt32, _ base: UnsafeRawPointer, _ count: Int) -> UInt32 {
        tables.withUnsafeBufferPointer { table in
            var crc = start
            var pointer = base
            var remaining = count
            while remaining >= 8 {
                let word = UInt64(littleEndian: pointer.loadUnaligned(as: UInt64.self)) ^ UInt64(crc)
                crc = table[7 * 256 + Int(word & 0xFF)]
                    ^ table[6 * 256 + Int((word >> 8) & 0xFF)]
                    ^ table[5 * 256 + Int((word >> 16) & 0xFF)]
                    ^ table[4 * 256 + Int((word >> 24) & 0xFF)]
                    ^ table[3 * 256 + Int((word >> 32) & 0xFF)]
                    ^ table[2 * 256 + Int((word >> 40) & 0xFF)]
                    ^ table[1 * 256 + Int((word >> 48) & 0xFF)]
                    ^ table[Int(word >> 56)]
                pointer += 8
                remaining -= 8
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
