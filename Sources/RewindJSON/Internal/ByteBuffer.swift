/// A growable byte buffer with no per-byte uniqueness or bounds checks: callers reserve room
/// with `reserve(_:)` and then write through the unchecked `append` methods.
///
/// It backs the writer's output and the parser's scratch space for escaped strings.
struct ByteBuffer: ~Copyable {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int = 256) {
        self.capacity = Swift.max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// Makes room for at least `extra` more bytes.
    @inline(__always) mutating func reserve(_ extra: Int) {
        if count &+ extra > capacity { grow(count + extra) }
    }

    @inline(never) private mutating func grow(_ needed: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.update(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    /// Appends one byte; the room must have been reserved.
    @inline(__always) mutating func appendUnchecked(_ byte: UInt8) {
        base[count] = byte
        count &+= 1
    }

    /// Appends `n` bytes from `source`; the room must have been reserved.
    @inline(__always) mutating func appendUnchecked(_ source: UnsafePointer<UInt8>, _ n: Int) {
        (base + count).update(from: source, count: n)
        count &+= n
    }

    /// Appends one byte, reserving room for it.
    @inline(__always) mutating func append(_ byte: UInt8) {
        reserve(1)
        appendUnchecked(byte)
    }

    /// Appends `n` bytes from `source`, reserving room for them.
    @inline(__always) mutating func append(_ source: UnsafePointer<UInt8>, _ n: Int) {
        reserve(n)
        appendUnchecked(source, n)
    }

    /// Appends a static ASCII string.
    @inline(__always) mutating func append(_ s: StaticString) {
        append(s.utf8Start, s.utf8CodeUnitCount)
    }

    /// Where the next byte goes; write at most the reserved room, then call `advance(by:)`.
    @inline(__always) var tail: UnsafeMutablePointer<UInt8> { base + count }

    /// Counts `n` bytes written at `tail`.
    @inline(__always) mutating func advance(by n: Int) { count &+= n }

    /// Forgets the contents, keeping the memory.
    @inline(__always) mutating func removeAll() { count = 0 }

    /// The bytes written so far.
    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

    /// The bytes written so far, as an array.
    var array: [UInt8] { Array(bytes) }
}
