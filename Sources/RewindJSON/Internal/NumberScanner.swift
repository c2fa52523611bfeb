/// Why a number's text is not a JSON number, and the offset of the offending byte.
struct NumberSyntaxError: Error {
    var message: String
    var offset: Int
}

/// Reads one JSON number (`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`) in a single pass,
/// validating it and choosing its storage at once: a canonical `Int64`, a ``PackedDecimal``
/// when it fits, else its text.
enum NumberScanner {
    @inline(__always) static func isDigit(_ b: UInt8) -> Bool { b &- 0x30 < 10 }

    /// Scans the number starting at `p[start]` (before `end`); returns its storage and sets
    /// `next` to the offset just past it.
    @inline(__always)
    static func scan(_ p: UnsafePointer<UInt8>, from start: Int, to end: Int, next: inout Int) throws(NumberSyntaxError) -> JSONNumber.Storage {
        var i = start
        var negative = false
        if p[i] == UInt8(ascii: "-") {
            negative = true
            i &+= 1
        }
        guard i < end, isDigit(p[i]) else {
            throw NumberSyntaxError(message: "expected a digit in a number", offset: i)
        }
        var significand: UInt64 = 0
        var digits = 0
        if p[i] == UInt8(ascii: "0") {
            i &+= 1
            digits = 1
            if i < end, isDigit(p[i]) {
                throw NumberSyntaxError(message: "a number may not have leading zeros", offset: i)
            }
        } else {
            while i < end {
                let d = p[i] &- 0x30
                guard d < 10 else { break }
                if digits < 19 { significand = significand &* 10 &+ UInt64(d) }
                digits &+= 1
                i &+= 1
            }
        }
        var fraction = 0
        if i < end, p[i] == UInt8(ascii: ".") {
            i &+= 1
            guard i < end, isDigit(p[i]) else {
                throw NumberSyntaxError(message: "expected a digit after the decimal point", offset: i)
            }
            while i < end {
                let d = p[i] &- 0x30
                guard d < 10 else { break }
                if digits < 19 { significand = significand &* 10 &+ UInt64(d) }
                digits &+= 1
                fraction &+= 1
                i &+= 1
            }
        }
        var exponentDigits = 0
        var exponent = 0
        var flags: UInt8 = negative ? PackedDecimal.negativeFlag : 0
        if i < end, p[i] | 0x20 == UInt8(ascii: "e") {
            if p[i] == UInt8(ascii: "E") { flags |= PackedDecimal.upperEFlag }
            i &+= 1
            var exponentNegative = false
            if i < end {
                if p[i] == UInt8(ascii: "+") {
                    flags |= PackedDecimal.plusFlag
                    i &+= 1
                } else if p[i] == UInt8(ascii: "-") {
                    exponentNegative = true
                    i &+= 1
                }
            }
            guard i < end, isDigit(p[i]) else {
                throw NumberSyntaxError(message: "expected a digit in the exponent", offset: i)
            }
            while i < end {
                let d = p[i] &- 0x30
                guard d < 10 else { break }
                if exponentDigits < 5 { exponent = exponent &* 10 &+ Int(d) }
                exponentDigits &+= 1
                i &+= 1
            }
            if exponentNegative { exponent = -exponent }
        }
        next = i

        if fraction == 0, exponentDigits == 0, digits <= 19 {
            // A canonical integer, unless it is -0 or beyond Int64.
            if negative {
                if significand != 0, significand <= UInt64(Int64.max) + 1 {
                    return .int(significand == UInt64(Int64.max) + 1 ? .min : -Int64(significand))
                }
            } else if significand <= UInt64(Int64.max) {
                return .int(Int64(significand))
            }
        }
        if digits <= 19, exponentDigits <= 4 {
            return .packed(PackedDecimal(
                significand: significand, exponent: Int16(exponent), digitCount: UInt8(digits),
                fractionCount: UInt8(fraction), exponentDigits: UInt8(exponentDigits), flags: flags))
        }
        return .text(String(decoding: UnsafeBufferPointer(start: p + start, count: i - start), as: UTF8.self))
    }

    /// The storage for `text` when it is exactly one JSON number, else `nil`.
    static func storage(forText text: String) -> JSONNumber.Storage? {
        var text = text
        return text.withUTF8 { utf8 -> JSONNumber.Storage? in
            guard let p = utf8.baseAddress, utf8.count > 0 else { return nil }
            var next = 0
            guard let storage = try? scan(p, from: 0, to: utf8.count, next: &next), next == utf8.count else { return nil }
            return storage
        }
    }
}
