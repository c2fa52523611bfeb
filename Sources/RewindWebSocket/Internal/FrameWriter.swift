import CLibWebSockets

/// Writes one outgoing message as a run of WebSocket frames, one frame per writable callback:
/// `TEXT|NO_FIN` or `BINARY|NO_FIN` first, then `CONTINUATION`, the last without `NO_FIN`.
/// Fragments keep a 16 MiB message from sitting whole in lws' own send buffer and let pings and
/// other connections through between them.
struct FrameWriter {
    /// The payload of one frame; also the protocols' `tx_packet_size`, so a frame leaves in one send.
    static let fragmentSize = 64 * 1024

    private var payload: [UInt8] = []
    private var isText = false
    private var offset = 0
    private(set) var isIdle = true

    mutating func begin(_ message: WebSocketMessage) {
        switch message {
        case .text(let bytes): payload = bytes; isText = true
        case .binary(let bytes): payload = bytes; isText = false
        }
        offset = 0
        isIdle = false
    }

    /// Writes the next frame through `scratch` (LWS_PRE headroom); `false` means the write failed
    /// and the connection should be dropped.
    mutating func writeNextFrame(to wsi: OpaquePointer, using scratch: ScratchBuffer) -> Bool {
        let length = min(Self.fragmentSize, payload.count - offset)
        let isLast = offset + length == payload.count
        var flags: UInt32 = offset == 0 ? (isText ? LWS_WRITE_TEXT.rawValue : LWS_WRITE_BINARY.rawValue) : LWS_WRITE_CONTINUATION.rawValue
        if !isLast { flags |= LWS_WRITE_NO_FIN.rawValue }
        let frame = scratch.load(payload, from: offset, count: length)
        let written = lws_write(wsi, frame, length, lws_write_protocol(rawValue: flags))
        guard written >= Int32(length) else { return false }
        offset += length
        if isLast {
            payload = []
            isIdle = true
        }
        return true
    }
}
