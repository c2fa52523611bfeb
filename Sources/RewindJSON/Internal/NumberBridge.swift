/// Exact conversions between Swift's number types and ``JSONNumber``, beyond the ones
/// `JSONNumber` itself offers.
enum NumberBridge {
    /// The integer `value`, exactly, whatever its width.
    static func number<I: FixedWidthInteger>(_ value: I) -> JSONNumber {
        if let small = Int64(exactly: value) { return JSONNumber(small) }
        if let large = UInt64(exactly: value) { return JSONNumber(large) }
        // Only 128-bit integers get here; their decimal text is always a valid JSON number.
        return JSONNumber(text: String(value))!
    }

    /// The shortest text that reads back as the finite `value`: `Float(0.1)` is `0.1`, not the
    /// `0.10000000149011612` its `Double` widening would print.
    static func number(_ value: Float) -> JSONNumber {
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        if let plus = text.firstIndex(of: "+") { text.remove(at: plus) }
        return JSONNumber(text: text) ?? JSONNumber(Double(value))!
    }

    /// `number` as an `I` when it is an integer that `I` holds exactly (`2.0` and `2e0` count),
    /// else `nil`.
    static func integer<I: FixedWidthInteger>(_ number: JSONNumber, as type: I.Type) -> I? {
        if let small = number.int64Value { return I(exactly: small) }
        if I.bitWidth <= 64 {
            guard !I.isSigned, let large = number.uint64Value else { return nil }
            return I(exactly: large)
        }
        return wideInteger(number.decimal, as: type)
    }

    private static func wideInteger<I: FixedWidthInteger>(_ decimal: NormalizedDecimal, as type: I.Type) -> I? {
        guard !decimal.isZero else { return 0 }
        guard decimal.exponent >= 0, decimal.digits.count + decimal.exponent <= 40 else { return nil }
        if decimal.negative, !I.isSigned { return nil }
        var value: I = 0
        let digits = decimal.digits.map { I($0 &- 0x30) } + Array(repeating: 0, count: decimal.exponent)
        for digit in digits {
            let (shifted, overflowMultiplying) = value.multipliedReportingOverflow(by: 10)
            // Accumulate negative numbers downwards so that `I.min` fits.
            let (next, overflowAdding) = decimal.negative
                ? shifted.subtractingReportingOverflow(digit)
                : shifted.addingReportingOverflow(digit)
            if overflowMultiplying || overflowAdding { return nil }
            value = next
        }
        return value
    }
}
