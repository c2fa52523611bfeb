import Foundation
import RewindJSON
import RewindWire

/// One event as `rewind tail` sees it, from a live push or an `events` page.
struct TailEvent {
    var session: String
    var sessionID: Int64
    var actionType: String
    var event: WireEvent

    /// Reads a live `event` push.
    init?(push object: JSONObject) {
        guard case .event(let session, let sessionID, let actionType, let event)? = try? InspectorPush(json: .object(object)) else {
            return nil
        }
        self.init(session: session, sessionID: sessionID, actionType: actionType, event: event)
    }

    /// Reads one event of an `events` reply, which carries the session once for the page.
    init?(stored object: JSONObject, session: String, sessionID: Int64) {
        var push = object
        push["type"] = "event"
        push["id"] = nil
        push["session"] = .string(session)
        push["sessionId"] = .number(JSONNumber(sessionID))
        self.init(push: push)
    }

    init(session: String, sessionID: Int64, actionType: String, event: WireEvent) {
        self.session = session
        self.sessionID = sessionID
        self.actionType = actionType
        self.event = event
    }
}

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

/// A change as JSON: `{"op":"add|remove|replace","path":…,"old":…,"new":…}` (no `old` for an
/// addition, no `new` for a removal).
func changeJSON(_ change: JSONChange) -> JSONValue {
    var o: JSONObject = ["path": .string(change.path.description)]
    switch change.kind {
    case .added: o["op"] = "add"
    case .removed: o["op"] = "remove"
    case .changed: o["op"] = "replace"
    }
    if let old = change.oldValue { o["old"] = old }
    if let new = change.newValue { o["new"] = new }
    return .object(o)
}

extension ANSI {
    static let bold = "\u{1B}[1m"
    static let dim = "\u{1B}[2m"
    static let reverse = "\u{1B}[7m"
}

/// The width of the terminal on standard output, or `nil` when it is not a terminal.
func terminalWidth() -> Int? {
    guard isatty(STDOUT_FILENO) == 1 else { return nil }
    var size = winsize()
    guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
    return Int(size.ws_col)
}

/// Whether `text` matches the glob `pattern` (`*`, `?`, `[…]`; case-sensitive, `*` crosses `/`),
/// as the log's SQL GLOB does.
func globMatches(_ pattern: String, _ text: String) -> Bool {
    fnmatch(pattern, text, 0) == 0
}

/// Writes one line to standard error.
func writeStandardError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
