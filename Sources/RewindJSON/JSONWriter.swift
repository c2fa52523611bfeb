/// How ``JSONValue/serialized(_:)`` lays out its output.
///
/// ```swift
/// value.serialized(.compact)    // {"b":1,"a":[true,null]}
/// value.serialized(.pretty)     // two-space indentation, one member per line
/// value.serialized(.canonical)  // compact with keys sorted: {"a":[true,null],"b":1}
/// ```
public struct JSONWriteOptions: Sendable, Equatable {
    /// Indent with two spaces and put each member and element on its own line.
    public var pretty: Bool
    /// Sort object keys by Unicode code point (UTF-8 byte order).
    public var sortKeys: Bool

    public init(pretty: Bool = false, sortKeys: Bool = false) {
        self.pretty = pretty
        self.sortKeys = sortKeys
    }

    /// No whitespace, keys in their order.
    public static let compact = JSONWriteOptions()
    /// Two-space indentation, keys in their order.
    public static let pretty = JSONWriteOptions(pretty: true)
    /// No whitespace, keys sorted: the same document always gives the same bytes.
    public static let canonical = JSONWriteOptions(sortKeys: true)
}

extension JSONValue {
    /// The JSON text of this value as UTF-8 bytes.
    public func serializedBytes(_ options: JSONWriteOptions = .compact) -> [UInt8] {
        var writer = JSONWriter(options: options)
        writer.write(self, depth: 0)
        return writer.out
    }

    /// The JSON text of this value.
    public func serialized(_ options: JSONWriteOptions = .compact) -> String {
        String(decoding: serializedBytes(options), as: UTF8.self)
    }
}

extension JSONValue: CustomStringConvertible {
    /// The compact JSON text.
    public var description: String { serialized(.compact) }
}

struct JSONWriter {
    let options: JSONWriteOptions
    var out: [UInt8] = []

    init(options: JSONWriteOptions) {
        self.options = options
        out.reserveCapacity(256)
    }

    mutating func write(_ value: JSONValue, depth: Int) {
        switch value {
        case .null: append("null")
        case .bool(let b): append(b ? "true" : "false")
        case .number(let n): writeNumber(n)
        case .string(let s): writeString(s)
        case .array(let elements):
            if elements.isEmpty {
                append("[]")
                return
            }
            out.append(UInt8(ascii: "["))
            for (k, element) in elements.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                newline(depth + 1)
                write(element, depth: depth + 1)
            }
            newline(depth)
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            if object.isEmpty {
                append("{}")
                return
            }
            out.append(UInt8(ascii: "{"))
            if options.sortKeys {
                for (k, member) in object.sortedByKey.enumerated() {
                    writeMember(first: k == 0, key: member.key, value: member.value, depth: depth)
                }
            } else {
                for k in 0..<object.count {
                    writeMember(first: k == 0, key: object._keys[k], value: object._values[k], depth: depth)
                }
            }
            newline(depth)
            out.append(UInt8(ascii: "}"))
        }
    }

    @inline(__always) private mutating func writeMember(first: Bool, key: String, value: JSONValue, depth: Int) {
        if !first { out.append(UInt8(ascii: ",")) }
        newline(depth + 1)
        writeString(key)
        out.append(UInt8(ascii: ":"))
        if options.pretty { out.append(UInt8(ascii: " ")) }
        write(value, depth: depth + 1)
    }

    @inline(__always) private mutating func newline(_ depth: Int) {
        guard options.pretty else { return }
        out.append(UInt8(ascii: "\n"))
        for _ in 0..<(depth * 2) { out.append(UInt8(ascii: " ")) }
    }

    @inline(__always) private mutating func append(_ s: StaticString) {
        out.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    mutating func writeNumber(_ n: JSONNumber) {
        switch n.storage {
        case .int(let v): writeInt(v)
        case .text(let t): out.append(contentsOf: t.utf8)
        }
    }

    private mutating func writeInt(_ v: Int64) {
        if v == 0 {
            out.append(UInt8(ascii: "0"))
            return
        }
        var magnitude = v.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var k = 20
            while magnitude > 0 {
                k -= 1
                digits[k] = UInt8(truncatingIfNeeded: magnitude % 10) + 0x30
                magnitude /= 10
            }
            if v < 0 { out.append(UInt8(ascii: "-")) }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: digits[k..<20]))
        }
    }

    mutating func writeString(_ s: String) {
        out.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { utf8 in
            var runStart = 0
            for k in 0..<utf8.count {
                let b = utf8[k]
                guard b < 0x20 || b == 0x22 || b == 0x5C else { continue }
                if runStart < k { out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<k])) }
                runStart = k + 1
                switch b {
                case 0x22: append("\\\"")
                case 0x5C: append("\\\\")
                case 0x0A: append("\\n")
                case 0x0D: append("\\r")
                case 0x09: append("\\t")
                case 0x08: append("\\b")
                case 0x0C: append("\\f")
                default:
                    append("\\u00")
                    out.append(hexDigit(b >> 4))
                    out.append(hexDigit(b & 0xF))
                }
            }
            if runStart < utf8.count { out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...])) }
        }
        out.append(UInt8(ascii: "\""))
    }

    @inline(__always) private func hexDigit(_ v: UInt8) -> UInt8 {
        v < 10 ? v + 0x30 : v - 10 + 0x61
    }
}
