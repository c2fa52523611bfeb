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
