/// A JSON number that keeps the exact text it was read from.
///
/// `12345678901234567890`, `1.10` and `-0` print back exactly as written. Equality is numeric and
/// exact (decimal, not floating point): `1.0 == 1`, `1e2 == 100`, `-0 == 0`, while
/// `12345678901234567890 != 12345678901234567891` even though both round to the same `Double`.
public struct JSONNumber: Sendable {
    @usableFromInline enum Storage: Sendable {
        /// A canonical integer: its text is exactly `String(value)`.
        case int(Int64)
        /// Any other number, as its JSON text.
        case text(String)
    }

    @usableFromInline var storage: Storage

    /// The integer `value`.
    @inlinable public init(_ value: Int) { storage = .int(Int64(value)) }

    /// The integer `value`.
    @inlinable public init(_ value: Int64) { storage = .int(value) }

    /// The integer `value`, exactly, even beyond `Int64.max`.
    public init(_ value: UInt64) {
        if value <= UInt64(Int64.max) {
            storage = .int(Int64(value))
        } else {
            storage = .text(String(value))
        }
    }

    /// The number `value`, or `nil` for NaN and the infinities, which JSON cannot hold.
    /// Integral values within ±2⁵³ are stored as integers, others as Swift's shortest
    /// round-tripping text.
    public init?(_ value: Double) {
        guard value.isFinite else { return nil }
        if value == value.rounded(), abs(value) <= 9_007_199_254_740_992, !(value == 0 && value.sign == .minus) {
            storage = .int(Int64(value))
        } else {
            storage = .text(Self.jsonText(of: value))
        }
    }

    /// A number from its JSON text, or `nil` when `text` is not a JSON number
    /// (`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`).
    public init?(text: String) {
        guard Self.isValidJSONNumber(text.utf8) else { return nil }
        self.init(validatedText: text)
    }

    /// A number from text already known to match the JSON number grammar.
    package init(validatedText text: String) {
        if let int = Self.canonicalInt(text.utf8) {
            storage = .int(int)
        } else {
            storage = .text(text)
        }
    }

    /// The number as JSON text, exactly as it was read.
    public var text: String {
        switch storage {
        case .int(let i): String(i)
        case .text(let t): t
        }
    }

    /// The nearest `Double` (which may be ±infinity for out-of-range text such as `1e999`).
    public var doubleValue: Double {
        switch storage {
        case .int(let i): Double(i)
        case .text(let t): Double(t) ?? .nan
        }
    }

    /// The value as `Int64` when it is an integer in range (`2.0` and `2e0` count), else `nil`.
    public var int64Value: Int64? {
        switch storage {
        case .int(let i): return i
        case .text:
            let d = decimal
            if d.isZero { return 0 }
            guard d.exponent >= 0, d.digits.count + d.exponent <= 19 else { return nil }
            var magnitude: UInt64 = 0
            for digit in d.digits {
                magnitude = magnitude * 10 + UInt64(digit - 0x30)
            }
            for _ in 0..<d.exponent {
                let (m, overflow) = magnitude.multipliedReportingOverflow(by: 10)
                if overflow { return nil }
                magnitude = m
            }
            if d.negative {
                if magnitude == UInt64(Int64.max) + 1 { return Int64.min }
                guard magnitude <= UInt64(Int64.max) else { return nil }
                return -Int64(magnitude)
            }
            guard magnitude <= UInt64(Int64.max) else { return nil }
            return Int64(magnitude)
        }
    }

    /// The value as `Int` when it is an integer in range, else `nil`.
    public var intValue: Int? { int64Value.map { Int($0) } }

    /// The value as `UInt64` when it is a non-negative integer in range, else `nil`.
    public var uint64Value: UInt64? {
        if let i = int64Value { return i >= 0 ? UInt64(i) : nil }
        let d = decimal
        guard !d.negative, d.exponent >= 0, d.digits.count + d.exponent <= 20 else { return nil }
        var magnitude: UInt64 = 0
        for digit in d.digits + Array(repeating: UInt8(ascii: "0"), count: d.exponent) {
            let (m, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (s, o2) = m.addingReportingOverflow(UInt64(digit - 0x30))
            if o1 || o2 { return nil }
            magnitude = s
        }
        return magnitude
    }

    /// The number in normalized decimal form: `-1.50e2` is `(negative, "15", 1)`.
    /// Zero has no digits and no sign.
    package var decimal: NormalizedDecimal {
        switch storage {
        case .int(let i): NormalizedDecimal(text: String(i).utf8)
        case .text(let t): NormalizedDecimal(text: t.utf8)
        }
    }

    /// The canonical text of the number's value: equal numbers give equal text.
    /// `1.0`, `1` and `10e-1` all give `1`; `1.5e300` gives `15e299`.
    public var canonicalText: String {
        if case .int(var i) = storage {
            if i == 0 || i % 10 != 0 { return String(i) }
            var zeros = 0
            while i % 10 == 0 { i /= 10; zeros += 1 }
            return "\(i)e\(zeros)"
        }
        let d = decimal
        if d.isZero { return "0" }
        var out = d.negative ? "-" : ""
        out += String(decoding: d.digits, as: UTF8.self)
        if d.exponent != 0 { out += "e\(d.exponent)" }
        return out
    }

    static func jsonText(of value: Double) -> String {
        // Swift prints the shortest text that round-trips; it is JSON but for a few spellings.
        var s = value.description
        if s.hasSuffix(".0") { s.removeLast(2) }
        return s.replacingOccurrences(of: "e+", with: "e")
    }
}

extension JSONNumber: Equatable {
    public static func == (lhs: JSONNumber, rhs: JSONNumber) -> Bool {
        switch (lhs.storage, rhs.storage) {
        case (.int(let a), .int(let b)): return a == b
        case (.text(let a), .text(let b)) where a == b: return true
        default: return lhs.decimal == rhs.decimal
        }
    }
}

extension JSONNumber: Hashable {
    public func hash(into hasher: inout Hasher) {
        hasher.combine(canonicalText)
    }
}

extension JSONNumber: CustomStringConvertible {
    public var description: String { text }
}

extension JSONNumber: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int) { self.init(value) }
}

// MARK: - Grammar and normalization

extension JSONNumber {
    /// Whether `bytes` is exactly one JSON number.
    package static func isValidJSONNumber<C: Collection<UInt8>>(_ bytes: C) -> Bool {
        var i = bytes.startIndex
        let end = bytes.endIndex
        func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
        if i < end, bytes[i] == UInt8(ascii: "-") { i = bytes.index(after: i) }
        guard i < end else { return false }
        if bytes[i] == UInt8(ascii: "0") {
            i = bytes.index(after: i)
        } else if isDigit(bytes[i]) {
            while i < end, isDigit(bytes[i]) { i = bytes.index(after: i) }
        } else {
            return false
        }
        if i < end, bytes[i] == UInt8(ascii: ".") {
            i = bytes.index(after: i)
            guard i < end, isDigit(bytes[i]) else { return false }
            while i < end, isDigit(bytes[i]) { i = bytes.index(after: i) }
        }
        if i < end, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i = bytes.index(after: i)
            if i < end, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i = bytes.index(after: i) }
            guard i < end, isDigit(bytes[i]) else { return false }
            while i < end, isDigit(bytes[i]) { i = bytes.index(after: i) }
        }
        return i == end
    }

    /// The `Int64` whose decimal text is exactly `bytes` (no `-0`, no leading zeros), else `nil`.
    package static func canonicalInt<C: Collection<UInt8>>(_ bytes: C) -> Int64? {
        let count = bytes.count
        guard count > 0, count <= 20 else { return nil }
        var i = bytes.startIndex
        var negative = false
        if bytes[i] == UInt8(ascii: "-") {
            negative = true
            i = bytes.index(after: i)
            guard i < bytes.endIndex else { return nil }
        }
        let first = bytes[i]
        if first == UInt8(ascii: "0") {
            // "0" is canonical; "-0" and "01" are not.
            return (!negative && bytes.index(after: i) == bytes.endIndex) ? 0 : nil
        }
        var magnitude: UInt64 = 0
        while i < bytes.endIndex {
            let b = bytes[i]
            guard b >= 0x30, b <= 0x39 else { return nil }
            let (m, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (s, o2) = m.addingReportingOverflow(UInt64(b - 0x30))
            if o1 || o2 { return nil }
            magnitude = s
            i = bytes.index(after: i)
        }
        if negative {
            if magnitude == UInt64(Int64.max) + 1 { return .min }
            return magnitude <= UInt64(Int64.max) ? -Int64(magnitude) : nil
        }
        return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil
    }
}

/// A number as sign, significant digits (no leading or trailing zeros) and a power of ten, so
/// that numerically equal JSON numbers have equal forms. Exponents saturate far beyond any
/// `Double`, so absurd texts such as `1e99999999999999999999` still compare sensibly.
package struct NormalizedDecimal: Equatable, Sendable {
    package var negative: Bool
    /// ASCII digits, first and last non-zero; empty for zero.
    package var digits: [UInt8]
    package var exponent: Int

    package var isZero: Bool { digits.isEmpty }

    package init<C: Collection<UInt8>>(text: C) {
        var negative = false
        var digits: [UInt8] = []
        var fractionCount = 0
        var exponent = 0
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
        if i < end, text[i] == UInt8(ascii: "e") || text[i] == UInt8(ascii: "E") {
            i = text.index(after: i)
            var expNegative = false
            if i < end, text[i] == UInt8(ascii: "+") || text[i] == UInt8(ascii: "-") {
                expNegative = text[i] == UInt8(ascii: "-")
                i = text.index(after: i)
            }
            let limit = 1 << 60
            while i < end {
                let b = text[i]
                guard b >= 0x30, b <= 0x39 else { break }
                if exponent < limit { exponent = exponent * 10 + Int(b - 0x30) }
                i = text.index(after: i)
            }
            if expNegative { exponent = -exponent }
        }
        // Leading zeros of the fraction were skipped in `digits` but still count as places.
        exponent -= fractionCount
        while let last = digits.last, last == 0x30 {
            digits.removeLast()
            exponent += 1
        }
        if digits.isEmpty {
            self.negative = false
            self.digits = []
            self.exponent = 0
        } else {
            self.negative = negative
            self.digits = digits
            self.exponent = exponent
        }
    }
}
