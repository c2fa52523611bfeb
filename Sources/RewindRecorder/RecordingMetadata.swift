import Foundation
import RewindJSON
import RewindLog

/// What a recording says about the app that made it: stored with the session.
///
/// The device model and the operating system are found by the recorder; tags are the app's to
/// give ("bug report" from a tester's shake-to-report, "ci" in UI tests), and `rewind sessions
/// --tag` and the inspector's list filter by them.
///
/// ```swift
/// let metadata = RecordingMetadata(app: "Todo", version: "1.4.2", tags: ["beta"], extra: ["build": "debug"])
/// ```
public struct RecordingMetadata: Sendable, Equatable {
    /// The app's name.
    public var app: String
    /// The app's version, if given.
    public var version: String?
    /// The device or host name (this machine's host name by default).
    public var host: String
    /// The device model: `iPhone15,2` on an iPhone (the simulated model in the Simulator),
    /// `MacBookPro18,3` on a Mac, the machine (`x86_64`, `aarch64`) on Linux, by default.
    public var device: String
    /// The operating system and its version: `iOS 17.4.1`, `macOS 14.4`, or on Linux the
    /// distribution's name from `/etc/os-release` (`Debian GNU/Linux 12 (bookworm)`), by default.
    public var os: String
    /// Words to find the session by: at most ``SessionTags/maxCount`` (16), each 1 to
    /// ``SessionTags/maxBytes`` (64) bytes of UTF-8. Others are left out of the session, and the
    /// recorder says so once (``Recorder/lastError``); the recording goes on.
    public var tags: [String]
    /// Free-form fields, merged into the session's meta object.
    public var extra: JSONValue

    /// Describes the app; `host`, `device` and `os` default to this machine's.
    public init(app: String, version: String? = nil, host: String? = nil, device: String? = nil, os: String? = nil,
                tags: [String] = [], extra: JSONValue = [:]) {
        self.app = app
        self.version = version
        self.host = host ?? Self.hostName()
        self.device = device ?? DeviceInfo.current.device
        self.os = os ?? DeviceInfo.current.os
        self.tags = tags
        self.extra = extra
    }

    /// The session's meta object: `app`, `version`, `host`, `device`, `os`, then the extra
    /// fields, then `tags` (``tags`` and the strings of an extra `tags` array, as far as they
    /// can be tags; absent when there are none).
    var json: JSONObject { sessionMeta.meta }

    /// The session's meta object, and why tags were left out of it (`nil` when none were).
    var sessionMeta: (meta: JSONObject, leftOut: String?) {
        var object: JSONObject = [
            "app": .string(app),
            "version": version.map(JSONValue.string) ?? .null,
            "host": .string(host),
            "device": .string(device),
            "os": .string(os),
        ]
        if case .object(let fields) = extra {
            for (key, value) in fields { object[key] = value }
        } else if extra != .null {
            object["extra"] = extra
        }
        // An extra `tags` is taken as tags too: `store.record(app:meta:)` has no parameter of
        // its own for them, and a `tags` member that is no list of tags would make the server
        // refuse the session's hello.
        var given = tags
        if let value = object.removeValue(forKey: "tags") {
            if let items = value.arrayValue, items.allSatisfy({ $0.stringValue != nil }) {
                given += items.compactMap(\.stringValue)
            } else {
                return (Self.withTags(object, Self.checkedTags(given).kept),
                        "the meta's \"tags\" is not a list of strings: \(value.serialized(.compact).prefix(80))")
            }
        }
        let (kept, leftOut) = Self.checkedTags(given)
        return (Self.withTags(object, kept), leftOut)
    }

    private static func withTags(_ object: JSONObject, _ tags: [String]) -> JSONObject {
        var object = object
        if !tags.isEmpty { object["tags"] = .array(tags.map(JSONValue.string)) }
        return object
    }

    /// The tags that can be tags, each once, in order, and one sentence on those that cannot.
    static func checkedTags(_ given: [String]) -> (kept: [String], leftOut: String?) {
        var kept: [String] = []
        var problems: [String] = []
        for tag in given where !kept.contains(tag) {
            if let problem = SessionTags.problem(with: tag) {
                problems.append(tag.isEmpty ? "an empty tag" : "'\(tag.prefix(24))…' (\(problem))")
            } else if kept.count == SessionTags.maxCount {
                problems.append("'\(tag)' (a session carries at most \(SessionTags.maxCount) tags)")
            } else {
                kept.append(tag)
            }
        }
        guard !problems.isEmpty else { return (kept, nil) }
        let named = problems.prefix(3).joined(separator: ", ") + (problems.count > 3 ? " and \(problems.count - 3) more" : "")
        return (kept, "\(problems.count == 1 ? "a tag was" : "\(problems.count) tags were") left out: \(named)")
    }

    /// `gethostname`, without the name-service lookups `ProcessInfo.hostName` may make.
    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "unknown" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
