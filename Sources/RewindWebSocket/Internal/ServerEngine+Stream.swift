import CLibWebSockets

/// A streamed response being sent (service thread).
struct ActiveStream {
    var writer: HTTPBodyWriter
    var generation: UInt64
    /// `transfer-encoding: chunked` (HTTP/1.1); otherwise the end of the connection ends the body.
    var chunked: Bool
    /// Whole seconds, as lws 4.1 counts timeouts.
    var stallSeconds: Int32
}

/// Streamed HTTP bodies (``HTTPResponse/streamed(status:contentType:headers:window:stallTimeout:body:)``):
/// the headers go out at once, the producer runs on a thread of its own and fills its writer's
/// bounded buffer, and the service thread sends what waits on `HTTP_WRITEABLE`. It asks for a
/// writable callback only when bytes wait (the producer announces them through
/// ``DeferredHandoff``), so a client that reads nothing costs no wake-ups and holds at most the
/// window.
extension ServerEngine {
    /// Room before a chunk's bytes for its size line (`ffff\r\n`), and after them for `\r\n` and
    /// the last chunk (`0\r\n\r\n`).
    private static let chunkHeadRoom = 16
    private static let chunkTailRoom = 2 + 5

    /// Writes the headers of a streamed response, then starts its producer (not for `HEAD`).
    func startStream(_ response: HTTPResponse, streamer: HTTPResponseStreamer, headOnly: Bool, chunked: Bool,
                     on wsi: OpaquePointer) -> Int32 {
        let estimate = 512 + response.contentType.utf8.count
            + response.headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 8 }
        guard let start = scratch.region(count: estimate), (100...999).contains(response.status) else { return -1 }
        let end = start + estimate
        var position: UnsafeMutablePointer<UInt8>? = start
        if chunked {
            guard lws_add_http_header_status(wsi, UInt32(response.status), &position, end) == 0 else { return -1 }
            var type = Array(response.contentType.utf8)
            guard lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_CONTENT_TYPE, &type, Int32(type.count), &position, end) == 0 else {
                return -1
            }
            var encoding = Array("chunked".utf8)
            guard lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_TRANSFER_ENCODING, &encoding, Int32(encoding.count), &position, end) == 0 else {
                return -1
            }
        } else {
            // Without a length lws adds `connection: close` and closes once the body is sent.
            guard lws_add_http_common_headers(wsi, UInt32(response.status), response.contentType, UInt64.max,  // LWS_ILLEGAL_HTTP_CONTENT_LEN
                                              &position, end) == 0 else {
                return -1
            }
        }
        for field in response.headers {
            var name = Array((field.name.lowercased() + ":").utf8) + [0]
            var value = Array(field.value.utf8)
            guard lws_add_http_header_by_name(wsi, &name, &value, Int32(value.count), &position, end) == 0 else { return -1 }
        }
        guard lws_finalize_write_http_header(wsi, start, &position, end) == 0 else { return -1 }
        if headOnly {
            return lws_http_transaction_completed(wsi) == 0 ? 0 : -1
        }
        nextDeferredGeneration += 1
        let generation = nextDeferredGeneration
        let handoff = deferredHandoff
        let writer = HTTPBodyWriter(window: streamer.window, meter: streamMeter) { handoff.announce(generation) }
        let (seconds, attoseconds) = streamer.stallTimeout.components
        let stallSeconds = Int32(clamping: max(1, seconds + (attoseconds > 0 ? 1 : 0)))
        streams[wsi] = ActiveStream(writer: writer, generation: generation, chunked: chunked, stallSeconds: stallSeconds)
        streamsByGeneration[generation] = wsi
        deferredHandoff.runBody(streamer, writer: writer, meter: streamMeter)
        return 0
    }

    /// `EVENT_WAIT_CANCELLED`: streams with bytes waiting ask to write, and must manage to
    /// within their stall timeout.
    func wakeStreams(_ generations: [UInt64]) {
        for generation in generations {
            guard let wsi = streamsByGeneration[generation], let stream = streams[wsi] else { continue }
            lws_set_timeout(wsi, PENDING_TIMEOUT_HTTP_CONTENT, stream.stallSeconds)
            lws_callback_on_writable(wsi)
        }
    }

    /// `HTTP_WRITEABLE` on a streaming connection: the next chunk, the end, or nothing while the
    /// producer has nothing ready. `nil` when `wsi` is not streaming.
    func streamWritable(_ wsi: OpaquePointer) -> Int32? {
        guard let stream = streams[wsi] else { return nil }
        guard let base = scratch.region(count: ScratchBuffer.capacity) else { return -1 }
        let payload = base + Self.chunkHeadRoom
        let limit = ScratchBuffer.capacity - Self.chunkHeadRoom - Self.chunkTailRoom
        let (count, next) = stream.writer.take(upTo: limit, into: payload)
        if next == .failed {
            endStream(on: wsi)
            return -1
        }
        var start = payload
        var length = count
        if stream.chunked {
            if count > 0 {
                let head = Array((String(count, radix: 16) + "\r\n").utf8)
                start -= head.count
                start.update(from: head, count: head.count)
                (payload + count).update(from: [13, 10], count: 2)
                length += head.count + 2
            }
            if next == .ended {
                (start + length).update(from: Array("0\r\n\r\n".utf8), count: 5)
                length += 5
            }
        }
        if length > 0 {
            let written = lws_write(wsi, start, length, next == .ended ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP)
            guard written >= Int32(length) else {
                endStream(on: wsi)
                return -1
            }
        }
        switch next {
        case .ended:
            endStream(on: wsi)
            lws_set_timeout(wsi, NO_PENDING_TIMEOUT, 0)
            return lws_http_transaction_completed(wsi) == 0 ? 0 : -1
        case .more:
            lws_set_timeout(wsi, PENDING_TIMEOUT_HTTP_CONTENT, stream.stallSeconds)
            lws_callback_on_writable(wsi)
        case .waiting:
            // The producer's turn: its next bytes set the timeout again.
            lws_set_timeout(wsi, NO_PENDING_TIMEOUT, 0)
        case .failed:
            break
        }
        return 0
    }

    /// The stream on `wsi` is over (sent, failed, or its connection closed): its producer's
    /// next write throws and what it buffered is dropped.
    func endStream(on wsi: OpaquePointer) {
        guard let stream = streams.removeValue(forKey: wsi) else { return }
        streamsByGeneration[stream.generation] = nil
        stream.writer.close()
    }

    /// Shutdown: every stream is cut off now rather than drained (a download may take minutes).
    func killStreams() {
        for wsi in Array(streams.keys) {
            endStream(on: wsi)
            lws_set_timeout(wsi, PENDING_TIMEOUT_HTTP_CONTENT, LWS_TO_KILL_ASYNC)
        }
    }

    /// After the context is gone: no producer may wait on a connection that no longer exists.
    func closeRemainingStreams() {
        for stream in streams.values { stream.writer.close() }
        streams.removeAll()
        streamsByGeneration.removeAll()
    }
}
