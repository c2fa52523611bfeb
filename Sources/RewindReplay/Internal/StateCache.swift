import RewindJSON

/// The states a ``Timeline`` rebuilt recently, bounded by count and by approximate bytes, the
/// least recently used dropped first.
///
/// States are copy-on-write values, so a cached state and the ones rebuilt from it share every
/// subtree no patch touched: the byte bound over-counts what the cache really holds. Lookups scan
/// the entries; the cache holds tens of states, not thousands.
struct StateCache {
    struct Entry {
        var state: JSONValue
        /// Approximate size of the state's compact JSON text.
        var bytes: Int
        var lastUse: UInt64
    }

    var maxEntries: Int
    var maxBytes: Int
    private(set) var entries: [Int64: Entry] = [:]
    private(set) var totalBytes = 0
    private var clock: UInt64 = 0

    init(maxEntries: Int, maxBytes: Int) {
        self.maxEntries = max(0, maxEntries)
        self.maxBytes = max(0, maxBytes)
    }

    var count: Int { entries.count }

    /// The state at `seq`, marked as just used.
    mutating func state(at seq: Int64) -> (state: JSONValue, bytes: Int)? {
        guard var entry = entries[seq] else { return nil }
        clock += 1
        entry.lastUse = clock
        entries[seq] = entry
        return (entry.state, entry.bytes)
    }

    /// Keeps `state` as the state at `seq`, dropping the least recently used states until both
    /// bounds hold. A state larger than the whole byte bound is not kept.
    mutating func insert(_ state: JSONValue, bytes: Int, at seq: Int64) {
        guard maxEntries > 0, bytes <= maxBytes else { return }
        clock += 1
        if let old = entries.updateValue(Entry(state: state, bytes: bytes, lastUse: clock), forKey: seq) {
            totalBytes -= old.bytes
        }
        totalBytes += bytes
        while entries.count > maxEntries || totalBytes > maxBytes {
            guard let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse }) else { break }
            totalBytes -= oldest.value.bytes
            entries[oldest.key] = nil
        }
    }

    /// The cached seq closest to `seq` at or below it, and the one closest above it.
    func neighbours(of seq: Int64) -> (below: Int64?, above: Int64?) {
        var below: Int64?
        var above: Int64?
        for key in entries.keys {
            if key <= seq {
                if below.map({ key > $0 }) ?? true { below = key }
            } else if above.map({ key < $0 }) ?? true {
                above = key
            }
        }
        return (below, above)
    }

    mutating func removeAll() {
        entries = [:]
        totalBytes = 0
    }
}
