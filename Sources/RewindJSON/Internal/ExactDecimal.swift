/// A decimal number held exactly, as sign, digits and a power of ten, with just the arithmetic
/// the date strategies need: moving a `Date` between reference dates and units without the
/// rounding that `Double` arithmetic would add.
///
/// Sizes grow with the spread of exponents, so callers keep exponents within a few thousand.
struct ExactDecimal: Equatable {
    /// `true` for numbers below zero; zero is never negative.
    var negative: Bool
    /// Digit values 0...9, most significant first, with no leading or trailing zeros; empty for zero.
    var digits: [UInt8]
    /// The power of ten the digits are multiplied by.
    var exponent: Int

    static let zero = ExactDecimal(negative: false, digits: [], exponent: 0)

    init(negative: Bool, digits: [UInt8], exponent: Int) {
        self.negative = negative
        self.digits = digits
        self.exponent = exponent
        normalize()
    }

    /// The value of a JSON number's normalized form.
    init(_ decimal: NormalizedDecimal) {
        self.init(negative: decimal.negative, digits: decimal.digits.map { $0 &- 0x30 }, exponent: decimal.exponent)
    }

    /// The exact value of the shortest text that reads back as `value`, which must be finite.
    init(shortest value: Double) {
        self.init(NormalizedDecimal(text: value.description.utf8))
    }

    init(_ value: Int64) {
        let text = String(value.magnitude)
        self.init(negative: value < 0, digits: text.utf8.map { $0 &- 0x30 }, exponent: 0)
    }

    var isZero: Bool { digits.isEmpty }

    private mutating func normalize() {
        var leading = 0
        while leading < digits.count, digits[leading] == 0 { leading += 1 }
        if leading > 0 { digits.removeFirst(leading) }
        while let last = digits.last, last == 0 {
            digits.removeLast()
            exponent += 1
        }
        if digits.isEmpty {
            negative = false
            exponent = 0
        }
    }

    /// The value times 10^`places`.
    func scaled(by places: Int) -> ExactDecimal {
        var result = self
        if !result.isZero { result.exponent += places }
        return result
    }

    static prefix func - (operand: ExactDecimal) -> ExactDecimal {
        var result = operand
        if !result.isZero { result.negative.toggle() }
        return result
    }

    static func - (lhs: ExactDecimal, rhs: ExactDecimal) -> ExactDecimal { lhs + -rhs }

    static func + (lhs: ExactDecimal, rhs: ExactDecimal) -> ExactDecimal {
        if lhs.isZero { return rhs }
        if rhs.isZero { return lhs }
        // Align both on the smaller exponent, least significant digit first.
        let exponent = min(lhs.exponent, rhs.exponent)
        let a = lhs.alignedLittleEndian(to: exponent)
        let b = rhs.alignedLittleEndian(to: exponent)
        if lhs.negative == rhs.negative {
            return ExactDecimal(negative: lhs.negative, littleEndian: add(a, b), exponent: exponent)
        }
        if compare(a, b) >= 0 {
            return ExactDecimal(negative: lhs.negative, littleEndian: subtract(a, b), exponent: exponent)
        }
        return ExactDecimal(negative: rhs.negative, littleEndian: subtract(b, a), exponent: exponent)
    }

    private init(negative: Bool, littleEndian: [UInt8], exponent: Int) {
        self.init(negative: negative, digits: littleEndian.reversed(), exponent: exponent)
    }

    private func alignedLittleEndian(to target: Int) -> [UInt8] {
        Array(repeating: 0, count: exponent - target) + digits.reversed()
    }

    private static func add(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(max(a.count, b.count) + 1)
        var carry: UInt8 = 0
        for i in 0..<max(a.count, b.count) {
            let sum = (i < a.count ? a[i] : 0) + (i < b.count ? b[i] : 0) + carry
            out.append(sum % 10)
            carry = sum / 10
        }
        if carry > 0 { out.append(carry) }
        return out
    }

    /// `a - b` for `a >= b`.
    private static func subtract(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(a.count)
        var borrow: Int8 = 0
        for i in 0..<a.count {
            var d = Int8(a[i]) - (i < b.count ? Int8(b[i]) : 0) - borrow
            borrow = d < 0 ? 1 : 0
            if d < 0 { d += 10 }
            out.append(UInt8(d))
        }
        return out
    }

    /// Compares magnitudes given least significant digit first.
    private static func compare(_ a: [UInt8], _ b: [UInt8]) -> Int {
        var ai = a.count
        var bi = b.count
        while ai > 0, a[ai - 1] == 0 { ai -= 1 }
        while bi > 0, b[bi - 1] == 0 { bi -= 1 }
        if ai != bi { return ai < bi ? -1 : 1 }
        var i = ai - 1
        while i >= 0 {
            if a[i] != b[i] { return a[i] < b[i] ? -1 : 1 }
            i -= 1
        }
        return 0
    }

    /// Splits the number into the largest integer not above it and the rest (in `0..<1`), or
    /// `nil` when that integer does not fit in `Int64`.
    func floorAndFraction() -> (integer: Int64, fraction: ExactDecimal)? {
        let integerDigits = digits.count + exponent
        guard integerDigits <= 18 else { return nil }
        var magnitude: Int64 = 0
        for i in 0..<max(integerDigits, 0) {
            magnitude = magnitude * 10 + Int64(i < digits.count ? digits[i] : 0)
        }
        var integer = negative ? -magnitude : magnitude
        var fraction = self - ExactDecimal(integer)
        if fraction.negative {
            integer -= 1
            fraction = fraction + ExactDecimal(1)
        }
        return (integer, fraction)
    }

    /// Positional JSON number text, never with an exponent: `-12.5`, `0.001`, `1200`.
    var plainText: String {
        if isZero { return "0" }
        var out = negative ? "-" : ""
        let text = String(decoding: digits.map { $0 &+ 0x30 }, as: UTF8.self)
        if exponent >= 0 {
            out += text
            out += String(repeating: "0", count: exponent)
        } else {
            let fractionCount = -exponent
            if fractionCount >= digits.count {
                out += "0."
                out += String(repeating: "0", count: fractionCount - digits.count)
                out += text
            } else {
                out += text.prefix(digits.count - fractionCount)
                out += "."
                out += text.suffix(fractionCount)
            }
        }
        return out
    }

    /// The nearest `Double`, correctly rounded.
    var doubleValue: Double {
        if isZero { return 0 }
        let text = (negative ? "-" : "") + String(decoding: digits.map { $0 &+ 0x30 }, as: UTF8.self) + "e\(exponent)"
        return Double(text) ?? .nan
    }
}
