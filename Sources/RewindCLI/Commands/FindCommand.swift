import ArgumentParser
import Foundation
import RewindJSON
import RewindLog
import RewindReplay

/// `rewind find`: where in a session's history the value at a path met a condition.
struct FindCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "find",
        abstract: "Find the seqs where the value at a JSON Pointer meets a condition (when did x.y.z become 2?).",
        discussion: """
        rewind find SESSION PATH CONDITION prints each seq where CONDITION starts to hold for the \
        value at PATH: seq, time, the action, and the value. --all also prints where it stops \
        holding; --first stops at the first. --changed prints every seq where the value changed, \
        old → new.

        CONDITION is one of --is JSON, --is-not JSON, --gt N, --lt N, --matches REGEX (a string \
        value; searched anywhere in it), --exists, --missing, --changed. JSON equality counts 1 \
        and 1.0 as equal.

        The session is read once: the keyframe at seq 0, then every patch forward, applied in \
        place; the value at PATH is looked at only after the events that may change it. No \
        state is rebuilt.

        --all-sessions PATH CONDITION (with --app NAME, only that app's sessions) lists the \
        sessions where the condition ever held, and the seqs where it started to.

        With --json, one object per line: seq, at, event (starts, stops or changed), type, \
        action, exists, value (null when missing), previous; with --all-sessions also session, \
        sessionId and app. Exit status as grep's: 0 when something was found, 1 when nothing \
        was, 2 on an error. When no state of the session has a value at PATH at all (a typo, \
        most often), stderr says so, with the nearest path that exists.

        Examples:
          rewind find latest /cart/total --lt 0
          rewind find latest /user/name --changed
          rewind find --all-sessions /cart/total --lt 0 --app Shop
        """
    )

    @OptionGroup var log: LogLocation

    @Argument(help: ArgumentHelp("SESSION PATH, or with --all-sessions only PATH. SESSION: an id, a uuid prefix or 'latest'; PATH: a JSON Pointer such as /cart/total.", valueName: "session-and-path"))
    var arguments: [String] = []

    @Option(name: .customLong("is"), help: ArgumentHelp("The value equals this JSON.", valueName: "json"))
    var isValue: String?

    @Option(name: .customLong("is-not"), help: ArgumentHelp("There is a value and it does not equal this JSON.", valueName: "json"))
    var isNotValue: String?

    @Option(help: ArgumentHelp("The value is a number greater than N.", valueName: "n"))
    var gt: Double?

    @Option(help: ArgumentHelp("The value is a number less than N.", valueName: "n"))
    var lt: Double?

    @Option(help: ArgumentHelp("The value is a string this regular expression matches.", valueName: "regex"))
    var matches: String?

    @Flag(help: "There is a value at PATH.")
    var exists = false

    @Flag(help: "There is no value at PATH.")
    var missing = false

    @Flag(help: "Every seq where the value changed.")
    var changed = false

    @Flag(help: "Also print where the condition stops holding.")
    var all = false

    @Flag(help: "Stop at the first hit.")
    var first = false

    @Flag(name: .customLong("all-sessions"), help: "Look in every session of the log.")
    var allSessions = false

    @Option(help: ArgumentHelp("With --all-sessions, only the sessions of this app.", valueName: "name"))
    var app: String?

    @Flag(help: "Print one JSON object per hit, one per line.")
    var json = false

    func validate() throws {
        let given = [isValue != nil, isNotValue != nil, gt != nil, lt != nil, matches != nil, exists, missing, changed].filter { $0 }.count
        if given != 1 {
            throw ValidationError("give exactly one condition: --is, --is-not, --gt, --lt, --matches, --exists, --missing or --changed")
        }
        if allSessions {
            if arguments.count != 1 { throw ValidationError("with --all-sessions, give only PATH") }
        } else {
            if arguments.count != 2 { throw ValidationError("give SESSION and PATH (or --all-sessions PATH)") }
            if app != nil { throw ValidationError("--app goes with --all-sessions") }
        }
        for bound in [gt, lt].compactMap({ $0 }) where !bound.isFinite {
            throw ValidationError("--gt and --lt take a finite number")
        }
    }

    func condition() throws -> FindCondition {
        func json(_ text: String, _ flag: String) throws -> JSONValue {
            do { return try JSONValue(parsing: text) } catch {
                throw CLIError("\(flag) '\(text)' is not JSON (a string needs its quotes: --is '\"done\"')", code: 2)
            }
        }
        if let isValue { return .isEqual(try json(isValue, "--is")) }
        if let isNotValue { return .isNot(try json(isNotValue, "--is-not")) }
        if let gt { return .greaterThan(gt) }
        if let lt { return .lessThan(lt) }
        if let matches {
            do { return .matches(try FindPattern(matches)) } catch { throw CLIError("--matches: \(error)", code: 2) }
        }
        if exists { return .exists }
        if missing { return .missing }
        return .changed
    }

    func run() throws {
        let condition = try condition()
        let path = try parsePointer(arguments.last ?? "")
        var access = try ReplayAccess(log: log)
        if allSessions {
            try findEverywhere(path: path, condition: condition, access: &access)
            return
        }
        let timeline = try access.timeline(arguments[0])
        let result = try ReplayAccess.cli { () throws(ReplayError) in
            try timeline.find(path: path, condition: condition, all: all, first: first)
        }
        if let note = Self.neverNote(result, path: path, session: timeline.sessionID) { writeStandardError(note) }
        if json {
            for hit in result.hits { writeJSONLine(Self.json(hit)) }
        } else if !result.hits.isEmpty {
            var rows = [["SEQ", "TIME", "EVENT", "ACTION", "VALUE"]]
            for hit in result.hits { rows.append(Self.row(hit, path: path)) }
            writeStandardOutput(OutputFormat.table(rows, rightAligned: [0]))
        }
        if result.hits.isEmpty { throw ExitCode(1) }
    }

    private func findEverywhere(path: JSONPointer, condition: FindCondition, access: inout ReplayAccess) throws {
        let sessions: [SessionInfo]
        do {
            sessions = try access.reader.sessions().filter { app == nil || $0.app == app }
        } catch {
            throw CLIError(error.description, code: 2)
        }
        var rows = [["ID", "UUID", "APP", "SEQS"]]
        var found = false
        for session in sessions where session.lastSeq != nil {
            let timeline = try access.timeline(String(session.id))
            let result = try ReplayAccess.cli { () throws(ReplayError) in
                try timeline.find(path: path, condition: condition, all: false, first: first)
            }
            guard !result.hits.isEmpty else { continue }
            found = true
            if json {
                for hit in result.hits {
                    guard case .object(var object) = Self.json(hit) else { continue }
                    object["session"] = .string(session.uuid)
                    object["sessionId"] = OutputFormat.number(session.id)
                    object["app"] = .string(session.app)
                    writeJSONLine(.object(object))
                }
                continue
            }
            let seqs = result.hits.prefix(12).map { String($0.seq) }.joined(separator: ", ")
            let more = result.hits.count > 12 ? ", … (\(result.hits.count) in all)" : ""
            rows.append([String(session.id), String(session.uuid.prefix(8)), TerminalText.escaped(session.app), seqs + more])
        }
        if !json && found { writeStandardOutput(OutputFormat.table(rows, rightAligned: [0])) }
        if !found { throw ExitCode(1) }
    }

    /// What stderr says when the whole session was read and no state had a value at `path` (a
    /// typo, most often): with the nearest path that does exist, when there is one.
    static func neverNote(_ result: FindResult, path: JSONPointer, session: Int64) -> String? {
        guard !result.pathExisted, result.scannedThrough == result.lastSeq else { return nil }
        let shown = path.isRoot ? "/" : path.description
        var note = "rewind find: \(shown) never exists in session \(session) (no state from seq 0 to \(result.lastSeq) has a value there)"
        if let nearest = result.nearestPath {
            note += "; the nearest path that does is \(nearest.description)"
        } else {
            note += "; no path near it exists either"
        }
        return note
    }

    static func row(_ hit: FindHit, path: JSONPointer) -> [String] {
        let summary = LogCommand.summary(of: hit.action)
        let action = TerminalText.escaped(hit.actionType + (summary.isEmpty ? "" : " " + summary))
        func shown(_ value: JSONValue?) -> String { value.map { TerminalText.escaped(OutputFormat.shortened($0)) } ?? "(missing)" }
        let value = hit.kind == .changed ? "\(shown(hit.previous)) → \(shown(hit.value))" : shown(hit.value)
        return [String(hit.seq), OutputFormat.time(hit.at), hit.kind.rawValue, action, value]
    }

    static func json(_ hit: FindHit) -> JSONValue {
        let object: JSONObject = [
            "seq": OutputFormat.number(hit.seq),
            "at": OutputFormat.seconds(hit.at),
            "event": .string(hit.kind.rawValue),
            "type": .string(hit.actionType),
            "action": hit.action,
            "exists": .bool(hit.value != nil),
            "value": hit.value ?? .null,
            "previous": hit.previous ?? .null,
        ]
        return .object(object)
    }
}
