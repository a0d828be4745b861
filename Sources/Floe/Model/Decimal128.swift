import Foundation
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// A 128-bit decimal floating-point number: IEEE 754-2008 decimal128 in the binary integer
/// significand (BID) encoding, the same bits as BSON's and Realm's `Decimal128`.
///
/// A value is a coefficient of up to 34 decimal digits times a power of ten between
/// 10⁻⁶¹⁷⁶ and 10⁶¹¹¹, or NaN, or ±infinity. Decimal fractions such as 0.1 are exact, and
/// results are rounded to 34 digits, half to even.
///
/// The value keeps its exponent, so `1.0` and `1.00` are different representations that print
/// differently, yet compare (and hash) as equal numbers.
///
/// ```swift
/// let price: Decimal128 = "19.99"
/// let total = price * 3            // 59.97
/// let third = Decimal128(1) / 3    // 0.3333333333333333333333333333333333
/// let one: Decimal128 = "1.0"
/// one == "1.00"                     // true
/// one.description                   // "1.0"
/// ```
public struct Decimal128: Sendable {
    /// The raw BID bits: sign in bit 127, then the combination field, exponent and coefficient.
    var bits: UInt128

    init(bits: UInt128) {
        self.bits = bits
    }

    /// Creates a value from its raw BID bits, split into the high and low 64-bit words.
    init(high: UInt64, low: UInt64) {
        bits = UInt128(high) << 64 | UInt128(low)
    }

    /// The raw BID bits, split into the high and low 64-bit words.
    var storageWords: (high: UInt64, low: UInt64) {
        (UInt64(truncatingIfNeeded: bits >> 64), UInt64(truncatingIfNeeded: bits))
    }
}

// MARK: - Constants and special values

extension Decimal128 {
    /// Digits in the coefficient.
    static let precision = 34
    /// The exponent of the smallest coefficient unit (the quantum), lowest and highest.
    static let minExponent = -6176
    static let maxExponent = 6111
    static let exponentBias = 6176
    static let signMask: UInt128 = 1 << 127
    /// 10⁰ through 10³⁸: every power of ten a `UInt128` holds.
    static let powersOfTen = DecimalParts.powersOfTen
    /// 10³⁴ − 1, the largest coefficient.
    static let maxCoefficient: UInt128 = powersOfTen[34] - 1

    /// Zero, with exponent 0.
    ///
    /// ```swift
    /// Decimal128.zero.description   // "0"
    /// ```
    public static let zero = Decimal128(bits: UInt128(0x3040_0000_0000_0000) << 64)

    /// A quiet NaN ("not a number"). It is unequal to everything, itself included.
    ///
    /// ```swift
    /// Decimal128.nan == Decimal128.nan   // false
    /// Decimal128.nan.isNaN               // true
    /// ```
    public static let nan = Decimal128(bits: UInt128(0x7C00_0000_0000_0000) << 64)

    /// Positive infinity. Negate it for negative infinity.
    ///
    /// ```swift
    /// Decimal128(1) / 0 == .infinity   // true
    /// (-Decimal128.infinity).description   // "-Infinity"
    /// ```
    public static let infinity = Decimal128(bits: UInt128(0x7800_0000_0000_0000) << 64)

    /// The largest finite value, 9.999999999999999999999999999999999E+6144.
    ///
    /// ```swift
    /// Decimal128.greatestFiniteMagnitude * 10 == .infinity   // true
    /// ```
    public static let greatestFiniteMagnitude = make(negative: false, coefficient: maxCoefficient, exponent: maxExponent)

    /// The smallest positive value, 1E-6176.
    ///
    /// ```swift
    /// Decimal128.leastNonzeroMagnitude.description   // "1E-6176"
    /// ```
    public static let leastNonzeroMagnitude = make(negative: false, coefficient: 1, exponent: minExponent)
}

// MARK: - Classification

extension Decimal128 {
    enum Kind { case nan, infinity, finite }

    var highWord: UInt64 { UInt64(truncatingIfNeeded: bits >> 64) }

    var kind: Kind {
        let high = highWord
        if high & 0x7C00_0000_0000_0000 == 0x7C00_0000_0000_0000 { return .nan }
        if high & 0x7800_0000_0000_0000 == 0x7800_0000_0000_0000 { return .infinity }
        return .finite
    }

    /// Coefficient and unbiased exponent of a finite value. Non-canonical coefficients (larger
    /// than 34 digits can hold) read as zero, as IEEE 754 requires.
    var finiteParts: (coefficient: UInt128, exponent: Int) {
        let parts = DecimalParts(bits: bits)
        return (parts.coefficient, parts.exponent)
    }

    /// Whether the value is NaN (quiet or signaling).
    ///
    /// ```swift
    /// try Decimal128(string: "NaN").isNaN   // true
    /// ```
    public var isNaN: Bool { kind == .nan }

    /// Whether the value is a signaling NaN (Floe's arithmetic never makes one).
    ///
    /// ```swift
    /// Decimal128.nan.isSignalingNaN   // false
    /// ```
    public var isSignalingNaN: Bool { highWord & 0x7E00_0000_0000_0000 == 0x7E00_0000_0000_0000 }

    /// Whether the value is positive or negative infinity.
    ///
    /// ```swift
    /// (Decimal128(-1) / 0).isInfinite   // true
    /// ```
    public var isInfinite: Bool { kind == .infinity }

    /// Whether the value is neither NaN nor infinite.
    ///
    /// ```swift
    /// Decimal128(5).isFinite   // true
    /// ```
    public var isFinite: Bool { kind == .finite }

    /// Whether the value is zero, of either sign and any exponent.
    ///
    /// ```swift
    /// try Decimal128(string: "-0.000").isZero   // true
    /// ```
    public var isZero: Bool { kind == .finite && finiteParts.coefficient == 0 }

    /// Whether the sign bit is set: true for negative numbers, negative zero and -Infinity.
    ///
    /// ```swift
    /// try Decimal128(string: "-0").isSigned   // true
    /// Decimal128(0).isSigned                  // false
    /// ```
    public var isSigned: Bool { bits & Decimal128.signMask != 0 }

    /// The sign, `.minus` when ``isSigned``.
    ///
    /// ```swift
    /// Decimal128(-3).sign   // .minus
    /// ```
    public var sign: FloatingPointSign { isSigned ? .minus : .plus }

    /// The absolute value: the same representation with the sign bit cleared.
    ///
    /// ```swift
    /// try Decimal128(string: "-2.50").magnitude.description   // "2.50"
    /// ```
    public var magnitude: Decimal128 { Decimal128(bits: bits & ~Decimal128.signMask) }
}
