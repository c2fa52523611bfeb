/// A number as sign, significant digits (no leading or trailing zeros) and a power of ten, so
/// that numerically equal JSON numbers have equal forms, whatever the size of the exponent.
///
/// Exponents that fit in 18 decimal digits are held in `exponent`. Larger ones, such as the one
/// in `1e99999999999999999999`, are held exactly as decimal digits in `hugeExponent`, while
/// `exponent` holds ±``hugeExponentSentinel``: far beyond any digit count, so arithmetic such as
/// `digits.count + exponent` neither overflows nor mistakes the number for a small one.
package struct NormalizedDecimal: Equatable, Sendable {
    package var negative: Bool
    /// ASCII digits, first and last non-zero; empty for zero.
    package var digits: [UInt8]
    package var exponent: Int
    /// The exact magnitude of an exponent of 19 or more digits, as ASCII digits without leading
    /// zeros (its sign is the sign of `exponent`); `nil` for every ordinary number.
    package var hugeExponent: [UInt8]?

    /// The stand-in magnitude of `exponent` when the exponent is huge.
    package static let hugeExponentSentinel = 1 << 62

    package var isZero: Bool { digits.isEmpty }

    package init<C: Collection<UInt8>>(text: C) {
        var negative = false
        var digits: [UInt8] = []
        var fractionCount = 0
        var i = text.startIndex
        let end = text.endIndex
        if i < end, text[i] == UInt8(ascii: "-") { negative = true; i = text.index(after: i) }
        var inFraction = false
        while i < end {
            let b = text[i]
            if b >= 0x30, b <= 0x39 {
                if !(digits.isEmpty && b == 0x30) { digits.append(b) }
                if inFraction { fractionCount += 1 }
            } else if b == UInt8(ascii: ".") {
                inFraction = true
            } else {
                break
            }
            i = text.index(after: i)
        }
        // The written exponent, as its sign and its digits without leading zeros.
        var expNegative = false
        var expDigits: [UInt8] = []
        if i < end, text[i] == UInt8(ascii: "e") || text[i] == UInt8(ascii: "E") {
            i = text.index(after: i)
            if i < end, text[i] == UInt8(ascii: "+") || text[i] == UInt8(ascii: "-") {
                expNegative = text[i] == UInt8(ascii: "-")
                i = text.index(after: i)
            }
            while i < end {
                let b = text[i]
                guard b >= 0x30, b <= 0x39 else { break }
                if !(expDigits.isEmpty && b == 0x30) { expDigits.append(b) }
                i = text.index(after: i)
            }
        }
        var trailingZeros = 0
        while let last = digits.last, last == 0x30 {
            digits.removeLast()
            trailingZeros += 1
        }
        self.hugeExponent = nil
        guard !digits.isEmpty else {
            self.negative = false
            self.digits = []
            self.exponent = 0
            return
        }
        self.negative = negative
        self.digits = digits
        // Leading zeros of the fraction were skipped in `digits` but still count as places.
        // Both adjustments are bounded by the text's length, far below 10^18.
        let adjustment = trailingZeros - fractionCount
        if expDigits.count <= 18 {
            var written = 0
            for d in expDigits { written = written * 10 + Int(d - 0x30) }
            let exponent = (expNegative ? -written : written) + adjustment
            // One form per value: an exponent of 19 digits or more is huge however it was written.
            if exponent.magnitude >= 1_000_000_000_000_000_000 {
                self.exponent = exponent < 0 ? -Self.hugeExponentSentinel : Self.hugeExponentSentinel
                self.hugeExponent = Array(String(exponent.magnitude).utf8)
            } else {
                self.exponent = exponent
            }
            return
        }
        // |written| >= 10^18 dwarfs the adjustment, so the sign stays the written one and only
        // the magnitude moves: away from zero or towards it.
        let magnitude = Self.addingSmall(expNegative ? -adjustment : adjustment, to: expDigits)
        if magnitude.count <= 18 {
            var value = 0
            for d in magnitude { value = value * 10 + Int(d - 0x30) }
            self.exponent = expNegative ? -value : value
        } else {
            self.exponent = expNegative ? -Self.hugeExponentSentinel : Self.hugeExponentSentinel
            self.hugeExponent = magnitude
        }
    }

    /// The exponent as decimal text, exact however large: `-3`, `99999999999999999999`.
    package var exponentText: String {
        guard let huge = hugeExponent else { return String(exponent) }
        return (exponent < 0 ? "-" : "") + String(decoding: huge, as: UTF8.self)
    }

    /// `digits` (ASCII, no leading zeros, at least 19 of them) plus `delta`, where |delta| is far
    /// below the value, without leading zeros.
    private static func addingSmall(_ delta: Int, to digits: [UInt8]) -> [UInt8] {
        var out = digits
        var carry = delta.magnitude
        var k = out.count - 1
        if delta >= 0 {
            while carry > 0 {
                guard k >= 0 else {
                    out.insert(contentsOf: String(carry).utf8, at: 0)
                    break
                }
                let sum = UInt(out[k] - 0x30) + carry % 10
                out[k] = UInt8(sum % 10) + 0x30
                carry = carry / 10 + sum / 10
                k -= 1
            }
        } else {
            // Subtracting: the value is far larger than `delta`, so the borrow ends in range.
            var borrow: UInt = 0
            while (carry > 0 || borrow > 0), k >= 0 {
                let subtrahend = carry % 10 + borrow
                carry /= 10
                let digit = UInt(out[k] - 0x30)
                if digit >= subtrahend {
                    out[k] = UInt8(digit - subtrahend) + 0x30
                    borrow = 0
                } else {
                    out[k] = UInt8(digit + 10 - subtrahend) + 0x30
                    borrow = 1
                }
                k -= 1
            }
            let leading = out.prefix(while: { $0 == 0x30 }).count
            out.removeFirst(leading)
        }
        return out
    }
}
