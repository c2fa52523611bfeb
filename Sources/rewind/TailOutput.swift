import Foundation
import RewindJSON
import RewindWire

/// How `rewind tail` prints: one line per event (and its changes under it with `--diff`), or
/// one JSON object per line.
struct TailOutput {
    var json: Bool
    var colored: Bool
    /// Lines are cut to this many characters (on a terminal); `nil` leaves them whole.
    var width: Int?
    /// Prefix lines with the app and session (when following every session).
    var showSession: Bool

    /// The text for one event: its line, then its changes indented under it.
    func render(_ tail: TailEvent, app: String, changes: [JSONChange]?) -> String {
        if json { return Self.json(tail, app: app, changes: changes).serialized(.compact) + "\n" }
        let event = tail.event
        let time = timeFormatter.string(from: Date(timeIntervalSince1970: event.at))
        var prefix = ""
        if showSession { prefix = "\(app)/\(tail.session.prefix(8))  " }
        var notes = LogCommand.summary(of: event.action)
        if event.coalesced { notes += notes.isEmpty ? "coalesced" : "  coalesced" }
        var plain = "\(prefix)\(event.seq)  \(time)  \(tail.actionType)"
        if !notes.isEmpty { plain += "  " + notes }
        var line = fit(plain)
        if colored {
            // Colour the parts that survived the cut: the seq dim, the type bold.
            let head = "\(prefix)\(event.seq)  \(time)  "
            if line.hasPrefix(head) {
                let rest = line.dropFirst(head.count)
                let type = rest.prefix(tail.actionType.count)
                line = ANSI.dim + head + ANSI.reset + ANSI.bold + type + ANSI.reset + rest.dropFirst(type.count)
            }
        }
        var out = line + "\n"
        let renderer = ChangeRenderer(maxValueLength: 80, colored: colored)
        for change in changes ?? [] {
            out += "    " + renderer.line(change) + "\n"
        }
        return out
    }

    /// Cuts `text` to the width with `…` (counted in characters).
    private func fit(_ text: String) -> String {
        guard let width, width > 1, text.count > width else { return text }
        return String(text.prefix(width - 1)) + "…"
    }

    /// Formats `09:41:21.250`, local time; one for the whole run.
    let timeFormatter: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone.current
        formatter.dateFormat = "HH:mm:ss.SSS"
        return formatter
    }()

    /// The `--json` object: session, sessionId, app, seq, at, type, action, durationNs, cause,
    /// coalesced, and with `--diff` the changes.
    static func json(_ tail: TailEvent, app: String, changes: [JSONChange]?) -> JSONValue {
        let event = tail.event
        var o: JSONObject = [
            "session": .string(tail.session),
            "sessionId": OutputFormat.number(tail.sessionID),
            "app": .string(app),
            "seq": OutputFormat.number(event.seq),
            "at": OutputFormat.seconds(Date(timeIntervalSince1970: event.at)),
            "type": .string(tail.actionType),
            "action": event.action,
            "durationNs": OutputFormat.number(event.durationNs),
            "cause": event.cause.map(OutputFormat.number) ?? .null,
            "coalesced": .bool(event.coalesced),
        ]
        if let changes { o["changes"] = .array(changes.map(changeJSON)) }
        return .object(o)
    }
}
