import RewindSupport

/// Keeps libwebsockets 4.1's TLS contexts from breaking each other's client handshakes.
///
/// Making a context with `LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT` takes a new OpenSSL ex-data
/// index into a process-wide variable (later lws takes it once). A client connection stores
/// itself under the index current when its handshake starts, and lws' certificate check looks
/// it up under the index current when the server's certificate arrives: a context made in
/// between (another client connecting, a server starting) makes that lookup fail, and a good
/// certificate is refused. So a TLS context is made only while no client handshake is in
/// flight, and a client counts its handshake as begun before anyone else may make one.
enum TLSContextGate {
    /// Client handshakes begun and not yet over.
    private static let inFlight = Condition(0)

    /// Runs `create` once no handshake is in flight, or after `waitSeconds` regardless (a stuck
    /// peer must not stall everyone; at worst one handshake then fails and is retried). When
    /// `beginsHandshake` and `create` succeeded, the caller's handshake counts as in flight until
    /// it calls ``handshakeEnded()``.
    static func create(beginsHandshake: Bool, waitSeconds: Double, _ create: () -> Bool) -> Bool {
        func make(_ count: inout Int) -> Bool {
            let created = create()
            if created, beginsHandshake { count += 1 }
            return created
        }
        // Checked and made under one hold of the lock, so no handshake begins in between.
        if let created = inFlight.update(when: { $0 == 0 }, deadline: MonotonicClock.deadline(after: waitSeconds), make) {
            return created
        }
        return inFlight.update(make)
    }

    /// A handshake counted by ``create(beginsHandshake:waitSeconds:_:)`` is over.
    static func handshakeEnded() {
        inFlight.update { $0 = max(0, $0 - 1) }
    }
}
