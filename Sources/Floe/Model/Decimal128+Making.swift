import Foundation
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// Decimal128: making values from integers, doubles, strings and literals.

// MARK: - Making values

extension Decimal128 {
    /// Packs a coefficient of at most 34 digits and an exponent in range.
    static func make(negative: Bool, coefficient: UInt128, exponent: Int) -> Decimal128 {
        assert(coefficient <= maxCoefficient && (minExponent...maxExponent).contains(exponent))
        var bits = coefficient | UInt128(exponent + exponentBias) << 113
        if negative { bits |= signMask }
        return Decimal128(bits: bits)
    }

    static func infinity(negative: Bool) -> Decimal128 {
        negative ? -infinity : infinity
    }

    /// The number of decimal digits of `value` (0 for 0).
    static func digitCount(_ value: UInt128) -> Int { DecimalParts.digitCount(value) }

    /// Rounds `coefficient × 10^exponent` (plus something nonzero below its last digit when
    /// `sticky`) to 34 digits, half to even, and fits the exponent into range: subnormal results
    /// lose digits, too-large exponents are folded into the coefficient when it has room, and
    /// anything larger overflows to infinity.
    static func rounded(negative: Bool, coefficient: UInt128, exponent: Int, sticky: Bool = false) -> Decimal128 {
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
    /// back as the same double, so `0.1` becomes exactly 0.1. Integral doubles get exponent 0,
    /// and those from 2⁵³ to 2⁶⁴ keep every digit, so a double converts to the decimal it
    /// equals in a query. (Realm instead rounds doubles to 15 significant digits.)
    ///
    /// ```swift
    /// Decimal128(0.1).description     // "0.1"
    /// Decimal128(2.0).description     // "2"
    /// Decimal128(1e300).description   // "1E+300"
    /// ```
    public init(_ value: Double) {
        let parts = DecimalParts(double: value)
        switch parts.kind {
        case .nan: self = .nan
        case .infinity: self = Decimal128.infinity(negative: parts.negative)
        case .finite: self = Decimal128.rounded(negative: parts.negative, coefficient: parts.coefficient, exponent: parts.exponent)
        }
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

    static func parse(_ string: String) -> Decimal128? {
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

    static func digitValue(_ byte: UInt8) -> Int? {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? Int(byte - UInt8(ascii: "0")) : nil
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
