import Foundation

extension String {
    /// Whether the two strings hold the same Unicode scalars (the same UTF-8 bytes).
    ///
    /// JSON compares member names and strings code point by code point (RFC 8259 §8.3), while
    /// Swift's `==` treats canonically equivalent strings as equal: `"é"` (U+00E9) and `"e\u{301}"`
    /// are equal to Swift but are different JSON. `==` still answers "different" quickly, so it
    /// goes first.
    @usableFromInline @inline(__always)
    func hasSameBytes(as other: String) -> Bool {
        self == other && _sameUTF8(other)
    }

    @usableFromInline
    func _sameUTF8(_ other: String) -> Bool {
        let n = utf8.count
        guard n == other.utf8.count else { return false }
        let fast = utf8.withContiguousStorageIfAvailable { a in
            other.utf8.withContiguousStorageIfAvailable { b in
                n == 0 || memcmp(a.baseAddress!, b.baseAddress!, n) == 0
            }
        }
        if let fast, let result = fast { return result }
        return utf8.elementsEqual(other.utf8)
    }
}
