import ArgumentParser
import Foundation
import RewindJSON
import RewindLog
import RewindReplay

struct LogCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log",
        abstract: "List a session's events: seq, time, action type and a summary of the action.",
        discussion: """
        One line per event: seq, local time, action type, the reducer's duration, the action \
        without its type (compact JSON, shortened), then '← N' when seq N caused it, \
        'coalesced' when its state was not recorded separately and 'keyframe' when the full \
        state is stored with it. --source adds a SOURCE column: where the app sent the action \
        (file:line function), when it was recorded.

        --type matches the action type with a glob (todo/*, *login*; case-sensitive); --grep \
        keeps the events whose action JSON contains every word given (case-insensitive).

        With --json, one object per line: seq, at (seconds since 1970), type, action, \
        durationNs, cause (or null), coalesced, keyframe, site ({file, line, function} or null).

        Example: rewind log latest --type 'todo/*' --from 100 --limit 20
        """
    )

    @OptionGroup var log: LogLocation

    @Argument(help: "The session: an id, a uuid prefix or 'latest'.")
    var session: String

    @Option(help: "The first seq to list.")
    var from: Int64 = 0

    @Option(help: "The last seq to list.")
    var to: Int64?

    @Option(name: .customLong("type"), help: "Only actions whose type matches this glob.")
    var typeGlob: String?

    @Option(help: "Only actions whose JSON contains all these words.")
    var grep: String?

    @Option(help: "List at most this many events.")
    var limit: Int?

    @Flag(help: "Show where the app sent each action (file:line function).")
    var source = false

    @Flag(help: "Print one JSON object per event, one per line.")
    var json = false

    func validate() throws {
        if from < 0 { throw ValidationError("--from must be a seq, 0 or more") }
        if let to, to < from { throw ValidationError("--to must not be below --from") }
        if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more") }
    }

    func run() throws {
        let reader = try log.openReader()
        let info = try reader.resolveSession(session)
        // An empty session lists nothing; a --from past the end is a mistake worth saying.
        guard let last = info.lastSeq else { return }
        guard from <= last else {
            throw CLIError(ReplayError.seqOutOfRange(session: info.id, seq: from, lastSeq: last).description, code: 2)
        }
        let events: [LogEvent]
        let keyframes: Set<Int64>
        do {
            events = try reader.events(session: info.id, from: from, to: to, typeGlob: typeGlob, text: grep, limit: limit)
            keyframes = Set(try reader.keyframeSeqs(session: info.id))
        } catch {
            throw CLIError(error.description, code: 2)
        }
        if json {
            for event in events { writeJSONLine(Self.json(event, keyframe: keyframes.contains(event.seq))) }
            return
        }
        guard !events.isEmpty else { return }
        var rows = [["SEQ", "TIME", "TYPE", "DURATION"] + (source ? ["SOURCE"] : []) + ["ACTION"]]
        for event in events {
            var notes: [String] = []
            let summary = Self.summary(of: event.action)
            if !summary.isEmpty { notes.append(summary) }
            if let cause = event.cause { notes.append("← \(cause)") }
            if event.coalesced { notes.append("coalesced") }
            if keyframes.contains(event.seq) { notes.append("keyframe") }
            let site = source ? [event.site.map { TerminalText.escaped($0.description) } ?? "-"] : []
            rows.append([String(event.seq), OutputFormat.time(event.at), event.actionType,
                         OutputFormat.duration(nanoseconds: event.durationNs)] + site + [notes.joined(separator: "  ")])
        }
        writeStandardOutput(OutputFormat.table(rows, rightAligned: [0, 3]))
    }

    /// The action without what the type column already shows: the members other than `type`,
    /// or the payload of a `{"case": payload}` action; empty when nothing is left.
    static func summary(of action: JSONValue) -> String {
        switch action {
        case .object(let object):
            if object["type"]?.stringValue != nil {
                let rest = JSONObject(object.filter { $0.key != "type" }.map { ($0.key, $0.value) })
                return rest.isEmpty ? "" : OutputFormat.shortened(.object(rest))
            }
            if object.count == 1, let payload = object.values.first {
                return OutputFormat.shortened(payload)
            }
            return OutputFormat.shortened(action)
        case .string:
            return ""
        default:
            return OutputFormat.shortened(action)
        }
    }

    static func json(_ event: LogEvent, keyframe: Bool) -> JSONValue {
        [
            "seq": OutputFormat.number(event.seq),
            "at": OutputFormat.seconds(event.at),
            "type": .string(event.actionType),
            "action": event.action,
            "durationNs": OutputFormat.number(event.durationNs),
            "cause": event.cause.map(OutputFormat.number) ?? .null,
            "coalesced": .bool(event.coalesced),
            "keyframe": .bool(keyframe),
            "site": event.site.map { OutputFormat.site(file: $0.file, line: $0.line, function: $0.function) } ?? .null,
        ]
    }
}
