import Foundation
import RewindJSON
import RewindWire

/// `--server` and `--token`, shared by the commands that talk to `rewind serve` as an inspector.
struct ServerLocation {
    static let defaultURL = "ws://127.0.0.1:7433/inspect"

    /// The inspector URL: a bare `ws://HOST:PORT` gets `/inspect`; `http://` is read as `ws://`
    /// and `https://` as `wss://` (TLS).
    static func inspectorURL(_ text: String) throws -> String {
        var url = text
        if url.lowercased().hasPrefix("http://") { url = "ws://" + url.dropFirst("http://".count) }
        if url.lowercased().hasPrefix("https://") { url = "wss://" + url.dropFirst("https://".count) }
        guard let scheme = ["ws://", "wss://"].first(where: { url.lowercased().hasPrefix($0) }) else {
            throw CLIError("--server '\(text)' is not a ws:// or wss:// URL (write ws://HOST:PORT/inspect)", code: 2)
        }
        let rest = url.dropFirst(scheme.count)
        if !rest.contains("/") { url += InspectorRequest.path }
        return url
    }

    /// The `http`/`https` address of the same server as `inspectorURL(text)`'s, for a plain request.
    static func webURL(_ text: String) throws -> URL {
        let socket = try inspectorURL(text)
        let web = socket.lowercased().hasPrefix("wss://") ? "https://" + socket.dropFirst(6) : "http://" + socket.dropFirst(5)
        guard let url = URL(string: web), url.host != nil else {
            throw CLIError("--server '\(text)' is not a ws:// or wss:// URL (write ws://HOST:PORT)", code: 2)
        }
        return url
    }

    /// Which side of the server a command speaks to: the scoped token it may fall back on.
    enum Side {
        case inspect
        case app
    }

    /// `--token`, else `$REWIND_TOKEN`, else the scoped token for `side` (`$REWIND_INSPECT_TOKEN`
    /// or `$REWIND_APP_TOKEN`); an empty value counts as none.
    static func token(_ explicit: String?, side: Side = .inspect) -> String? {
        if let explicit, !explicit.isEmpty { return explicit }
        let environment = ProcessInfo.processInfo.environment
        let scoped = side == .inspect ? "REWIND_INSPECT_TOKEN" : "REWIND_APP_TOKEN"
        return ["REWIND_TOKEN", scoped].lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
    }
}

extension JSONObject {
    /// The integer member `key`, if it is one.
    func int64(_ key: String) -> Int64? {
        if case .number(let number)? = self[key] { return number.int64Value }
        return nil
    }

    /// The string member `key`, if it is one.
    func string(_ key: String) -> String? {
        if case .string(let text)? = self[key] { return text }
        return nil
    }
}
