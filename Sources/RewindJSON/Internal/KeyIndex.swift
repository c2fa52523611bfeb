/// Key → position for larger objects: an open-addressing table of positions (linear probing,
/// at most half full) hashed with a cheap word-at-a-time hash of the key's UTF-8 bytes. The keys
/// themselves stay in the object's key array.
@usableFromInline struct KeyIndex: Sendable {
    /// A position, or -1 for an empty slot; the count is a power of two.
    @usableFromInline var slots: [Int32]

    /// The index of `keys`, or `nil` when a key repeats.
    init?(keys: [String]) {
        let size = Self.tableSize(for: keys.count)
        var duplicate = false
        slots = [Int32](unsafeUninitializedCapacity: size) { buffer, initialized in
            buffer.initialize(repeating: -1)
            initialized = size
            duplicate = !keys.withUnsafeBufferPointer { Self.fill(buffer, keys: $0) }
        }
        if duplicate { return nil }
    }

    /// The number of slots for `count` keys: a power of two, at least twice `count`.
    @inline(__always) static func tableSize(for count: Int) -> Int {
        var size = 8
        while size < count &* 2 { size &<<= 1 }
        return size
    }

    /// Inserts every key's position into the empty table `slots`; returns `false` (leaving the
    /// table partly filled) at the first repeated key.
    static func fill(_ slots: UnsafeMutableBufferPointer<Int32>, keys: UnsafeBufferPointer<String>) -> Bool {
        let mask = slots.count - 1
        for position in 0..<keys.count {
            let key = keys[position]
            var s = hash(key) & mask
            while true {
                let occupant = slots[s]
                if occupant < 0 {
                    slots[s] = Int32(truncatingIfNeeded: position)
                    break
                }
                if keys[Int(occupant)].hasSameBytes(as: key) { return false }
                s = (s &+ 1) & mask
            }
        }
        return true
    }

    /// Whether `keys` holds a repeated key, checked with a temporary table.
    static func hasDuplicates(_ keys: UnsafeBufferPointer<String>) -> Bool {
        let size = tableSize(for: keys.count)
        return withUnsafeTemporaryAllocation(of: Int32.self, capacity: size) { slots in
            slots.initialize(repeating: -1)
            return !fill(slots, keys: keys)
        }
    }

    /// The position of `key` among `keys`.
    @usableFromInline func position(of key: String, in keys: [String]) -> Int? {
        let mask = slots.count - 1
        var s = Self.hash(key) & mask
        while true {
            let occupant = slots[s]
            if occupant < 0 { return nil }
            if keys[Int(occupant)].hasSameBytes(as: key) { return Int(occupant) }
            s = (s &+ 1) & mask
        }
    }

    /// Adds `keys.last`, which must be new, growing the table when it passes half full.
    mutating func appendLast(of keys: [String]) {
        if keys.count * 2 > slots.count {
            self = KeyIndex(keys: keys)!
            return
        }
        let mask = slots.count - 1
        var s = Self.hash(keys[keys.count - 1]) & mask
        while slots[s] >= 0 { s = (s &+ 1) & mask }
        slots[s] = Int32(truncatingIfNeeded: keys.count - 1)
    }

    @inline(__always) static func hash(_ key: String) -> Int {
        if let h = key.utf8.withContiguousStorageIfAvailable({ hash(bytes: $0) }) { return h }
        var copy = key
        return copy.withUTF8 { hash(bytes: $0) }
    }

    /// A fast, non-cryptographic hash: keys come from the document being read, and a table at
    /// most half full degrades gracefully even when they collide.
    @inline(__always) static func hash(bytes: UnsafeBufferPointer<UInt8>) -> Int {
        let n = bytes.count
        var h = UInt64(truncatingIfNeeded: n) &* 0x9E37_79B9_7F4A_7C15
        guard let base = bytes.baseAddress else { return Int(truncatingIfNeeded: h) }
        let raw = UnsafeRawPointer(base)
        var i = 0
        while i &+ 8 <= n {
            h = (h ^ raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0xFF51_AFD7_ED55_8CCD
            h ^= h >> 32
            i &+= 8
        }
        if i < n {
            var tail: UInt64 = 0
            var shift: UInt64 = 0
            while i < n {
                tail |= UInt64(base[i]) << shift
                shift &+= 8
                i &+= 1
            }
            h = (h ^ tail) &* 0xFF51_AFD7_ED55_8CCD
        }
        h ^= h >> 29
        return Int(truncatingIfNeeded: h)
    }
}
