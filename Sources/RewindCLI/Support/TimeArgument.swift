import Foundation

/// A point in time given on the command line: an ISO 8601 date and time with its zone
/// (`2025-11-20T14:00:00Z`, `2025-11-20T15:00:00.5+01:00`), a date alone (midnight UTC that
/// day, `2025-11-20`), or a span before now (`90s`, `15m`, `2h`, `30d`, `2w`; fractions allowed).
enum TimeArgument {
    /// What the option takes, for its help and its error.
    static let forms = "an ISO 8601 time (2025-11-20T14:00:00Z), a date (2025-11-20, midnight UTC) or a span before now (90s, 15m, 2h, 30d, 2w)"

    private static let units: [Character: Double] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400, "w": 604_800]

    /// The time `text` names, or a ``CLIError`` (exit 2) that names `option` and says what it takes.
    static func parse(_ text: String, option: String, now: Date = Date()) throws -> Date {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let unit = trimmed.last, let seconds = units[unit],
           let amount = Double(trimmed.dropLast()), amount.isFinite, amount >= 0,
           trimmed.dropLast().allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }) {
            // A span past the year 1 would make no sensible time; refuse it like a typo.
            guard amount * seconds < 60 * 365.25 * 86_400 * 100 else {
                throw CLIError("\(option) \(text) reaches back more than a century; give \(forms).", code: 2)
            }
            return now.addingTimeInterval(-amount * seconds)
        }
        // A date alone is exactly YYYY-MM-DD: the date formatter also takes a longer text's
        // first ten characters, and a time without a zone would then silently mean midnight.
        let dateOnly = trimmed.utf8.count == 10 && trimmed.enumerated().allSatisfy { $0.offset == 4 || $0.offset == 7 ? $0.element == "-" : $0.element.isASCII && $0.element.isNumber }
        let layouts: [ISO8601DateFormatter.Options] = dateOnly ? [[.withFullDate]] : [[.withInternetDateTime, .withFractionalSeconds], [.withInternetDateTime]]
        for options in layouts {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = options
            formatter.timeZone = TimeZone(identifier: "UTC")
            if let date = formatter.date(from: trimmed) { return date }
        }
        throw CLIError("\(option) takes \(forms); got '\(text)'.", code: 2)
    }
}
