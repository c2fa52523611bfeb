import Foundation

extension String {
    /// Whether the two strings hold the same Unicode scalars (the same UTF-8 bytes).
    ///
    /// JSON compares member names and strings code point by code point (RFC 8259 §8.3), while
    /// Swift's `==` treats canonically equivalent strings as equal: `"é"` (U+00E9) and `"e\u{301}"`
    /// are equal to Swift but are different JSON, so the bytes are compared instead.
    ///
    /// Copies of one string (a key repeated through the parser's string cache, a member of a
    /// copy-on-write edit) are the same 16 bytes, the same small string or the same storage: that
    /// case is answered without touching the text, as `==` answers it.
    @usableFromInline @inline(__always)
    func hasSameBytes(as other: String) -> Bool {
        hasSameRepresentation(as: other) || _sameUTF8(other)
    }

    /// `true` when the two strings are stored the same way (the same inline bytes, or the same
    /// count, flags and storage object), which makes them the same text. `false` says nothing.
    @inline(__always)
    func hasSameRepresentation(as other: String) -> Bool {
        // A String is two words on 64-bit platforms; read as plain words, nothing is retained.
        guard MemoryLayout<String>.size == 16 else { return false }
        let a = unsafeBitCast(self, to: (UInt64, UInt64).self)
        let b = unsafeBitCast(other, to: (UInt64, UInt64).self)
        return a.0 == b.0 && a.1 == b.1
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
