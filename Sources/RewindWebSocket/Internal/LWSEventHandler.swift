import CLibWebSockets

/// What an engine implements to receive libwebsockets callbacks (always on its service thread).
protocol LWSEventHandler: AnyObject {
    func handle(
        _ wsi: OpaquePointer,
        _ reason: lws_callback_reasons,
        _ input: UnsafeMutableRawPointer?,
        _ length: Int
    ) -> Int32
}

/// The object whose address is the context's user pointer; it leads callbacks to their engine.
final class LWSCallbackTarget {
    let handler: any LWSEventHandler

    init(handler: any LWSEventHandler) {
        self.handler = handler
    }
}

/// The C callback every protocol of every context uses. Fake wsis that lws builds for broadcasts
/// (`EVENT_WAIT_CANCELLED`, protocol init) carry the context too, so all reach their engine.
func lwsTrampoline(
    _ wsi: OpaquePointer?,
    _ reason: lws_callback_reasons,
    _ user: UnsafeMutableRawPointer?,
    _ input: UnsafeMutableRawPointer?,
    _ length: Int
) -> Int32 {
    guard let wsi, let context = lws_get_context(wsi), let raw = lws_context_user(context) else { return 0 }
    let target = Unmanaged<LWSCallbackTarget>.fromOpaque(raw).takeUnretainedValue()
    // The certificate check hands OpenSSL's X509_STORE_CTX as `user` (`in` is the SSL): the
    // handler gets the store context as its input, the one argument it reads there.
    if reason == LWS_CALLBACK_OPENSSL_PERFORM_SERVER_CERT_VERIFICATION || reason == LWS_CALLBACK_FILTER_NETWORK_CONNECTION {
        // …and an accepted connection's peer comes as `user` (`lws_filter_network_conn_args`).
        return target.handler.handle(wsi, reason, user, length)
    }
    return target.handler.handle(wsi, reason, input, length)
}
