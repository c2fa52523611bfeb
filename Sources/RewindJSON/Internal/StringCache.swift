import Foundation

/// Recently read ASCII strings, so that a key or value the document repeats (most keys, and
/// values such as `"en"`) is found by its bytes instead of being built again.
///
/// Strings of at most 15 bytes are stored inline by Swift, so a hit copies 16 bytes and touches
/// no reference count. Longer ones (up to 64 bytes, such as `profile_background_image_url`)
/// would each need a heap allocation; a hit shares the one already made. Both tables are
/// direct-mapped and forget on collision.
struct StringCache: ~Copyable {
    private struct ShortEntry {
        var low: UInt64
        var high: UInt64
        var length: Int
        var string: String
    }

    private struct LongEntry {
        var hash: Int
        var string: String
    }

    private static let size = 256
    static let longLimit = 64
    private var short: UnsafeMutablePointer<ShortEntry>?
    private var long: UnsafeMutablePointer<LongEntry>?

    init() {}

    deinit {
        if let short {
            short.deinitialize(count: Self.size)
            short.deallocate()
        }
        if let long {
            long.deinitialize(count: Self.size)
            long.deallocate()
        }
    }

    /// The string of the `length` (at most 15) ASCII bytes at `p`; 16 bytes at `p` must be
    /// readable.
    @inline(__always) mutating func shortString(at p: UnsafePointer<UInt8>, length: Int) -> String {
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
        let entry = (short ?? allocateShort()) + slot
        if entry.pointee.low == low, entry.pointee.high == high, entry.pointee.length == length {
            return entry.pointee.string
        }
        let s = String(decoding: UnsafeBufferPointer(start: p, count: length), as: UTF8.self)
        entry.pointee = ShortEntry(low: low, high: high, length: length, string: s)
        return s
    }

    /// The string of the `length` (16 to `longLimit`) ASCII bytes at `p`.
    @inline(__always) mutating func longString(at p: UnsafePointer<UInt8>, length: Int) -> String {
        let bytes = UnsafeBufferPointer(start: p, count: length)
        let hash = KeyIndex.hash(bytes: bytes)
        let entry = (long ?? allocateLong()) + Int(truncatingIfNeeded: UInt64(bitPattern: Int64(hash)) &>> 56)
        if entry.pointee.hash == hash {
            let same = entry.pointee.string.utf8.withContiguousStorageIfAvailable { cached in
                cached.count == length && memcmp(cached.baseAddress!, p, length) == 0
            }
            if same == true { return entry.pointee.string }
        }
        let s = String(decoding: bytes, as: UTF8.self)
        entry.pointee = LongEntry(hash: hash, string: s)
        return s
    }

    @inline(never) private mutating func allocateShort() -> UnsafeMutablePointer<ShortEntry> {
        let table = UnsafeMutablePointer<ShortEntry>.allocate(capacity: Self.size)
        table.initialize(repeating: ShortEntry(low: 0, high: 0, length: -1, string: ""), count: Self.size)
        short = table
        return table
    }

    @inline(never) private mutating func allocateLong() -> UnsafeMutablePointer<LongEntry> {
        let table = UnsafeMutablePointer<LongEntry>.allocate(capacity: Self.size)
        table.initialize(repeating: LongEntry(hash: 0, string: ""), count: Self.size)
        long = table
        return table
    }
}
