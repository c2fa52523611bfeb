/// Which function a session's state hashes use. A session keeps one for its whole life; logs say
/// which, and a session that does not say is version 1.
public enum StateHashVersion: Int, Sendable, Equatable, CaseIterable {
    /// ``JSONValue/stableHash``: FNV-1a over the canonical text. Every byte of the state is one
    /// step of a chain that cannot be split (about 1.3 ms a megabyte).
    case v1 = 1
    /// ``JSONValue/treeHash``: computed on the tree, eight bytes per step in four independent
    /// lanes for long strings, object members combined without sorting (several times faster).
    case v2 = 2
}

extension JSONValue {
    /// The state hash of the given version.
    public func hash(_ version: StateHashVersion) -> UInt64 {
        switch version {
        case .v1: stableHash
        case .v2: treeHash
        }
    }

    /// The hash of the given version and the length of the canonical text (what the server's
    /// state-size limit counts), from one walk where the version allows it.
    package func hashAndCanonicalSize(_ version: StateHashVersion) -> (hash: UInt64, size: Int) {
        switch version {
        case .v1: return stableHashAndCanonicalSize
        case .v2:
            var walker = TreeHasher(measuring: true)
            let hash = walker.hash(self)
            return (hash, walker.canonicalSize)
        }
    }

    /// A 64-bit hash of the value that is the same on every machine and in every run, equal for
    /// equal documents whatever their key order or number spelling (as ``stableHash`` is), and
    /// computed on the tree without writing its text. `Docs/Protocol.md` ("Version 2: the tree hash") gives
    /// the exact rules, so a client in another language can compute it.
    ///
    /// ```swift
    /// let a = try JSONValue(parsing: #"{"b":1.0,"a":[true]}"#)
    /// let b = try JSONValue(parsing: #"{"a":[true],"b":1}"#)
    /// a.treeHash == b.treeHash   // true
    /// ```
    public var treeHash: UInt64 {
        var walker = TreeHasher(measuring: false)
        return walker.hash(self)
    }
}

/// The version-2 state hash. Every value's hash comes from a tag and its content:
///
/// - null, false, true: `fin(tag)`;
/// - a number: `bytes(4, its canonical text)` (``JSONNumber/canonicalText``: `1.0` and `1e0` are `1`);
/// - a string: `bytes(5, its UTF-8)`;
/// - an array: an ordered fold of its elements' hashes;
/// - an object: the wrapping sum of one term per member (key and value hashed together), so
///   member order does not matter and nothing is sorted.
///
/// `bytes` reads little-endian 64-bit words in four lanes of 32-byte blocks, then the remaining
/// words, then the remaining bytes as one zero-padded word, and finishes with the length.
struct TreeHasher: ~Copyable {
    static let k1: UInt64 = 0x9E37_79B9_7F4A_7C15
    static let k2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    static let k3: UInt64 = 0x1656_67B1_9E37_79F9

    enum Tag: UInt64 {
        case null = 1, `false` = 2, `true` = 3, number = 4, string = 5, array = 6, object = 7
    }

    /// Canonical number text is written here, then hashed (no String for most numbers).
    private var numbers = JSONWriter(pretty: false, sortKeys: true, canonicalNumbers: true)
    /// The length of the canonical text of everything hashed so far (when `measuring`).
    private(set) var canonicalSize = 0
    /// Whether to count ``canonicalSize`` (a scan of every string for escapes).
    let measuring: Bool

    init(measuring: Bool) {
        self.measuring = measuring
    }

    /// A strong 64-bit finisher: every input bit flips about half of the output bits.
    @inline(__always) static func fin(_ value: UInt64) -> UInt64 {
        var x = value
        x ^= x &>> 31
        x = x &* 0xBF58_476D_1CE4_E5B9
        x ^= x &>> 29
        x = x &* 0x94D0_49BB_1331_11EB
        x ^= x &>> 32
        return x
    }

    @inline(__always) static func rotl(_ x: UInt64, _ r: UInt64) -> UInt64 {
        (x &<< r) | (x &>> (64 &- r))
    }

    @inline(__always) static func step(_ acc: UInt64, _ word: UInt64) -> UInt64 {
        rotl(acc ^ (word &* k2), 31) &* k1
    }

    /// `bytes(tag, data)`.
    static func bytes(_ tag: Tag, _ data: UnsafeBufferPointer<UInt8>) -> UInt64 {
        let n = data.count
        var acc = tag.rawValue &* k3
        var k = 0
        if let base = data.baseAddress {
            let raw = UnsafeRawPointer(base)
            if n >= 32 {
                var a = acc ^ k1, b = acc ^ k2, c = acc &+ k3, d = acc &- k1
                while k &+ 32 <= n {
                    a = step(a, UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: k, as: UInt64.self)))
                    b = step(b, UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: k &+ 8, as: UInt64.self)))
                    c = step(c, UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: k &+ 16, as: UInt64.self)))
                    d = step(d, UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: k &+ 24, as: UInt64.self)))
                    k &+= 32
                }
                acc = rotl(a, 1) &+ rotl(b, 7) &+ rotl(c, 12) &+ rotl(d, 18)
            }
            while k &+ 8 <= n {
                acc = step(acc, UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: k, as: UInt64.self)))
                k &+= 8
            }
            if k < n {
                var word: UInt64 = 0
                var shift: UInt64 = 0
                while k < n {
                    word |= UInt64(base[k]) &<< shift
                    shift &+= 8
                    k &+= 1
                }
                acc = rotl(acc ^ (word &* k3), 23) &* k2
            }
        }
        return fin(acc ^ UInt64(n) &* k1)
    }

    mutating func hash(_ value: JSONValue) -> UInt64 {
        withUnsafePointer(to: value) { hash(at: $0) }
    }

    private mutating func hash(at value: UnsafePointer<JSONValue>) -> UInt64 {
        switch value.pointee {
        case .null:
            canonicalSize &+= 4
            return Self.fin(Tag.null.rawValue &* Self.k3)
        case .bool(let b):
            canonicalSize &+= b ? 4 : 5
            return Self.fin((b ? Tag.true : Tag.false).rawValue &* Self.k3)
        case .number(let n):
            numbers.out.removeAll()
            numbers.writeNumber(n)
            canonicalSize &+= numbers.out.count
            return Self.bytes(.number, numbers.out.bytes)
        case .string(let s):
            return hashString(s)
        case .array(let elements):
            canonicalSize &+= elements.isEmpty ? 2 : 1 &+ elements.count
            var acc = Self.fin(Tag.array.rawValue &* Self.k3 ^ UInt64(elements.count))
            elements.withUnsafeBufferPointer { items in
                for k in 0..<items.count {
                    acc = Self.rotl(acc &+ hash(at: items.baseAddress! + k) &* Self.k2, 29) &* Self.k1
                }
            }
            return Self.fin(acc)
        case .object(let object):
            // `{}`; or `{` and `}` plus a `:` per member and a `,` between members.
            canonicalSize &+= object.isEmpty ? 2 : 2 &* object.count &+ 1
            var sum: UInt64 = 0
            object._keys.withUnsafeBufferPointer { keys in
                object._values.withUnsafeBufferPointer { values in
                    for k in 0..<keys.count {
                        let key = hashString(keys[k])
                        let member = hash(at: values.baseAddress! + k)
                        sum &+= Self.fin(key &+ Self.rotl(member, 17) &* Self.k3)
                    }
                }
            }
            return Self.fin(sum ^ Tag.object.rawValue &* Self.k3 ^ UInt64(object.count) &* Self.k2)
        }
    }

    /// A string's hash, and its escaped length added to ``canonicalSize``.
    private mutating func hashString(_ s: String) -> UInt64 {
        let measuring = measuring
        let result: (UInt64, Int)? = s.utf8.withContiguousStorageIfAvailable { utf8 in
            (Self.bytes(.string, utf8), measuring ? Self.escapedLength(utf8) : 0)
        }
        let (hash, length): (UInt64, Int)
        if let result {
            (hash, length) = result
        } else {
            var copy = s
            (hash, length) = copy.withUTF8 { (Self.bytes(.string, $0), measuring ? Self.escapedLength($0) : 0) }
        }
        canonicalSize &+= length
        return hash
    }

    /// The length of `utf8` as the writer prints it: quotes, and `\"`, `\\`, `\b \f \n \r \t`
    /// or `\u00XX` for what JSON requires escaped.
    static func escapedLength(_ utf8: UnsafeBufferPointer<UInt8>) -> Int {
        var length = utf8.count &+ 2
        guard let base = utf8.baseAddress else { return length }
        let n = utf8.count
        var k = 0
        while k &+ 8 <= n {
            let w = SWAR.load(base + k)
            if SWAR.stringSpecialBytes(w) == 0 {
                k &+= 8
                continue
            }
            for j in k..<(k &+ 8) { length &+= extra(base[j]) }
            k &+= 8
        }
        while k < n {
            length &+= extra(base[k])
            k &+= 1
        }
        return length
    }

    @inline(__always) private static func extra(_ b: UInt8) -> Int {
        switch b {
        case 0x22, 0x5C, 0x08, 0x09, 0x0A, 0x0C, 0x0D: 1
        case 0..<0x20: 5
        default: 0
        }
    }
}
