/// A JSON number that keeps the exact text it was read from.
///
/// `12345678901234567890`, `1.10` and `-0` print back exactly as written. Equality is numeric and
/// exact (decimal, not floating point): `1.0 == 1`, `1e2 == 100`, `-0 == 0`, while
/// `12345678901234567890 != 12345678901234567891` even though both round to the same `Double`.
public struct JSONNumber: Sendable {
    @usableFromInline enum Storage: Sendable {
        /// A canonical integer: its text is exactly `String(value)`.
        case int(Int64)
        /// A number of at most 19 digits, packed so that it needs no allocation.
        case packed(PackedDecimal)
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
            let text = Self.jsonText(of: value)
            storage = NumberScanner.storage(forText: text) ?? .text(text)
        }
    }

    /// A number from its JSON text, or `nil` when `text` is not a JSON number
    /// (`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`).
    public init?(text: String) {
        guard let storage = NumberScanner.storage(forText: text) else { return nil }
        self.storage = storage
    }

    /// A number from text already known to match the JSON number grammar.
    package init(validatedText text: String) {
        storage = NumberScanner.storage(forText: text) ?? .text(text)
    }

    init(storage: Storage) { self.storage = storage }

    /// The number as JSON text, exactly as it was read.
    public var text: String {
        switch storage {
        case .int(let i): String(i)
        case .packed(let p): p.text
        case .text(let t): t
        }
    }

    /// The nearest `Double` (which may be ±infinity for out-of-range text such as `1e999`).
    public var doubleValue: Double {
        switch storage {
        case .int(let i): Double(i)
        case .packed(let p): p.doubleValue
        case .text(let t): Double(t) ?? .nan
        }
    }

    /// The value as `Int64` when it is an integer in range (`2.0` and `2e0` count), else `nil`.
    public var int64Value: Int64? {
        switch storage {
        case .int(let i): return i
        case .packed, .text:
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
        case .packed(let p): NormalizedDecimal(text: p.text.utf8)
        case .text(let t): NormalizedDecimal(text: t.utf8)
        }
    }

    /// The value as a ``SmallDecimal`` when its digits fit in 64 bits and it is not held as text.
    var smallDecimal: SmallDecimal? {
        switch storage {
        case .int(let i): SmallDecimal(negative: i < 0, significand: i.magnitude, exponent: 0)
        case .packed(let p): p.normalized
        case .text: nil
        }
    }

    /// The canonical text of the number's value: equal numbers give equal text.
    /// `1.0`, `1` and `10e-1` all give `1`; `1.5e300` gives `15e299`.
    public var canonicalText: String {
        if let small = smallDecimal { return small.canonicalText }
        let d = decimal
        if d.isZero { return "0" }
        var out = d.negative ? "-" : ""
        out += String(decoding: d.digits, as: UTF8.self)
        if d.exponent != 0 { out += "e" + d.exponentText }
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
    /// Numeric, exact equality: `1.0 == 1`, `-0 == 0`.
    public static func == (lhs: JSONNumber, rhs: JSONNumber) -> Bool {
        switch (lhs.storage, rhs.storage) {
        case (.int(let a), .int(let b)): return a == b
        case (.packed(let a), .packed(let b)) where a == b: return true
        case (.text(let a), .text(let b)) where a == b: return true
        default:
            if let a = lhs.smallDecimal, let b = rhs.smallDecimal { return a == b }
            return lhs.decimal == rhs.decimal
        }
    }
}

extension JSONNumber: Hashable {
    /// Hashes the canonical text, so numerically equal numbers hash equal.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(canonicalText)
    }
}

extension JSONNumber: CustomStringConvertible {
    /// The number's exact JSON text.
    public var description: String { text }
}

extension JSONNumber: ExpressibleByIntegerLiteral {
    /// The integer `value`.
    public init(integerLiteral value: Int) { self.init(value) }
}

