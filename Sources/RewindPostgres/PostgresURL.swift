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
    /// connect timeout, so an unreachable host is an error in seconds, and an application name,
    /// so `pg_stat_activity` shows who is connected.
    package func connectionString(applicationName: String) -> String {
        var extra: [String] = []
        if !text.contains("connect_timeout=") { extra.append("connect_timeout=5") }
        if !text.contains("application_name=") { extra.append("application_name=\(applicationName)") }
        guard !extra.isEmpty else { return text }
        return text + (text.contains("?") ? "&" : "?") + extra.joined(separator: "&")
    }
}
