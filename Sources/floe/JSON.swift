/// A JSON value as `import` reads it: numbers keep their text, so an integer is read as an
/// exact `Int64`, a decimal as an exact `Decimal128` and a float without passing through a
/// `Double`, and `2` stays apart from `2.0`; objects keep their keys in order.
enum JSON: Equatable {
    case null
    case bool(Bool)
    /// The number as written, validated against JSON's grammar.
    case number(String)
    case string(String)
    case array([JSON])
    case object([Member])

    /// One key and value of an object.
    struct Member: Equatable {
        let key: String
        let value: JSON
    }

    /// Why a text is not JSON, and at which character (counted from 1).
    struct SyntaxError: Error, CustomStringConvertible {
        let reason: String
        let position: Int
        var description: String { "\(reason) at character \(position)" }
    }

    /// Parses one JSON value that fills `text` (surrounding white space aside). An object that
    /// names a key twice is refused: which value was meant cannot be told.
    static func parse(_ text: String) throws(SyntaxError) -> JSON {
        var parser = Parser(bytes: Array(text.utf8))
        parser.skipSpace()
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.index == parser.bytes.count else { throw parser.error("text after the value") }
        return value
    }

    /// How the value reads in a message: strings quoted, containers by kind.
    var summary: String {
        switch self {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .number(let text): return text
        case .string(let string): return "\"\(string)\""
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0
        /// Deeper nesting than this is refused rather than risk the stack.
        static let maximumDepth = 512

        func error(_ reason: String) -> SyntaxError { SyntaxError(reason: reason, position: index + 1) }

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        mutating func value(depth: Int) throws(SyntaxError) -> JSON {
            guard depth < Self.maximumDepth else { throw error("values nested more than \(Self.maximumDepth) deep") }
            guard index < bytes.count else { throw error("the text ends where a value should be") }
            switch bytes[index] {
            case UInt8(ascii: "{"): return try object(depth: depth)
            case UInt8(ascii: "["): return try array(depth: depth)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): return try literal("true", .bool(true))
            case UInt8(ascii: "f"): return try literal("false", .bool(false))
            case UInt8(ascii: "n"): return try literal("null", .null)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
            default: throw error("unexpected '\(String(decoding: [bytes[index]], as: UTF8.self))'")
            }
        }

        mutating func literal(_ word: String, _ value: JSON) throws(SyntaxError) -> JSON {
            let expected = Array(word.utf8)
            guard bytes.count - index >= expected.count, Array(bytes[index..<index + expected.count]) == expected else {
                throw error("unexpected word")
            }
            index += expected.count
            return value
        }

        mutating func number() throws(SyntaxError) -> JSON {
            let start = index
            func digits() -> Int {
                let from = index
                while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
                return index - from
            }
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            let integerStart = index
            let integerDigits = digits()
            guard integerDigits > 0 else { throw error("a number needs digits") }
            if integerDigits > 1 && bytes[integerStart] == UInt8(ascii: "0") { throw SyntaxError(reason: "a number cannot start with 0", position: integerStart + 1) }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard digits() > 0 else { throw error("a number needs digits after its decimal point") }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                guard digits() > 0 else { throw error("a number needs digits in its exponent") }
            }
            return .number(String(decoding: bytes[start..<index], as: UTF8.self))
        }

        mutating func string() throws(SyntaxError) -> String {
            index += 1
            var scalars = String.UnicodeScalarView()
            var runStart = index
            func flushRun() {
                scalars.append(contentsOf: String(decoding: bytes[runStart..<index], as: UTF8.self).unicodeScalars)
            }
            while true {
                guard index < bytes.count else { throw error("a string is not closed") }
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    flushRun()
                    index += 1
                    return String(scalars)
                }
                if byte < 0x20 { throw error("a control character inside a string (write it as \\u escape)") }
                guard byte == UInt8(ascii: "\\") else {
                    index += 1
                    continue
                }
                flushRun()
                index += 1
                guard index < bytes.count else { throw error("a string is not closed") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    var code = try hexQuad()
                    if (0xD800...0xDBFF).contains(code) {
                        // A high surrogate: the low one must follow as its own escape.
                        guard bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                            throw error("a lone UTF-16 surrogate in a \\u escape")
                        }
                        index += 2
                        let low = try hexQuad()
                        guard (0xDC00...0xDFFF).contains(low) else { throw error("a lone UTF-16 surrogate in a \\u escape") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw error("a lone UTF-16 surrogate in a \\u escape") }
                    scalars.append(scalar)
                default:
                    throw SyntaxError(reason: "unknown escape '\\\(String(decoding: [escape], as: UTF8.self))'", position: index - 1)
                }
                runStart = index
            }
        }

        mutating func hexQuad() throws(SyntaxError) -> UInt32 {
            guard bytes.count - index >= 4, let code = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16) else {
                throw error("a \\u escape needs four hexadecimal digits")
            }
            index += 4
            return code
        }

        mutating func array(depth: Int) throws(SyntaxError) -> JSON {
            index += 1
            var elements: [JSON] = []
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            while true {
                skipSpace()
                elements.append(try value(depth: depth + 1))
                skipSpace()
                guard index < bytes.count else { throw error("an array is not closed") }
                if bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    return .array(elements)
                }
                guard bytes[index] == UInt8(ascii: ",") else { throw error("expected ',' or ']' in an array") }
                index += 1
            }
        }

        mutating func object(depth: Int) throws(SyntaxError) -> JSON {
            index += 1
            var members: [Member] = []
            var seen = Set<String>()
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            while true {
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a key in quotes") }
                let keyPosition = index
                let key = try string()
                guard seen.insert(key).inserted else { throw SyntaxError(reason: "the key \"\(key)\" appears twice", position: keyPosition + 1) }
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':' after a key") }
                index += 1
                skipSpace()
                members.append(Member(key: key, value: try value(depth: depth + 1)))
                skipSpace()
                guard index < bytes.count else { throw error("an object is not closed") }
                if bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    return .object(members)
                }
                guard bytes[index] == UInt8(ascii: ",") else { throw error("expected ',' or '}' in an object") }
                index += 1
            }
        }
    }
}
