import CLibWebSockets

/// A response body on its way out, one scratch-buffer chunk per `HTTP_WRITEABLE`.
struct HTTPTransfer {
    var body: [UInt8]
    var offset = 0
}

/// Plain HTTP: `GET`/`HEAD` go to the delegate; the response's headers are written at once (a
/// deferred response's once it is produced, see ServerEngine+Deferred.swift) and its body across
/// writable callbacks, so multi-megabyte bodies never sit whole in lws' buffers. A streamed body
/// is made while it is sent (ServerEngine+Stream.swift).
extension ServerEngine {
    /// `HTTP`: a request without an upgrade.
    func respondToHTTP(_ wsi: OpaquePointer) -> Int32 {
        guard let (method, path) = RequestReader.methodAndPath(wsi) else { return respondWithStatus(wsi, 400) }
        guard method == "GET" || method == "HEAD" else { return respondWithStatus(wsi, 405) }
        let request = HTTPRequest(
            method: method,
            path: path,
            queryArguments: RequestReader.queryArguments(wsi),
            headers: RequestReader.headers(wsi, custom: configuration.customHeaderNames),
            remoteAddress: SocketAddress.peer(of: wsi)
        )
        let response = delegate?.respond(to: request) ?? .notFound
        // Read now: a deferred response is sent after lws has let go of the request's headers.
        let chunked = RequestReader.isHTTP11(wsi)
        if let producer = response.producer {
            return startDeferred(response, producer: producer, headOnly: method == "HEAD", chunked: chunked, on: wsi)
        }
        return send(response, headOnly: method == "HEAD", chunked: chunked, on: wsi)
    }

    /// `HTTP_WRITEABLE`: the next chunk of the body, and the end of the transaction after the last.
    func httpWritable(_ wsi: OpaquePointer) -> Int32 {
        if let sent = sendFinishedDeferred(on: wsi) { return sent }
        if let sent = streamWritable(wsi) { return sent }
        guard let transfer = transfers[wsi] else { return 0 }
        let count = min(ScratchBuffer.capacity, transfer.body.count - transfer.offset)
        let isLast = transfer.offset + count == transfer.body.count
        let chunk = scratch.load(transfer.body, from: transfer.offset, count: count)
        let written = lws_write(wsi, chunk, count, isLast ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP)
        guard written >= Int32(count) else {
            transfers[wsi] = nil
            return -1
        }
        if isLast {
            transfers[wsi] = nil
            lws_set_timeout(wsi, NO_PENDING_TIMEOUT, 0)
            return lws_http_transaction_completed(wsi) == 0 ? 0 : -1
        }
        transfers[wsi]?.offset += count
        // Progress: the reader has another bodyStallSeconds for the next chunk.
        lws_set_timeout(wsi, PENDING_TIMEOUT_HTTP_CONTENT, Self.bodyStallSeconds)
        lws_callback_on_writable(wsi)
        return 0
    }

    /// How long a body may wait for its reader to take the next chunk before the connection is
    /// closed. Without it libwebsockets' own timeout for the request cut a body that took longer
    /// than that in all to read (a 5 MiB one read slowly lost its last megabyte at 20 s); with
    /// it, a slow reader gets the whole body and only one that stopped reading is let go.
    static let bodyStallSeconds: Int32 = 30

    /// Writes the headers, then completes the transaction or starts the body's transfer (or its
    /// producer, for a streamed response; `chunked` when the request was HTTP/1.1).
    func send(_ response: HTTPResponse, headOnly: Bool, chunked: Bool, on wsi: OpaquePointer) -> Int32 {
        if let streamer = response.streamer {
            return startStream(response, streamer: streamer, headOnly: headOnly, chunked: chunked, on: wsi)
        }
        let estimate = 512 + response.contentType.utf8.count
            + response.headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 8 }
        guard let start = scratch.region(count: estimate) else { return respondWithStatus(wsi, 500) }
        let end = start + estimate
        var position: UnsafeMutablePointer<UInt8>? = start
        guard (100...999).contains(response.status),
              lws_add_http_common_headers(wsi, UInt32(response.status), response.contentType, UInt64(response.body.count), &position, end) == 0 else {
            return -1
        }
        for field in response.headers {
            var name = Array((field.name.lowercased() + ":").utf8) + [0]
            var value = Array(field.value.utf8)
            let added = lws_add_http_header_by_name(wsi, &name, &value, Int32(value.count), &position, end)
            guard added == 0 else { return -1 }
        }
        guard lws_finalize_write_http_header(wsi, start, &position, end) == 0 else { return -1 }
        if headOnly || response.body.isEmpty {
            return lws_http_transaction_completed(wsi) == 0 ? 0 : -1
        }
        transfers[wsi] = HTTPTransfer(body: response.body)
        lws_set_timeout(wsi, PENDING_TIMEOUT_HTTP_CONTENT, Self.bodyStallSeconds)
        lws_callback_on_writable(wsi)
        return 0
    }

    private func respondWithStatus(_ wsi: OpaquePointer, _ status: UInt32) -> Int32 {
        guard lws_return_http_status(wsi, status, nil) == 0 else { return -1 }
        return lws_http_transaction_completed(wsi) == 0 ? 0 : -1
    }
}
