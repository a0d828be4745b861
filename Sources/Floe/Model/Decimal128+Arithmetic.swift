import Foundation
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// Decimal128: comparison, hashing and arithmetic (IEEE 754-2008, rounded half to even).

// MARK: - Comparison

extension Decimal128 {
    /// Compares numerically: -1, 0 or 1, or nil when either side is NaN. The engine's order of
    /// stored values decides, so a `Decimal128` compares in Swift as it does in a query.
    static func compare(_ lhs: Decimal128, _ rhs: Decimal128) -> Int? {
        let left = DecimalParts(bits: lhs.bits), right = DecimalParts(bits: rhs.bits)
        if left.kind == .nan || right.kind == .nan { return nil }
        return DecimalParts.compare(left, right)
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

    static func add(_ lhs: Decimal128, _ rhs: Decimal128, negatingRight: Bool) -> Decimal128 {
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

    static func multiply(_ lhs: Decimal128, _ rhs: Decimal128) -> Decimal128 {
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

    static func divide(_ lhs: Decimal128, _ rhs: Decimal128) -> Decimal128 {
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
