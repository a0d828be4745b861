import Foundation
import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

/// One valid case of the BSON corpus (mongodb/specifications, bson-corpus/tests/decimal128-1.json).
struct BSONDecimalCase: Sendable, CustomStringConvertible {
    /// The whole `canonical_bson` document, `{"d": <decimal128>}`, in hex.
    var bson: String
    /// `canonical_extjson`'s string.
    var canonical: String
    /// `degenerate_extjson`'s string, when the case has one.
    var degenerate: String? = nil
    /// Whether the bits are not what parsing the canonical string gives.
    var lossy = false

    /// The 16 little-endian bytes after the 7-byte document and element header.
    var words: (high: UInt64, low: UInt64) {
        let bytes = stride(from: 0, to: bson.count, by: 2).map { offset -> UInt8 in
            let start = bson.index(bson.startIndex, offsetBy: offset)
            return UInt8(bson[start..<bson.index(start, offsetBy: 2)], radix: 16)!
        }
        let value = bytes[7..<23]
        let low = value.prefix(8).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let high = value.suffix(8).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return (high, low)
    }

    var description: String { degenerate ?? canonical }
}

private let bsonCorpus: [BSONDecimalCase] = [
    .init(bson: "180000001364000000000000000000000000000000007C00", canonical: "NaN"),
    .init(bson: "18000000136400000000000000000000000000000000FC00", canonical: "NaN", lossy: true),
    .init(bson: "18000000136400000000000000000000000000000000FC00", canonical: "NaN", degenerate: "-NaN", lossy: true),
    .init(bson: "180000001364000000000000000000000000000000007E00", canonical: "NaN", lossy: true),
    .init(bson: "18000000136400000000000000000000000000000000FE00", canonical: "NaN", lossy: true),
    .init(bson: "180000001364001200000000000000000000000000007E00", canonical: "NaN", lossy: true),
    .init(bson: "180000001364000000000000000000000000000000007800", canonical: "Infinity"),
    .init(bson: "18000000136400000000000000000000000000000000F800", canonical: "-Infinity"),
    .init(bson: "180000001364000000000000000000000000000000106C00", canonical: "0", lossy: true),
    .init(bson: "18000000136400DCBA9876543210DEADBEEF00000010EC00", canonical: "-0", lossy: true),
    .init(bson: "18000000136400FFFFFFFFFFFFFFFFFFFFFFFFFFFF116C00", canonical: "0E+3", lossy: true),
    .init(bson: "18000000136400F2AF967ED05C82DE3297FF6FDE3CF22F00", canonical: "0.000001234567890123456789012345678901234"),
    .init(bson: "18000000136400D204000000000000000000000000343000", canonical: "0.001234"),
    .init(bson: "1800000013640040EF5A07000000000000000000002A3000", canonical: "0.00123400000"),
    .init(bson: "1800000013640001000000000000000000000000003E3000", canonical: "0.1"),
    .init(bson: "18000000136400F2AF967ED05C82DE3297FF6FDE3CFC2F00", canonical: "0.1234567890123456789012345678901234"),
    .init(bson: "180000001364000000000000000000000000000000403000", canonical: "0"),
    .init(bson: "18000000136400000000000000000000000000000040B000", canonical: "-0"),
    .init(bson: "1800000013640000000000000000000000000000003EB000", canonical: "-0.0"),
    .init(bson: "180000001364000200000000000000000000000000403000", canonical: "2"),
    .init(bson: "18000000136400D0070000000000000000000000003A3000", canonical: "2.000"),
    .init(bson: "18000000136400F2AF967ED05C82DE3297FF6FDE3C403000", canonical: "1234567890123456789012345678901234"),
    .init(bson: "18000000136400FFFFFFFF638E8D37C087ADBE09ED010000", canonical: "9.999999999999999999999999999999999E-6143"),
    .init(bson: "180000001364000100000000000000000000000000000000", canonical: "1E-6176"),
    .init(bson: "180000001364000100000000000000000000000000008000", canonical: "-1E-6176"),
    .init(bson: "18000000136400F2AF967ED05C82DE3297FF6FDE3CF02F00", canonical: "1.234567890123456789012345678901234E-7"),
    .init(bson: "1800000013640064000000000000000000000000002CB000", canonical: "-1.00E-8"),
    .init(bson: "180000001364000000000000000000000000000000205F00", canonical: "0E+6000"),
    .init(bson: "1800000013640000000000000000000000000000007A2B00", canonical: "0E-611"),
    .init(bson: "180000001364000100000000000000000000000000463000", canonical: "1E+3"),
    .init(bson: "180000001364001A04000000000000000000000000423000", canonical: "1.050E+4"),
    .init(bson: "180000001364006900000000000000000000000000423000", canonical: "1.05E+3"),
    .init(bson: "18000000136400FFFFFFFFFFFFFFFFFFFFFFFFFFFF403000", canonical: "5192296858534827628530496329220095"),
    .init(bson: "18000000136400000000000A5BC138938D44C64D31FE5F00", canonical: "1.000000000000000000000000000000000E+6144"),
    .init(bson: "18000000136400FFFFFFFF638E8D37C087ADBE09EDFF5F00", canonical: "9.999999999999999999999999999999999E+6144"),
    // Non-canonical parsing.
    .init(bson: "1800000013640064000000000000000000000000002CB000", canonical: "-1.00E-8", degenerate: "-100E-10"),
    .init(bson: "180000001364000100000000000000000000000000463000", canonical: "1E+3", degenerate: "1E3"),
    .init(bson: "180000001364000100000000000000000000000000463000", canonical: "1E+3", degenerate: "1e+3"),
    .init(bson: "1800000013640079D9E0F9763ADA429D0200000000583000", canonical: "1.2345689012345789012345E+34",
          degenerate: "12345689012345789012345E+12"),
    .init(bson: "18000000136400F2AF967ED05C82DE3297FF6FDE3C403000", canonical: "1234567890123456789012345678901234",
          degenerate: "+1234567890123456789012345678901234"),
    .init(bson: "180000001364000100000000000000000000000000722800", canonical: "1E-999",
          degenerate: "." + String(repeating: "0", count: 998) + "1"),
    .init(bson: "180000001364000000000000000000000000000000007C00", canonical: "NaN", degenerate: "nan"),
    .init(bson: "180000001364000000000000000000000000000000007C00", canonical: "NaN", degenerate: "nAn"),
    .init(bson: "180000001364000000000000000000000000000000007800", canonical: "Infinity", degenerate: "+infinity"),
    .init(bson: "180000001364000000000000000000000000000000007800", canonical: "Infinity", degenerate: "infinity"),
    .init(bson: "180000001364000000000000000000000000000000007800", canonical: "Infinity", degenerate: "infiniTY"),
    .init(bson: "180000001364000000000000000000000000000000007800", canonical: "Infinity", degenerate: "inf"),
    .init(bson: "180000001364000000000000000000000000000000007800", canonical: "Infinity", degenerate: "inF"),
    .init(bson: "18000000136400000000000000000000000000000000F800", canonical: "-Infinity", degenerate: "-infinity"),
    .init(bson: "18000000136400000000000000000000000000000000F800", canonical: "-Infinity", degenerate: "-infiniTy"),
    .init(bson: "18000000136400000000000000000000000000000000F800", canonical: "-Infinity", degenerate: "-Inf"),
    .init(bson: "18000000136400000000000000000000000000000000F800", canonical: "-Infinity", degenerate: "-inf"),
    .init(bson: "18000000136400000000000000000000000000000000F800", canonical: "-Infinity", degenerate: "-inF"),
    // Rounding and clamping while parsing.
    .init(bson: "180000001364000100000000000000000000000000000000", canonical: "1E-6176", degenerate: "10E-6177"),
    .init(bson: "180000001364000a00000000000000000000000000fe5f00", canonical: "1.0E+6112", degenerate: "1E6112"),
    .init(bson: "18000000136400000000000a5bc138938d44c64d31cc3700", canonical: "1.000000000000000000000000000000000E+999",
          degenerate: "1" + String(repeating: "0", count: 999)),
    .init(bson: "180000001364000000000000000000000000000000FE5F00", canonical: "0E+6111", degenerate: "0E+9999999999"),
    .init(bson: "180000001364000000000000000000000000000000000000", canonical: "0E-6176", degenerate: "0E-9999999999"),
    .init(bson: "180000001364000000000000000000000000000000FEDF00", canonical: "-0E+6111", degenerate: "-0E+9999999999"),
    .init(bson: "180000001364000000000000000000000000000000008000", canonical: "-0E-6176", degenerate: "-0E-9999999999"),
]

private func d(_ string: String) -> Decimal128 {
    try! Decimal128(string: string)
}

private func words(_ value: Decimal128) -> [UInt64] {
    [value.storageWords.high, value.storageWords.low]
}

@Suite struct Decimal128Tests {
    // MARK: Encoding

    @Test func knownEncodings() throws {
        #expect(words(Decimal128(1)) == [0x3040_0000_0000_0000, 1])
        #expect(words(d("1")) == [0x3040_0000_0000_0000, 1])
        #expect(words(d("0.1")) == [0x303E_0000_0000_0000, 1])
        #expect(words(d("-0")) == [0xB040_0000_0000_0000, 0])
        #expect(words(d("0")) == [0x3040_0000_0000_0000, 0])
        #expect(words(Decimal128.zero) == [0x3040_0000_0000_0000, 0])
        #expect(words(Decimal128.nan) == [0x7C00_0000_0000_0000, 0])
        #expect(words(d("NaN")) == [0x7C00_0000_0000_0000, 0])
        #expect(words(Decimal128.infinity) == [0x7800_0000_0000_0000, 0])
        #expect(words(-Decimal128.infinity) == [0xF800_0000_0000_0000, 0])
        #expect(words(Decimal128(-1)) == [0xB040_0000_0000_0000, 1])
        #expect(words(Decimal128(Int.max)) == [0x3040_0000_0000_0000, UInt64(Int.max)])
        #expect(words(Decimal128(Int.min)) == [0xB040_0000_0000_0000, 1 << 63])
        #expect(words(Decimal128.greatestFiniteMagnitude) == [0x5FFF_ED09_BEAD_87C0, 0x378D_8E63_FFFF_FFFF])
        #expect(words(Decimal128.leastNonzeroMagnitude) == [0, 1])
        let one = Decimal128(high: 0x3040_0000_0000_0000, low: 1)
        #expect(one == 1)
        #expect(one.description == "1")
    }

    @Test(arguments: bsonCorpus)
    func bsonCorpusCase(_ testCase: BSONDecimalCase) throws {
        let (high, low) = testCase.words
        let decoded = Decimal128(high: high, low: low)
        // Bits → string.
        #expect(decoded.description == testCase.canonical)
        #expect(decoded.stringValue == testCase.canonical)
        // The storage words give back the bits, whatever they are.
        #expect(decoded.storageWords == (high, low))
        // String → bits.
        if !testCase.lossy {
            let parsed = try Decimal128(string: testCase.canonical)
            #expect(words(parsed) == [high, low])
            if let degenerate = testCase.degenerate {
                #expect(words(try Decimal128(string: degenerate)) == [high, low])
            }
        } else {
            #expect(words(try Decimal128(string: testCase.canonical)) != [high, low])
        }
    }

    @Test func lossyCorpusBitsReadAsCanonicalValues() {
        // Non-canonical coefficients read as zero, keeping the exponent.
        let zeroE3 = Decimal128(high: 0x6C11_FFFF_FFFF_FFFF, low: 0xFFFF_FFFF_FFFF_FFFF)
        #expect(zeroE3.isZero)
        #expect(zeroE3 == 0)
        #expect(zeroE3.description == "0E+3")
        // Signaling and negative NaNs are NaN.
        let signaling = Decimal128(high: 0x7E00_0000_0000_0000, low: 0)
        #expect(signaling.isNaN)
        #expect(signaling.isSignalingNaN)
        #expect(!Decimal128.nan.isSignalingNaN)
        #expect(Decimal128(high: 0xFC00_0000_0000_0000, low: 0).isNaN)
    }

    // MARK: Strings

    @Test func plainAndScientificStrings() {
        let cases: [(String, String)] = [
            ("1.5", "1.5"),
            ("-0.001", "-0.001"),
            ("1E+10", "1E+10"),
            ("1e10", "1E+10"),
            ("1.23e-5", "0.0000123"),
            ("1.23E-7", "1.23E-7"),
            ("123E-9", "1.23E-7"),
            ("0.0000001", "1E-7"),
            ("0.000001", "0.000001"),
            ("100", "100"),
            ("100E0", "100"),
            ("1.00", "1.00"),
            ("00012.3400", "12.3400"),
            (".5", "0.5"),
            ("5.", "5"),
            ("-.5", "-0.5"),
            ("+7", "7"),
            ("1E-0", "1"),
            ("12E+1", "1.2E+2"),
            ("0.00E+5", "0E+3"),
            ("-0E-3", "-0.000"),
            ("0E-7", "0E-7"),
            ("Inf", "Infinity"),
            ("-Infinity", "-Infinity"),
            ("INFINITY", "Infinity"),
            ("NaN", "NaN"),
            ("-nan", "NaN"),
            ("+NaN", "NaN"),
        ]
        for (input, expected) in cases {
            #expect(d(input).description == expected, "parsing \(input)")
        }
    }

    @Test func parsingRoundsBeyond34Digits() {
        // 35 digits: round half to even on the last one.
        #expect(d("12345678901234567890123456789012345").description == "1.234567890123456789012345678901234E+34")
        #expect(d("12345678901234567890123456789012335").description == "1.234567890123456789012345678901234E+34")
        #expect(d("12345678901234567890123456789012346").description == "1.234567890123456789012345678901235E+34")
        #expect(d("12345678901234567890123456789012345000000000001").description == "1.234567890123456789012345678901235E+46")
        #expect(d("0.99999999999999999999999999999999995").description == "1.000000000000000000000000000000000")
        #expect(d("9999999999999999999999999999999999.5").description == "1.000000000000000000000000000000000E+34")
        #expect(d("1.0000000000000000000000000000000005").description == "1.000000000000000000000000000000000")
        #expect(d("1.00000000000000000000000000000000050000000000000000000001").description == "1.000000000000000000000000000000001")
        // Overflow gives infinity, underflow rounds toward zero.
        #expect(d("1E+6145") == .infinity)
        #expect(d("-1E+6145") == -Decimal128.infinity)
        #expect(d("1E+6144").description == "1.000000000000000000000000000000000E+6144")
        #expect(d("1E-6177").description == "0E-6176")
        #expect(d("5E-6177").description == "0E-6176")
        #expect(d("6E-6177").description == "1E-6176")
        #expect(d("15E-6177").description == "2E-6176")
        #expect(d("25E-6177").description == "2E-6176")
        #expect(d("-1E-9999999999").description == "-0E-6176")
        #expect(d("1E+9999999999") == .infinity)
    }

    @Test(arguments: [
        "", " ", "+", "-", ".", "-.", "e5", "E+3", "1e", "1E+", "1e-", "1.2.3", "1..2", "1,5", " 1", "1 ", "1_000",
        "0x10", "1e1.5", "1e+-1", "1e++1", "++1", "--1", "+-1", "NaN1", "nan(1)", "Infinit", "Infinityy", "in", "snan",
        "1.5f", "１２", "٣", "1e٣", "∞", "1/2", "1E3E3", "Inf1", "abc",
    ])
    func rejectsInvalidStrings(_ string: String) {
        let expected = FloeError.invalidValueString(
            type: "Decimal128", string: string,
            reason: "expected a decimal number such as 1.5, -0.001 or 1E+10, or NaN, Inf or Infinity")
        #expect(throws: expected) { try Decimal128(string: string) }
    }

    @Test func invalidStringErrorNamesTheString() {
        do {
            _ = try Decimal128(string: "12.5.6")
            Issue.record("expected an error")
        } catch {
            #expect("\(error)".hasPrefix("Invalid Decimal128 string '12.5.6': expected a decimal number"))
        }
    }

    @Test func randomRepresentationsRoundTripThroughStrings() throws {
        var generator = SeededGenerator(seed: 128)
        for _ in 0..<5000 {
            let digits = Int.random(in: 0...34, using: &generator)
            let coefficient = digits == 0 ? 0 : UInt128.random(in: 0..<power(digits), using: &generator)
            let exponent = Int.random(in: -6176...6111, using: &generator)
            let negative = Bool.random(using: &generator)
            let bits = (negative ? UInt128(1) << 127 : 0) | UInt128(exponent + 6176) << 113 | coefficient
            let value = Decimal128(high: UInt64(truncatingIfNeeded: bits >> 64), low: UInt64(truncatingIfNeeded: bits))
            let parsed = try Decimal128(string: value.description)
            #expect(words(parsed) == words(value), "\(value)")
            #expect(parsed == value)
        }
        // And around the plain/scientific boundary.
        for exponent in -45...5 {
            for coefficient: UInt128 in [0, 1, 7, 10, 123_456, 1_000_000_000_000_000_000_000_000_000_000_000 - 1] {
                let value = d("\(coefficient)E\(exponent)")
                #expect(words(try Decimal128(string: value.description)) == words(value), "\(value)")
            }
        }
    }

    @Test func literalsAndConversions() {
        let integer: Decimal128 = 42
        let float: Decimal128 = 0.075
        let string: Decimal128 = "3.141592653589793238462643383279503"
        #expect(integer.description == "42")
        #expect(float.description == "0.075")
        #expect(string.description == "3.141592653589793238462643383279503")
        #expect(Decimal128(0.1).description == "0.1")
        #expect(Decimal128(2.0).description == "2")
        #expect(Decimal128(-2.5).description == "-2.5")
        #expect(Decimal128(-0.0).description == "-0")
        #expect(Decimal128(1e-5).description == "0.00001")
        #expect(Decimal128(1e300).description == "1E+300")
        #expect(Decimal128(123456.789).description == "123456.789")
        #expect(Decimal128(5e-324).description == "5E-324")
        #expect(Decimal128(Double.greatestFiniteMagnitude).description == "1.7976931348623157E+308")
        #expect(Decimal128(Double.nan).isNaN)
        #expect(Decimal128(Double.infinity) == .infinity)
        #expect(Decimal128(-Double.infinity) == -Decimal128.infinity)
        #expect(Decimal128(UInt64.max).description == "18446744073709551615")
        #expect(Decimal128(Int8(-128)).description == "-128")
        #expect(Decimal128(UInt128.max).description == "3.402823669209384634633746074317682E+38")
        #expect(Decimal128(Int128.min).description == "-1.701411834604692317316873037158841E+38")
        #expect(Decimal128(exactly: 12_345)?.description == "12345")
        #expect(Decimal128(exactly: UInt128.max) == nil)
        #expect(Decimal128(exactly: Int128.min) == nil)
        #expect(Decimal128(exactly: UInt128(10).power(38))?.description == "1.000000000000000000000000000000000E+38")
        #expect(Decimal128(exactly: Int128(-9_999_999_999_999_999_999_999_999_999_999_999) * 1000)?.description
            == "-9.999999999999999999999999999999999E+36")
    }

    @Test func doubleValue() {
        #expect(d("0.1").doubleValue == 0.1)
        #expect(d("1.5").doubleValue == 1.5)
        #expect(d("-2.000").doubleValue == -2)
        #expect(d("1.234567890123456789012345678901234E-7").doubleValue == 1.234567890123456789012345678901234e-7)
        #expect(d("-0").doubleValue.sign == .minus)
        #expect(d("1E-6176").doubleValue == 0)
        #expect(d("1E+400").doubleValue == .infinity)
        #expect(d("-Infinity").doubleValue == -.infinity)
        #expect(d("NaN").doubleValue.isNaN)
        var generator = SeededGenerator(seed: 5)
        for _ in 0..<2000 {
            let double = Double(bitPattern: UInt64.random(in: .min ... .max, using: &generator))
            guard double.isFinite else { continue }
            #expect(Decimal128(double).doubleValue == double)
        }
    }

    // MARK: Classification

    @Test func classification() {
        #expect(d("NaN").isNaN && !d("NaN").isFinite && !d("NaN").isInfinite)
        #expect(d("-Inf").isInfinite && d("-Inf").isSigned && d("-Inf").sign == .minus)
        #expect(d("-0").isZero && d("-0").isSigned && d("-0").isFinite)
        #expect(!d("0").isSigned && d("0").sign == .plus)
        #expect(d("-2.50").magnitude.description == "2.50")
        #expect(d("-Inf").magnitude == .infinity)
        #expect(d("2.50").magnitude.description == "2.50")
        #expect(!d("1E-6176").isZero)
    }

    // MARK: Comparison and hashing

    @Test func numericEquality() {
        #expect(d("1.0") == d("1.00"))
        #expect(d("1") == d("1.000000000000000000000000000000000"))
        #expect(d("100") == d("1E+2"))
        #expect(d("0") == d("-0"))
        #expect(d("0E+6111") == d("-0E-6176"))
        #expect(d("1.0") != d("1.01"))
        #expect(d("Infinity") == d("Inf"))
        #expect(d("-Infinity") != d("Infinity"))
        #expect(d("NaN") != d("NaN"))
        #expect(!(Decimal128.nan == .nan))
        #expect(Decimal128.nan != 1)
        #expect(d("1E+6111") == d("1000E+6108"))
    }

    @Test func hashingMatchesEquality() {
        let equalGroups: [[String]] = [
            ["1", "1.0", "1.00", "1.000000000000000000000000000000000", "10E-1", "0.1E+1"],
            ["0", "-0", "0E+6111", "0.000", "-0E-6176"],
            ["1E+2", "100", "100.0", "10E+1"],
            ["-2.5", "-2.50", "-25E-1"],
            ["Infinity", "Inf"],
        ]
        for group in equalGroups {
            let values = group.map(d)
            #expect(Set(values).count == 1, "\(group)")
            #expect(Set(values.map(\.hashValue)).count == 1, "\(group)")
        }
        let set: Set<Decimal128> = ["1.0", "1.00", "1", "2", "-Infinity", "Infinity", "2.5", "-2.5"]
        #expect(set.count == 6)
        #expect(set.contains("2.000"))
    }

    @Test func orderingIsNumeric() {
        let ascending = ["-Infinity", "-1E+6144", "-10", "-1.5", "-1E-6176", "0", "1E-6176", "0.001", "0.01",
                         "0.099999999999999999999999999999999", "0.1", "1", "1.000000000000000000000000000000001",
                         "2", "9.99", "10", "1E+34", "9.999999999999999999999999999999999E+6144", "Infinity"].map(d)
        #expect(ascending.shuffled().sorted() == ascending)
        for (i, a) in ascending.enumerated() {
            for (j, b) in ascending.enumerated() {
                #expect((a < b) == (i < j), "\(a) < \(b)")
                #expect((a <= b) == (i <= j), "\(a) <= \(b)")
                #expect((a > b) == (i > j), "\(a) > \(b)")
                #expect((a >= b) == (i >= j), "\(a) >= \(b)")
            }
        }
        #expect(d("1.0") <= d("1.00") && d("1.0") >= d("1.00") && !(d("1.0") < d("1.00")))
        #expect(d("-0") <= d("0") && !(d("-0") < d("0")))
        #expect(d("123E-2") < d("1.2301"))
        #expect(d("99E-1") < d("10"))
    }

    @Test func nanComparisonsAreFalse() {
        let nan = Decimal128.nan
        for other in [nan, Decimal128(1), Decimal128.infinity, -Decimal128.infinity, Decimal128.zero] {
            #expect(!(nan < other))
            #expect(!(nan > other))
            #expect(!(nan <= other))
            #expect(!(nan >= other))
            #expect(!(nan == other))
            #expect(!(other < nan))
            #expect(!(other >= nan))
            #expect(nan != other)
        }
    }

    // MARK: Arithmetic

    @Test func addition() {
        #expect((d("0.1") + d("0.2")).description == "0.3")
        #expect((Decimal128(0.1) + Decimal128(0.2)) == Decimal128(0.3))
        #expect((d("1.5") + d("2.25")).description == "3.75")
        #expect((d("1.0") + d("1.00")).description == "2.00")
        #expect((d("1E+3") + d("1")).description == "1001")
        #expect((d("1.0") - d("1.00")).description == "0.00")
        #expect((d("-1.0") + d("1.00")).description == "0.00")
        #expect((d("5") - d("7.5")).description == "-2.5")
        #expect((d("9999999999999999999999999999999999") + d("1")).description == "1.000000000000000000000000000000000E+34")
        // Ties go to the even neighbour.
        #expect((d("1234567890123456789012345678901234") + d("0.5")).description == "1234567890123456789012345678901234")
        #expect((d("1234567890123456789012345678901235") + d("0.5")).description == "1234567890123456789012345678901236")
        #expect((d("1234567890123456789012345678901234") + d("0.5000000000000000000001")).description
            == "1234567890123456789012345678901235")
        #expect((d("1234567890123456789012345678901234") + d("0.4999999999999999999999999")).description
            == "1234567890123456789012345678901234")
        #expect((d("1234567890123456789012345678901234") - d("0.5")).description == "1234567890123456789012345678901234")
        #expect((d("1234567890123456789012345678901235") - d("0.5")).description == "1234567890123456789012345678901234")
        // A tiny addend only nudges the rounding.
        #expect((d("1E+50") + d("1E-50")).description == "1.000000000000000000000000000000000E+50")
        #expect((d("1E+50") - d("1E-50")).description == "1.000000000000000000000000000000000E+50")
        #expect((d("1E+50") - d("1E+16")).description == "9.999999999999999999999999999999999E+49")
        #expect((d("1E+50") - d("5E+15")).description == "1.000000000000000000000000000000000E+50")   // a tie, to even
        #expect((d("1E+50") - d("5.000000001E+15")).description == "9.999999999999999999999999999999999E+49")
        #expect((d("1.000000000000000000000000000000000E+34") - d("0.5")).description
            == "1.000000000000000000000000000000000E+34")   // 9999999999999999999999999999999999.5 ties to even
        #expect((d("1.000000000000000000000000000000000E+34") - d("0.50001")).description
            == "9999999999999999999999999999999999")
        // Zeros.
        #expect((d("0") + d("-0")).description == "0")
        #expect((d("-0") + d("-0")).description == "-0")
        #expect((d("-0") - d("0")).description == "-0")
        #expect((d("0E+5") + d("0E-5")).description == "0.00000")
        #expect((d("5") + d("0E-3")).description == "5.000")
        #expect((d("5") + d("0E+3")).description == "5")
        #expect((d("1234567890123456789012345678901234") + d("0E-10")).description == "1234567890123456789012345678901234")
        #expect((d("12345") + d("0E-40")).description == "12345.00000000000000000000000000000")
        // Overflow.
        #expect(Decimal128.greatestFiniteMagnitude + d("5E+6110") == .infinity)
        #expect(Decimal128.greatestFiniteMagnitude + d("4E+6110") == .greatestFiniteMagnitude)
        #expect(-Decimal128.greatestFiniteMagnitude - d("5E+6110") == -Decimal128.infinity)
        // Specials.
        #expect((Decimal128.infinity + 1) == .infinity)
        #expect((Decimal128.infinity + .infinity) == .infinity)
        #expect((Decimal128.infinity - .infinity).isNaN)
        #expect((-Decimal128.infinity + .infinity).isNaN)
        #expect((Decimal128.nan + 1).isNaN)
        #expect((1 - Decimal128.infinity) == -Decimal128.infinity)
        var total: Decimal128 = 0
        for _ in 0..<10 { total += 0.1 }
        #expect(total == 1)
        #expect(total.description == "1.0")
        total -= 0.25
        #expect(total.description == "0.75")
    }

    @Test func multiplication() {
        #expect((d("1.5") * 2).description == "3.0")
        #expect((d("0.1") * d("0.1")).description == "0.01")
        #expect((d("-2") * d("3.50")).description == "-7.00")
        #expect((d("-2") * d("-0")).description == "0")
        #expect((d("2") * d("-0E+3")).description == "-0E+3")
        #expect((d("9999999999999999999999999999999999") * d("9999999999999999999999999999999999")).description
            == "9.999999999999999999999999999999998E+67")
        #expect((d("1234567890123456789012345678901234") * d("1234567890123456789012345678901234")).description
            == "1.524157875323883675049535156256667E+66")
        // 0.5-ulp ties: 1000000000000000000000000000000001 × 5 = 5000000000000000000000000000000005.
        #expect((d("1000000000000000000000000000000001") * 5).description == "5000000000000000000000000000000005")
        #expect((d("2000000000000000000000000000000001") * 5).description == "1.000000000000000000000000000000000E+34")
        #expect((d("2000000000000000000000000000000003") * 5).description == "1.000000000000000000000000000000002E+34")
        #expect((d("1E+6000") * d("1E+6000")) == .infinity)
        #expect((d("-1E+6000") * d("1E+6000")) == -Decimal128.infinity)
        #expect((d("1E-6000") * d("1E-6000")).description == "0E-6176")
        #expect((d("-1E-6000") * d("1E-6000")).description == "-0E-6176")
        #expect((d("3E-3088") * d("5E-3089")).description == "2E-6176")   // 1.5E-6176 rounds to even
        #expect((d("5E-3088") * d("5E-3089")).description == "2E-6176")   // 2.5E-6176 rounds to even
        #expect((d("1E+6111") * d("10")).description == "1.0E+6112")
        #expect((d("1E+6111") * d("1E+2")).description == "1.00E+6113")
        #expect((Decimal128.infinity * 0).isNaN)
        #expect((Decimal128.infinity * -2) == -Decimal128.infinity)
        #expect((Decimal128.nan * 0).isNaN)
        var amount: Decimal128 = 10
        amount *= 1.5
        #expect(amount.description == "15.0")
    }

    @Test func division() {
        #expect((Decimal128(1) / 3).description == "0.3333333333333333333333333333333333")
        #expect((Decimal128(2) / 3).description == "0.6666666666666666666666666666666667")
        #expect((Decimal128(-2) / 3).description == "-0.6666666666666666666666666666666667")
        #expect((Decimal128(1) / 4).description == "0.25")
        #expect((Decimal128(10) / 4).description == "2.5")
        #expect((Decimal128(6) / 2).description == "3")
        #expect((d("1.00") / 1).description == "1.00")
        #expect((d("1E+2") / 1).description == "1E+2")
        #expect((d("2.40") / d("2")).description == "1.20")
        #expect((d("12") / d("12")).description == "1")
        #expect((d("1000") / d("100")).description == "10")
        #expect((d("2.400") / d("2.0")).description == "1.20")
        #expect((d("1") / d("8E-3")).description == "125")
        #expect((Decimal128(1) / 7).description == "0.1428571428571428571428571428571429")
        #expect((Decimal128(1) / 9999999999999999).description == "1.000000000000000100000000000000010E-16")
        #expect((d("9999999999999999999999999999999999") / d("0.3")).description == "3.333333333333333333333333333333333E+34")
        #expect((d("1") / d("-0.000")).description == "-Infinity")
        #expect((Decimal128(1) / 0) == .infinity)
        #expect((Decimal128(-1) / 0) == -Decimal128.infinity)
        #expect((Decimal128(0) / 0).isNaN)
        #expect((d("0.00") / 5).description == "0.00")
        #expect((d("0") / d("1E+3")).description == "0.000")
        #expect((d("-0") / 5).description == "-0")
        #expect((Decimal128(5) / .infinity).description == "0E-6176")
        #expect((Decimal128(-5) / .infinity).description == "-0E-6176")
        #expect((Decimal128.infinity / .infinity).isNaN)
        #expect((Decimal128.infinity / -5) == -Decimal128.infinity)
        #expect((Decimal128.nan / 1).isNaN)
        #expect((d("1E+6111") / d("1E-100")) == .infinity)
        #expect((d("1E-6176") / 2).description == "0E-6176")
        #expect((d("3E-6176") / 2).description == "2E-6176")
        var share: Decimal128 = 10
        share /= 4
        #expect(share.description == "2.5")
    }

    @Test func negation() {
        #expect((-d("5")).description == "-5")
        #expect((-d("-5")).description == "5")
        #expect((-d("0")).description == "-0")
        #expect((-d("-0")).description == "0")
        var value = d("2.50")
        value.negate()
        #expect(value.description == "-2.50")
        #expect((-Decimal128.nan).isNaN)
        #expect(+d("3") == 3)
    }

    @Test func strideable() {
        let steps = Array(stride(from: Decimal128(0), through: 1, by: 0.25))
        #expect(steps.map(\.description) == ["0", "0.25", "0.50", "0.75", "1.00"])
        #expect(Decimal128(1).distance(to: 3.5).description == "2.5")
        #expect(Decimal128(1).advanced(by: 0.5).description == "1.5")
    }

    /// Addition, subtraction and multiplication against exact digit arithmetic rounded half to even.
    @Test func arithmeticMatchesExactReference() throws {
        var generator = SeededGenerator(seed: 2024)
        for iteration in 0..<6000 {
            let a = randomOperand(&generator)
            let b = randomOperand(&generator)
            let x = try Decimal128(string: a.string), y = try Decimal128(string: b.string)
            let sum = Exact.sum(a, b).rounded()
            let difference = Exact.sum(a, b.negated()).rounded()
            let product = Exact.product(a, b).rounded()
            #expect(words(x + y) == words(try Decimal128(string: sum.string)), "#\(iteration): \(a.string) + \(b.string)")
            #expect(words(x - y) == words(try Decimal128(string: difference.string)), "#\(iteration): \(a.string) - \(b.string)")
            #expect(words(x * y) == words(try Decimal128(string: product.string)), "#\(iteration): \(a.string) * \(b.string)")
        }
    }

    /// Every quotient is within half a unit in the last place, ties to even, and exact results
    /// keep the exponent closest to the ideal one.
    @Test func divisionIsCorrectlyRounded() throws {
        var generator = SeededGenerator(seed: 99)
        for iteration in 0..<3000 {
            let a = randomOperand(&generator)
            var b = randomOperand(&generator)
            if b.digits.isEmpty { b = Exact(negative: false, digits: [3], exponent: 0) }
            let quotient = try Decimal128(string: a.string) / Decimal128(string: b.string)
            let q = Exact(parsing: quotient.description)
            let label = "#\(iteration): \(a.string) / \(b.string) = \(quotient)"
            #expect(q.digits.count <= 34, "\(label)")
            // error = a - q × b, compared with half an ulp of q times b.
            let error = Exact.sum(a, Exact.product(q, b).negated())
            let halfUlpTimesB = Exact.product(Exact(negative: false, digits: [5], exponent: q.exponent - 1), b)
            let order = Exact.compareMagnitudes(error, halfUlpTimesB)
            #expect(order <= 0, "\(label)")
            if order == 0 { #expect((q.digits.last ?? 0) % 2 == 0, "\(label)") }
            if error.digits.isEmpty {
                // Exact: the exponent is the ideal one, or as close to it as the digits allow.
                let ideal = a.exponent - b.exponent
                #expect(q.exponent <= ideal || q.digits.isEmpty, "\(label)")
                if q.exponent < ideal { #expect(q.digits.last != 0, "\(label)") }
            } else {
                #expect(q.digits.count == 34, "\(label)")
            }
        }
    }

    // MARK: Codable

    @Test func codableAsString() throws {
        let values: [Decimal128] = ["1.50", "-0", "1E+3", "NaN", "-Infinity", "0.1234567890123456789012345678901234"]
        let json = try JSONEncoder().encode(values)
        #expect(String(decoding: json, as: UTF8.self)
            == #"["1.50","-0","1E+3","NaN","-Infinity","0.1234567890123456789012345678901234"]"#)
        let decoded = try JSONDecoder().decode([Decimal128].self, from: json)
        #expect(decoded.map(words) == values.map(words))
        #expect(try PropertyListDecoder().decode([Decimal128].self, from: PropertyListEncoder().encode(values)).map(words)
            == values.map(words))
    }

    @Test func decodesNumbersAndRejectsGarbage() throws {
        let decoded = try JSONDecoder().decode([Decimal128].self, from: Data(#"["1.50", 2, 0.25, -7]"#.utf8))
        #expect(decoded.map(\.description) == ["1.50", "2", "0.25", "-7"])
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([Decimal128].self, from: Data(#"["1.2.3"]"#.utf8))
        }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([Decimal128].self, from: Data("[true]".utf8))
        }
        do {
            _ = try JSONDecoder().decode([Decimal128].self, from: Data(#"["1.2.3"]"#.utf8))
        } catch let DecodingError.dataCorrupted(context) {
            #expect(context.debugDescription.contains("'1.2.3'"))
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }
}

// MARK: - Helpers

private func power(_ exponent: Int) -> UInt128 {
    UInt128(10).power(exponent)
}

private extension UInt128 {
    func power(_ exponent: Int) -> UInt128 {
        (0..<exponent).reduce(1) { result, _ in result * self }
    }
}

/// Operands with a random number of digits (often all nines, to provoke carries), a random
/// exponent in a range where nothing overflows or underflows, and a random sign.
private func randomOperand(_ generator: inout SeededGenerator) -> Exact {
    let count = Int.random(in: 0...34, using: &generator)
    let style = Int.random(in: 0..<4, using: &generator)
    var digits: [UInt8] = (0..<count).map { index in
        switch style {
        case 0: return 9
        case 1: return index == 0 ? 1 : (Bool.random(using: &generator) ? 0 : 5)
        default: return UInt8.random(in: 0...9, using: &generator)
        }
    }
    if Int.random(in: 0..<20, using: &generator) == 0 { digits = [] }
    return Exact(negative: Bool.random(using: &generator), digits: digits,
                 exponent: Int.random(in: -40...40, using: &generator))
}

/// An exact decimal: a sign, digits (most significant first, no leading zeros, empty for zero)
/// and an exponent.
private struct Exact {
    var negative: Bool
    var digits: [UInt8]
    var exponent: Int

    init(negative: Bool, digits: [UInt8], exponent: Int) {
        self.negative = negative
        self.digits = Array(digits.drop { $0 == 0 })
        self.exponent = exponent
    }

    /// Reads a finite `Decimal128` description.
    init(parsing text: String) {
        var text = Substring(text)
        let negative = text.hasPrefix("-")
        if negative { text = text.dropFirst() }
        var exponent = 0
        if let e = text.firstIndex(of: "E") {
            exponent = Int(text[text.index(after: e)...])!
            text = text[..<e]
        }
        if let point = text.firstIndex(of: ".") {
            exponent -= text.distance(from: point, to: text.endIndex) - 1
            text.remove(at: point)
        }
        self.init(negative: negative, digits: text.map { UInt8(String($0))! }, exponent: exponent)
    }

    var string: String {
        (negative ? "-" : "") + (digits.isEmpty ? "0" : digits.map(String.init).joined()) + "E\(exponent)"
    }

    func negated() -> Exact {
        var copy = self
        copy.negative.toggle()
        return copy
    }

    /// Rounds to 34 digits, half to even.
    func rounded() -> Exact {
        guard digits.count > 34 else { return self }
        var kept = Array(digits[..<34])
        let roundDigit = digits[34]
        let rest = digits[35...].contains { $0 != 0 }
        var exponent = exponent + digits.count - 34
        if roundDigit > 5 || (roundDigit == 5 && (rest || kept[33] % 2 == 1)) {
            kept = Exact.addMagnitudes(kept, [1])
            if kept.count > 34 {
                kept.removeLast()
                exponent += 1
            }
        }
        return Exact(negative: negative, digits: kept, exponent: exponent)
    }

    static func compareMagnitudes(_ a: Exact, _ b: Exact) -> Int {
        let exponent = min(a.exponent, b.exponent)
        return compare(a.digits + Array(repeating: 0, count: a.digits.isEmpty ? 0 : a.exponent - exponent),
                       b.digits + Array(repeating: 0, count: b.digits.isEmpty ? 0 : b.exponent - exponent))
    }

    static func sum(_ a: Exact, _ b: Exact) -> Exact {
        let exponent = min(a.exponent, b.exponent)
        let x = a.digits + Array(repeating: 0, count: a.digits.isEmpty ? 0 : a.exponent - exponent)
        let y = b.digits + Array(repeating: 0, count: b.digits.isEmpty ? 0 : b.exponent - exponent)
        if a.negative == b.negative {
            return Exact(negative: a.negative, digits: addMagnitudes(x, y), exponent: exponent)
        }
        switch compare(x, y) {
        case 0: return Exact(negative: a.negative && b.negative, digits: [], exponent: exponent)
        case 1: return Exact(negative: a.negative, digits: subtractMagnitudes(x, y), exponent: exponent)
        default: return Exact(negative: b.negative, digits: subtractMagnitudes(y, x), exponent: exponent)
        }
    }

    static func product(_ a: Exact, _ b: Exact) -> Exact {
        var result = [Int](repeating: 0, count: a.digits.count + b.digits.count + 1)
        for (i, x) in a.digits.reversed().enumerated() {
            for (j, y) in b.digits.reversed().enumerated() {
                result[i + j] += Int(x) * Int(y)
            }
        }
        for index in 0..<(result.count - 1) {
            result[index + 1] += result[index] / 10
            result[index] %= 10
        }
        return Exact(negative: a.negative != b.negative, digits: result.reversed().map { UInt8($0) },
                     exponent: a.exponent + b.exponent)
    }

    private static func compare(_ x: [UInt8], _ y: [UInt8]) -> Int {
        let x = Array(x.drop { $0 == 0 }), y = Array(y.drop { $0 == 0 })
        if x.count != y.count { return x.count < y.count ? -1 : 1 }
        for (p, q) in zip(x, y) where p != q { return p < q ? -1 : 1 }
        return 0
    }

    static func addMagnitudes(_ x: [UInt8], _ y: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        var carry: UInt8 = 0
        var i = x.count - 1, j = y.count - 1
        while i >= 0 || j >= 0 || carry > 0 {
            let total = (i >= 0 ? x[i] : 0) + (j >= 0 ? y[j] : 0) + carry
            result.append(total % 10)
            carry = total / 10
            i -= 1
            j -= 1
        }
        return Array(result.reversed().drop { $0 == 0 })
    }

    /// x − y for x ≥ y.
    private static func subtractMagnitudes(_ x: [UInt8], _ y: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        var borrow = 0
        var j = y.count - 1
        for i in stride(from: x.count - 1, through: 0, by: -1) {
            var digit = Int(x[i]) - borrow - (j >= 0 ? Int(y[j]) : 0)
            borrow = digit < 0 ? 1 : 0
            if digit < 0 { digit += 10 }
            result.append(UInt8(digit))
            j -= 1
        }
        return Array(result.reversed().drop { $0 == 0 })
    }
}
