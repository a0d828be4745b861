import Foundation

/// The text forms `dump` writes and `import` reads for values JSON has no type for, chosen so
/// that a dump imports back to equal values.
enum ValueText {
    /// Seconds between 1970-01-01 and 2001-01-01, the reference date stored timestamps count from.
    static let referenceDateOffset: Int64 = 978_307_200
    /// Timestamps this far from the reference date (about 30 billion years) are written as
    /// seconds, not as a calendar date.
    static let largestCalendarSeconds = 1e18

    // MARK: Numbers JSON cannot write

    /// `NaN`, `Infinity` or `-Infinity`: the names `Decimal128` prints and JavaScript uses.
    static func nonFinite(_ value: Double) -> String {
        value.isNaN ? "NaN" : value < 0 ? "-Infinity" : "Infinity"
    }

    /// The non-finite number a string names (`NaN`, `Infinity`, `-Infinity`, `inf`, `-inf`, any case).
    static func nonFinite(named text: String) -> Double? {
        switch text.lowercased() {
        case "nan": return .nan
        case "infinity", "+infinity", "inf", "+inf": return .infinity
        case "-infinity", "-inf": return -.infinity
        default: return nil
        }
    }

    // MARK: Dates

    /// A stored timestamp (seconds since 2001-01-01 UTC) as ISO 8601 UTC text with the fewest
    /// fraction digits that read back as exactly the same seconds, such as
    /// `2024-05-01T12:30:00.25Z`; nil for a value too far out to be a calendar date.
    static func date(_ seconds: Double) -> String? {
        guard seconds.isFinite, abs(seconds) < largestCalendarSeconds else { return nil }
        let whole = seconds.rounded(.down)
        let fraction = seconds - whole
        let stamp = calendarText(Int64(whole))
        var fallback = stamp + "Z"
        for digits in 0...20 {
            let fractionText = String(format: "%.\(digits)f", fraction)
            // Rounded up to a whole second: more digits are needed.
            guard fractionText.hasPrefix("0") else { continue }
            let candidate = stamp + fractionText.dropFirst() + "Z"
            fallback = candidate
            if Self.seconds(fromDate: candidate) == seconds { return candidate }
        }
        return fallback
    }

    /// The seconds since 2001-01-01 UTC that ISO 8601 text names: `YYYY-MM-DD`, optionally
    /// followed by `THH:MM:SS`, a fraction of a second with any number of digits, and `Z` or an
    /// offset such as `+02:00` (no offset: UTC). Years may carry a sign and more than four digits.
    static func seconds(fromDate text: String) -> Double? {
        var scanner = DigitScanner(bytes: Array(text.utf8))
        let negativeYear = scanner.takeSign() == -1
        // Eleven digits at most: the seconds of any such year fit an Int64.
        guard let yearDigits = scanner.digits(minimum: 4, maximum: 11), scanner.take("-"),
              let month = scanner.digits(minimum: 2, maximum: 2), scanner.take("-"),
              let day = scanner.digits(minimum: 2, maximum: 2) else { return nil }
        let year = negativeYear ? -yearDigits : yearDigits
        guard (1...12).contains(month), (1...daysInMonth(month, year: year)).contains(day) else { return nil }
        var secondOfDay: Int64 = 0
        var fractionDigits = ""
        var offset: Int64 = 0
        if scanner.take("T") || scanner.take("t") || scanner.take(" ") {
            guard let hour = scanner.digits(minimum: 2, maximum: 2), scanner.take(":"),
                  let minute = scanner.digits(minimum: 2, maximum: 2), scanner.take(":"),
                  let second = scanner.digits(minimum: 2, maximum: 2),
                  hour < 24, minute < 60, second < 60 else { return nil }
            secondOfDay = hour * 3600 + minute * 60 + second
            if scanner.take(".") || scanner.take(",") {
                guard let digits = scanner.digitText(), !digits.isEmpty else { return nil }
                fractionDigits = digits
            }
            if scanner.take("Z") || scanner.take("z") {
            } else if let sign = scanner.takeSign() {
                guard let hours = scanner.digits(minimum: 2, maximum: 2) else { return nil }
                _ = scanner.take(":")
                guard let minutes = scanner.digits(minimum: 2, maximum: 2), hours < 24, minutes < 60 else { return nil }
                offset = sign * (hours * 3600 + minutes * 60)
            }
        }
        guard scanner.isAtEnd else { return nil }
        let whole = days(fromYear: year, month: month, day: day) * 86_400 + secondOfDay - offset - referenceDateOffset
        guard abs(Double(whole)) < largestCalendarSeconds else { return nil }
        return Double(whole) + (fractionDigits.isEmpty ? 0 : Double("0." + fractionDigits)!)
    }

    /// `YYYY-MM-DDTHH:MM:SS` (UTC) for whole seconds since 2001-01-01.
    private static func calendarText(_ seconds: Int64) -> String {
        let sinceEpoch = seconds + referenceDateOffset
        let day = floorDivision(sinceEpoch, 86_400)
        let secondOfDay = sinceEpoch - day * 86_400
        let (year, month, dayOfMonth) = civilDate(fromDays: day)
        let yearText = (0...9999).contains(year) ? pad(year, 4) : (year < 0 ? "-" : "+") + pad(abs(year), 4)
        return "\(yearText)-\(pad(month, 2))-\(pad(dayOfMonth, 2))T\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay % 3600 / 60, 2)):\(pad(secondOfDay % 60, 2))"
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    private static func floorDivision(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : -((-a + b - 1) / b)
    }

    private static func isLeapYear(_ year: Int64) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    private static func daysInMonth(_ month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    // Days since 1970-01-01 in the proleptic Gregorian calendar and back, by the era-based
    // algorithm of Howard Hinnant's "chrono-compatible low-level date algorithms": exact for
    // every year, with no calendar object or time zone involved.

    private static func days(fromYear year: Int64, month: Int64, day: Int64) -> Int64 {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = floorDivision(shiftedYear, 400)
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civilDate(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = floorDivision(shifted, 146_097)
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Reads ASCII digits and separators off the front of a date.
    private struct DigitScanner {
        let bytes: [UInt8]
        var index = 0

        var isAtEnd: Bool { index == bytes.count }

        mutating func take(_ character: Unicode.Scalar) -> Bool {
            guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
            index += 1
            return true
        }

        mutating func takeSign() -> Int64? {
            if take("+") { return 1 }
            if take("-") { return -1 }
            return nil
        }

        mutating func digitText() -> String? {
            let start = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        mutating func digits(minimum: Int, maximum: Int) -> Int64? {
            let start = index
            guard let text = digitText(), (minimum...maximum).contains(text.count) else {
                index = start
                return nil
            }
            return Int64(text)
        }
    }
}
