import CLibWebSockets

/// The header of one final, unmasked WebSocket frame (RFC 6455 §5.2): FIN and the opcode in the
/// first byte, then the payload length in one of three forms. This is the one place that knows
/// where each form starts.
///
/// Only a server's frames are laid out here, and a server's frames are never masked (§5.1), so
/// the mask bit is always clear and no key is written. A client's frames are masked by
/// libwebsockets itself (``FrameWriter`` hands it whole messages).
enum FrameHeader {
    /// How a payload length is written.
    enum LengthForm: Equatable {
        /// 0…125, in the 7 bits of the second byte.
        case short
        /// 126…65,535: 126 in the second byte, then 16 bits, big-endian.
        case extended16
        /// 65,536 and up: 127 in the second byte, then 64 bits, big-endian.
        case extended64

        init(payload: Int) {
            if payload <= 125 {
                self = .short
            } else if payload <= 0xFFFF {
                self = .extended16
            } else {
                self = .extended64
            }
        }

        /// The bytes the whole header takes with this form.
        var headerSize: Int {
            switch self {
            case .short: 2
            case .extended16: 4
            case .extended64: 10
            }
        }
    }

    /// The most bytes one header takes.
    static let maxSize = LengthForm.extended64.headerSize

    /// The opcode of a message's (first) frame.
    static func opcode(of message: WebSocketMessage) -> UInt8 {
        switch message {
        case .text: 0x1
        case .binary: 0x2
        }
    }

    /// Writes the header of a final frame with `opcode` and `payload` bytes at `start`, which has
    /// room for ``maxSize`` bytes; returns the bytes written.
    static func write(opcode: UInt8, payload: Int, at start: UnsafeMutablePointer<UInt8>) -> Int {
        let form = LengthForm(payload: payload)
        start[0] = 0x80 | opcode
        switch form {
        case .short:
            start[1] = UInt8(payload)
        case .extended16:
            start[1] = 126
        case .extended64:
            start[1] = 127
        }
        // The extended length fills the rest of the header, most significant byte first.
        let lengthBytes = form.headerSize - 2
        for index in 0..<lengthBytes {
            start[2 + index] = UInt8(truncatingIfNeeded: UInt64(payload) >> (8 * UInt64(lengthBytes - 1 - index)))
        }
        return form.headerSize
    }
}

/// Several small messages written as one run of complete, unmasked WebSocket frames (each a
/// ``FrameHeader`` and its payload), handed to lws as raw bytes. lws sends them with one `send`,
/// or keeps the rest and sends it before the next writable callback, as it does for a single
/// frame.
struct Batch {
    /// A message this size or smaller may open a batch; larger ones go out fragmented, alone.
    static let maxFirst = ScratchBuffer.capacity / 4

    private(set) var messages: [WebSocketMessage]

    /// A batch that starts with `first`, or nil when `first` is too large or nothing small waits
    /// behind it (then it goes out the usual way).
    init?(first: WebSocketMessage, core: ConnectionCore) {
        guard Self.frameSize(first.bytes.count) <= Self.maxFirst else { return nil }
        var used = Self.frameSize(first.bytes.count)
        var messages = [first]
        while let next = core.nextMessage(atMost: ScratchBuffer.capacity - used - FrameHeader.maxSize) {
            used += Self.frameSize(next.bytes.count)
            messages.append(next)
        }
        guard messages.count > 1 else {
            // Nothing was taken after `first`; the caller writes it alone.
            return nil
        }
        self.messages = messages
    }

    /// A batch of exactly `messages` (tests lay one out without a connection).
    init(messages: [WebSocketMessage]) {
        self.messages = messages
    }

    /// The bytes one message takes as a frame: its header and its payload.
    static func frameSize(_ payload: Int) -> Int {
        payload + FrameHeader.LengthForm(payload: payload).headerSize
    }

    /// The bytes the whole batch takes.
    var byteCount: Int {
        messages.reduce(0) { $0 + Self.frameSize($1.bytes.count) }
    }

    /// Lays the frames out one after another from `start`, which has room for ``byteCount``
    /// bytes; returns the bytes written.
    func layOut(at start: UnsafeMutablePointer<UInt8>) -> Int {
        var position = 0
        for message in messages {
            let bytes = message.bytes
            position += FrameHeader.write(opcode: FrameHeader.opcode(of: message), payload: bytes.count, at: start + position)
            bytes.withUnsafeBufferPointer { source in
                guard let base = source.baseAddress, !source.isEmpty else { return }
                (start + position).update(from: base, count: source.count)
            }
            position += bytes.count
        }
        return position
    }

    /// Lays the frames out in `scratch` and writes them; `false` when the write failed.
    func write(to wsi: OpaquePointer, using scratch: ScratchBuffer) -> Bool {
        guard let start = scratch.region(count: byteCount) else { return false }
        let count = layOut(at: start)
        // LWS_WRITE_HTTP (lws' "raw"): lws adds no framing of its own to these bytes.
        let written = lws_write(wsi, start, count, LWS_WRITE_HTTP)
        return written >= Int32(count)
    }
}
