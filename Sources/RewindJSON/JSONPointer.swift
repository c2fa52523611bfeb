/// A location inside a JSON document (RFC 6901): a list of reference tokens.
///
/// The text form is empty for the whole document, else `/` followed by the tokens joined with
/// `/`, where `~` is written `~0` and `/` is written `~1`. A token names an object member, or an
/// array element by its index (digits only, no leading zeros); `-` names the position just past
/// the last element of an array, which only an `add` accepts.
///
/// ```swift
/// let pointer = try JSONPointer("/users/0/a~1b")
/// pointer.tokens                        // ["users", "0", "a/b"]
/// pointer.parent?.description           // "/users/0"
/// pointer.resolve(in: state)            // the value there, or nil
/// ```
public struct JSONPointer: Sendable, Hashable {
    /// The unescaped reference tokens, outermost first; empty for the whole document.
    public var tokens: [String]

    /// The pointer to the whole document (text form `""`).
    public static let root = JSONPointer(tokens: [])

    /// A pointer with these unescaped tokens.
    public init(tokens: [String]) {
        self.tokens = tokens
    }

    /// Parses the text form of a pointer, unescaping `~1` to `/` and `~0` to `~`.
    ///
    /// Throws when the text is neither empty nor starts with `/`, or when a `~` is not followed
    /// by `0` or `1`.
    public init(_ string: String) throws(JSONPointerError) {
        var text = string
        let result = text.withUTF8 { utf8 -> Result<[String], JSONPointerError> in
            Result { () throws(JSONPointerError) in try Self.parseTokens(utf8, text: string) }
        }
        tokens = try result.get()
    }

    private static func parseTokens(_ utf8: UnsafeBufferPointer<UInt8>, text: String) throws(JSONPointerError) -> [String] {
        guard !utf8.isEmpty else { return [] }
        guard utf8[0] == UInt8(ascii: "/") else {
            throw JSONPointerError(pointer: text, offset: 0, reason: .missingLeadingSlash)
        }
        var tokens: [String] = []
        var start = 1
        var hasEscape = false
        var i = 1
        func token(_ end: Int, escaped: Bool) throws(JSONPointerError) -> String {
            let bytes = UnsafeBufferPointer(rebasing: utf8[start..<end])
            guard escaped else { return String(decoding: bytes, as: UTF8.self) }
            var unescaped: [UInt8] = []
            unescaped.reserveCapacity(bytes.count)
            var k = 0
            while k < bytes.count {
                if bytes[k] == UInt8(ascii: "~") {
                    let next: UInt8? = k + 1 < bytes.count ? bytes[k + 1] : nil
                    switch next {
                    case UInt8(ascii: "0"): unescaped.append(UInt8(ascii: "~"))
                    case UInt8(ascii: "1"): unescaped.append(UInt8(ascii: "/"))
                    default: throw JSONPointerError(pointer: text, offset: start + k, reason: .invalidEscape)
                    }
                    k += 2
                } else {
                    unescaped.append(bytes[k])
                    k += 1
                }
            }
            return String(decoding: unescaped, as: UTF8.self)
        }
        while i < utf8.count {
            switch utf8[i] {
            case UInt8(ascii: "/"):
                tokens.append(try token(i, escaped: hasEscape))
                start = i + 1
                hasEscape = false
            case UInt8(ascii: "~"):
                hasEscape = true
            default:
                break
            }
            i += 1
        }
        tokens.append(try token(utf8.count, escaped: hasEscape))
        return tokens
    }

    /// `true` for the pointer to the whole document.
    public var isRoot: Bool { tokens.isEmpty }

    /// The last token, or `nil` for the root.
    public var lastToken: String? { tokens.last }

    /// The pointer to the containing value, or `nil` for the root.
    public var parent: JSONPointer? {
        tokens.isEmpty ? nil : JSONPointer(tokens: Array(tokens.dropLast()))
    }

    /// This pointer with one more token: `/a`.appending("b/c") is `/a/b~1c`.
    public func appending(_ token: String) -> JSONPointer {
        var copy = self
        copy.tokens.append(token)
        return copy
    }

    /// This pointer with an array index appended: `/items`.appending(3) is `/items/3`.
    public func appending(_ index: Int) -> JSONPointer {
        appending(String(index))
    }

    /// This pointer followed by all the tokens of `other`.
    public func appending(_ other: JSONPointer) -> JSONPointer {
        JSONPointer(tokens: tokens + other.tokens)
    }

    /// `true` when `other` lies strictly inside the value this pointer names:
    /// `/a` is an ancestor of `/a/b` and of `/a/b/c`, but not of `/a` itself nor of `/ab`.
    public func isAncestor(of other: JSONPointer) -> Bool {
        tokens.count < other.tokens.count && other.hasTokens(startingWith: self)
    }

    /// `true` when this pointer lies strictly inside the value `other` names.
    public func isDescendant(of other: JSONPointer) -> Bool {
        other.isAncestor(of: self)
    }

    /// `true` when this pointer equals `other` or is one of its ancestors (token-wise prefix).
    public func isPrefix(of other: JSONPointer) -> Bool {
        tokens.count <= other.tokens.count && other.hasTokens(startingWith: self)
    }

    /// Whether the first tokens of this pointer are those of `prefix`, compared scalar by scalar
    /// as JSON compares member names (RFC 8259 §8.3), not by Swift's canonical equivalence.
    private func hasTokens(startingWith prefix: JSONPointer) -> Bool {
        tokens.starts(with: prefix.tokens) { $0.hasSameBytes(as: $1) }
    }

    /// `true` when a change at one pointer can change the value at the other: they are equal,
    /// or one is an ancestor of the other. This is the relation "blame" uses to find the events
    /// whose patch touched a path.
    public func overlaps(_ other: JSONPointer) -> Bool {
        isPrefix(of: other) || other.isPrefix(of: self)
    }

    /// The value this pointer names in `document`, or `nil` when there is none. `-` and
    /// malformed indices (`01`, `1e0`, `-1`) name nothing.
    public func resolve(in document: JSONValue) -> JSONValue? {
        var current = document
        for token in tokens {
            switch current {
            case .object(let object):
                guard let value = object[token] else { return nil }
                current = value
            case .array(let elements):
                guard let index = Self.arrayIndex(token), index < elements.count else { return nil }
                current = elements[index]
            default:
                return nil
            }
        }
        return current
    }

    /// The array index a token names: ASCII digits without leading zeros (`0` alone is fine),
    /// else `nil`. `-` is not an index; it is handled by `add` only.
    public static func arrayIndex(_ token: String) -> Int? {
        var token = token
        return token.withUTF8 { utf8 -> Int? in
            guard !utf8.isEmpty, utf8.count <= 18 else { return nil }
            if utf8[0] == UInt8(ascii: "0") { return utf8.count == 1 ? 0 : nil }
            var value = 0
            for b in utf8 {
                guard b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(b - UInt8(ascii: "0"))
            }
            return value
        }
    }

    /// Escapes one token for the text form: `~` → `~0`, `/` → `~1`.
    public static func escape(_ token: String) -> String {
        guard token.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else {
            return token
        }
        var out = ""
        out.reserveCapacity(token.utf8.count + 2)
        for ch in token.unicodeScalars {
            switch ch {
            case "~": out += "~0"
            case "/": out += "~1"
            default: out.unicodeScalars.append(ch)
            }
        }
        return out
    }
}

extension JSONPointer {
    /// The same tokens, each compared scalar by scalar as JSON compares member names: `/é`
    /// (U+00E9) and `/e\u{301}` name different members, so they are different pointers.
    public static func == (lhs: JSONPointer, rhs: JSONPointer) -> Bool {
        lhs.tokens.count == rhs.tokens.count && lhs.isPrefix(of: rhs)
    }
}

extension JSONPointer: CustomStringConvertible {
    /// The text form: `""` for the root, else `/token/token…` with `~0` and `~1` escapes.
    public var description: String {
        var out = ""
        for token in tokens {
            out += "/"
            out += Self.escape(token)
        }
        return out
    }
}

extension JSONPointer: Comparable {
    /// Orders pointers token by token, a parent before its children, so that sorting a set of
    /// pointers groups each subtree together.
    public static func < (lhs: JSONPointer, rhs: JSONPointer) -> Bool {
        for (a, b) in zip(lhs.tokens, rhs.tokens) where !a.hasSameBytes(as: b) {
            return a.utf8.lexicographicallyPrecedes(b.utf8)
        }
        return lhs.tokens.count < rhs.tokens.count
    }
}
