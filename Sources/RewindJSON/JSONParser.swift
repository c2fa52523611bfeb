import Foundation

/// Options for ``JSONValue/init(parsing:options:)-(_,_)``.
public struct JSONParseOptions: Sendable {
    /// The deepest nesting of arrays and objects accepted; deeper input is an error, never a
    /// stack overflow.
    public var maxDepth: Int

    public init(maxDepth: Int = 1_000) {
        self.maxDepth = maxDepth
    }
}

extension JSONValue {
    /// Parses one JSON text (RFC 8259, strict) from UTF-8 bytes.
    ///
    /// A leading UTF-8 byte-order mark is skipped, as RFC 8259 allows. Everything else that is not
    /// JSON is an error with its line and column: trailing commas, comments, single quotes,
    /// invalid UTF-8, unpaired surrogate escapes, control characters in strings, trailing data.
    ///
    /// ```swift
    /// let value = try JSONValue(parsing: Array(#"{"a":[1,2]}"#.utf8))
    /// ```
    public init(parsing bytes: [UInt8], options: JSONParseOptions = JSONParseOptions()) throws(JSONError) {
        self = try bytes.withUnsafeBufferPointer { (buffer) throws(JSONError) -> JSONValue in
            var parser = JSONParser(buffer, maxDepth: options.maxDepth)
            return try parser.parseDocument()
        }
    }

    /// Parses one JSON text from a string.
    public init(parsing text: String, options: JSONParseOptions = JSONParseOptions()) throws(JSONError) {
        var text = text
        let result = text.withUTF8 { buffer -> Result<JSONValue, JSONError> in
            var parser = JSONParser(buffer, maxDepth: options.maxDepth)
            return Result { () throws(JSONError) in try parser.parseDocument() }
        }
        self = try result.get()
    }

    /// Parses one JSON text from `Data`.
    public init(parsing data: Data, options: JSONParseOptions = JSONParseOptions()) throws(JSONError) {
        let result = data.withUnsafeBytes { raw -> Result<JSONValue, JSONError> in
            var parser = JSONParser(raw.bindMemory(to: UInt8.self), maxDepth: options.maxDepth)
            return Result { () throws(JSONError) in try parser.parseDocument() }
        }
        self = try result.get()
    }
}

/// The parsing engine: iterative, so nesting costs heap, not stack.
struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    var i = 0
    /// Values of containers still open, innermost last.
    var valueStack: [JSONValue] = []
    /// Keys of objects still open, innermost last.
    var keyStack: [String] = []
    var scratch: [UInt8] = []

    init(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    private struct Frame {
        var isObject: Bool
        var valueStart: Int
        var keyStart: Int
    }

    @inline(__always) func error(_ message: String, at offset: Int? = nil) -> JSONError {
        JSONError.at(offset ?? i, in: bytes, message)
    }

    @inline(__always) mutating func skipWhitespace() {
        while i < bytes.count {
            switch bytes[i] {
            case 0x20, 0x0A, 0x0D, 0x09: i += 1
            default: return
            }
        }
    }

    mutating func parseDocument() throws(JSONError) -> JSONValue {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { i = 3 }
        skipWhitespace()
        let value = try parseValueTree()
        skipWhitespace()
        if i < bytes.count {
            throw error("unexpected data after the JSON value")
        }
        return value
    }

    private mutating func parseValueTree() throws(JSONError) -> JSONValue {
        var frames: [Frame] = []
        // `true` while a value is expected next; `false` once one has been read.
        var needValue = true
        while true {
            if needValue {
                guard i < bytes.count else {
                    throw error(frames.isEmpty ? "expected a JSON value, found the end of the input" : "unexpected end of input: expected a value")
                }
                switch bytes[i] {
                case UInt8(ascii: "{"):
                    i += 1
                    skipWhitespace()
                    if i < bytes.count, bytes[i] == UInt8(ascii: "}") {
                        i += 1
                        valueStack.append(.object(JSONObject()))
                        needValue = false
                        break
                    }
                    guard frames.count < maxDepth else { throw error("nesting is deeper than the limit of \(maxDepth)", at: i - 1) }
                    frames.append(Frame(isObject: true, valueStart: valueStack.count, keyStart: keyStack.count))
                    try parseKeyAndColon()
                case UInt8(ascii: "["):
                    i += 1
                    skipWhitespace()
                    if i < bytes.count, bytes[i] == UInt8(ascii: "]") {
                        i += 1
                        valueStack.append(.array([]))
                        needValue = false
                        break
                    }
                    guard frames.count < maxDepth else { throw error("nesting is deeper than the limit of \(maxDepth)", at: i - 1) }
                    frames.append(Frame(isObject: false, valueStart: valueStack.count, keyStart: keyStack.count))
                case UInt8(ascii: "\""):
                    valueStack.append(.string(try parseString()))
                    needValue = false
                case UInt8(ascii: "t"):
                    try expectLiteral("true")
                    valueStack.append(.bool(true))
                    needValue = false
                case UInt8(ascii: "f"):
                    try expectLiteral("false")
                    valueStack.append(.bool(false))
                    needValue = false
                case UInt8(ascii: "n"):
                    try expectLiteral("null")
                    valueStack.append(.null)
                    needValue = false
                case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    valueStack.append(.number(try parseNumber()))
                    needValue = false
                default:
                    throw error("expected a JSON value")
                }
                continue
            }

            // A value was just read: close containers or move to the next member.
            guard let frame = frames.last else {
                return valueStack.removeLast()
            }
            skipWhitespace()
            guard i < bytes.count else {
                throw error(frame.isObject ? "unexpected end of input: expected ',' or '}'" : "unexpected end of input: expected ',' or ']'")
            }
            let b = bytes[i]
            if b == UInt8(ascii: ",") {
                i += 1
                skipWhitespace()
                if frame.isObject { try parseKeyAndColon() }
                needValue = true
            } else if frame.isObject, b == UInt8(ascii: "}") {
                i += 1
                let keys = Array(keyStack[frame.keyStart...])
                let values = Array(valueStack[frame.valueStart...])
                keyStack.removeSubrange(frame.keyStart...)
                valueStack.removeSubrange(frame.valueStart...)
                frames.removeLast()
                valueStack.append(.object(JSONObject(parsedKeys: keys, values: values)))
            } else if !frame.isObject, b == UInt8(ascii: "]") {
                i += 1
                let values = Array(valueStack[frame.valueStart...])
                valueStack.removeSubrange(frame.valueStart...)
                frames.removeLast()
                valueStack.append(.array(values))
            } else {
                throw error(frame.isObject ? "expected ',' or '}' after an object member" : "expected ',' or ']' after an array element")
            }
        }
    }

    private mutating func parseKeyAndColon() throws(JSONError) {
        guard i < bytes.count else { throw error("unexpected end of input: expected a string key") }
        guard bytes[i] == UInt8(ascii: "\"") else { throw error("expected a string key") }
        keyStack.append(try parseString())
        skipWhitespace()
        guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else {
            throw error(i < bytes.count ? "expected ':' after an object key" : "unexpected end of input: expected ':'")
        }
        i += 1
        skipWhitespace()
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONError) {
        let count = literal.utf8CodeUnitCount
        let start = literal.utf8Start
        for k in 0..<count {
            guard i + k < bytes.count, bytes[i + k] == start[k] else {
                throw error("expected a JSON value (did you mean '\(literal)'?)", at: i + k)
            }
        }
        i += count
    }

    // MARK: Numbers

    private mutating func parseNumber() throws(JSONError) -> JSONNumber {
        let start = i
        var negative = false
        if bytes[i] == UInt8(ascii: "-") {
            negative = true
            i += 1
        }
        @inline(__always) func isDigit(_ b: UInt8) -> Bool { b &- 0x30 < 10 }
        guard i < bytes.count, isDigit(bytes[i]) else { throw error("expected a digit in a number") }
        var magnitude: UInt64 = 0
        var digitCount = 0
        var canonicalInt = true
        if bytes[i] == UInt8(ascii: "0") {
            i += 1
            digitCount = 1
            if negative { canonicalInt = false }
            if i < bytes.count, isDigit(bytes[i]) { throw error("a number may not have leading zeros") }
        } else {
            while i < bytes.count, isDigit(bytes[i]) {
                if digitCount < 18 { magnitude = magnitude &* 10 &+ UInt64(bytes[i] &- 0x30) }
                digitCount += 1
                i += 1
            }
            if digitCount > 18 { canonicalInt = false }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            canonicalInt = false
            i += 1
            guard i < bytes.count, isDigit(bytes[i]) else { throw error("expected a digit after the decimal point") }
            while i < bytes.count, isDigit(bytes[i]) { i += 1 }
        }
        if i < bytes.count, bytes[i] | 0x20 == UInt8(ascii: "e") {
            canonicalInt = false
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard i < bytes.count, isDigit(bytes[i]) else { throw error("expected a digit in the exponent") }
            while i < bytes.count, isDigit(bytes[i]) { i += 1 }
        }
        if canonicalInt {
            return JSONNumber(negative ? -Int64(magnitude) : Int64(magnitude))
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
        return JSONNumber(validatedText: text)
    }

    // MARK: Strings

    private mutating func parseString() throws(JSONError) -> String {
        // bytes[i] is the opening quote.
        i += 1
        let start = i
        var ascii = true
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<i])
                i += 1
                if ascii { return String(decoding: slice, as: UTF8.self) }
                guard let s = String(validating: slice, as: UTF8.self) else {
                    throw error("invalid UTF-8 in a string", at: firstInvalidUTF8(from: start))
                }
                return s
            }
            if b == UInt8(ascii: "\\") { return try parseEscapedString(from: start) }
            if b < 0x20 { throw error("control character U+\(hex4(UInt16(b))) must be escaped in a string") }
            if b >= 0x80 { ascii = false }
            i += 1
        }
        throw error("unexpected end of input inside a string")
    }

    /// The slow path, once a backslash is seen: copy into scratch, decoding escapes.
    private mutating func parseEscapedString(from start: Int) throws(JSONError) -> String {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<i]))
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "\"") {
                i += 1
                guard let s = String(validating: scratch, as: UTF8.self) else {
                    throw error("invalid UTF-8 in a string", at: firstInvalidUTF8(from: start))
                }
                return s
            }
            if b < 0x20 { throw error("control character U+\(hex4(UInt16(b))) must be escaped in a string") }
            if b != UInt8(ascii: "\\") {
                scratch.append(b)
                i += 1
                continue
            }
            i += 1
            guard i < bytes.count else { break }
            let e = bytes[i]
            i += 1
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
                let escapeStart = i - 2
                var scalar = UInt32(try parseHex4())
                if scalar >= 0xD800, scalar <= 0xDBFF {
                    guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
                        throw error("unpaired UTF-16 surrogate \\u\(hex4(UInt16(scalar))) in a string", at: escapeStart)
                    }
                    i += 2
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
                throw error("invalid escape '\\\(Character(Unicode.Scalar(e)))' in a string", at: i - 2)
            }
        }
        throw error("unexpected end of input inside a string")
    }

    private mutating func parseHex4() throws(JSONError) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard i < bytes.count else { throw error("unexpected end of input in a \\u escape") }
            let b = bytes[i]
            let digit: UInt8
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = b - 0x30
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = b - 0x61 + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = b - 0x41 + 10
            default: throw error("expected four hex digits after \\u")
            }
            value = value << 4 | UInt16(digit)
            i += 1
        }
        return value
    }

    private mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case 0..<0x80:
            scratch.append(UInt8(scalar))
        case 0x80..<0x800:
            scratch.append(UInt8(0xC0 | (scalar >> 6)))
            scratch.append(UInt8(0x80 | (scalar & 0x3F)))
        case 0x800..<0x10000:
            scratch.append(UInt8(0xE0 | (scalar >> 12)))
            scratch.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            scratch.append(UInt8(0x80 | (scalar & 0x3F)))
        default:
            scratch.append(UInt8(0xF0 | (scalar >> 18)))
            scratch.append(UInt8(0x80 | ((scalar >> 12) & 0x3F)))
            scratch.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            scratch.append(UInt8(0x80 | (scalar & 0x3F)))
        }
    }

    /// The offset of the first byte from `start` that begins an invalid UTF-8 sequence.
    private func firstInvalidUTF8(from start: Int) -> Int {
        var k = start
        while k < bytes.count {
            let b = bytes[k]
            if b < 0x80 { k += 1; continue }
            let length: Int
            switch b {
            case 0xC2...0xDF: length = 2
            case 0xE0...0xEF: length = 3
            case 0xF0...0xF4: length = 4
            default: return k
            }
            let slice = UnsafeBufferPointer(rebasing: bytes[k..<min(k + length, bytes.count)])
            if slice.count < length || String(validating: slice, as: UTF8.self) == nil { return k }
            k += length
        }
        return k
    }
}

@inline(__always) func hex4(_ value: UInt16) -> String {
    let s = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: 4 - s.count) + s
}

extension JSONObject {
    /// Builds an object from a parser's keys and values, resolving repeated keys (last value wins,
    /// first position kept).
    init(parsedKeys keys: [String], values: [JSONValue]) {
        if keys.count <= 8 {
            var unique = true
            outer: for a in 0..<keys.count {
                for b in (a + 1)..<Swift.max(a + 1, keys.count) where keys[a] == keys[b] {
                    unique = false
                    break outer
                }
            }
            if unique {
                self.init(uniqueKeys: keys, values: values)
                return
            }
        } else {
            var index = [String: Int](minimumCapacity: keys.count)
            var unique = true
            for (position, key) in keys.enumerated() where index.updateValue(position, forKey: key) != nil {
                unique = false
                break
            }
            if unique {
                self.init()
                _keys = keys
                _values = values
                _index = keys.count > Self.indexThreshold ? index : nil
                return
            }
        }
        self.init(zip(keys, values))
    }
}
