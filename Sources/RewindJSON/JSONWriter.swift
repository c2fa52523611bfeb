/// How ``JSONValue/serialized(_:)`` lays out its output.
///
/// ```swift
/// value.serialized(.compact)    // {"b":1,"a":[true,null]}
/// value.serialized(.pretty)     // two-space indentation, one member per line
/// value.serialized(.canonical)  // compact with keys sorted: {"a":[true,null],"b":1}
/// value.serialized(JSONWriteOptions(escapesTerminalControls: true))  // "\u009b31m" for U+009B
/// ```
public struct JSONWriteOptions: Sendable, Equatable {
    /// Indent with two spaces and put each member and element on its own line.
    public var pretty: Bool
    /// Sort object keys by Unicode code point (UTF-8 byte order).
    public var sortKeys: Bool
    /// Also write DEL, the C1 controls (U+0080–U+009F) and the Unicode bidirectional formatting
    /// characters as `\u` escapes (see ``isTerminalControl(_:)``), so that the text can be shown
    /// on a terminal without the terminal acting on them. The text still parses to the same
    /// value; only the bytes differ. Off by default: the log and the wire keep their bytes.
    public var escapesTerminalControls: Bool

    /// Options with the given layout; the default is compact with keys in their order.
    public init(pretty: Bool = false, sortKeys: Bool = false, escapesTerminalControls: Bool = false) {
        self.pretty = pretty
        self.sortKeys = sortKeys
        self.escapesTerminalControls = escapesTerminalControls
    }

    /// No whitespace, keys in their order.
    public static let compact = JSONWriteOptions()
    /// Two-space indentation, keys in their order.
    public static let pretty = JSONWriteOptions(pretty: true)
    /// No whitespace, keys sorted: the same document always gives the same bytes.
    public static let canonical = JSONWriteOptions(sortKeys: true)

    /// Whether a terminal may act on `scalar` instead of showing it: a C0 control
    /// (U+0000–U+001F), DEL (U+007F), a C1 control (U+0080–U+009F: U+009B is a one-character
    /// CSI, U+0085 a line break) or a Unicode bidirectional formatting character (U+061C,
    /// U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), which reorders the text around it.
    ///
    /// The characters ``escapesTerminalControls`` writes as `\u` escapes (C0 controls are
    /// always escaped in JSON strings), and the one rule `rewind` escapes printed text by.
    public static func isTerminalControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}

extension JSONValue {
    /// The JSON text of this value as UTF-8 bytes.
    ///
    /// Strings escape `"`, `\` and the control characters (`\b \f \n \r \t`, else `\u00XX`);
    /// everything else, non-ASCII included, is written as is. Numbers print exactly as read.
    /// With ``JSONWriteOptions/escapesTerminalControls``, DEL, C1 controls and the bidirectional
    /// formatting characters are escaped too (`\u007f`, `\u009b`, `\u202e`).
    public func serializedBytes(_ options: JSONWriteOptions = .compact) -> [UInt8] {
        var writer = JSONWriter(pretty: options.pretty, sortKeys: options.sortKeys,
                                escapesTerminalControls: options.escapesTerminalControls)
        writer.write(self, depth: 0)
        return writer.out.array
    }

    /// The JSON text of this value.
    public func serialized(_ options: JSONWriteOptions = .compact) -> String {
        var writer = JSONWriter(pretty: options.pretty, sortKeys: options.sortKeys,
                                escapesTerminalControls: options.escapesTerminalControls)
        writer.write(self, depth: 0)
        return String(decoding: writer.out.bytes, as: UTF8.self)
    }
}

extension JSONValue: CustomStringConvertible {
    /// The compact JSON text.
    public var description: String { serialized(.compact) }
}

/// The printing engine: writes into a ``ByteBuffer`` with room reserved per token.
struct JSONWriter: ~Copyable {
    var out = ByteBuffer(capacity: 4096)
    let pretty: Bool
    let sortKeys: Bool
    /// Write numbers in ``JSONNumber/canonicalText`` form (for the stable hash).
    let canonicalNumbers: Bool
    /// Escape DEL, C1 controls and bidirectional formatting characters too.
    let escapesTerminalControls: Bool

    init(pretty: Bool, sortKeys: Bool, canonicalNumbers: Bool = false, escapesTerminalControls: Bool = false) {
        self.pretty = pretty
        self.sortKeys = sortKeys
        self.canonicalNumbers = canonicalNumbers
        self.escapesTerminalControls = escapesTerminalControls
    }

    mutating func write(_ value: JSONValue, depth: Int) {
        withUnsafePointer(to: value) { write(at: $0, depth: depth) }
    }

    /// Writes the value at `value`; reading through the pointer lets the payloads be borrowed
    /// rather than copied (retained and released) on the way down.
    mutating func write(at value: UnsafePointer<JSONValue>, depth: Int) {
        switch value.pointee {
        case .null: out.append("null")
        case .bool(let b): b ? out.append("true") : out.append("false")
        case .number(let n): writeNumber(n)
        case .string(let s): writeString(s)
        case .array(let elements): writeArray(elements, depth: depth)
        case .object(let object): writeObject(object, depth: depth)
        }
    }

    private mutating func writeArray(_ elements: [JSONValue], depth: Int) {
        if elements.isEmpty {
            out.append("[]")
            return
        }
        out.append(UInt8(ascii: "["))
        elements.withUnsafeBufferPointer { elements in
            for k in 0..<elements.count {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                newline(depth &+ 1)
                write(at: elements.baseAddress! + k, depth: depth &+ 1)
            }
        }
        newline(depth)
        out.append(UInt8(ascii: "]"))
    }

    private mutating func writeObject(_ object: JSONObject, depth: Int) {
        if object.isEmpty {
            out.append("{}")
            return
        }
        out.append(UInt8(ascii: "{"))
        object._keys.withUnsafeBufferPointer { keys in
            object._values.withUnsafeBufferPointer { values in
                guard sortKeys else {
                    for k in 0..<keys.count {
                        writeMember(first: k == 0, key: keys.baseAddress! + k, value: values.baseAddress! + k, depth: depth)
                    }
                    return
                }
                // The stable hash sorts every object it prints: the order is built on the stack.
                withUnsafeTemporaryAllocation(of: Int.self, capacity: keys.count) { order in
                    JSONObject.sortPositions(of: keys, into: order)
                    for k in 0..<keys.count {
                        let position = order[k]
                        writeMember(first: k == 0, key: keys.baseAddress! + position, value: values.baseAddress! + position, depth: depth)
                    }
                }
            }
        }
        newline(depth)
        out.append(UInt8(ascii: "}"))
    }

    @inline(__always) private mutating func writeMember(first: Bool, key: UnsafePointer<String>, value: UnsafePointer<JSONValue>, depth: Int) {
        if !first { out.append(UInt8(ascii: ",")) }
        newline(depth &+ 1)
        let done: Void? = key.pointee.utf8.withContiguousStorageIfAvailable { writeEscaped($0) }
        if done == nil { writeString(key.pointee) }
        if pretty { out.append(": ") } else { out.append(UInt8(ascii: ":")) }
        write(at: value, depth: depth &+ 1)
    }

    @inline(__always) private mutating func newline(_ depth: Int) {
        guard pretty else { return }
        let spaces = depth &* 2
        out.reserve(spaces &+ 1)
        out.appendUnchecked(UInt8(ascii: "\n"))
        out.tail.initialize(repeating: UInt8(ascii: " "), count: spaces)
        out.advance(by: spaces)
    }

    mutating func writeNumber(_ n: JSONNumber) {
        if canonicalNumbers {
            if let small = n.smallDecimal {
                // `-15e2`, `1`, `25e-1`, `0`: SmallDecimal.canonicalText without building a String.
                out.reserve(1)
                if small.negative { out.appendUnchecked(UInt8(ascii: "-")) }
                writeUnsigned(small.significand)
                if small.exponent != 0 {
                    out.append(UInt8(ascii: "e"))
                    writeInt(Int64(small.exponent))
                }
                return
            }
            var text = n.canonicalText
            text.withUTF8 { out.append($0.baseAddress!, $0.count) }
            return
        }
        switch n.storage {
        case .int(let v):
            writeInt(v)
        case .packed(let packed):
            out.reserve(PackedDecimal.maxLength)
            out.advance(by: packed.render(into: out.tail))
        case .text(var text):
            text.withUTF8 { out.append($0.baseAddress!, $0.count) }
        }
    }

    /// Pairs of decimal digits, `00` to `99`.
    private static let digitPairs: StaticString =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"

    @inline(__always) private mutating func writeInt(_ v: Int64) {
        out.reserve(1)
        if v < 0 { out.appendUnchecked(UInt8(ascii: "-")) }
        writeUnsigned(v.magnitude)
    }

    @inline(__always) private mutating func writeUnsigned(_ v: UInt64) {
        out.reserve(20)
        var magnitude = v
        if magnitude < 10 {
            out.appendUnchecked(UInt8(truncatingIfNeeded: magnitude) &+ 0x30)
            return
        }
        // Digits go right to left into the reserved room past the 20 bytes the number can
        // take, then move down into place.
        out.reserve(40)
        let pairs = Self.digitPairs.utf8Start
        let tail = out.tail + 40
        var k = 0
        while magnitude >= 100 {
            let pair = Int(magnitude % 100) &* 2
            magnitude /= 100
            k &-= 2
            tail[k] = pairs[pair]
            tail[k &+ 1] = pairs[pair &+ 1]
        }
        if magnitude >= 10 {
            let pair = Int(magnitude) &* 2
            k &-= 2
            tail[k] = pairs[pair]
            tail[k &+ 1] = pairs[pair &+ 1]
        } else {
            k &-= 1
            tail[k] = UInt8(truncatingIfNeeded: magnitude) &+ 0x30
        }
        out.tail.update(from: tail + k, count: -k)
        out.advance(by: -k)
    }

    @inline(__always) mutating func writeString(_ s: String) {
        let done: Void? = s.utf8.withContiguousStorageIfAvailable { writeEscaped($0) }
        if done == nil {
            var copy = s
            copy.withUTF8 { writeEscaped($0) }
        }
    }

    /// Writes `utf8` as a quoted JSON string, escaping what JSON requires and nothing more.
    ///
    /// Plain bytes are copied eight at a time as they are scanned: room for the whole string is
    /// reserved first (and again after each escape), so a full 8-byte store never overruns.
    mutating func writeEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        if escapesTerminalControls {
            writeEscapedForTerminal(utf8)
            return
        }
        let n = utf8.count
        out.reserve(n &+ 2)
        out.appendUnchecked(UInt8(ascii: "\""))
        guard let base = utf8.baseAddress else {
            out.appendUnchecked(UInt8(ascii: "\""))
            return
        }
        var k = 0
        while true {
            var dst = out.tail
            let runStart = k
            while k &+ 8 <= n {
                let w = SWAR.load(base + k)
                UnsafeMutableRawPointer(dst).storeBytes(of: w.littleEndian, as: UInt64.self)
                let special = SWAR.stringSpecialBytes(w)
                if special == 0 {
                    k &+= 8
                    dst += 8
                    continue
                }
                k &+= special.trailingZeroBitCount &>> 3
                break
            }
            out.advance(by: k &- runStart)
            while k < n {
                let b = base[k]
                if b < 0x20 || b == 0x22 || b == 0x5C { break }
                out.appendUnchecked(b)
                k &+= 1
            }
            if k >= n { break }
            // Room for this escape, the rest of the string and the closing quote.
            out.reserve(7 &+ n &- k)
            let b = base[k]
            if !writeShortEscape(b) {
                out.append("\\u00")
                out.appendUnchecked(Self.hexDigit(b >> 4))
                out.appendUnchecked(Self.hexDigit(b & 0xF))
            }
            k &+= 1
        }
        out.appendUnchecked(UInt8(ascii: "\""))
    }

    /// Writes the two-character escape RFC 8259 gives `b` (a quote, a backslash, or one of the
    /// five named controls) and says whether it had one.
    @inline(__always)
    private mutating func writeShortEscape(_ b: UInt8) -> Bool {
        switch b {
        case 0x22: out.append("\\\"")
        case 0x5C: out.append("\\\\")
        case 0x0A: out.append("\\n")
        case 0x0D: out.append("\\r")
        case 0x09: out.append("\\t")
        case 0x08: out.append("\\b")
        case 0x0C: out.append("\\f")
        default: return false
        }
        return true
    }

    /// Writes `utf8` (valid UTF-8, as a String's) as a quoted JSON string that a terminal cannot
    /// act on: what ``writeEscaped(_:)`` escapes, and DEL, C1 controls and the bidirectional
    /// formatting characters as `\uXXXX`. A scalar at a time: this is for printed output, not
    /// the log's hot path.
    private mutating func writeEscapedForTerminal(_ utf8: UnsafeBufferPointer<UInt8>) {
        let n = utf8.count
        out.reserve(n &+ 2)
        out.appendUnchecked(UInt8(ascii: "\""))
        var k = 0
        while k < n {
            let b = utf8[k]
            if b < 0x80 {
                if writeShortEscape(b) {
                } else if b < 0x20 || b == 0x7F {
                    writeUnicodeEscape(UInt32(b))
                } else {
                    out.append(b)
                }
                k &+= 1
                continue
            }
            // A multi-byte scalar: its length from the lead byte, its value from all its bytes.
            let length = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : 2
            let end = Swift.min(k &+ length, n)
            var value = UInt32(b) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
            for j in (k &+ 1)..<end { value = value << 6 | UInt32(utf8[j] & 0x3F) }
            if let scalar = Unicode.Scalar(value), JSONWriteOptions.isTerminalControl(scalar) {
                writeUnicodeEscape(value)
            } else {
                out.append(utf8.baseAddress! + k, end &- k)
            }
            k = end
        }
        out.append(UInt8(ascii: "\""))
    }

    /// `\u` and four lowercase hex digits (the value is in the Basic Multilingual Plane).
    private mutating func writeUnicodeEscape(_ value: UInt32) {
        out.reserve(6)
        out.appendUnchecked(UInt8(ascii: "\\"))
        out.appendUnchecked(UInt8(ascii: "u"))
        for shift in stride(from: 12, through: 0, by: -4) {
            out.appendUnchecked(Self.hexDigit(UInt8(truncatingIfNeeded: value >> UInt32(shift)) & 0xF))
        }
    }

    @inline(__always) private static func hexDigit(_ v: UInt8) -> UInt8 {
        v < 10 ? v &+ 0x30 : v &- 10 &+ 0x61
    }
}

extension JSONObject {
    /// Writes into `order` the member positions in canonical order: keys sorted by their UTF-8
    /// bytes, which is code point order. Objects usually have a few keys: an insertion sort
    /// comparing bytes sorts them without allocating.
    static func sortPositions(of keys: UnsafeBufferPointer<String>, into order: UnsafeMutableBufferPointer<Int>) {
        let count = keys.count
        guard count > 16 else {
            for k in 0..<count {
                var j = k
                while j > 0 && utf8Precedes(keys[k], keys[order[j &- 1]]) {
                    order[j] = order[j &- 1]
                    j &-= 1
                }
                order[j] = k
            }
            return
        }
        for (k, position) in (0..<count).sorted(by: { utf8Precedes(keys[$0], keys[$1]) }).enumerated() {
            order[k] = position
        }
    }

    /// `a` before `b` in UTF-8 byte order (a proper prefix first).
    @inline(__always)
    static func utf8Precedes(_ a: String, _ b: String) -> Bool {
        let fast = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y -> Bool in
                // Keys are short and usually differ early: a byte loop beats a call to memcmp.
                let shared = Swift.min(x.count, y.count)
                var i = 0
                while i < shared {
                    let p = x[i], q = y[i]
                    if p != q { return p < q }
                    i &+= 1
                }
                return x.count < y.count
            }
        }
        if let fast, let result = fast { return result }
        return a.utf8.lexicographicallyPrecedes(b.utf8)
    }
}
