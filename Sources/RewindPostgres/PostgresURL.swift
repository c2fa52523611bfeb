import Foundation
import RewindLog

/// A `postgres://USER[:PASSWORD]@HOST[:PORT]/DB[?…]` URL, checked before libpq sees it, with
/// the form errors show (the password left out, wherever the URL carries one).
package struct PostgresURL: Sendable, Equatable {
    /// The URL as given: what libpq connects with.
    package let text: String
    /// The URL without its password (neither the user's nor a `password=` parameter): what
    /// errors and logs name.
    package let redacted: String

    /// `true` when `text` names a PostgreSQL database rather than a file.
    package static func isPostgres(_ text: String) -> Bool {
        let lower = text.lowercased()
        return lower.hasPrefix("postgres://") || lower.hasPrefix("postgresql://")
    }

    /// Parses `text`; a malformed URL is one sentence that never shows the password.
    package init(_ text: String) throws(LogError) {
        let shown = Self.withoutPassword(text)
        // libpq splits the authority at its first `@`, URLComponents at its last: a password with
        // a bare `@` would reach libpq as part of the host name, and its error would quote it.
        if Self.isPostgres(text), let authority = Self.authority(of: text), authority.filter({ $0 == "@" }).count > 1 {
            throw LogError(kind: .unreachable, message: "the user or password holds an '@': write it as %40", path: shown)
        }
        // libpq quotes a bad %-escape whole in its error, password and all.
        if Self.isPostgres(text), !Self.hasValidEscapes(text) {
            throw LogError(kind: .unreachable, message: "the URL has a malformed %-escape (% must be followed by two hex digits, and %00 is not allowed)",
                           path: Self.isPostgres(shown) && Self.hasValidEscapes(shown) ? shown : "the postgres:// URL given")
        }
        guard Self.isPostgres(text), let components = URLComponents(string: text) else {
            throw LogError(kind: .unreachable, message: "it is not a postgres://USER@HOST:PORT/DB URL", path: "'\(shown)'")
        }
        guard let host = components.host, !host.isEmpty else {
            throw LogError(kind: .unreachable, message: "the URL names no host (postgres://USER@HOST:PORT/DB)", path: shown)
        }
        let database = components.path.drop(while: { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else {
            throw LogError(kind: .unreachable, message: "the URL names no database (postgres://USER@HOST:PORT/DB)", path: shown)
        }
        self.text = text
        redacted = shown
        let password = components.percentEncodedPassword
        // A password of one or two characters would scrub every such letter of a message.
        secrets = [password, components.password].compactMap { $0 }.filter { $0.count >= 3 }
    }

    /// The password as written and decoded: what must never appear in a message.
    package let secrets: [String]

    /// `message` with the URL's password taken out, should libpq have quoted it.
    package func scrubbed(_ message: String) -> String {
        secrets.reduce(message) { $0.replacingOccurrences(of: $1, with: "…") }
    }

    /// Whether every `%` starts a two-hex-digit escape other than `%00`.
    private static func hasValidEscapes(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]), high | low != 0 else { return false }
                index += 3
            } else {
                index += 1
            }
        }
        return true
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The URL's authority (between `://` and the path or query), as written.
    private static func authority(of text: String) -> Substring? {
        guard let scheme = text.range(of: "://") else { return nil }
        let beforeQuery = text[scheme.upperBound...].prefix { $0 != "?" }
        // A password may hold `/` only percent-encoded, but one typed bare must not end the
        // authority early: it runs to the last `@` before the query, when there is one.
        let afterUser = beforeQuery.lastIndex(of: "@").map { beforeQuery[beforeQuery.index(after: $0)...] } ?? beforeQuery
        let end = afterUser.firstIndex(of: "/") ?? afterUser.endIndex
        return beforeQuery[..<end]
    }

    /// `text` with the password left out: what follows the user's `:` up to the authority's last
    /// `@`, and the value of every query parameter whose name holds `password` (libpq takes
    /// `password` and `sslpassword` there). Works on text that did not parse, too.
    static func withoutPassword(_ text: String) -> String {
        var shown = text
        if let scheme = shown.range(of: "://"), let authority = authority(of: shown), let at = authority.lastIndex(of: "@"),
           let colon = shown[scheme.upperBound..<at].firstIndex(of: ":") {
            shown.removeSubrange(colon..<at)
        }
        guard let question = shown.firstIndex(of: "?") else { return shown }
        let query = shown[shown.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false).map { item -> String in
            guard let equals = item.firstIndex(of: "="), item[..<equals].lowercased().contains("password") else { return String(item) }
            return String(item[...equals]) + "…"
        }
        return String(shown[...question]) + query.joined(separator: "&")
    }

    /// The URL for libpq with what Rewind always asks for added (unless the URL sets it): a
    /// connect timeout, so an unreachable host is an error in seconds; TCP keepalives and a user
    /// timeout, so a connection to a host that vanished (a partition, a frozen machine) ends in
    /// about half a minute, and with it the leases it held and the feed it listened on; and an
    /// application name, so `pg_stat_activity` shows who is connected.
    package func connectionString(applicationName: String) -> String {
        var extra: [String] = []
        if !text.contains("connect_timeout=") { extra.append("connect_timeout=5") }
        if !text.contains("keepalives") { extra += ["keepalives=1", "keepalives_idle=10", "keepalives_interval=5", "keepalives_count=3"] }
        if !text.contains("tcp_user_timeout=") { extra.append("tcp_user_timeout=30000") }
        if !text.contains("application_name=") { extra.append("application_name=\(applicationName)") }
        guard !extra.isEmpty else { return text }
        return text + (text.contains("?") ? "&" : "?") + extra.joined(separator: "&")
    }
}
