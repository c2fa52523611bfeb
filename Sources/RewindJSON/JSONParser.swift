import Foundation

/// Options for ``JSONValue/init(parsing:options:)-(_,_)``.
public struct JSONParseOptions: Sendable {
    /// The deepest nesting of arrays and objects accepted; deeper input is an error, never a
    /// stack overflow. Parsing itself uses no call stack per level, but printing, comparing and
    /// freeing a value recurse on its nesting, so raise this far past the default with care.
    public var maxDepth: Int

    /// Options with `maxDepth` (1,000 unless given).
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
    /// A key that repeats keeps its first position and its last value.
    ///
    /// ```swift
    /// let value = try JSONValue(parsing: Array(#"{"a":[1,2]}"#.utf8))
    /// ```
    public init(parsing bytes: [UInt8], options: JSONParseOptions = JSONParseOptions()) throws(JSONError) {
        self = try bytes.withUnsafeBufferPointer { (buffer) throws(JSONError) -> JSONValue in
            try JSONParser.parse(buffer, maxDepth: options.maxDepth)
        }
    }

    /// Parses one JSON text from a string.
    public init(parsing text: String, options: JSONParseOptions = JSONParseOptions()) throws(JSONError) {
        var text = text
        let result = text.withUTF8 { buffer -> Result<JSONValue, JSONError> in
            Result { () throws(JSONError) in try JSONParser.parse(buffer, maxDepth: options.maxDepth) }
        }
        self = try result.get()
    }

    /// Parses one JSON text from `Data`.
    public init(parsing data: Data, options: JSONParseOptions = JSONParseOptions()) throws(JSONError) {
        let result = data.withUnsafeBytes { raw -> Result<JSONValue, JSONError> in
            Result { () throws(JSONError) in
                try JSONParser.parse(raw.bindMemory(to: UInt8.self), maxDepth: options.maxDepth)
            }
        }
        self = try result.get()
    }
}

/// The parsing engine. It is iterative: open containers live on heap stacks, so nesting costs
/// memory, never call depth. Values are moved, not copied, from the stacks into their container.
struct JSONParser: ~Copyable {
    let p: UnsafePointer<UInt8>
    let end: Int
    let maxDepth: Int
    var i = 0
    /// Values of containers still open, innermost last.
    var values = UnsafeStack<JSONValue>(capacity: 64)
    /// Keys of objects still open, innermost last.
    var keys = UnsafeStack<String>(capacity: 32)
    /// Containers still open, innermost last.
    var frames = UnsafeStack<Frame>(capacity: 16)
    /// Where strings with escapes are decoded.
    var scratch = ByteBuffer(capacity: 256)
    /// Short strings seen before, for documents big enough to repeat them.
    var cache = StringCache()
    let usesCache: Bool

    struct Frame {
        var isObject: Bool
        var valueStart: Int
        var keyStart: Int
    }

    static func parse(_ buffer: UnsafeBufferPointer<UInt8>, maxDepth: Int) throws(JSONError) -> JSONValue {
        guard let base = buffer.baseAddress, buffer.count > 0 else {
            throw JSONError(line: 1, column: 1, offset: 0, message: "expected a JSON value, found the end of the input")
        }
        var parser = JSONParser(p: base, end: buffer.count, maxDepth: maxDepth)
        return try parser.parseDocument()
    }

    private init(p: UnsafePointer<UInt8>, end: Int, maxDepth: Int) {
        self.p = p
        self.end = end
        self.maxDepth = maxDepth
        usesCache = end >= 4096
    }

    @inline(never) func error(_ message: String, at offset: Int) -> JSONError {
        JSONError.at(offset, in: UnsafeBufferPointer(start: p, count: end), message)
    }

    @inline(never) func error(_ message: String) -> JSONError {
        error(message, at: i)
    }

    @inline(__always) mutating func skipWhitespace() {
        while i < end {
            let b = p[i]
            if b > 0x20 { return }
            guard b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 else { return }
            i &+= 1
            // Indentation comes in runs of spaces.
            while i &+ 8 <= end, UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self) == 0x2020_2020_2020_2020 {
                i &+= 8
            }
        }
    }

    mutating func parseDocument() throws(JSONError) -> JSONValue {
        if end >= 3, p[0] == 0xEF, p[1] == 0xBB, p[2] == 0xBF { i = 3 }
        skipWhitespace()
        try parseValueTree()
        skipWhitespace()
        if i < end {
            throw error("unexpected data after the JSON value")
        }
        return values.pop()
    }

    /// Reads one value (with everything nested in it) onto `values`.
    private mutating func parseValueTree() throws(JSONError) {
        nextValue: while true {
            // A value starts at `i`, whitespace already skipped.
            guard i < end else {
                throw error(frames.isEmpty ? "expected a JSON value, found the end of the input" : "unexpected end of input: expected a value")
            }
            switch p[i] {
            case UInt8(ascii: "\""):
                let s = try parseString()
                values.push(.string(s))
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                let n = try parseNumber()
                values.push(.number(n))
            case UInt8(ascii: "{"):
                guard frames.count < maxDepth else { throw error("nesting is deeper than the limit of \(maxDepth)") }
                i &+= 1
                skipWhitespace()
                if i < end, p[i] == UInt8(ascii: "}") {
                    i &+= 1
                    values.push(.object(JSONObject()))
                } else {
                    frames.push(Frame(isObject: true, valueStart: values.count, keyStart: keys.count))
                    try parseKeyAndColon()
                    continue nextValue
                }
            case UInt8(ascii: "["):
                guard frames.count < maxDepth else { throw error("nesting is deeper than the limit of \(maxDepth)") }
                i &+= 1
                skipWhitespace()
                if i < end, p[i] == UInt8(ascii: "]") {
                    i &+= 1
                    values.push(.array([]))
                } else {
                    frames.push(Frame(isObject: false, valueStart: values.count, keyStart: keys.count))
                    continue nextValue
                }
            case UInt8(ascii: "t"):
                try expectLiteral(0x6575_7274, "true")
                values.push(.bool(true))
            case UInt8(ascii: "f"):
                try expectLiteral(0x736C_6166, "false")
                guard i < end, p[i] == UInt8(ascii: "e") else {
                    throw error("expected a JSON value (did you mean 'false'?)")
                }
                i &+= 1
                values.push(.bool(false))
            case UInt8(ascii: "n"):
                try expectLiteral(0x6C6C_756E, "null")
                values.push(.null)
            default:
                throw error("expected a JSON value")
            }

            // A value is complete: close containers, or move on to the next member.
            while !frames.isEmpty {
                skipWhitespace()
                let isObject = frames.top.isObject
                guard i < end else {
                    throw error(isObject ? "unexpected end of input: expected ',' or '}'" : "unexpected end of input: expected ',' or ']'")
                }
                let b = p[i]
                if b == UInt8(ascii: ",") {
                    i &+= 1
                    skipWhitespace()
                    if isObject { try parseKeyAndColon() }
                    continue nextValue
                }
                if isObject, b == UInt8(ascii: "}") {
                    i &+= 1
                    let frame = frames.pop()
                    let memberKeys = keys.popArray(from: frame.keyStart)
                    let memberValues = values.popArray(from: frame.valueStart)
                    values.push(.object(JSONObject(parsedKeys: memberKeys, values: memberValues)))
                } else if !isObject, b == UInt8(ascii: "]") {
                    i &+= 1
                    let frame = frames.pop()
                    values.push(.array(values.popArray(from: frame.valueStart)))
                } else {
                    throw error(isObject ? "expected ',' or '}' after an object member" : "expected ',' or ']' after an array element")
                }
            }
            return
        }
    }

    @inline(__always) private mutating func parseKeyAndColon() throws(JSONError) {
        guard i < end else { throw error("unexpected end of input: expected a string key") }
        guard p[i] == UInt8(ascii: "\"") else { throw error("expected a string key") }
        let key = try parseString()
        keys.push(key)
        if i < end, p[i] == UInt8(ascii: ":") {
            i &+= 1
        } else {
            skipWhitespace()
            guard i < end, p[i] == UInt8(ascii: ":") else {
                throw error(i < end ? "expected ':' after an object key" : "unexpected end of input: expected ':'")
            }
            i &+= 1
        }
        skipWhitespace()
    }

    /// Checks the four bytes at `i` against `word` (little-endian ASCII) and skips them.
    @inline(__always) private mutating func expectLiteral(_ word: UInt32, _ literal: StaticString) throws(JSONError) {
        if i &+ 4 <= end, UInt32(littleEndian: UnsafeRawPointer(p + i).loadUnaligned(as: UInt32.self)) == word {
            i &+= 4
            return
        }
        let start = literal.utf8Start
        var k = 0
        while k < 4, i + k < end, p[i + k] == start[k] { k += 1 }
        throw error("expected a JSON value (did you mean '\(literal)'?)", at: i + k)
    }

    @inline(__always) private mutating func parseNumber() throws(JSONError) -> JSONNumber {
        do {
            return JSONNumber(storage: try NumberScanner.scan(p, from: i, to: end, next: &i))
        } catch {
            throw self.error(error.message, at: error.offset)
        }
    }
}

extension JSONObject {
    /// Builds an object from a parser's keys and values, resolving repeated keys (last value wins,
    /// first position kept).
    init(parsedKeys keys: [String], values: [JSONValue]) {
        let n = keys.count
        if n <= 8 {
            let unique = keys.withUnsafeBufferPointer { keys in
                for a in 0..<n {
                    for b in (a &+ 1)..<Swift.max(a &+ 1, n) where keys[a].hasSameBytes(as: keys[b]) { return false }
                }
                return true
            }
            if unique {
                self.init(checkedKeys: keys, values: values, index: nil)
                return
            }
        } else if n <= Self.indexThreshold {
            if !keys.withUnsafeBufferPointer({ KeyIndex.hasDuplicates($0) }) {
                self.init(checkedKeys: keys, values: values, index: nil)
                return
            }
        } else if let index = KeyIndex(keys: keys) {
            self.init(checkedKeys: keys, values: values, index: index)
            return
        }
        self.init(zip(keys, values))
    }
}
