import Foundation

/// Why an app could not reach `rewind serve`, sorted into what the developer can act on.
struct ConnectFailure: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        /// Nothing listens there: the server is not running, or another port or address.
        case refused
        /// No route to that host: another network, or Local Network permission denied.
        case unreachable
        /// No answer in time: a firewall, or a sleeping Mac.
        case timedOut
        /// The server asked for a token and this one is missing or wrong.
        case wrongToken
        /// The server's TLS certificate is not trusted (a private CA not given, or the
        /// certificate names another host).
        case untrustedCertificate
        /// This transport cannot run on this platform.
        case unsupported
        /// Anything else, as the transport said it.
        case other
    }

    var kind: Kind
    /// What the transport said.
    var reason: String

    /// A failure of a known `kind`, or sorted by what `reason` says.
    init(reason: String, kind known: Kind? = nil) {
        self.reason = reason
        if let known {
            kind = known
            return
        }
        let text = reason.lowercased()
        if text.contains("cannot open websockets") || text.contains("exists only on") {
            kind = .unsupported
        } else if text.contains("certificate is not trusted") {
            // Both transports say so in these words (libwebsockets with OpenSSL's reason).
            kind = .untrustedCertificate
        } else if text.contains("http 401") || text.contains("http 403") || text.contains("token") {
            // Both transports say "HTTP <status>"; a bare "401" would also match a port number.
            kind = .wrongToken
        } else if text.contains("refused") || text.contains("unable to connect") {
            // libwebsockets says only "Unable to connect": nothing accepted the connection.
            kind = .refused
        } else if text.contains("timed out") || text.contains("timeout") {
            kind = .timedOut
        } else if text.contains("unreachable") || text.contains("no route") || text.contains("dns")
                    || text.contains("getaddrinfo") || text.contains("resolve") {
            kind = .unreachable
        } else {
            kind = .other
        }
    }

    /// One sentence naming the address, what went wrong and what to do.
    func sentence(url: URL) -> String {
        let address = url.absoluteString
        switch kind {
        case .refused:
            return "cannot connect to \(address): nothing accepted the connection (\(reason.trimmingCharacters(in: ["."]))); "
                + "is `rewind serve` running there (on a device, use the Mac's address that `rewind serve --lan` prints)?"
        case .unreachable:
            return "cannot connect to \(address): host unreachable; is this device on the Mac's network, "
                + "and has the app Local Network permission?"
        case .timedOut:
            let detail = reason.lowercased().hasPrefix("timed out") ? "" : " (\(reason))"
            return "cannot connect to \(address): timed out\(detail); is the Mac awake, on this network, "
                + "and not blocking port \(url.port.map(String.init) ?? "7433") in its firewall?"
        case .wrongToken:
            // The HTTP status says it all; the transport's own words ("HS: ws upgrade response
            // not 101") say nothing more to a person.
            let status = reason.range(of: #"HTTP \d{3}"#, options: .regularExpression).map { " (\(reason[$0]))" } ?? ""
            return "cannot connect to \(address): the server refused the token; "
                + "set REWIND_TOKEN (or REWIND_APP_TOKEN) to the server's app token: its --app-token, "
                + "or its --token when it has no app token\(status)."
        case .untrustedCertificate:
            return "cannot connect to \(address): \(reason.replacingOccurrences(of: "--ca-file, REWIND_CA_FILE", with: "REWIND_CA_FILE or caFile:"))."
        case .unsupported:
            return "cannot connect to \(address): \(reason)."
        case .other:
            return "cannot connect to \(address): \(reason)."
        }
    }
}
