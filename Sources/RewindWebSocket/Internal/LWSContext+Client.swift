import CLibWebSockets
import RewindSupport

extension LWSContext {
    /// Makes the context of a client of `url` from `info`. With TLS, the client trusts the
    /// system's CAs (lws_config.h: LWS_SSL_CLIENT_USE_OS_CA_CERTS) and `trusted` besides, and the
    /// context is made only while no other client's handshake is in flight (``TLSContextGate``),
    /// waiting at most `waitSeconds`. Returns whether it was made, and whether this client's
    /// handshake now counts in the gate (the caller ends it with `TLSContextGate.handshakeEnded()`).
    func createForClient(_ info: inout lws_context_creation_info, of url: ClientURL, trusting trusted: TrustedCAFile?,
                         waitSeconds: Double) -> (created: Bool, handshakeCounted: Bool) {
        guard url.isSecure else { return (create(&info), false) }
        info.options |= UInt64(LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT)
        // The DER bytes lws reads while the context is made, kept alive until then.
        var caBytes: UnsafeMutableRawPointer?
        defer { caBytes?.deallocate() }
        switch trusted?.format {
        case .pem?:
            info.client_ssl_ca_filepath = cString(trusted!.path)
        case .der(let bytes)?:
            let copy = UnsafeMutableRawPointer.allocate(byteCount: bytes.count, alignment: 1)
            copy.copyMemory(from: bytes, byteCount: bytes.count)
            caBytes = copy
            info.client_ssl_ca_mem = UnsafeRawPointer(copy)
            info.client_ssl_ca_mem_len = UInt32(bytes.count)
        case nil:
            break
        }
        let created = TLSContextGate.create(beginsHandshake: true, waitSeconds: waitSeconds) { create(&info) }
        return (created, created)
    }
}

extension HTTPHeaders {
    /// Adds these headers to a client's request in lws's `APPEND_HANDSHAKE_HEADER` (or
    /// `CLIENT_APPEND_HANDSHAKE_HEADER`) callback: `input` points at lws's write cursor and
    /// `length` is the room left. Returns what the callback returns: 0, or -1 when they do not fit.
    func appendToRequest(_ wsi: OpaquePointer, _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
        guard !isEmpty else { return 0 }
        guard let input else { return -1 }
        let cursor = input.assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self)
        guard let start = cursor.pointee else { return -1 }
        let end = start + length
        for field in self {
            var name = Array((field.name.lowercased() + ":").utf8) + [0]
            var value = Array(field.value.utf8)
            guard lws_add_http_header_by_name(wsi, &name, &value, Int32(value.count), cursor, end) == 0 else { return -1 }
        }
        return 0
    }
}
