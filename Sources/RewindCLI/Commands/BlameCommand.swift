import ArgumentParser
import Foundation
import RewindJSON
import RewindReplay

struct BlameCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "blame",
        abstract: "List the actions that changed the value at a JSON Pointer, with the value before and after.",
        discussion: """
        Walks the session once and lists every event whose patch touched POINTER, one of its \
        ancestors or one of its descendants: seq, time, action type, and the change at POINTER \
        ('+ NEW' when it appeared, '- OLD' when it went, '~ OLD → NEW', '= VALUE' when an \
        operation touched it but left it equal). Seq 0 is listed when the initial state has a \
        value there. An insertion or removal earlier in an array moves later elements without \
        touching their pointers, so it is not listed for them.

        With --json, one object per line: seq, at (seconds since 1970), type, action, before and \
        after (left out when the pointer named nothing), and ops (the operations that touched it).

        Example: rewind blame latest /user/name
        """
    )

    @OptionGroup var log: LogLocation

    @Argument(help: "The session: an id, a uuid prefix or 'latest'.")
    var session: String

    @Argument(help: "The JSON Pointer to follow, such as /user/name ('' for the whole state).")
    var pointer: String

    @Flag(help: "Print one JSON object per event, one per line.")
    var json = false

    @Option(help: "Colour the changes: auto (when standard output is a terminal), always or never.")
    var color: ColorChoice = .auto

    func run() throws {
        let path = try parsePointer(pointer)
        var access = try ReplayAccess(log: log)
        let timeline = try access.timeline(session)
        let entries = try ReplayAccess.cli { () throws(ReplayError) in try timeline.blame(path: path) }
        if json {
            for entry in entries { writeJSONLine(Self.json(entry)) }
            return
        }
        guard !entries.isEmpty else { return }
        let colored = color.enabled
        var rows = [["SEQ", "TIME", "TYPE", "CHANGE"]]
        for entry in entries {
            rows.append([String(entry.seq), OutputFormat.time(entry.at), entry.actionType, Self.change(entry, colored: colored)])
        }
        // The table escapes the type; the change is escaped before it is coloured.
        writeStandardOutput(OutputFormat.table(rows, rightAligned: [0], styled: [3]))
    }

    /// The CHANGE cell: escaped (``TerminalText``), then coloured when `colored`.
    static func change(_ entry: BlameEntry, colored: Bool) -> String {
        let (color, text): (String, String)
        switch (entry.before, entry.after) {
        case (nil, let after?): (color, text) = (ANSI.green, "+ " + OutputFormat.shortened(after))
        case (let before?, nil): (color, text) = (ANSI.red, "- " + OutputFormat.shortened(before))
        case (let before?, let after?) where before == after: (color, text) = ("", "= " + OutputFormat.shortened(after))
        case (let before?, let after?):
            (color, text) = (ANSI.yellow, "~ " + OutputFormat.shortened(before, width: 36) + " → " + OutputFormat.shortened(after, width: 36))
        case (nil, nil): (color, text) = ("", "= (absent)")
        }
        let shown = TerminalText.escaped(text)
        return colored && !color.isEmpty ? color + shown + ANSI.reset : shown
    }

    static func json(_ entry: BlameEntry) -> JSONValue {
        var object: JSONObject = [
            "seq": OutputFormat.number(entry.seq),
            "at": OutputFormat.seconds(entry.at),
            "type": .string(entry.actionType),
            "action": entry.action,
        ]
        if let before = entry.before { object["before"] = before }
        if let after = entry.after { object["after"] = after }
        object["ops"] = .array(entry.operations.map(\.json))
        return .object(object)
    }
}
