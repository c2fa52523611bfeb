/// A JSON number of at most 19 digits (and at most 4 exponent digits) held in 14 bytes, so that
/// it needs no heap allocation yet prints back exactly as written: `-65.613616999999977`,
/// `1.10`, `-0`, `1E+2`, `2.5e-003`.
///
/// The digits before the exponent, integer and fraction parts together and including any leading
/// zeros of the fraction, form `significand`; `digitCount` remembers how many were written.
@usableFromInline struct PackedDecimal: Sendable, Equatable {
    var significand: UInt64
    /// The value of the written exponent, sign included; 0 when there is none.
    var exponent: Int16
    /// Digits before the exponent: integer and fraction parts together (1...19).
    var digitCount: UInt8
    /// Digits after the decimal point; 0 when there is no point.
    var fractionCount: UInt8
    /// Digits written in the exponent (leading zeros included); 0 when there is no exponent.
    var exponentDigits: UInt8
    var flags: UInt8

    static let negativeFlag: UInt8 = 1
    static let upperEFlag: UInt8 = 2
    static let plusFlag: UInt8 = 4

    /// The most bytes ``render(into:)`` writes: sign, 19 digits, point, `e`, sign, 4 digits.
    static let maxLength = 27

    var isNegative: Bool { flags & Self.negativeFlag != 0 }

    /// Writes the exact text at `out` and returns its length.
    @inline(__always) func render(into out: UnsafeMutablePointer<UInt8>) -> Int {
        var n = 0
        if isNegative {
            out[0] = UInt8(ascii: "-")
            n = 1
        }
        let digits = Int(digitCount)
        let fraction = Int(fractionCount)
        let length = fraction > 0 ? digits + 1 : digits
        // Digits from the right, with the point slotted in before the fraction.
        var value = significand
        var k = n + length
        var written = 0
        while written < digits {
            if fraction > 0, written == fraction {
                k -= 1
                out[k] = UInt8(ascii: ".")
            }
            k -= 1
            out[k] = UInt8(truncatingIfNeeded: value % 10) &+ 0x30
            value /= 10
            written += 1
        }
        n += length
        if exponentDigits > 0 {
            out[n] = flags & Self.upperEFlag != 0 ? UInt8(ascii: "E") : UInt8(ascii: "e")
            n += 1
            if exponent < 0 {
                out[n] = UInt8(ascii: "-")
                n += 1
            } else if flags & Self.plusFlag != 0 {
                out[n] = UInt8(ascii: "+")
                n += 1
            }
            var e = Int(exponent.magnitude)
            let count = Int(exponentDigits)
            for j in stride(from: n + count - 1, through: n, by: -1) {
                out[j] = UInt8(truncatingIfNeeded: e % 10) &+ 0x30
                e /= 10
            }
            n += count
        }
        return n
    }

    /// The exact text.
    var text: String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.maxLength) { buffer in
            let n = render(into: buffer.baseAddress!)
            return String(decoding: UnsafeBufferPointer(rebasing: buffer[0..<n]), as: UTF8.self)
        }
    }

    /// The value as sign, significand without trailing zeros, and power of ten; zero is
    /// `(false, 0, 0)`. Equal values give equal triples.
    var normalized: SmallDecimal {
        SmallDecimal(negative: isNegative, significand: significand, exponent: Int(exponent) - Int(fractionCount))
    }

    /// The nearest `Double`, computed exactly when the significand and the power of ten are both
    /// exactly representable (the classic fast path), else through the text.
    var doubleValue: Double {
        let power = Int(exponent) - Int(fractionCount)
        if significand < (1 << 53), power >= -22, power <= 22 {
            var d = Double(significand)
            if power >= 0 {
                d *= SmallDecimal.powersOfTen[power]
            } else {
                d /= SmallDecimal.powersOfTen[-power]
            }
            return isNegative ? -d : d
        }
        return Double(text) ?? .nan
    }
}

/// A number as sign, significand (no trailing zeros) and power of ten, for numbers whose
/// significant digits fit in 64 bits. Zero is `(false, 0, 0)`.
struct SmallDecimal: Equatable {
    var negative: Bool
    var significand: UInt64
    var exponent: Int

    init(negative: Bool, significand: UInt64, exponent: Int) {
        var s = significand
        var e = exponent
        if s == 0 {
            self.negative = false
            self.significand = 0
            self.exponent = 0
            return
        }
        while s % 10 == 0 {
            s /= 10
            e += 1
        }
        self.negative = negative
        self.significand = s
        self.exponent = e
    }

    /// The canonical text: `-15e2`, `1`, `25e-1`, `0`.
    var canonicalText: String {
        var out = negative ? "-" : ""
        out += String(significand)
        if exponent != 0 { out += "e\(exponent)" }
        return out
    }

    static let powersOfTen: [Double] = (0...22).map { k in
        var d = 1.0
        for _ in 0..<k { d *= 10 }
        return d
    }
}
