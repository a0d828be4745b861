import Foundation

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
    private var bits: UInt128

    private init(bits: UInt128) {
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
    private static let precision = 34
    /// The exponent of the smallest coefficient unit (the quantum), lowest and highest.
    private static let minExponent = -6176
    private static let maxExponent = 6111
    private static let exponentBias = 6176
    private static let signMask: UInt128 = 1 << 127
    /// 10⁰ through 10³⁸: every power of ten a `UInt128` holds.
    private static let powersOfTen: [UInt128] = {
        var powers: [UInt128] = [1]
        for _ in 1...38 { powers.append(powers[powers.count - 1] * 10) }
        return powers
    }()
    /// 10³⁴ − 1, the largest coefficient.
    private static let maxCoefficient: UInt128 = powersOfTen[34] - 1

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
    private enum Kind { case nan, infinity, finite }

    private var highWord: UInt64 { UInt64(truncatingIfNeeded: bits >> 64) }

    private var kind: Kind {
        let high = highWord
        if high & 0x7C00_0000_0000_0000 == 0x7C00_0000_0000_0000 { return .nan }
        if high & 0x7800_0000_0000_0000 == 0x7800_0000_0000_0000 { return .infinity }
        return .finite
    }

    /// Coefficient and unbiased exponent of a finite value. Non-canonical coefficients (larger
    /// than 34 digits can hold) read as zero, as IEEE 754 requires.
    private var finiteParts: (coefficient: UInt128, exponent: Int) {
        let high = highWord
        if high & 0x6000_0000_0000_0000 == 0x6000_0000_0000_0000 {
            // The "11" form: the implied coefficient is at least 2¹¹³, beyond 34 digits.
            return (0, Int(high >> 47 & 0x3FFF) - Decimal128.exponentBias)
        }
        let coefficient = bits & ((UInt128(1) << 113) - 1)
        return (coefficient > Decimal128.maxCoefficient ? 0 : coefficient, Int(high >> 49 & 0x3FFF) - Decimal128.exponentBias)
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

// MARK: - Making values

extension Decimal128 {
    /// Packs a coefficient of at most 34 digits and an exponent in range.
    private static func make(negative: Bool, coefficient: UInt128, exponent: Int) -> Decimal128 {
        assert(coefficient <= maxCoefficient && (minExponent...maxExponent).contains(exponent))
        var bits = coefficient | UInt128(exponent + exponentBias) << 113
        if negative { bits |= signMask }
        return Decimal128(bits: bits)
    }

    private static func infinity(negative: Bool) -> Decimal128 {
        negative ? -infinity : infinity
    }

    /// The number of decimal digits of `value` (0 for 0).
    private static func digitCount(_ value: UInt128) -> Int {
        var count = 0
        while count < powersOfTen.count && value >= powersOfTen[count] { count += 1 }
        return count
    }

    /// Rounds `coefficient × 10^exponent` (plus something nonzero below its last digit when
    /// `sticky`) to 34 digits, half to even, and fits the exponent into range: subnormal results
    /// lose digits, too-large exponents are folded into the coefficient when it has room, and
    /// anything larger overflows to infinity.
    private static func rounded(negative: Bool, coefficient: UInt128, exponent: Int, sticky: Bool = false) -> Decimal128 {
        var coefficient = coefficient
        var exponent = exponent
        let digits = digitCount(coefficient)
        let drop = Swift.max(digits - precision, minExponent - exponent)
        assert(drop > 0 || !sticky, "a sticky remainder needs a digit to round at")
        if drop > 0 {
            var roundDigit: UInt128 = 0
            var rest = sticky
            if drop > digits {
                rest = rest || coefficient != 0
                coefficient = 0
            } else {
                let (kept, remainder) = coefficient.quotientAndRemainder(dividingBy: powersOfTen[drop - 1])
                rest = rest || remainder != 0
                roundDigit = kept % 10
                coefficient = kept / 10
            }
            exponent += drop
            if roundDigit > 5 || (roundDigit == 5 && (rest || coefficient & 1 == 1)) {
                coefficient += 1
                if coefficient > maxCoefficient {
                    coefficient /= 10
                    exponent += 1
                }
            }
        }
        if exponent > maxExponent {
            if coefficient == 0 {
                exponent = maxExponent
            } else {
                let padding = exponent - maxExponent
                guard digitCount(coefficient) + padding <= precision else { return infinity(negative: negative) }
                coefficient *= powersOfTen[padding]
                exponent = maxExponent
            }
        }
        return make(negative: negative, coefficient: coefficient, exponent: exponent)
    }

    /// Creates the value of an integer.
    ///
    /// ```swift
    /// Decimal128(42).description   // "42"
    /// ```
    public init(_ value: Int) {
        self = Decimal128.make(negative: value < 0, coefficient: UInt128(value.magnitude), exponent: 0)
    }

    /// Creates the value of any integer, rounded to 34 digits if it has more.
    ///
    /// ```swift
    /// Decimal128(UInt64.max).description   // "18446744073709551615"
    /// ```
    public init<T: BinaryInteger>(_ value: T) {
        if let magnitude = UInt128(exactly: value.magnitude) {
            self = Decimal128.rounded(negative: value < 0, coefficient: magnitude, exponent: 0)
        } else {
            self = Decimal128.parse(String(value))!
        }
    }

    /// Creates the value of an integer when 34 digits hold it exactly, or returns nil.
    ///
    /// ```swift
    /// Decimal128(exactly: 12_345)          // 12345
    /// Decimal128(exactly: UInt128.max)     // nil: 39 significant digits
    /// ```
    public init?<T: BinaryInteger>(exactly source: T) {
        var digits = String(source.magnitude)
        var exponent = 0
        while digits.count > Decimal128.precision, digits.last == "0" {
            digits.removeLast()
            exponent += 1
        }
        guard digits.count <= Decimal128.precision, let coefficient = UInt128(digits) else { return nil }
        self = Decimal128.make(negative: source < 0, coefficient: coefficient, exponent: exponent)
    }

    /// Creates the decimal that the double prints as: the shortest decimal string that reads
    /// back as the same double, so `0.1` becomes exactly 0.1. Integral doubles get exponent 0.
    /// (Realm instead rounds doubles to 15 significant digits.)
    ///
    /// ```swift
    /// Decimal128(0.1).description     // "0.1"
    /// Decimal128(2.0).description     // "2"
    /// Decimal128(1e300).description   // "1E+300"
    /// ```
    public init(_ value: Double) {
        if value.isNaN {
            self = .nan
            return
        }
        if value.isInfinite {
            self = Decimal128.infinity(negative: value < 0)
            return
        }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        self = Decimal128.parse(text)!
    }

    /// Parses a decimal number, `NaN` or infinity.
    ///
    /// Accepted: an optional sign, digits with an optional decimal point, and an optional
    /// exponent (`1.5`, `-0.001`, `.5`, `1E+10`, `1.23e-5`); or `NaN`, `Inf` or `Infinity` in any
    /// case, with an optional sign. The digits and exponent are kept as written (`"1.50"` keeps
    /// its trailing zero). More than 34 significant digits are rounded half to even; exponents
    /// beyond the range round to zero or overflow to infinity, as IEEE 754 specifies.
    ///
    /// - throws: `FloeError.invalidValueString` naming the string when it is not a number.
    ///
    /// ```swift
    /// let d = try Decimal128(string: "1.23e-5")
    /// d.description   // "0.0000123"
    /// ```
    public init(string: String) throws {
        guard let value = Decimal128.parse(string) else {
            throw FloeError.invalidValueString(
                type: "Decimal128", string: string,
                reason: "expected a decimal number such as 1.5, -0.001 or 1E+10, or NaN, Inf or Infinity")
        }
        self = value
    }

    private static func parse(_ string: String) -> Decimal128? {
        var bytes = Substring(string).utf8[...]
        var negative = false
        if let first = bytes.first, first == UInt8(ascii: "+") || first == UInt8(ascii: "-") {
            negative = first == UInt8(ascii: "-")
            bytes = bytes.dropFirst()
        }
        if let letter = bytes.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(letter), letter != UInt8(ascii: ".") {
            switch String(decoding: bytes, as: UTF8.self).lowercased() {
            case "nan": return Decimal128.nan
            case "inf", "infinity": return infinity(negative: negative)
            default: return nil
            }
        }

        // At most 38 significant digits go into the coefficient; later ones only shift the
        // exponent and, when nonzero, leave a sticky remainder for rounding.
        var coefficient: UInt128 = 0
        var significantDigits = 0
        var sticky = false
        var exponentAdjustment = 0
        var sawDigit = false
        var sawPoint = false
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: ".") {
                if sawPoint { return nil }
                sawPoint = true
            } else if let digit = Decimal128.digitValue(byte) {
                sawDigit = true
                if sawPoint { exponentAdjustment -= 1 }
                if significantDigits == 0 && digit == 0 {
                    // A leading zero.
                } else if significantDigits < 38 {
                    coefficient = coefficient * 10 + UInt128(digit)
                    significantDigits += 1
                } else {
                    exponentAdjustment += 1
                    if digit != 0 { sticky = true }
                }
            } else {
                break
            }
            index = bytes.index(after: index)
        }
        guard sawDigit else { return nil }

        var exponent = 0
        if index < bytes.endIndex {
            guard bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") else { return nil }
            index = bytes.index(after: index)
            var exponentNegative = false
            if index < bytes.endIndex, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                exponentNegative = bytes[index] == UInt8(ascii: "-")
                index = bytes.index(after: index)
            }
            var sawExponentDigit = false
            while index < bytes.endIndex, let digit = Decimal128.digitValue(bytes[index]) {
                sawExponentDigit = true
                // Saturate: anything this large is far outside the range anyway.
                if exponent < 1_000_000_000_000 { exponent = exponent * 10 + digit }
                index = bytes.index(after: index)
            }
            guard sawExponentDigit, index == bytes.endIndex else { return nil }
            if exponentNegative { exponent = -exponent }
        }
        return rounded(negative: negative, coefficient: coefficient, exponent: exponent + exponentAdjustment, sticky: sticky)
    }

    private static func digitValue(_ byte: UInt8) -> Int? {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? Int(byte - UInt8(ascii: "0")) : nil
    }
}

// MARK: - Conversions out

extension Decimal128 {
    /// The exact value as a string, following the IEEE 754 / BSON "to-scientific-string" rules:
    /// plain notation when the exponent is at most 0 and the adjusted exponent at least −6,
    /// scientific notation (`1.050E+4`) otherwise. NaN prints as `NaN` and infinities as
    /// `Infinity` and `-Infinity`. Parsing the string gives back the same representation.
    ///
    /// ```swift
    /// try Decimal128(string: "0.00123400000").stringValue   // "0.00123400000"
    /// try Decimal128(string: "1050E1").stringValue          // "1.050E+4"
    /// try Decimal128(string: "-100E-10").stringValue        // "-1.00E-8"
    /// ```
    public var stringValue: String {
        switch kind {
        case .nan:
            return "NaN"
        case .infinity:
            return isSigned ? "-Infinity" : "Infinity"
        case .finite:
            let (coefficient, exponent) = finiteParts
            let digits = String(coefficient)
            var out = isSigned ? "-" : ""
            let adjusted = exponent + digits.count - 1
            if exponent <= 0 && adjusted >= -6 {
                let integerDigits = digits.count + exponent
                if exponent == 0 {
                    out += digits
                } else if integerDigits > 0 {
                    out += digits.prefix(integerDigits) + "." + digits.dropFirst(integerDigits)
                } else {
                    out += "0." + String(repeating: "0", count: -integerDigits) + digits
                }
            } else {
                out += digits.prefix(1)
                if digits.count > 1 { out += "." + digits.dropFirst() }
                out += "E" + (adjusted >= 0 ? "+" : "-") + String(adjusted.magnitude)
            }
            return out
        }
    }

    /// The nearest `Double` (NaN and infinities carry over; tiny values become zero, huge ones
    /// infinity).
    ///
    /// ```swift
    /// try Decimal128(string: "0.1").doubleValue   // 0.1
    /// ```
    public var doubleValue: Double {
        Double(stringValue) ?? .nan
    }
}

extension Decimal128: CustomStringConvertible {
    /// The same as ``stringValue``.
    ///
    /// ```swift
    /// print(Decimal128(2.5))   // "2.5"
    /// ```
    public var description: String { stringValue }
}

// MARK: - Comparison

extension Decimal128 {
    /// Compares numerically: -1, 0 or 1, or nil when either side is NaN.
    private static func compare(_ lhs: Decimal128, _ rhs: Decimal128) -> Int? {
        let lhsKind = lhs.kind, rhsKind = rhs.kind
        if lhsKind == .nan || rhsKind == .nan { return nil }
        let lhsSign = lhs.isZero ? 0 : (lhs.isSigned ? -1 : 1)
        let rhsSign = rhs.isZero ? 0 : (rhs.isSigned ? -1 : 1)
        if lhsSign != rhsSign { return lhsSign < rhsSign ? -1 : 1 }
        if lhsSign == 0 { return 0 }
        let order: Int
        switch (lhsKind == .infinity, rhsKind == .infinity) {
        case (true, true): order = 0
        case (true, false): order = 1
        case (false, true): order = -1
        case (false, false): order = compareMagnitudes(lhs.finiteParts, rhs.finiteParts)
        }
        return lhsSign > 0 ? order : -order
    }

    /// Compares two nonzero finite magnitudes.
    private static func compareMagnitudes(_ lhs: (coefficient: UInt128, exponent: Int),
                                          _ rhs: (coefficient: UInt128, exponent: Int)) -> Int {
        let lhsDigits = digitCount(lhs.coefficient), rhsDigits = digitCount(rhs.coefficient)
        let lhsAdjusted = lhsDigits + lhs.exponent, rhsAdjusted = rhsDigits + rhs.exponent
        if lhsAdjusted != rhsAdjusted { return lhsAdjusted < rhsAdjusted ? -1 : 1 }
        // Same leading digit position: line the coefficients up (at most 33 digits apart).
        var left = lhs.coefficient, right = rhs.coefficient
        if lhs.exponent > rhs.exponent {
            left *= powersOfTen[lhs.exponent - rhs.exponent]
        } else {
            right *= powersOfTen[rhs.exponent - lhs.exponent]
        }
        return left == right ? 0 : (left < right ? -1 : 1)
    }
}

extension Decimal128: Hashable, Comparable {
    /// Numeric equality: `1.0 == 1.00` and `-0 == 0` are true; NaN equals nothing.
    ///
    /// ```swift
    /// try Decimal128(string: "1.0") == Decimal128(string: "1.00")   // true
    /// ```
    public static func == (lhs: Decimal128, rhs: Decimal128) -> Bool {
        compare(lhs, rhs) == 0
    }

    /// Numeric order; false whenever either side is NaN.
    ///
    /// ```swift
    /// Decimal128(1) < Decimal128(2)   // true
    /// ```
    public static func < (lhs: Decimal128, rhs: Decimal128) -> Bool {
        compare(lhs, rhs) == -1
    }

    /// Numeric order; false whenever either side is NaN.
    ///
    /// ```swift
    /// Decimal128(2) <= Decimal128(2)   // true
    /// ```
    public static func <= (lhs: Decimal128, rhs: Decimal128) -> Bool {
        compare(lhs, rhs).map { $0 <= 0 } ?? false
    }

    /// Numeric order; false whenever either side is NaN.
    ///
    /// ```swift
    /// Decimal128(3) > Decimal128(2)   // true
    /// ```
    public static func > (lhs: Decimal128, rhs: Decimal128) -> Bool {
        compare(lhs, rhs) == 1
    }

    /// Numeric order; false whenever either side is NaN.
    ///
    /// ```swift
    /// Decimal128(2) >= Decimal128(3)   // false
    /// ```
    public static func >= (lhs: Decimal128, rhs: Decimal128) -> Bool {
        compare(lhs, rhs).map { $0 >= 0 } ?? false
    }

    /// Hashes the numeric value, so equal numbers such as `1.0` and `1.00` hash alike.
    ///
    /// ```swift
    /// let set: Set<Decimal128> = ["1.0", "1.00", "1"]   // one element
    /// ```
    public func hash(into hasher: inout Hasher) {
        switch kind {
        case .nan:
            hasher.combine(0 as UInt8)
        case .infinity:
            hasher.combine(isSigned ? 1 as UInt8 : 2)
        case .finite:
            var (coefficient, exponent) = finiteParts
            if coefficient == 0 {
                hasher.combine(3 as UInt8)
                return
            }
            while coefficient % 10 == 0 {
                coefficient /= 10
                exponent += 1
            }
            hasher.combine(4 as UInt8)
            hasher.combine(isSigned)
            hasher.combine(coefficient)
            hasher.combine(exponent)
        }
    }
}

// MARK: - Arithmetic

extension Decimal128: SignedNumeric {
    /// The sum, rounded to 34 digits (half to even).
    ///
    /// ```swift
    /// (Decimal128(0.1) + Decimal128(0.2)).description   // "0.3"
    /// ```
    public static func + (lhs: Decimal128, rhs: Decimal128) -> Decimal128 {
        add(lhs, rhs, negatingRight: false)
    }

    /// The difference, rounded to 34 digits (half to even).
    ///
    /// ```swift
    /// (Decimal128("1.0") - "1.00").description   // "0.00"
    /// ```
    public static func - (lhs: Decimal128, rhs: Decimal128) -> Decimal128 {
        add(lhs, rhs, negatingRight: true)
    }

    /// The product, rounded to 34 digits (half to even).
    ///
    /// ```swift
    /// (Decimal128("1.5") * 2).description   // "3.0"
    /// ```
    public static func * (lhs: Decimal128, rhs: Decimal128) -> Decimal128 {
        multiply(lhs, rhs)
    }

    /// The quotient, rounded to 34 digits (half to even). Dividing a nonzero number by zero
    /// gives an infinity; 0 / 0 gives NaN.
    ///
    /// ```swift
    /// (Decimal128(2) / 3).description   // "0.6666666666666666666666666666666667"
    /// ```
    public static func / (lhs: Decimal128, rhs: Decimal128) -> Decimal128 {
        divide(lhs, rhs)
    }

    /// Adds in place.
    ///
    /// ```swift
    /// var total: Decimal128 = 0
    /// total += 2.5
    /// ```
    public static func += (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs + rhs }

    /// Subtracts in place.
    ///
    /// ```swift
    /// var balance: Decimal128 = 10
    /// balance -= 2.5
    /// ```
    public static func -= (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs - rhs }

    /// Multiplies in place.
    ///
    /// ```swift
    /// var amount: Decimal128 = 10
    /// amount *= 1.5
    /// ```
    public static func *= (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs * rhs }

    /// Divides in place.
    ///
    /// ```swift
    /// var share: Decimal128 = 10
    /// share /= 4   // 2.5
    /// ```
    public static func /= (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs / rhs }

    /// The value with its sign bit flipped (`-0` for `0`).
    ///
    /// ```swift
    /// (-Decimal128(5)).description   // "-5"
    /// ```
    public static prefix func - (operand: Decimal128) -> Decimal128 {
        Decimal128(bits: operand.bits ^ signMask)
    }

    /// Flips the sign bit in place.
    ///
    /// ```swift
    /// var d: Decimal128 = 5
    /// d.negate()   // -5
    /// ```
    public mutating func negate() {
        bits ^= Decimal128.signMask
    }

    private static func add(_ lhs: Decimal128, _ rhs: Decimal128, negatingRight: Bool) -> Decimal128 {
        let lhsKind = lhs.kind, rhsKind = rhs.kind
        if lhsKind == .nan || rhsKind == .nan { return .nan }
        let lhsNegative = lhs.isSigned
        let rhsNegative = rhs.isSigned != negatingRight
        if lhsKind == .infinity {
            if rhsKind == .infinity && lhsNegative != rhsNegative { return .nan }
            return infinity(negative: lhsNegative)
        }
        if rhsKind == .infinity { return infinity(negative: rhsNegative) }

        var a = (negative: lhsNegative, coefficient: lhs.finiteParts.coefficient, exponent: lhs.finiteParts.exponent)
        var b = (negative: rhsNegative, coefficient: rhs.finiteParts.coefficient, exponent: rhs.finiteParts.exponent)
        let idealExponent = Swift.min(a.exponent, b.exponent)
        if a.coefficient == 0 && b.coefficient == 0 {
            return make(negative: a.negative && b.negative, coefficient: 0, exponent: idealExponent)
        }
        // Adding zero: the other operand, brought as close to the zero's exponent as 34 digits allow.
        if a.coefficient == 0 || b.coefficient == 0 {
            let x = a.coefficient == 0 ? b : a
            let shift = Swift.min(x.exponent - idealExponent, precision - digitCount(x.coefficient))
            return make(negative: x.negative, coefficient: x.coefficient * powersOfTen[shift], exponent: x.exponent - shift)
        }

        // Make `a` the operand with the larger exponent and scale it up, to at most 37 digits.
        if a.exponent < b.exponent { swap(&a, &b) }
        let distance = a.exponent - b.exponent
        let shift = Swift.min(distance, 37 - digitCount(a.coefficient))
        var x = a.coefficient * powersOfTen[shift]
        var y = b.coefficient
        var exponent = a.exponent - shift
        if shift < distance {
            // `b` is then below the last digit of `a` that can matter: cut it to `a`'s scale and
            // keep a guard digit that is nonzero when anything was cut. `x` has 37 digits and
            // `y` at most 33, so the result has at least 37 digits and the guard digit lies
            // below the rounding position.
            let cut = distance - shift
            var remainder: UInt128 = 1
            if cut < powersOfTen.count {
                (y, remainder) = y.quotientAndRemainder(dividingBy: powersOfTen[cut])
            } else {
                y = 0
            }
            x *= 10
            y = y * 10 + (remainder != 0 ? 1 : 0)
            exponent -= 1
        }
        if a.negative == b.negative {
            return rounded(negative: a.negative, coefficient: x + y, exponent: exponent)
        }
        if x == y { return rounded(negative: false, coefficient: 0, exponent: exponent) }
        return x > y
            ? rounded(negative: a.negative, coefficient: x - y, exponent: exponent)
            : rounded(negative: b.negative, coefficient: y - x, exponent: exponent)
    }

    private static func multiply(_ lhs: Decimal128, _ rhs: Decimal128) -> Decimal128 {
        let lhsKind = lhs.kind, rhsKind = rhs.kind
        if lhsKind == .nan || rhsKind == .nan { return .nan }
        let negative = lhs.isSigned != rhs.isSigned
        if lhsKind == .infinity || rhsKind == .infinity {
            if lhs.isZero || rhs.isZero { return .nan }
            return infinity(negative: negative)
        }
        let a = lhs.finiteParts, b = rhs.finiteParts
        // The exact product has up to 68 digits: bring it down to at most 38, remembering
        // whether anything nonzero was dropped.
        var (high, low) = a.coefficient.multipliedFullWidth(by: b.coefficient)
        var exponent = a.exponent + b.exponent
        var sticky = false
        while high != 0 || low >= powersOfTen[38] {
            let (highQuotient, highRemainder) = high.quotientAndRemainder(dividingBy: 10)
            let (lowQuotient, remainder) = UInt128(10).dividingFullWidth((high: highRemainder, low: low))
            high = highQuotient
            low = lowQuotient
            sticky = sticky || remainder != 0
            exponent += 1
        }
        return rounded(negative: negative, coefficient: low, exponent: exponent, sticky: sticky)
    }

    private static func divide(_ lhs: Decimal128, _ rhs: Decimal128) -> Decimal128 {
        let lhsKind = lhs.kind, rhsKind = rhs.kind
        if lhsKind == .nan || rhsKind == .nan { return .nan }
        let negative = lhs.isSigned != rhs.isSigned
        if lhsKind == .infinity {
            return rhsKind == .infinity ? .nan : infinity(negative: negative)
        }
        if rhsKind == .infinity { return make(negative: negative, coefficient: 0, exponent: minExponent) }
        let a = lhs.finiteParts, b = rhs.finiteParts
        if b.coefficient == 0 {
            return a.coefficient == 0 ? .nan : infinity(negative: negative)
        }
        if a.coefficient == 0 {
            return rounded(negative: negative, coefficient: 0, exponent: a.exponent - b.exponent)
        }
        // Long division, one digit at a time, until the quotient is exact or has 35 digits
        // (34 plus a rounding digit); what remains is the sticky part. Stopping as soon as it
        // is exact gives the exponent closest to the ideal a.exponent - b.exponent.
        var (quotient, remainder) = a.coefficient.quotientAndRemainder(dividingBy: b.coefficient)
        var exponent = a.exponent - b.exponent
        while remainder != 0 && quotient < powersOfTen[precision] {
            remainder *= 10
            let (digit, rest) = remainder.quotientAndRemainder(dividingBy: b.coefficient)
            quotient = quotient * 10 + digit
            remainder = rest
            exponent -= 1
        }
        return rounded(negative: negative, coefficient: quotient, exponent: exponent, sticky: remainder != 0)
    }
}

extension Decimal128: Strideable {
    /// The difference `other - self`.
    ///
    /// ```swift
    /// Decimal128(1).distance(to: 3.5)   // 2.5
    /// ```
    public func distance(to other: Decimal128) -> Decimal128 {
        other - self
    }

    /// The sum `self + n`.
    ///
    /// ```swift
    /// for d in stride(from: Decimal128(0), through: 1, by: 0.25) { print(d) }   // 0 0.25 0.50 0.75 1.00
    /// ```
    public func advanced(by n: Decimal128) -> Decimal128 {
        self + n
    }
}

// MARK: - Literals

extension Decimal128: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral {
    /// Creates the value of an integer literal.
    ///
    /// ```swift
    /// let count: Decimal128 = 12
    /// ```
    public init(integerLiteral value: Int) {
        self.init(value)
    }

    /// Creates the value of a floating-point literal, through its shortest decimal spelling as
    /// a `Double` (so `0.1` is exactly 0.1). Use a string literal for more than 17 digits.
    ///
    /// ```swift
    /// let rate: Decimal128 = 0.075
    /// ```
    public init(floatLiteral value: Double) {
        self.init(value)
    }

    /// Parses a string literal; a literal that is not a number is a programming error and traps.
    ///
    /// ```swift
    /// let precise: Decimal128 = "3.141592653589793238462643383279503"
    /// ```
    public init(stringLiteral value: String) {
        do {
            try self.init(string: value)
        } catch {
            preconditionFailure("\(error)")
        }
    }
}

// MARK: - Codable

extension Decimal128: Codable {
    /// Decodes a value from its string form, or from a JSON number.
    ///
    /// ```swift
    /// try JSONDecoder().decode([Decimal128].self, from: Data(#"["1.50", 2, 0.25]"#.utf8))
    /// ```
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let string = try? container.decode(String.self) {
            guard let value = Decimal128.parse(string) else {
                let error = FloeError.invalidValueString(
                    type: "Decimal128", string: string,
                    reason: "expected a decimal number such as 1.5, -0.001 or 1E+10, or NaN, Inf or Infinity")
                throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
            }
            self = value
        } else if let integer = try? container.decode(Int64.self) {
            self.init(integer)
        } else {
            self.init(try container.decode(Double.self))
        }
    }

    /// Encodes the value as its exact string form (``stringValue``).
    ///
    /// ```swift
    /// try JSONEncoder().encode([Decimal128(string: "1.50")])   // ["1.50"]
    /// ```
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(stringValue)
    }
}
