extension JSONValue {
    /// A 64-bit hash of the value's canonical form that is the same on every machine and in every
    /// run: equal documents hash equal whatever their key order or number spelling.
    ///
    /// It is FNV-1a (64-bit) over the canonical text: compact, keys sorted by code point, and
    /// every number in ``JSONNumber/canonicalText`` form (`1.0` → `1`, `1.5e3` → `15e2`).
    /// A client in another language computes the same value from the same rules.
    public var stableHash: UInt64 {
        var hasher = StableHasher()
        hasher.feed(self)
        return hasher.state
    }
}

struct StableHasher {
    private(set) var state: UInt64 = 0xcbf2_9ce4_8422_2325
    private static let prime: UInt64 = 0x0000_0100_0000_01B3

    @inline(__always) mutating func byte(_ b: UInt8) {
        state = (state ^ UInt64(b)) &* Self.prime
    }

    @inline(__always) mutating func bytes(_ s: StaticString) {
        let p = s.utf8Start
        for k in 0..<s.utf8CodeUnitCount { byte(p[k]) }
    }

    mutating func feed(_ value: JSONValue) {
        switch value {
        case .null: bytes("null")
        case .bool(let b): b ? bytes("true") : bytes("false")
        case .number(let n):
            for b in n.canonicalText.utf8 { byte(b) }
        case .string(let s): string(s)
        case .array(let elements):
            byte(UInt8(ascii: "["))
            for (k, element) in elements.enumerated() {
                if k > 0 { byte(UInt8(ascii: ",")) }
                feed(element)
            }
            byte(UInt8(ascii: "]"))
        case .object(let object):
            byte(UInt8(ascii: "{"))
            for (k, member) in object.sortedByKey.enumerated() {
                if k > 0 { byte(UInt8(ascii: ",")) }
                string(member.key)
                byte(UInt8(ascii: ":"))
                feed(member.value)
            }
            byte(UInt8(ascii: "}"))
        }
    }

    /// Hashes the string exactly as the compact writer escapes it.
    private mutating func string(_ s: String) {
        var writer = JSONWriter(options: .compact)
        writer.writeString(s)
        for b in writer.out { byte(b) }
    }
}
