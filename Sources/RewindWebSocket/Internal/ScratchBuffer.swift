import CLibWebSockets

/// The service thread's staging area for `lws_write`: LWS_PRE bytes of headroom, then room for one
/// frame or one chunk of an HTTP body. lws sends what it can at once and copies any remainder into
/// its own buffer, so one scratch buffer serves every connection of a context in turn.
final class ScratchBuffer {
    static let capacity = FrameWriter.fragmentSize

    private let base: UnsafeMutablePointer<UInt8>
    private let pre: Int

    init() {
        pre = rewind_lws_pre()
        base = .allocate(capacity: pre + Self.capacity)
    }

    deinit {
        base.deallocate()
    }

    /// Copies `count` bytes of `bytes` starting at `offset` after the headroom; returns the
    /// payload's start, ready for `lws_write`.
    func load(_ bytes: [UInt8], from offset: Int, count: Int) -> UnsafeMutablePointer<UInt8> {
        precondition(count <= Self.capacity)
        let payload = base + pre
        if count > 0 {
            bytes.withUnsafeBufferPointer { source in
                payload.update(from: source.baseAddress! + offset, count: count)
            }
        }
        return payload
    }

    /// A region of `count` bytes after the headroom (for HTTP headers built in place).
    func region(count: Int) -> UnsafeMutablePointer<UInt8>? {
        count <= Self.capacity ? base + pre : nil
    }
}
