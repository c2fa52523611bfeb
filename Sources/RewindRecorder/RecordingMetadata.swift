import Foundation
import RewindJSON

/// What a recording says about the app that made it: stored with the session.
///
/// ```swift
/// let metadata = RecordingMetadata(app: "Todo", version: "1.4.2", extra: ["build": "debug"])
/// ```
public struct RecordingMetadata: Sendable, Equatable {
    /// The app's name.
    public var app: String
    /// The app's version, if given.
    public var version: String?
    /// The device or host name (this machine's host name by default).
    public var host: String
    /// Free-form fields, merged into the session's meta object.
    public var extra: JSONValue

    /// Describes the app; `host` defaults to this machine's host name.
    public init(app: String, version: String? = nil, host: String? = nil, extra: JSONValue = [:]) {
        self.app = app
        self.version = version
        self.host = host ?? Self.hostName()
        self.extra = extra
    }

    /// The session's meta object: `app`, `version`, `host`, `os`, then the extra fields.
    var json: JSONObject {
        var object: JSONObject = [
            "app": .string(app),
            "version": version.map(JSONValue.string) ?? .null,
            "host": .string(host),
            "os": .string(ProcessInfo.processInfo.operatingSystemVersionString),
        ]
        if case .object(let fields) = extra {
            for (key, value) in fields { object[key] = value }
        } else if extra != .null {
            object["extra"] = extra
        }
        return object
    }

    /// `gethostname`, without the name-service lookups `ProcessInfo.hostName` may make.
    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "unknown" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
