import ArgumentParser
import Foundation
import RewindJSON
import RewindServer
import RewindSupport

/// How `rewind serve` writes what it says: `text`, as it always has ("rewind serve: …" lines), or
/// `json`, one object a line for a log collector: `time` (ISO 8601, UTC, milliseconds),
/// `level`, `event`, `message`, and `session`, `app`, `instance` when they are known.
enum ServeLogFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}

/// Writes `rewind serve`'s lines in the format chosen.
final class ServeLog: Sendable {
    let format: ServeLogFormat
    /// This instance's id on a team store, known once it started.
    private let instance = Mutex<String?>(nil)

    init(format: ServeLogFormat) {
        self.format = format
    }

    func started(instance id: String?) {
        instance.withLock { $0 = id }
    }

    /// One JSON line for `entry`.
    func json(_ entry: ServerLogEntry, at date: Date = Date()) -> String {
        var object: JSONObject = ["time": .string(Self.time(date)), "level": .string(entry.level.rawValue), "event": .string(entry.event)]
        if let session = entry.session { object["session"] = .string(session) }
        if let app = entry.app { object["app"] = .string(app) }
        if let id = instance.withLock({ $0 }) { object["instance"] = .string(id) }
        object["message"] = .string(entry.message)
        return jsonLine(.object(object))
    }

    /// Says `message` (a text line's words, without "rewind serve: ") on standard output (`info`
    /// as the server starts and stops) or standard error (warnings and notices).
    func say(_ message: String, level: ServerLogEntry.Level = .info, event: String, toOutput: Bool = false) {
        switch format {
        case .text:
            let line = "rewind serve: " + (level == .warning && event == "warning" ? "warning: " : "") + message
            if toOutput { FileHandle.standardOutput.write(Data((line + "\n").utf8)) } else { writeStandardError(line) }
        case .json:
            let line = json(ServerLogEntry(level: level, event: event, message: message))
            let handle = toOutput ? FileHandle.standardOutput : FileHandle.standardError
            handle.write(Data(line.utf8))
        }
    }

    /// What the server itself says while it runs: a notice in the text log (as today: the
    /// sessions are not said there), every entry in the JSON one.
    func entry(_ entry: ServerLogEntry) {
        switch format {
        case .text:
            // The text log says the server's notices alone, as it always has.
            if entry.event == "token-refused" { writeStandardError("rewind serve: " + entry.message) }
        case .json:
            FileHandle.standardError.write(Data(json(entry).utf8))
        }
    }

    static func time(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }
}
