/// Joins the fragments libwebsockets delivers (pieces of its service buffer, across frames) into
/// whole messages, refusing any message that grows past the size limit.
struct MessageAssembler {
    enum Outcome: Equatable {
        case partial
        case complete(WebSocketMessage)
        case tooLarge
    }

    let maxMessageSize: Int
    private var buffer: [UInt8] = []
    private var isBinary = false
    private var inMessage = false

    init(maxMessageSize: Int) {
        self.maxMessageSize = maxMessageSize
    }

    /// Adds one received piece. `binary` is the kind of the frame that started the message;
    /// `remainingInFrame` is what libwebsockets still expects of the current frame, so a frame
    /// announced too large is refused before its bytes arrive; `final` is
    /// `lws_is_final_fragment && lws_remaining_packet_payload == 0`.
    mutating func append(_ bytes: UnsafeRawBufferPointer, binary: Bool, final: Bool, remainingInFrame: Int) -> Outcome {
        if !inMessage {
            inMessage = true
            isBinary = binary
            let expected = bytes.count + remainingInFrame
            if expected <= maxMessageSize { buffer.reserveCapacity(expected) }
        }
        guard buffer.count + bytes.count + remainingInFrame <= maxMessageSize else {
            reset()
            return .tooLarge
        }
        buffer.append(contentsOf: bytes)
        guard final else { return .partial }
        let payload = buffer
        let message: WebSocketMessage = isBinary ? .binary(payload) : .text(payload)
        reset()
        return .complete(message)
    }

    private mutating func reset() {
        buffer = []
        inMessage = false
    }
}
