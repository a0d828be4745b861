import Foundation
import Synchronization
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// A 12-byte identifier, laid out like a BSON (and Realm) ObjectId.
///
/// The bytes are a 4-byte big-endian timestamp in seconds since 1970, 5 bytes chosen at random
/// once per process, and a 3-byte big-endian counter that starts at a random value. Identifiers
/// made later in the same process therefore sort after earlier ones (within the same second,
/// until the counter wraps), and identifiers made in different processes do not collide.
///
/// ```swift
/// let id = ObjectId.generate()
/// print(id)                         // "65f1c3a2b4d7e8f9a0123456"
/// let same = try ObjectId(string: id.stringValue)
/// assert(same == id)
/// ```
public struct ObjectId: Sendable, Hashable {
    /// Bytes 0–7, big-endian.
    private var head: UInt64
    /// Bytes 8–11, big-endian.
    private var tail: UInt32

    /// An identifier whose 12 bytes are all zero.
    ///
    /// Use ``generate()`` for a fresh, unique identifier.
    ///
    /// ```swift
    /// ObjectId().stringValue   // "000000000000000000000000"
    /// ```
    public init() {
        head = 0
        tail = 0
    }

    /// Creates an identifier from its two storage words: bytes 0–7 big-endian in `high`, and
    /// bytes 8–11 big-endian in the top 32 bits of `low` (the low 32 bits are ignored).
    init(high: UInt64, low: UInt64) {
        head = high
        tail = UInt32(truncatingIfNeeded: low >> 32)
    }

    /// The identifier as two storage words: bytes 0–7 big-endian in `high`, and bytes 8–11
    /// big-endian in the top 32 bits of `low`, whose low 32 bits are zero.
    var storageWords: (high: UInt64, low: UInt64) {
        (head, UInt64(tail) << 32)
    }

    /// Makes a fresh, unique identifier: the current time in seconds, the process's random
    /// bytes and the next value of the process-wide counter.
    ///
    /// Safe to call from any thread.
    ///
    /// ```swift
    /// let a = ObjectId.generate()
    /// let b = ObjectId.generate()
    /// assert(a != b)
    /// ```
    public static func generate() -> ObjectId {
        let seconds = ObjectId.seconds(of: Date())
        let random = ObjectIdGenerator.processRandom
        let counter = ObjectIdGenerator.nextCounter()
        var id = ObjectId()
        id.head = UInt64(seconds) << 32 | random >> 8
        id.tail = UInt32(truncatingIfNeeded: random & 0xFF) << 24 | counter
        return id
    }

    /// Parses 24 hexadecimal digits (either case), such as `"5f5e1000563412907800002a"`.
    ///
    /// - throws: `FloeError.invalidValueString` naming the string when it is not exactly
    ///   24 hexadecimal digits.
    ///
    /// ```swift
    /// let id = try ObjectId(string: "5F5E1000563412907800002A")
    /// id.stringValue   // "5f5e1000563412907800002a"
    /// ```
    public init(string: String) throws {
        guard let id = ObjectId.parse(string) else {
            throw FloeError.invalidValueString(type: "ObjectId", string: string,
                                               reason: "expected exactly 24 hexadecimal digits")
        }
        self = id
    }

    /// Makes an identifier the way Realm does for a given time, machine and process.
    ///
    /// Bytes 0–3 hold `timestamp` in whole seconds since 1970 (big-endian), bytes 4–6 the low
    /// three bytes of `machineId` and bytes 7–8 the low two bytes of `processId` (both least
    /// significant byte first, as Realm stores them), and bytes 9–11 the next value of the
    /// process-wide counter (big-endian).
    ///
    /// ```swift
    /// let id = ObjectId(timestamp: Date(timeIntervalSince1970: 1_600_000_000), machineId: 0x123456, processId: 0x7890)
    /// id.stringValue.prefix(18)   // "5f5e10005634129078"
    /// ```
    public init(timestamp: Date, machineId: Int, processId: Int) {
        let seconds = ObjectId.seconds(of: timestamp)
        let machine = UInt64(truncatingIfNeeded: machineId)
        let process = UInt64(truncatingIfNeeded: processId)
        var middle: UInt64 = 0   // bytes 4...8, most significant first
        middle |= (machine & 0xFF) << 32
        middle |= (machine >> 8 & 0xFF) << 24
        middle |= (machine >> 16 & 0xFF) << 16
        middle |= (process & 0xFF) << 8
        middle |= process >> 8 & 0xFF
        head = UInt64(seconds) << 32 | middle >> 8
        tail = UInt32(truncatingIfNeeded: middle & 0xFF) << 24 | ObjectIdGenerator.nextCounter()
    }

    /// The 24 lowercase hexadecimal digits of the identifier.
    ///
    /// ```swift
    /// ObjectId().stringValue   // "000000000000000000000000"
    /// ```
    public var stringValue: String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(24)
        for shift in stride(from: 60, through: 0, by: -4) {
            out.append(digits[Int(head >> UInt64(shift) & 0xF)])
        }
        for shift in stride(from: 28, through: 0, by: -4) {
            out.append(digits[Int(tail >> UInt32(shift) & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The time stored in the first four bytes, to the second.
    ///
    /// ```swift
    /// let id = ObjectId.generate()
    /// abs(id.timestamp.timeIntervalSinceNow) < 2   // true
    /// ```
    public var timestamp: Date {
        Date(timeIntervalSince1970: TimeInterval(UInt32(truncatingIfNeeded: head >> 32)))
    }

    /// Whole seconds since 1970 (truncated toward zero), kept to their low 32 bits.
    private static func seconds(of date: Date) -> UInt32 {
        let interval = date.timeIntervalSince1970
        guard interval.isFinite else { return 0 }
        let clamped = Swift.max(Swift.min(interval, 9.0e18), -9.0e18)
        return UInt32(truncatingIfNeeded: Int64(clamped))
    }

    private static func parse(_ string: String) -> ObjectId? {
        let utf8 = string.utf8
        guard utf8.count == 24 else { return nil }
        var value = ObjectId()
        for (index, byte) in utf8.enumerated() {
            let nibble: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            if index < 16 {
                value.head = value.head << 4 | UInt64(nibble)
            } else {
                value.tail = value.tail << 4 | UInt32(nibble)
            }
        }
        return value
    }
}

/// The per-process state behind ``ObjectId/generate()``.
private enum ObjectIdGenerator {
    /// Five random bytes, chosen once per process.
    static let processRandom = UInt64.random(in: 0...0xFF_FFFF_FFFF)
    /// The 24-bit counter, starting at a random value.
    static let counter = Atomic<UInt32>(UInt32.random(in: 0...0xFF_FFFF))

    static func nextCounter() -> UInt32 {
        counter.wrappingAdd(1, ordering: .relaxed).oldValue & 0xFF_FFFF
    }
}

extension ObjectId: Comparable {
    /// Orders identifiers by their bytes, so by creation time first.
    ///
    /// ```swift
    /// try ObjectId(string: "000000000000000000000001") < ObjectId(string: "000000000000000000000002")   // true
    /// ```
    public static func < (lhs: ObjectId, rhs: ObjectId) -> Bool {
        (lhs.head, lhs.tail) < (rhs.head, rhs.tail)
    }
}

extension ObjectId: CustomStringConvertible, LosslessStringConvertible {
    /// The same as ``stringValue``: 24 lowercase hexadecimal digits.
    ///
    /// ```swift
    /// print(ObjectId())   // "000000000000000000000000"
    /// ```
    public var description: String { stringValue }

    /// Parses 24 hexadecimal digits, or returns nil.
    ///
    /// ```swift
    /// ObjectId("5f5e1000563412907800002a")   // an ObjectId
    /// ObjectId("not an id")                  // nil
    /// ```
    public init?(_ description: String) {
        guard let id = ObjectId.parse(description) else { return nil }
        self = id
    }
}

extension ObjectId: Codable {
    /// Decodes an identifier from its 24-digit hexadecimal string.
    ///
    /// ```swift
    /// let id = try JSONDecoder().decode([ObjectId].self, from: Data(#"["5f5e1000563412907800002a"]"#.utf8))
    /// ```
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let string = try container.decode(String.self)
        do {
            try self.init(string: string)
        } catch let error as FloeError {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    /// Encodes the identifier as its 24-digit hexadecimal string.
    ///
    /// ```swift
    /// let json = try JSONEncoder().encode([ObjectId()])   // ["000000000000000000000000"]
    /// ```
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(stringValue)
    }
}
