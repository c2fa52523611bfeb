import CLibWebSockets

/// The WebSocket half both engines share: reassembling what arrives, writing what is queued, and
/// noting how a connection closes. Service thread only.
enum WebSocketIO {
    /// Seconds a connection that was asked to close may take to get its close frame out before it
    /// is dropped (a peer that stops reading would otherwise hold it forever).
    static let closeTimeoutSeconds: Int32 = 10

    /// Handles `RECEIVE` / `CLIENT_RECEIVE`. Returns the whole message once its last fragment
    /// arrives; on a message past the limit (or invalid UTF-8), sets the close code (1009, 1007)
    /// and returns `nil` with `closeNow` set, and the callback must return -1. With
    /// `deferringReason` (a client), the close's reason is not handed to libwebsockets here:
    /// the caller does that from its writable callback (``closeReason(for:)``), where it closes.
    static func receive(
        on core: ConnectionCore,
        wsi: OpaquePointer,
        input: UnsafeMutableRawPointer?,
        length: Int,
        closeNow: inout Bool,
        deferringReason: Bool = false
    ) -> WebSocketMessage? {
        let remaining = Int(lws_remaining_packet_payload(wsi))
        let final = lws_is_final_fragment(wsi) != 0 && remaining == 0
        let bytes = UnsafeRawBufferPointer(start: length > 0 ? input : nil, count: length)
        switch core.assembler.append(bytes, binary: lws_frame_is_binary(wsi) != 0, final: final, remainingInFrame: remaining) {
        case .partial:
            return nil
        case .complete(let message):
            if case .text(let text) = message, !UTF8Validation.isValid(text) {
                core.stopAccepting()
                core.closeCode = .invalidPayload
                if !deferringReason { setCloseReason(.invalidPayload, on: wsi) }
                closeNow = true
                return nil
            }
            return message
        case .tooLarge:
            core.stopAccepting()
            core.closeCode = .messageTooLarge
            if !deferringReason { setCloseReason(.messageTooLarge, on: wsi) }
            closeNow = true
            return nil
        }
    }

    /// Hands libwebsockets the close frame's code and reason for a refused message.
    static func setCloseReason(_ code: WebSocketCloseCode, on wsi: OpaquePointer) {
        switch code {
        case .invalidPayload:
            var reason = Array("invalid UTF-8 in a text message".utf8)
            lws_close_reason(wsi, LWS_CLOSE_STATUS_INVALID_PAYLOAD, &reason, reason.count)
        default:
            var reason = Array("message too large".utf8)
            lws_close_reason(wsi, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE, &reason, reason.count)
        }
    }

    /// Handles `SERVER_WRITEABLE` / `CLIENT_WRITEABLE`: writes one frame of the current message,
    /// or starts the next one, or sends the close once the queue is drained. Asks for another
    /// writable callback while output remains. Returns the callback's result.
    ///
    /// With `batching` (a server's connections: their frames are not masked and no extension
    /// rewrites them), small messages queued together leave in one write of complete frames —
    /// one system call and one wake-up of the peer for a burst, not one per message.
    static func writable(on core: ConnectionCore, wsi: OpaquePointer, scratch: ScratchBuffer, batching: Bool = false) -> Int32 {
        if core.writer.isIdle {
            switch core.next() {
            case .message(let message):
                if batching, let batch = Batch(first: message, core: core) {
                    guard batch.write(to: wsi, using: scratch) else { return -1 }
                    if core.finishBatch(of: batch.messages.count) { lws_callback_on_writable(wsi) }
                    return 0
                }
                core.writer.begin(message)
            case .close(let code, let reason):
                if core.closeCode == nil { core.closeCode = code }
                var reasonBytes = reason
                lws_close_reason(wsi, lws_close_status(rawValue: UInt32(code.rawValue)), &reasonBytes, reasonBytes.count)
                return -1
            case .nothing:
                return 0
            }
        }
        guard core.writer.writeNextFrame(to: wsi, using: scratch) else { return -1 }
        if !core.writer.isIdle || core.hasPendingOutput {
            lws_callback_on_writable(wsi)
        }
        return 0
    }

    /// Handles a woken connection: asks for writability, and arms the close timeout once.
    static func wake(_ core: ConnectionCore) {
        core.clearWakeFlag()
        guard let wsi = core.wsi else { return }
        let paused = core.wantsReceivePaused
        if paused != core.receivePausedInLWS {
            core.receivePausedInLWS = paused
            // The socket is no longer read while paused: the peer's data waits in the kernel and
            // then in the peer, not in this process.
            lws_rx_flow_control(wsi, paused ? 0 : 1)
        }
        if core.hasCloseRequest, !core.closeTimerArmed {
            core.closeTimerArmed = true
            lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, closeTimeoutSeconds)
        }
        lws_callback_on_writable(wsi)
    }

    /// Handles `WS_PEER_INITIATED_CLOSE`: records the peer's code (the first two payload bytes,
    /// big-endian; 1005 when absent) and refuses further sends. lws then echoes the close.
    static func peerClosing(_ core: ConnectionCore, input: UnsafeMutableRawPointer?, length: Int) {
        if core.closeCode == nil {
            if let input, length >= 2 {
                let bytes = input.assumingMemoryBound(to: UInt8.self)
                core.closeCode = WebSocketCloseCode(rawValue: UInt16(bytes[0]) << 8 | UInt16(bytes[1]))
            } else {
                core.closeCode = .noStatus
            }
        }
        core.stopAccepting()
    }
}
