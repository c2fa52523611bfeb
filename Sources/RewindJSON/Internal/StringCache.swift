/// Recently read short ASCII strings, so that a key or value the document repeats (most keys,
/// and values such as `"en"`) is looked up by its bytes instead of being built again.
///
/// Only strings of at most 15 bytes are cached: Swift stores those inline, so a hit copies 16
/// bytes and touches no reference count. The table is direct-mapped and forgets on collision.
struct StringCache: ~Copyable {
    private struct Entry {
        var low: UInt64
        var high: UInt64
        var length: Int
        var string: String
    }

    private static let size = 256
    private var entries: UnsafeMutablePointer<Entry>?

    init() {}

    deinit {
        if let entries {
            entries.deinitialize(count: Self.size)
            entries.deallocate()
        }
    }

    /// The string of the `length` (at most 15) ASCII bytes at `p`; 16 bytes at `p` must be
    /// readable.
    @inline(__always) mutating func string(at p: UnsafePointer<UInt8>, length: Int) -> String {
        var low = SWAR.load(p)
        var high = SWAR.load(p + 8)
        if length < 8 {
            low &= (1 &<< UInt64(length &* 8)) &- 1
            high = 0
        } else {
            high &= (1 &<< UInt64((length &- 8) &* 8)) &- 1
        }
        let hash = (low &* 0x9E37_79B9_7F4A_7C15) ^ (high &* 0xC2B2_AE3D_27D4_EB4F) ^ UInt64(length)
        let slot = Int(truncatingIfNeeded: (hash &* 0xFF51_AFD7_ED55_8CCD) &>> 56)
        let table = entries ?? allocate()
        let entry = table + slot
        if entry.pointee.low == low, entry.pointee.high == high, entry.pointee.length == length {
            return entry.pointee.string
        }
        let s = String(decoding: UnsafeBufferPointer(start: p, count: length), as: UTF8.self)
        entry.pointee = Entry(low: low, high: high, length: length, string: s)
        return s
    }

    @inline(never) private mutating func allocate() -> UnsafeMutablePointer<Entry> {
        let table = UnsafeMutablePointer<Entry>.allocate(capacity: Self.size)
        table.initialize(repeating: Entry(low: 0, high: 0, length: -1, string: ""), count: Self.size)
        entries = table
        return table
    }
}
