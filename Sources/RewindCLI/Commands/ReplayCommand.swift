import ArgumentParser
import Foundation
import RewindJSON
import RewindLog
import RewindReplay

/// `rewind replay`: step through a recording from the log, on screen, in a pipe, or into a live app.
struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Step through a recorded session: full-screen on a terminal, line by line in a pipe.",
        discussion: """
        SESSION is an id, a uuid prefix or 'latest'; --from and --to limit the seqs. Reads the log \
        only (no server).

        On a terminal (standard input and output both terminals) it is full-screen: the actions on \
        the left (seq, type, 'c' when coalesced), the selected action's diff or the state on the \
        right. Keys: ↑/↓ or k/j step, PgUp/PgDn, g/G first/last, ':' jump to a seq, space \
        play/pause, +/- speed, '/' search the actions (n: next match), 'f' filter by type glob, \
        'p' show the value at a JSON Pointer, tab switch diff/state, q or Ctrl-C quit (inside a \
        prompt Ctrl-C, like Esc, only cancels the prompt).

        Otherwise it prints each event: a line 'SEQ  TIME  TYPE  ACTION' (ACTION without its type; \
        'coalesced' when the state was not recorded separately), then the changes it made, \
        indented by two spaces, as `rewind diff SESSION@SEQ-1 SESSION@SEQ` prints them. Seq 0 is \
        the initial state and has no changes. With --json, one object per line: seq, at, type, \
        action, durationNs, cause, coalesced, site and changes: [{op: add|remove|replace, path, old, new}].

        Control characters in what the app recorded (types, actions, keys) are shown escaped: \\n, \\r, \\t, \\e (ESC), other C0/C1 controls, DEL and the bidirectional formatting characters (U+202E …) as \\u and four hex digits.

        With --into TARGET, the recorded actions from --from (at least 1: seq 0 is the initial \
        state) to --to are sent to the app streaming the live session TARGET through --server, as \
        a 'replay' command starting from the recorded state before --from, at --pace actions per \
        second (at once when not given). It prints what it sends and the app's answer, and exits 0 \
        when the app says it replayed them, 1 with the app's or server's sentence otherwise. The \
        whole range goes as one message: one larger than the server's --max-message (16MiB unless \
        given here as the server was given it) is refused with its size before anything is sent.

        Examples: rewind replay latest
                  rewind replay latest --from 100 --to 200 | grep -A3 'cart/add'
                  rewind replay 3 --to 50 --into latest --pace 10
        """
    )

    @OptionGroup var log: LogLocation

    @Argument(help: "The session: an id, a uuid prefix or 'latest'.")
    var session: String

    @Option(help: "The first seq.")
    var from: Int64?

    @Option(help: "The last seq.")
    var to: Int64?

    @Flag(help: "Print one JSON object per event, one per line (never full-screen).")
    var json = false

    @Option(help: "Colour the printed changes: auto (when standard output is a terminal), always or never.")
    var color: ColorChoice = .auto

    @Option(help: ArgumentHelp("Send the actions to the app of this live session instead of showing them.", valueName: "session"))
    var into: String?

    @Option(help: ArgumentHelp("The server's inspector URL, for --into.", valueName: "url"))
    var server = ServerLocation.defaultURL

    @Option(help: "The server's token or inspect token, for --into (default: $REWIND_TOKEN, else $REWIND_INSPECT_TOKEN).")
    var token: String?

    @OptionGroup var caFile: CAFileOption

    @Option(help: "Actions per second for --into (default: all at once).")
    var pace: Double?

    @Option(help: ArgumentHelp("The server's --max-message, for --into: a larger replay is refused before sending.", valueName: "size"))
    var maxMessage = "16MiB"

    func validate() throws {
        if let from, from < 0 { throw ValidationError("--from must be a seq, 0 or more") }
        if let from, let to, to < from { throw ValidationError("--to must not be below --from") }
        if let pace, !(pace > 0) { throw ValidationError("--pace must be a number of actions per second above 0") }
        if ServeCommand.parseSize(maxMessage) == nil {
            throw ValidationError("--max-message must be a size, such as 16MiB or 1048576")
        }
    }

    func run() throws {
        var access = try ReplayAccess(log: log)
        let timeline = try access.timeline(session)
        let info = try access.reader.resolveSession(String(timeline.sessionID))
        guard let last = info.lastSeq else { throw CLIError("session \(info.id) (\(info.uuid)) has no events yet", code: 2) }
        let first = from ?? 0
        guard first <= last else {
            throw CLIError(ReplayError.seqOutOfRange(session: info.id, seq: first, lastSeq: last).description, code: 2)
        }
        let end = min(to ?? last, last)
        if let into {
            try ReplayInto(timeline: timeline, info: info, from: max(first, 1), to: end, pace: pace,
                           target: into, url: ServerLocation.inspectorURL(server), token: ServerLocation.token(token), caFile: caFile.resolved(),
                           maxMessage: ServeCommand.parseSize(maxMessage) ?? 16 << 20).run()
            return
        }
        if !json && isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 {
            let events = try readEvents(access.reader, session: info.id, from: first, to: end)
            try ReplayInteractive.run(events: events, title: "\(info.app) \(info.uuid.prefix(8)) (session \(info.id))", timeline: timeline)
            return
        }
        try printSteps(access.reader, timeline: timeline, session: info.id, from: first, to: end)
    }

    private func readEvents(_ reader: LogReader, session: Int64, from: Int64, to: Int64) throws -> [LogEvent] {
        do {
            return try reader.events(session: session, from: from, to: to)
        } catch {
            throw CLIError(error.description, code: 2)
        }
    }

    /// The piped output, a page of events at a time so a long session starts printing at once.
    private func printSteps(_ reader: LogReader, timeline: Timeline, session: Int64, from: Int64, to: Int64) throws {
        let renderer = ChangeRenderer(colored: !json && color.enabled)
        // One formatter for the whole run: making one per line costs more than the diff.
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone.current
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss.SSS"
        var start = from
        while start <= to {
            let page = try readEvents(reader, session: session, from: start, to: min(to, start + 999))
            guard let lastInPage = page.last else { break }
            var out = ""
            for event in page {
                let changes = event.seq == 0 ? [] : try ReplayAccess.cli { () throws(ReplayError) in
                    try timeline.diff(from: event.seq - 1, to: event.seq)
                }.changes
                if json {
                    var object: JSONObject = ["seq": OutputFormat.number(event.seq), "at": OutputFormat.seconds(event.at),
                                              "type": .string(event.actionType), "action": event.action,
                                              "durationNs": OutputFormat.number(event.durationNs),
                                              "cause": event.cause.map(OutputFormat.number) ?? .null,
                                              "coalesced": .bool(event.coalesced)]
                    object["site"] = event.site.map { OutputFormat.site(file: $0.file, line: $0.line, function: $0.function) } ?? .null
                    object["changes"] = .array(changes.map(changeJSON))
                    out += jsonLine(.object(object))
                    continue
                }
                // What the app recorded is escaped: a control character must not reach the terminal.
                var header = "\(event.seq)  \(formatter.string(from: event.at))  " + TerminalText.escaped(event.actionType)
                let summary = TerminalText.escaped(LogCommand.summary(of: event.action))
                if !summary.isEmpty { header += "  " + summary }
                if event.coalesced { header += "  coalesced" }
                if let site = event.site { header += "  @ " + TerminalText.escaped(site.description) }
                out += header + "\n"
                for change in changes { out += "  " + renderer.line(change) + "\n" }
            }
            writeStandardOutput(out)
            start = lastInPage.seq + 1
        }
    }
}
