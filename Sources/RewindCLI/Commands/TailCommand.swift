import ArgumentParser
import Foundation

/// `rewind tail`: a running server's live events in the terminal.
struct TailCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tail",
        abstract: "Print a running server's live events as they arrive.",
        discussion: """
        Connects to `rewind serve` as an inspector and prints one line per event: seq, local time \
        of day, action type and the action without its type (compact JSON, cut to the terminal's \
        width on a terminal). --diff adds each changed path under it: '~ PATH: OLD → NEW', \
        '+ PATH: NEW', '- PATH: OLD'; '(changes unknown)' when the state could not be rebuilt \
        (said once on stderr). --actions prints each action's payload under its line, as \
        indented JSON, whole (not cut). Control characters in what the app recorded are shown escaped: \
        \\n, \\r, \\t, \\e (ESC), other C0/C1 controls, DEL and the bidirectional formatting characters (U+202E …) as \\u and four hex digits.

        Which session: SESSION is an id, a uuid or uuid prefix, or 'latest'. A uuid (prefix) the \
        server does not know yet is waited for ('waiting for session … to start' on stderr), then \
        followed from seq 0. 'latest' is the newest session that is neither a branch nor a replay. A session that \
        has ended is said to have ended (with its last seq) and tail exits 0; when the session \
        followed ends, its last events are printed, then the same. --wait waits instead for its \
        app to resume it. Without SESSION, tail follows the newest live session, or waits for \
        the next one to start. --all follows every live session from its next event and each new \
        one from seq 0, starts each line with APP/UUID8, and drops a session when it ends (after \
        printing its last events; 'session … ended' on stderr). Ended sessions are not read.

        A session already running is followed from its next event. If the server goes away, tail \
        says so on stderr, reconnects with backoff and carries on from the last seq it printed, \
        reading what it missed from the log: no seq is printed twice or skipped. The same happens \
        when the server reports that tail fell behind (lagged).

        --type keeps the events whose action type matches a glob (todo/*, *login*; case-sensitive).

        With --json, one object per line: session (uuid), sessionId, app, seq, at (seconds since \
        1970), type, action, durationNs, cause (or null), coalesced, and with --diff changes: \
        [{op: add|remove|replace, path, old, new}] (null when unknown).

        Ctrl-C or SIGTERM stops it with exit status 0. A bad URL, a refused token or a session the \
        server does not have exits non-zero with one sentence.

        Examples: rewind tail                       # the newest live session
                  rewind tail --all --type 'cart/*'
                  rewind tail 6f0c2a1e --diff
                  REWIND_TOKEN=s3cret rewind tail --server ws://10.0.0.5:7433
        """
    )

    @Argument(help: "The session: an id, a uuid (prefix) or 'latest' (default: the newest live session).")
    var session: String?

    @Flag(help: "Follow every session.")
    var all = false

    @Flag(help: "When the session has ended (or ends), wait for its app to resume it instead of exiting.")
    var wait = false

    @Option(help: ArgumentHelp("The server's inspector URL.", valueName: "url"))
    var server = ServerLocation.defaultURL

    @Option(help: "The server's token or inspect token (default: $REWIND_TOKEN, else $REWIND_INSPECT_TOKEN).")
    var token: String?

    @OptionGroup var caFile: CAFileOption

    @Option(name: .customLong("type"), help: "Only actions whose type matches this glob.")
    var typeGlob: String?

    @Flag(help: "Show each changed path with its old and new value.")
    var diff = false

    @Flag(help: "Print each action's payload under its line, as indented JSON.")
    var actions = false

    @Flag(help: "Print one JSON object per event, one per line.")
    var json = false

    @Option(help: "Colour: auto (when standard output is a terminal), always or never.")
    var color: ColorChoice = .auto

    func validate() throws {
        if all && session != nil { throw ValidationError("give either SESSION or --all, not both") }
        if all && wait { throw ValidationError("--wait goes with one session: --all already follows sessions as they resume") }
    }

    func run() throws {
        let url = try ServerLocation.inspectorURL(server)
        let token = ServerLocation.token(self.token)
        let caFile = try caFile.resolved()
        let target: TailTarget = all ? .all : session.map(TailTarget.named) ?? .next
        let output = TailOutput(json: json, colored: !json && color.enabled, width: json ? nil : terminalWidth(),
                                showSession: all, actions: actions)
        let mailbox = Mailbox()
        let signals = mailbox.catchInterrupts()
        defer { withExtendedLifetime(signals) {} }
        let follower = TailFollower(target: target, typeGlob: typeGlob, diff: diff, output: output, mailbox: mailbox,
                                    waitsForResume: wait)
        var generation = 0
        var everConnected = false
        var delay = 0.1
        while true {
            generation += 1
            let link = try InspectorLink(url: url, token: token, caFile: caFile, mailbox: mailbox, generation: generation)
            do {
                try follower.follow(over: link)
            } catch TailStop.interrupted {
                link.close()
                return
            } catch TailStop.finished {
                link.close()
                return
            } catch TailStop.lost(let reason, let connected) {
                guard everConnected || connected else { throw Self.connectError(url: url, reason: reason, token: token) }
                if connected {
                    // Only a connection that was up is news; failed retries stay quiet.
                    everConnected = true
                    delay = 0.1
                    writeStandardError("rewind tail: lost the connection to \(url) (\(reason)); reconnecting")
                }
            }
            // Back off, but wake at once for Ctrl-C.
            let deadline = Date(timeIntervalSinceNow: delay)
            while let delivery = mailbox.next(until: deadline) {
                if case .interrupted = delivery { return }
            }
            delay = min(delay * 2, 2)
        }
    }

    /// One sentence for a first connection that did not come about.
    static func connectError(url: String, reason: String, token: String?) -> CLIError {
        // lws words a refused upgrade (403 for a wrong or missing token) as "not 101".
        if reason.contains("certificate is not trusted") {
            return CLIError("cannot connect to \(url): \(reason)", code: 1)
        }
        if reason.contains("403") || reason.contains("401") || reason.contains("not 101") {
            let hint = token == nil ? "it needs a token: give --token or set REWIND_TOKEN"
                : "check --token or REWIND_TOKEN (an app token may only stream; inspecting needs the inspect token or the server's token)"
            return CLIError("the server at \(url) refused the connection (\(reason)); \(hint), and check the URL's path is /inspect", code: 1)
        }
        return CLIError("cannot connect to \(url): \(reason) (is `rewind serve` running?)", code: 1)
    }
}
