import Foundation

/// Exact conversions between a `Date` and its time since 1970-01-01T00:00:00Z.
///
/// `Date` holds a `Double` of seconds since 2001; adding the 978,307,200 seconds between the two
/// epochs in `Double` arithmetic would round away the low bits of a date such as `Date()`. Doing
/// the sum in decimal instead gives text that reads back as the very same `Date`.
enum UnixTime {
    /// Seconds from 1970-01-01 to 2001-01-01 (Foundation's reference date).
    static let referenceDateOffset = ExactDecimal(978_307_200)

    /// Exponents beyond this are far outside any `Date`: convert them with `Double` arithmetic
    /// rather than build thousands of digits.
    private static let exactExponentLimit = 2_000

    /// The exact time from 1970 to `date` in units of 10^-`scale` seconds (0: seconds,
    /// 3: milliseconds), or `nil` when the date is not finite.
    static func elapsed(to date: Date, scale: Int) -> ExactDecimal? {
        let sinceReference = date.timeIntervalSinceReferenceDate
        guard sinceReference.isFinite else { return nil }
        return (ExactDecimal(shortest: sinceReference) + referenceDateOffset).scaled(by: scale)
    }

    /// The date `elapsed` units of 10^-`scale` seconds after 1970, rounded once to the nearest
    /// `Date`.
    static func date(elapsed: ExactDecimal, scale: Int) -> Date {
        Date(timeIntervalSinceReferenceDate: (elapsed.scaled(by: -scale) - referenceDateOffset).doubleValue)
    }

    /// The date `number` units of 10^-`scale` seconds after 1970.
    static func date(elapsed number: JSONNumber, scale: Int) -> Date {
        let decimal = number.decimal
        guard abs(decimal.exponent) < exactExponentLimit, decimal.digits.count < exactExponentLimit else {
            let seconds = number.doubleValue / pow(10, Double(scale))
            return Date(timeIntervalSince1970: seconds)
        }
        return date(elapsed: ExactDecimal(decimal), scale: scale)
    }
}
