import Foundation

/// When an X.509 certificate stops being valid (`notAfter`), read from its DER bytes. Only the
/// path to `tbsCertificate.validity` is walked; anything else, or anything malformed, gives
/// `nil`. (libwebsockets 4.1's own reading of it comes out a day early.)
package enum CertificateValidity {
    package static func notAfter(der bytes: [UInt8]) -> Date? {
        var reader = DERReader(bytes: bytes[...])
        guard var certificate = reader.enter(0x30), var tbs = certificate.enter(0x30) else { return nil }
        if tbs.peek == 0xA0 { guard tbs.skip() else { return nil } }       // version
        for _ in 0..<3 { guard tbs.skip() else { return nil } }          // serial, signature, issuer
        guard var validity = tbs.enter(0x30), validity.skip(), let (tag, time) = validity.element() else { return nil }
        return date(String(decoding: time, as: UTF8.self), generalized: tag == 0x18)
    }

    /// `YYMMDDHHMMSSZ` (UTCTime, 1950–2049) or `YYYYMMDDHHMMSSZ` (GeneralizedTime).
    static func date(_ text: String, generalized: Bool) -> Date? {
        let digits = Array(text.utf8)
        let yearLength = generalized ? 4 : 2
        guard digits.count == yearLength + 11, digits.last == UInt8(ascii: "Z"),
              digits.dropLast().allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        func number(_ from: Int, _ length: Int) -> Int {
            digits[from..<(from + length)].reduce(0) { $0 * 10 + Int($1 - 0x30) }
        }
        var year = number(0, yearLength)
        if !generalized { year += year < 50 ? 2000 : 1900 }
        var components = DateComponents()
        components.year = year
        components.month = number(yearLength, 2)
        components.day = number(yearLength + 2, 2)
        components.hour = number(yearLength + 4, 2)
        components.minute = number(yearLength + 6, 2)
        components.second = number(yearLength + 8, 2)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(from: components)
    }
}

/// Reads DER elements in order (definite lengths only, at most 4 length bytes).
private struct DERReader {
    var bytes: ArraySlice<UInt8>

    var peek: UInt8? { bytes.first }

    /// The next element's tag and contents, consumed.
    mutating func element() -> (UInt8, ArraySlice<UInt8>)? {
        guard bytes.count >= 2 else { return nil }
        let tag = bytes[bytes.startIndex]
        var index = bytes.startIndex + 1
        var length = Int(bytes[index])
        index += 1
        if length & 0x80 != 0 {
            let count = length & 0x7f
            guard count >= 1, count <= 4, bytes.endIndex - index >= count else { return nil }
            length = bytes[index..<(index + count)].reduce(0) { $0 << 8 | Int($1) }
            index += count
        }
        guard length >= 0, bytes.endIndex - index >= length else { return nil }
        let contents = bytes[index..<(index + length)]
        bytes = bytes[(index + length)...]
        return (tag, contents)
    }

    mutating func skip() -> Bool { element() != nil }

    /// The next element, which must have `tag`, as a reader of its contents.
    mutating func enter(_ tag: UInt8) -> DERReader? {
        guard let (found, contents) = element(), found == tag else { return nil }
        return DERReader(bytes: contents)
    }
}
