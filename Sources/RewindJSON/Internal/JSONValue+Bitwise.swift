#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `true` when the two values are stored with the same bytes: the same case and the same payload,
/// so the same buffers for containers and strings. Such values are equal, and this is much
/// cheaper than asking (no retain, no switch). `false` says nothing: padding bytes may differ
/// between equal values, and equal values may live in different buffers.
@inline(__always)
func isBitwiseIdentical(_ a: UnsafePointer<JSONValue>, _ b: UnsafePointer<JSONValue>) -> Bool {
    memcmp(a, b, MemoryLayout<JSONValue>.size) == 0
}

extension JSONObject {
    /// Calls `body` with the object's values in place.
    @inline(__always)
    func withValueBuffer<R>(_ body: (UnsafeBufferPointer<JSONValue>) throws -> R) rethrows -> R {
        try _values.withUnsafeBufferPointer(body)
    }
}
