import Foundation
import RewindJSON
import RewindWire

/// `--server` and `--token`, shared by the commands that talk to `rewind serve` as an inspector.
struct ServerLocation {
    static let defaultURL = "ws://127.0.0.1:7433/inspect"

    /// The inspector URL: a bare `ws://HOST:PORT` gets `/inspect`; `http://` is read as `ws://`.
    static func inspectorURL(_ text: String) throws -> String {
        var url = text
        if url.hasPrefix("http://") { url = "ws://" + url.dropFirst("http://".count) }
        guard url.hasPrefix("ws://") else {
            throw CLIError("--server '\(text)' is not a ws:// URL (write ws://HOST:PORT/inspect)", code: 2)
        }
        let rest = url.dropFirst("ws://".count)
        if !rest.contains("/") { url += InspectorRequest.path }
        return url
    }

    /// `--token`, else `$REWIND_TOKEN` (an empty value counts as none).
    static func token(_ explicit: String?) -> String? {
        if let explicit, !explicit.isEmpty { return explicit }
        let fromEnvironment = ProcessInfo.processInfo.environment["REWIND_TOKEN"]
        return fromEnvironment.flatMap { $0.isEmpty ? nil : $0 }
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
