import Foundation

/// ISO 8601 / RFC 3339 timestamps in UTC, with as many fractional digits as the date needs to
/// read back exactly: `2024-05-01T12:30:00Z`, `2024-05-01T12:30:00.25Z`.
///
/// The calendar is the proleptic Gregorian one that ISO 8601 specifies, computed here rather than
/// through a formatter so that it is exact, thread-safe and free of locale.
enum ISO8601Timestamp {
    private static let secondsPerDay: Int64 = 86_400

    /// The timestamp of `date`, or `nil` when the date is not finite or falls outside the years
    /// 0000–9999 that the format holds.
    static func string(for date: Date) -> String? {
        guard let elapsed = UnixTime.elapsed(to: date, scale: 0),
              let (seconds, fraction) = elapsed.floorAndFraction() else { return nil }
        let days = seconds >= 0 ? seconds / secondsPerDay : (seconds - secondsPerDay + 1) / secondsPerDay
        let secondOfDay = seconds - days * secondsPerDay
        let (year, month, day) = civilDate(daysSince1970: days)
        guard (0...9999).contains(year) else { return nil }
        var out = pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2)
        out += "T" + pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay / 60 % 60, 2) + ":" + pad(secondOfDay % 60, 2)
        if !fraction.isZero {
            // `fraction` is in 0..<1, so its plain text is "0.ddd".
            out += fraction.plainText.dropFirst()
        }
        return out + "Z"
    }

    /// The date a timestamp names: `YYYY-MM-DDTHH:MM:SS`, an optional fraction of any length, then
    /// `Z` or an offset `±HH:MM` (or `±HHMM`). `nil` for anything else.
    static func date(from string: String) -> Date? {
        var scanner = Scanner(Array(string.utf8))
        guard let year = scanner.number(digits: 4), scanner.skip("-"),
              let month = scanner.number(digits: 2), scanner.skip("-"),
              let day = scanner.number(digits: 2), scanner.skip("T") || scanner.skip("t"),
              let hour = scanner.number(digits: 2), scanner.skip(":"),
              let minute = scanner.number(digits: 2), scanner.skip(":"),
              let second = scanner.number(digits: 2)
        else { return nil }
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
              hour < 24, minute < 60, second < 60 else { return nil }
        var fractionDigits: [UInt8] = []
        if scanner.skip(".") {
            while let digit = scanner.digit() { fractionDigits.append(digit) }
            guard !fractionDigits.isEmpty else { return nil }
        }
        var offsetSeconds: Int64 = 0
        if scanner.skip("Z") || scanner.skip("z") {
            // UTC
        } else if let sign = scanner.sign() {
            guard let offsetHours = scanner.number(digits: 2) else { return nil }
            _ = scanner.skip(":")
            guard let offsetMinutes = scanner.number(digits: 2), offsetHours < 24, offsetMinutes < 60 else { return nil }
            offsetSeconds = sign * (offsetHours * 3600 + offsetMinutes * 60)
        } else {
            return nil
        }
        guard scanner.isAtEnd else { return nil }
        let seconds = daysSince1970(year: year, month: month, day: day) * secondsPerDay
            + hour * 3600 + minute * 60 + second - offsetSeconds
        let elapsed = ExactDecimal(seconds)
            + ExactDecimal(negative: false, digits: fractionDigits, exponent: -fractionDigits.count)
        return UnixTime.date(elapsed: elapsed, scale: 0)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }

    private static func isLeap(_ year: Int64) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    // The two conversions below count in 400-year cycles (146,097 days) of a calendar whose
    // year starts on 1 March, so that the leap day falls at the end of the year.

    /// Days from 1970-01-01 to the given proleptic Gregorian date.
    static func daysSince1970(year: Int64, month: Int64, day: Int64) -> Int64 {
        let marchYear = month <= 2 ? year - 1 : year
        let cycle = (marchYear >= 0 ? marchYear : marchYear - 399) / 400
        let yearOfCycle = marchYear - cycle * 400
        let monthFromMarch = (month + 9) % 12
        let dayOfYear = (153 * monthFromMarch + 2) / 5 + day - 1
        let dayOfCycle = yearOfCycle * 365 + yearOfCycle / 4 - yearOfCycle / 100 + dayOfYear
        return cycle * 146_097 + dayOfCycle - 719_468
    }

    /// The proleptic Gregorian date `days` days after 1970-01-01.
    static func civilDate(daysSince1970 days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let cycle = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfCycle = shifted - cycle * 146_097
        let yearOfCycle = (dayOfCycle - dayOfCycle / 1460 + dayOfCycle / 36_524 - dayOfCycle / 146_096) / 365
        let dayOfYear = dayOfCycle - (365 * yearOfCycle + yearOfCycle / 4 - yearOfCycle / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        let year = yearOfCycle + cycle * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    /// Reads the fixed-width fields of a timestamp.
    private struct Scanner {
        let bytes: [UInt8]
        var position = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var isAtEnd: Bool { position == bytes.count }

        mutating func skip(_ character: Unicode.Scalar) -> Bool {
            guard position < bytes.count, bytes[position] == UInt8(ascii: character) else { return false }
            position += 1
            return true
        }

        mutating func digit() -> UInt8? {
            guard position < bytes.count, bytes[position] &- 0x30 < 10 else { return nil }
            defer { position += 1 }
            return bytes[position] &- 0x30
        }

        mutating func number(digits count: Int) -> Int64? {
            var value: Int64 = 0
            for _ in 0..<count {
                guard let d = digit() else { return nil }
                value = value * 10 + Int64(d)
            }
            return value
        }

        mutating func sign() -> Int64? {
            if skip("+") { return 1 }
            if skip("-") { return -1 }
            return nil
        }
    }
}
