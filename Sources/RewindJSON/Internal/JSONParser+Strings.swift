extension JSONParser {
    /// Skips ordinary string bytes eight at a time, stopping at (or a few bytes before) the next
    /// quote, backslash or control character; ORs what it skipped into `seen`.
    @inline(__always) mutating func skipPlainStringBytes(_ seen: inout UInt64) {
        while i &+ 8 <= end {
            let w = SWAR.load(p + i)
            let special = SWAR.stringSpecialBytes(w)
            if special == 0 {
                seen |= w
                i &+= 8
                continue
            }
            let k = special.trailingZeroBitCount &>> 3
            seen |= w & ((1 &<< UInt64(k &* 8)) &- 1)
            i &+= k
            return
        }
    }

    /// Reads the string whose opening quote is at `i`.
    @inline(__always) mutating func parseString() throws(JSONError) -> String {
        i &+= 1
        let start = i
        var seen: UInt64 = 0
        while true {
            skipPlainStringBytes(&seen)
            guard i < end else { throw error("unexpected end of input inside a string") }
            let b = p[i]
            if b == UInt8(ascii: "\"") {
                let length = i &- start
                let slice = UnsafeBufferPointer(start: p + start, count: length)
                i &+= 1
                if seen & 0x8080_8080_8080_8080 == 0 {
                    if usesCache {
                        if length <= 15, start &+ 16 <= end { return cache.shortString(at: p + start, length: length) }
                        if length > 15, length <= StringCache.longLimit { return cache.longString(at: p + start, length: length) }
                    }
                    return String(decoding: slice, as: UTF8.self)
                }
                guard let s = String(validating: slice, as: UTF8.self) else {
                    throw error("invalid UTF-8 in a string", at: firstInvalidUTF8(from: start))
                }
                return s
            }
            if b == UInt8(ascii: "\\") { return try parseEscapedString(from: start) }
            if b < 0x20 { throw controlCharacterError(b) }
            seen |= UInt64(b)
            i &+= 1
        }
    }

    @inline(never) func controlCharacterError(_ b: UInt8) -> JSONError {
        error("control character U+\(hex4(UInt16(b))) must be escaped in a string")
    }

    /// The slow path, once a backslash is seen: copy into scratch, decoding escapes.
    @inline(never) mutating func parseEscapedString(from start: Int) throws(JSONError) -> String {
        scratch.removeAll()
        scratch.append(p + start, i &- start)
        while true {
            let runStart = i
            var seen: UInt64 = 0
            skipPlainStringBytes(&seen)
            while i < end, p[i] != UInt8(ascii: "\""), p[i] != UInt8(ascii: "\\"), p[i] >= 0x20 { i &+= 1 }
            if i > runStart { scratch.append(p + runStart, i &- runStart) }
            guard i < end else { break }
            let b = p[i]
            if b == UInt8(ascii: "\"") {
                i &+= 1
                guard let s = String(validating: scratch.bytes, as: UTF8.self) else {
                    throw error("invalid UTF-8 in a string", at: firstInvalidUTF8(from: start))
                }
                return s
            }
            if b < 0x20 { throw controlCharacterError(b) }
            // A backslash.
            i &+= 1
            guard i < end else { break }
            let e = p[i]
            i &+= 1
            switch e {
            case UInt8(ascii: "\""): scratch.append(0x22)
            case UInt8(ascii: "\\"): scratch.append(0x5C)
            case UInt8(ascii: "/"): scratch.append(0x2F)
            case UInt8(ascii: "b"): scratch.append(0x08)
            case UInt8(ascii: "f"): scratch.append(0x0C)
            case UInt8(ascii: "n"): scratch.append(0x0A)
            case UInt8(ascii: "r"): scratch.append(0x0D)
            case UInt8(ascii: "t"): scratch.append(0x09)
            case UInt8(ascii: "u"):
                let escapeStart = i &- 2
                var scalar = UInt32(try parseHex4())
                if scalar >= 0xD800, scalar <= 0xDBFF {
                    guard i &+ 1 < end, p[i] == UInt8(ascii: "\\"), p[i &+ 1] == UInt8(ascii: "u") else {
                        throw error("unpaired UTF-16 surrogate \\u\(hex4(UInt16(scalar))) in a string", at: escapeStart)
                    }
                    i &+= 2
                    let low = UInt32(try parseHex4())
                    guard low >= 0xDC00, low <= 0xDFFF else {
                        throw error("unpaired UTF-16 surrogate \\u\(hex4(UInt16(scalar))) in a string", at: escapeStart)
                    }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if scalar >= 0xDC00, scalar <= 0xDFFF {
                    throw error("unpaired UTF-16 surrogate \\u\(hex4(UInt16(scalar))) in a string", at: escapeStart)
                }
                appendUTF8(scalar)
            default:
                throw error("invalid escape '\\\(Character(Unicode.Scalar(e)))' in a string", at: i &- 2)
            }
        }
        throw error("unexpected end of input inside a string")
    }

    private mutating func parseHex4() throws(JSONError) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard i < end else { throw error("unexpected end of input in a \\u escape") }
            let b = p[i]
            let digit: UInt8
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = b &- 0x30
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = b &- 0x61 &+ 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = b &- 0x41 &+ 10
            default: throw error("expected four hex digits after \\u")
            }
            value = value << 4 | UInt16(digit)
            i &+= 1
        }
        return value
    }

    private mutating func appendUTF8(_ scalar: UInt32) {
        scratch.reserve(4)
        switch scalar {
        case 0..<0x80:
            scratch.appendUnchecked(UInt8(scalar))
        case 0x80..<0x800:
            scratch.appendUnchecked(UInt8(0xC0 | (scalar >> 6)))
            scratch.appendUnchecked(UInt8(0x80 | (scalar & 0x3F)))
        case 0x800..<0x10000:
            scratch.appendUnchecked(UInt8(0xE0 | (scalar >> 12)))
            scratch.appendUnchecked(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            scratch.appendUnchecked(UInt8(0x80 | (scalar & 0x3F)))
        default:
            scratch.appendUnchecked(UInt8(0xF0 | (scalar >> 18)))
            scratch.appendUnchecked(UInt8(0x80 | ((scalar >> 12) & 0x3F)))
            scratch.appendUnchecked(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            scratch.appendUnchecked(UInt8(0x80 | (scalar & 0x3F)))
        }
    }

    /// The offset of the first byte from `start` that begins an invalid UTF-8 sequence.
    private func firstInvalidUTF8(from start: Int) -> Int {
        var k = start
        while k < end {
            let b = p[k]
            if b < 0x80 { k += 1; continue }
            let length: Int
            switch b {
            case 0xC2...0xDF: length = 2
            case 0xE0...0xEF: length = 3
            case 0xF0...0xF4: length = 4
            default: return k
            }
            let sequence = UnsafeBufferPointer(start: p + k, count: Swift.min(length, end - k))
            if sequence.count < length || String(validating: sequence, as: UTF8.self) == nil { return k }
            k += length
        }
        return k
    }
}

/// `value` as four uppercase hex digits.
func hex4(_ value: UInt16) -> String {
    let s = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: 4 - s.count) + s
}
