import Foundation
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// Decimal128: conversions to other number types and strings, and Codable.

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
