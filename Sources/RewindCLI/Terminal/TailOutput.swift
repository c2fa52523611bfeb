import Foundation
import RewindJSON
import RewindWire

/// What `--diff` has to say about one event's changes.
enum TailChanges {
    /// Without `--diff`.
    case notAsked
    case known([JSONChange])
    /// The state before or after the event could not be rebuilt: printed as unknown, never as
    /// an empty list.
    case unknown
}

/// How `rewind tail` prints: one line per event (and its changes under it with `--diff`), or
/// one JSON object per line.
struct TailOutput {
    var json: Bool
    var colored: Bool
    /// Lines are cut to this many columns (on a terminal); `nil` leaves them whole.
    var width: Int?
    /// Prefix lines with the app and session (when following every session).
    var showSession: Bool
    /// Print each action's payload under its line (`--actions`).
    var actions = false

    /// The text for one event: its line, then its changes indented under it.
    func render(_ tail: TailEvent, app: String, changes: TailChanges) -> String {
        if json { return jsonLine(Self.json(tail, app: app, changes: changes)) }
        let event = tail.event
        let time = timeFormatter.string(from: Date(timeIntervalSince1970: event.at))
        var prefix = ""
        // What the app recorded is escaped: a control character must not reach the terminal.
        if showSession { prefix = TerminalText.escaped("\(app)/\(tail.session.prefix(8))") + "  " }
        let type = TerminalText.escaped(tail.actionType)
        var notes = TerminalText.escaped(LogCommand.summary(of: event.action))
        if event.coalesced { notes += notes.isEmpty ? "coalesced" : "  coalesced" }
        if let site = event.site {
            let at = "@ " + TerminalText.escaped(site.line == 0 ? site.file : "\(site.file):\(site.line)")
            notes += notes.isEmpty ? at : "  " + at
        }
        var plain = "\(prefix)\(event.seq)  \(time)  \(type)"
        if !notes.isEmpty { plain += "  " + notes }
        var line = fit(plain)
        if colored {
            // Colour the parts that survived the cut: the seq dim, the type bold.
            let head = "\(prefix)\(event.seq)  \(time)  "
            if line.hasPrefix(head) {
                let rest = line.dropFirst(head.count)
                let shownType = rest.prefix(type.count)
                line = ANSI.dim + head + ANSI.reset + ANSI.bold + shownType + ANSI.reset + rest.dropFirst(shownType.count)
            }
        }
        var out = line + "\n"
        if actions {
            // Whole, indented, escaped: the payload is what the user asked to read.
            for payloadLine in event.action.serialized(.terminalPretty).split(separator: "\n", omittingEmptySubsequences: false) {
                out += "    " + TerminalText.escaped(String(payloadLine)) + "\n"
            }
        }
        let renderer = ChangeRenderer(maxValueLength: 80, colored: colored)
        switch changes {
        case .notAsked: break
        case .known(let list): for change in list { out += "    " + renderer.line(change) + "\n" }
        case .unknown: out += "    (changes unknown)\n"
        }
        return out
    }

    /// Cuts `text` to the width with `…`, counted in terminal columns.
    private func fit(_ text: String) -> String {
        guard let width, width > 1 else { return text }
        return TerminalText.fit(text, width)
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
    /// coalesced, site, and with `--diff` the changes.
    static func json(_ tail: TailEvent, app: String, changes: TailChanges) -> JSONValue {
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
            "site": event.site.map { OutputFormat.site(file: $0.file, line: $0.line, function: $0.function) } ?? .null,
        ]
        switch changes {
        case .notAsked: break
        case .known(let list): o["changes"] = .array(list.map(changeJSON))
        case .unknown: o["changes"] = .null
        }
        return .object(o)
    }
}
