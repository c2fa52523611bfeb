/// Eight-bytes-at-a-time tests on UTF-8 text ("SIMD within a register").
enum SWAR {
    /// A mask with the high bit set in each byte of `w` that is a quote, a backslash or a control
    /// character: the bytes a JSON string must escape. The lowest flagged byte is always exact
    /// (bytes above it may be false alarms), so `trailingZeroBitCount / 8` finds the first one.
    @inline(__always) static func stringSpecialBytes(_ w: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let quote = w ^ 0x2222_2222_2222_2222
        let backslash = w ^ 0x5C5C_5C5C_5C5C_5C5C
        let isQuote = (quote &- ones) & ~quote
        let isBackslash = (backslash &- ones) & ~backslash
        let isControl = (w &- 0x2020_2020_2020_2020) & ~w
        return (isQuote | isBackslash | isControl) & 0x8080_8080_8080_8080
    }

    /// Eight little-endian bytes at `p`, without alignment.
    @inline(__always) static func load(_ p: UnsafePointer<UInt8>) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt64.self))
    }
}
