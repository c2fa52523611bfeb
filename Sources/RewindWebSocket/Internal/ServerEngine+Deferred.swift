import CLibWebSockets

/// A request answered with ``HTTPResponse/deferred(_:)``, between `LWS_CALLBACK_HTTP` and the
/// writable callback that sends its headers.
struct PendingDeferred {
    var wsi: OpaquePointer
    var headOnly: Bool
    /// The request was HTTP/1.1, so a streamed body may go out chunked.
    var chunked: Bool
    /// Headers set on the deferred response itself, added to the produced one.
    var extraHeaders: HTTPHeaders
    /// The produced response, once its thread has handed it over.
    var response: HTTPResponse?
}

/// Deferred responses (service thread): the producer runs on a thread of its own, its result
/// comes back through ``DeferredHandoff`` and goes out from `HTTP_WRITEABLE`, headers included.
extension ServerEngine {
    /// How long lws keeps a connection whose response is being produced; past it lws closes the
    /// connection and the result is dropped.
    static let deferredTimeoutSeconds: Int32 = 120

    func startDeferred(_ response: HTTPResponse, producer: HTTPResponseProducer, headOnly: Bool, chunked: Bool,
                       on wsi: OpaquePointer) -> Int32 {
        nextDeferredGeneration += 1
        let generation = nextDeferredGeneration
        pendingDeferred[generation] = PendingDeferred(wsi: wsi, headOnly: headOnly, chunked: chunked, extraHeaders: response.headers)
        // Nothing is written until the producer is done; an explicit timeout states how long
        // that may take instead of relying on whatever lws applies to a silent transaction.
        lws_set_timeout(wsi, PENDING_TIMEOUT_HTTP_CONTENT, Self.deferredTimeoutSeconds)
        deferredHandoff.run(producer, generation: generation)
        return 0
    }

    /// `EVENT_WAIT_CANCELLED`: results whose connection is still waiting ask for a writable
    /// callback; the others (closed meanwhile) are dropped. Streams with bytes waiting ask too.
    func takeFinishedDeferred() {
        let (results, ready) = deferredHandoff.take()
        if !ready.isEmpty { wakeStreams(ready) }
        for finished in results {
            guard pendingDeferred[finished.generation] != nil else { continue }
            pendingDeferred[finished.generation]?.response = finished.response
            if let wsi = pendingDeferred[finished.generation]?.wsi { lws_callback_on_writable(wsi) }
        }
    }

    /// `HTTP_WRITEABLE` on a connection with a produced response: its headers now, the body
    /// through the usual transfer. `nil` when `wsi` has no produced response waiting.
    func sendFinishedDeferred(on wsi: OpaquePointer) -> Int32? {
        guard let (generation, pending) = pendingDeferred.first(where: { $0.value.wsi == wsi && $0.value.response != nil }),
              var response = pending.response else { return nil }
        pendingDeferred[generation] = nil
        lws_set_timeout(wsi, NO_PENDING_TIMEOUT, 0)
        response.producer = nil
        for field in pending.extraHeaders { response.headers.add(field.name, field.value) }
        return send(response, headOnly: pending.headOnly, chunked: pending.chunked, on: wsi)
    }

    /// The connection closed: whatever its producer returns later is dropped.
    func forgetDeferred(on wsi: OpaquePointer) {
        guard !pendingDeferred.isEmpty else { return }
        pendingDeferred = pendingDeferred.filter { $0.value.wsi != wsi }
    }
}
