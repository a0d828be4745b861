@_spi(Engine) import FloeStorage

/// A number as sign, decimal coefficient and power of ten: the common ground on which a
/// `Decimal128` meets an integer or a floating-point number when values are compared.
///
/// An integer converts exactly. A `Double` converts to the shortest decimal that reads back as
/// the same `Double` (`12.34`, not `12.339999999999999857…`), so a decimal `12.34` equals the
/// literal `12.34` as the person who typed both meant; integers from 2⁵³ to 2⁶⁴ convert
/// exactly, so an integer equals a `Double` here exactly when it does everywhere else.
///
/// ```swift
/// DecimalParts.compare(DecimalParts(int: 5), DecimalParts(double: 5.0))   // 0
/// ```
package struct DecimalParts: Sendable {
    package enum Kind: Sendable { case nan, infinity, finite }

    package var kind: Kind
    package var negative: Bool
    /// At most 34 decimal digits for a finite value; 0 otherwise.
    package var coefficient: UInt128
    package var exponent: Int

    package static let exponentBias = 6176
    /// 10⁰ through 10³⁸: every power of ten a `UInt128` holds.
    package static let powersOfTen: [UInt128] = {
        var powers: [UInt128] = [1]
        for _ in 1...38 { powers.append(powers[powers.count - 1] * 10) }
        return powers
    }()
    /// 10³⁴ − 1, the largest coefficient a decimal128 holds.
    package static let maxCoefficient: UInt128 = powersOfTen[34] - 1

    package init(kind: Kind, negative: Bool, coefficient: UInt128, exponent: Int) {
        self.kind = kind
        self.negative = negative
        self.coefficient = coefficient
        self.exponent = exponent
    }

    /// The parts of IEEE 754-2008 decimal128 bits in the binary integer significand encoding.
    /// Non-canonical coefficients (more than 34 digits) read as zero, as IEEE 754 requires.
    package init(bits: UInt128) {
        let high = UInt64(truncatingIfNeeded: bits >> 64)
        negative = high >> 63 != 0
        if high & 0x7C00_0000_0000_0000 == 0x7C00_0000_0000_0000 {
            (kind, coefficient, exponent) = (.nan, 0, 0)
        } else if high & 0x7800_0000_0000_0000 == 0x7800_0000_0000_0000 {
            (kind, coefficient, exponent) = (.infinity, 0, 0)
        } else if high & 0x6000_0000_0000_0000 == 0x6000_0000_0000_0000 {
            // The "11" form: the implied coefficient is at least 2¹¹³, beyond 34 digits.
            (kind, coefficient, exponent) = (.finite, 0, Int(high >> 47 & 0x3FFF) - Self.exponentBias)
        } else {
            let raw = bits & ((UInt128(1) << 113) - 1)
            (kind, coefficient, exponent) = (.finite, raw > Self.maxCoefficient ? 0 : raw, Int(high >> 49 & 0x3FFF) - Self.exponentBias)
        }
    }

    package init(_ word: Word128) {
        self.init(bits: UInt128(word.high) << 64 | UInt128(word.low))
    }

    package init(int: Int64) {
        self.init(kind: .finite, negative: int < 0, coefficient: UInt128(int.magnitude), exponent: 0)
    }

    package init(double: Double) {
        if double.isNaN {
            self.init(kind: .nan, negative: false, coefficient: 0, exponent: 0)
        } else if double.isInfinite {
            self.init(kind: .infinity, negative: double < 0, coefficient: 0, exponent: 0)
        } else if double.magnitude >= 0x1p53 && double.magnitude < 0x1p64 {
            // Whole numbers an Int64 or UInt64 may hold: exactly.
            self.init(kind: .finite, negative: double < 0, coefficient: UInt128(UInt64(double.magnitude)), exponent: 0)
        } else {
            self.init(shortestDigitsOf: double)
        }
    }

    /// The shortest decimal that reads back as `double` (Swift's own `description` digits).
    private init(shortestDigitsOf double: Double) {
        var coefficient: UInt128 = 0
        var exponent = 0
        var fractionDigits = 0
        var inFraction = false
        var text = double.magnitude.description.utf8[...]
        if let e = text.firstIndex(where: { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) {
            var sign = 1, value = 0
            for byte in text[text.index(after: e)...] {
                if byte == UInt8(ascii: "-") { sign = -1 } else if byte >= 0x30 && byte <= 0x39 { value = value * 10 + Int(byte - 0x30) }
            }
            exponent = sign * value
            text = text[..<e]
        }
        // "2.0" is the whole number 2, exponent 0.
        if text.count >= 2, text.last == UInt8(ascii: "0"), text[text.index(text.endIndex, offsetBy: -2)] == UInt8(ascii: ".") {
            text = text.dropLast(2)
        }
        for byte in text {
            if byte == UInt8(ascii: ".") {
                inFraction = true
            } else if byte >= 0x30 && byte <= 0x39 {
                coefficient = coefficient * 10 + UInt128(byte - 0x30)
                if inFraction { fractionDigits += 1 }
            }
        }
        self.init(kind: .finite, negative: double.sign == .minus, coefficient: coefficient, exponent: exponent - fractionDigits)
    }

    package var isZero: Bool { kind == .finite && coefficient == 0 }

    /// The same number with trailing zeros moved into the exponent (zero as `0 × 10⁰`): equal
    /// numbers have equal normal forms.
    package var normalized: DecimalParts {
        guard kind == .finite else { return DecimalParts(kind: kind, negative: kind == .infinity && negative, coefficient: 0, exponent: 0) }
        guard coefficient != 0 else { return DecimalParts(kind: .finite, negative: false, coefficient: 0, exponent: 0) }
        var (coefficient, exponent) = (self.coefficient, self.exponent)
        while coefficient % 10 == 0 {
            coefficient /= 10
            exponent += 1
        }
        return DecimalParts(kind: .finite, negative: negative, coefficient: coefficient, exponent: exponent)
    }

    /// The value as an Int64 when it is a whole number an Int64 holds.
    package var exactInt64: Int64? {
        let normal = normalized
        guard normal.kind == .finite, normal.exponent >= 0, normal.exponent <= 19 else { return nil }
        let (magnitude, overflow) = normal.coefficient.multipliedReportingOverflow(by: Self.powersOfTen[normal.exponent])
        guard !overflow else { return nil }
        if normal.negative { return magnitude <= UInt128(Int64.max) + 1 ? Int64(truncatingIfNeeded: 0 &- magnitude) : nil }
        return magnitude <= UInt128(Int64.max) ? Int64(magnitude) : nil
    }

    /// Decimal text for messages and tools: `12.34`, `-0.5`, `1E+40`, `NaN`, `-Infinity`.
    package var text: String {
        let sign = negative ? "-" : ""
        switch kind {
        case .nan: return "NaN"
        case .infinity: return sign + "Infinity"
        case .finite: break
        }
        let digits = String(coefficient)
        if exponent == 0 { return sign + digits }
        if exponent < 0 && -exponent <= digits.count + 6 {
            let padded = String(repeating: "0", count: max(0, -exponent - digits.count + 1)) + digits
            let point = padded.index(padded.endIndex, offsetBy: exponent)
            return sign + padded[..<point] + "." + padded[point...]
        }
        let adjusted = exponent + digits.count - 1
        let mantissa = digits.count > 1 ? "\(digits.prefix(1)).\(digits.dropFirst())" : digits
        return sign + mantissa + "E" + (adjusted >= 0 ? "+" : "") + "\(adjusted)"
    }

    /// The value cut toward zero, when an Int64 holds that.
    package var truncatedInt64: Int64? {
        guard kind == .finite else { return nil }
        guard exponent < 0 else { return exactInt64 }
        let whole = -exponent < Self.powersOfTen.count ? coefficient / Self.powersOfTen[-exponent] : 0
        return DecimalParts(kind: .finite, negative: negative, coefficient: whole, exponent: 0).exactInt64
    }

    package static func digitCount(_ value: UInt128) -> Int {
        var count = 0
        while count < powersOfTen.count && value >= powersOfTen[count] { count += 1 }
        return count
    }

    /// -1, 0 or 1 in the order of values: NaN first (all NaNs equal), then numbers; `-0 == 0`.
    package static func compare(_ lhs: DecimalParts, _ rhs: DecimalParts) -> Int {
        if lhs.kind == .nan || rhs.kind == .nan { return lhs.kind == rhs.kind ? 0 : (lhs.kind == .nan ? -1 : 1) }
        let lhsSign = lhs.isZero ? 0 : (lhs.negative ? -1 : 1)
        let rhsSign = rhs.isZero ? 0 : (rhs.negative ? -1 : 1)
        if lhsSign != rhsSign { return lhsSign < rhsSign ? -1 : 1 }
        if lhsSign == 0 { return 0 }
        let order: Int
        switch (lhs.kind == .infinity, rhs.kind == .infinity) {
        case (true, true): order = 0
        case (true, false): order = 1
        case (false, true): order = -1
        case (false, false): order = compareMagnitudes(lhs, rhs)
        }
        return lhsSign > 0 ? order : -order
    }

    /// Compares two nonzero finite magnitudes of at most 34 digits each.
    private static func compareMagnitudes(_ lhs: DecimalParts, _ rhs: DecimalParts) -> Int {
        let lhsAdjusted = digitCount(lhs.coefficient) + lhs.exponent, rhsAdjusted = digitCount(rhs.coefficient) + rhs.exponent
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
