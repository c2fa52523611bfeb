extension JSONValue {
    /// A 64-bit hash of the value's canonical form that is the same on every machine and in every
    /// run: equal documents hash equal whatever their key order or number spelling.
    ///
    /// It is FNV-1a (64-bit) over the canonical text: compact, keys sorted by code point, strings
    /// escaped as the writer does, and every number in ``JSONNumber/canonicalText`` form
    /// (`1.0` → `1`, `1.5e3` → `15e2`, `100` → `1e2`). A client in another language computes the
    /// same value from the same rules.
    ///
    /// ```swift
    /// let a = try JSONValue(parsing: #"{"b":1.0,"a":[true]}"#)
    /// let b = try JSONValue(parsing: #"{"a":[true],"b":1}"#)
    /// a.stableHash == b.stableHash   // true
    /// ```
    public var stableHash: UInt64 {
        var writer = JSONWriter(pretty: false, sortKeys: true, canonicalNumbers: true)
        writer.write(self, depth: 0)
        return StableHasher.fnv1a64(writer.out.bytes)
    }

    /// ``stableHash`` and the length of the canonical text it hashes, from one pass.
    package var stableHashAndCanonicalSize: (hash: UInt64, size: Int) {
        var writer = JSONWriter(pretty: false, sortKeys: true, canonicalNumbers: true)
        writer.write(self, depth: 0)
        let bytes = writer.out.bytes
        return (StableHasher.fnv1a64(bytes), bytes.count)
    }
}

enum StableHasher {
    static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325
    static let prime: UInt64 = 0x0000_0100_0000_01B3

    /// FNV-1a, 64-bit.
    static func fnv1a64(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var state = offsetBasis
        for b in bytes { state = (state ^ UInt64(b)) &* prime }
        return state
    }
}
