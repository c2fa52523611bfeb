import Foundation
import RewindLog

/// A `postgres://USER[:PASSWORD]@HOST[:PORT]/DB[?…]` URL, checked before libpq sees it, with
/// the form errors show (the password left out).
package struct PostgresURL: Sendable, Equatable {
    /// The URL as given: what libpq connects with.
    package let text: String
    /// The URL without its password: what errors and logs name.
    package let redacted: String

    /// `true` when `text` names a PostgreSQL database rather than a file.
    package static func isPostgres(_ text: String) -> Bool {
        let lower = text.lowercased()
        return lower.hasPrefix("postgres://") || lower.hasPrefix("postgresql://")
    }

    /// Parses `text`; a malformed URL is one sentence.
    package init(_ text: String) throws(LogError) {
        guard Self.isPostgres(text), let components = URLComponents(string: text) else {
            throw LogError(kind: .unreachable, message: "it is not a postgres://USER@HOST:PORT/DB URL", path: "'\(Self.withoutPassword(text))'")
        }
        guard let host = components.host, !host.isEmpty else {
            throw LogError(kind: .unreachable, message: "the URL names no host (postgres://USER@HOST:PORT/DB)", path: Self.withoutPassword(text))
        }
        let database = components.path.drop(while: { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else {
            throw LogError(kind: .unreachable, message: "the URL names no database (postgres://USER@HOST:PORT/DB)", path: Self.withoutPassword(text))
        }
        self.text = text
        var shown = components
        shown.password = nil
        redacted = shown.string ?? Self.withoutPassword(text)
    }

    /// `text` with anything between `:` and `@` of its authority replaced, for an error about a
    /// URL that did not parse.
    private static func withoutPassword(_ text: String) -> String {
        guard let scheme = text.range(of: "://"), let at = text[scheme.upperBound...].firstIndex(of: "@") else { return text }
        let user = text[scheme.upperBound..<at]
        guard let colon = user.firstIndex(of: ":") else { return text }
        return String(text[..<colon]) + String(text[at...])
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
