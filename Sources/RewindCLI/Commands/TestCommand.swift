import ArgumentParser
import Foundation
import RewindJSON
import RewindLog

/// `rewind test`: a recorded session becomes a Swift Testing test that replays it through
/// today's reducer.
struct TestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Turn a recorded session into a Swift test that replays it through your reducer.",
        discussion: """
        Writes two files into DIR: NAME.jsonl, the recording (states as recorded, so what the \
        recorder redacted stays redacted, with each action's cause and send site), and \
        NAME.swift, a Swift Testing @Test that reads the recording beside it (#filePath, no \
        bundle resources), runs ReplayVerifier(reducer: SYMBOL) (--reducer, a Rewind Reducer) or \
        ReplayVerifier(step: SYMBOL) (--step, a function (inout State, Action) -> Void, for an app \
        on any store that links RewindRecorder alone) and fails at the first seq whose state \
        differs, printing the action, where it was sent and each changed path as 'recorded: X  \
        replayed: Y'. Where a state differs, the verifier runs that step again a millisecond \
        later and says so when the reducer is not deterministic (Date(), UUID(), randomness).

        A session whose app crashed (it ends with @@rewind/crashed) gets a test of the crash: \
        in an exit test (Swift Testing's #expect(processExitsWith:), Swift 6.2 and later), it \
        replays the recording and then sends the action the app was reducing when it crashed, \
        from the state the replay leaves; it fails while the reducer still crashes on that action \
        and passes once it does not. Exit tests need a process of their own, which iOS and its \
        Simulator cannot spawn: there the file compiles to nothing and says to run it on the \
        Mac. A crash outside the reducer (in a view or an effect), or one whose action could not \
        be kept, gives the usual replay test, whose first lines say so.

        Put DIR in a test target's folder; no Package.swift change is needed (SwiftPM warns \
        about the .jsonl file until the target lists it under exclude:). Then: swift test \
        --filter NAME.

        The session comes from the log (--db), or from a running server with --server \
        ws://HOST:PORT (its /export/SESSION). --from SEQ starts the recording at the state \
        recorded at SEQ instead of 0. The test is named after the app and the session's id either \
        way. Existing files of the same name are replaced.

        Examples:
          rewind test latest --reducer appReducer --module MyApp -o Tests/MyAppTests
          rewind test latest --step appStep --module MyApp -o Tests/MyAppTests
        """
    )

    @Argument(help: "The session: an id, a uuid prefix or 'latest'.")
    var session: String

    @Option(help: ArgumentHelp("The reducer the test replays through: a Rewind Reducer, as the test's code names it (appReducer, AppFeature.reducer). The test imports Rewind.", valueName: "symbol"))
    var reducer: String?

    @Option(help: ArgumentHelp("Instead of --reducer, for an app on any store (TCA, ReSwift, its own) that links RewindRecorder: a function (inout State, Action) -> Void that runs the store's reducer without effects. The test imports RewindRecorder.", valueName: "symbol"))
    var step: String?

    @Option(help: ArgumentHelp("Adds @testable import MODULE (the app module that defines the reducer).", valueName: "module"))
    var module: String?

    @Option(help: ArgumentHelp("The test's name: the files' names and the test function's (default: from the app and session).", valueName: "name"))
    var name: String?

    @Option(name: [.short, .customLong("output")], help: ArgumentHelp("The folder to write into (a test target's folder).", valueName: "dir"))
    var output: String

    @Option(help: ArgumentHelp("Start at the state recorded at this seq instead of seq 0.", valueName: "seq"))
    var from: Int64?

    @Option(help: ArgumentHelp("SEQ:POINTER=JSON: what the state at SEQ should hold at POINTER, where the recording holds a bug (repeatable). The test then checks the states before the first such SEQ against the recording and these values at theirs, and fails until the reducer gives them.", valueName: "seq:pointer=json"))
    var expect: [String] = []

    @Option(help: ArgumentHelp("The most changed paths a failure prints before '… and K more'.", valueName: "n"))
    var maxLines = 20

    @Option(help: ArgumentHelp("Take the session from rewind serve at this address (ws://HOST:PORT, wss:// with TLS) instead of a log file.", valueName: "url"))
    var server: String?

    @Option(help: ArgumentHelp("The server's token or inspect token (default: $REWIND_TOKEN, else $REWIND_INSPECT_TOKEN).", valueName: "secret"))
    var token: String?

    @OptionGroup var caFile: CAFileOption

    @OptionGroup var log: LogLocation

    /// What the test replays through: `--reducer` (a Rewind `Reducer`) or `--step`.
    enum Replayer {
        case reducer(String)
        case step(String)

        var isStep: Bool {
            if case .step = self { return true }
            return false
        }

        var symbol: String {
            switch self {
            case .reducer(let symbol), .step(let symbol): symbol
            }
        }
    }

    var replayer: Replayer {
        if let step { return .step(step) }
        return .reducer(reducer ?? "")
    }

    func validate() throws {
        switch (reducer, step) {
        case (nil, nil):
            throw ValidationError("give --reducer SYMBOL (a Rewind Reducer) or --step SYMBOL (a function (inout State, Action) -> Void, for an app on any store)")
        case (_?, _?):
            throw ValidationError("give --reducer or --step, not both")
        default:
            break
        }
        if let reducer, !Self.isQualifiedIdentifier(reducer) {
            throw ValidationError("--reducer '\(reducer)' is not a Swift name (write appReducer or AppFeature.reducer)")
        }
        if let step, !Self.isQualifiedIdentifier(step) {
            throw ValidationError("--step '\(step)' is not a Swift name (write appStep or AppFeature.step)")
        }
        if let module, !Self.isIdentifier(module) { throw ValidationError("--module '\(module)' is not a Swift module name") }
        if let name, !Self.isIdentifier(name) {
            throw ValidationError("--name '\(name)' must be a Swift identifier (letters, digits, _; not starting with a digit)")
        }
        if let from, from < 0 { throw ValidationError("--from must be a seq, 0 or more") }
        if maxLines < 1 { throw ValidationError("--max-lines must be 1 or more") }
        for text in expect { _ = try Self.expectation(text) }
    }

    /// One `--expect SEQ:POINTER=JSON`, its parts checked.
    struct Expectation {
        var seq: Int64
        var pointer: String
        var json: JSONValue
        /// The argument as given.
        var text: String
    }

    /// Parses `SEQ:POINTER=JSON`. POINTER is a JSON Pointer (`/cart/total`, or empty for the
    /// whole state) and ends at the first `=` after which the rest is JSON, so a key may hold `=`.
    static func expectation(_ text: String) throws -> Expectation {
        let shape = "--expect '\(TerminalText.escaped(String(text.prefix(80))))' must be SEQ:POINTER=JSON, such as 12:/cart/total=123.73"
        guard let colon = text.firstIndex(of: ":"), let seq = Int64(text[..<colon]) else { throw ValidationError(shape) }
        guard seq >= 1 else { throw ValidationError("--expect \(seq): a seq of an action, 1 or more (seq 0 is the initial state)") }
        let rest = text[text.index(after: colon)...]
        var firstProblem: String?
        for equals in rest.indices where rest[equals] == "=" {
            let pointer = String(rest[..<equals])
            guard let json = try? JSONValue(parsing: String(rest[rest.index(after: equals)...])) else {
                if firstProblem == nil {
                    firstProblem = "--expect \(seq):\(TerminalText.escaped(String(pointer.prefix(80)))): the value is not JSON (a string needs its quotes: '\(seq):\(pointer)=\"done\"')"
                }
                continue
            }
            do {
                _ = try JSONPointer(pointer)
            } catch {
                throw ValidationError("--expect \(seq): '\(TerminalText.escaped(String(pointer.prefix(80))))' is not a JSON Pointer (write /cart/total, or nothing for the whole state)")
            }
            return Expectation(seq: seq, pointer: pointer, json: json, text: text)
        }
        throw ValidationError(firstProblem ?? shape)
    }

    func run() throws {
        let source: Source = try server.map { try fetchFromServer($0) } ?? readFromLog()
        var lines = try Self.lines(of: source.jsonl, origin: source.origin)
        let expectations = try expect.map(Self.expectation)
        let crash = Self.crash(in: lines)
        if crash != nil, !expectations.isEmpty {
            throw CLIError("--expect is for a session that recorded a bug; \(source.origin) ended in a crash, and its test is the crash itself: leave --expect out", code: 2)
        }
        try Self.check(expectations, against: lines, from: from ?? 0, origin: source.origin)
        if let from, from > 0 { lines = try Self.starting(lines, at: from, origin: source.origin) }
        let testName = name ?? source.defaultName
        let directory = URL(fileURLWithPath: (output as NSString).expandingTildeInPath)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw CLIError("cannot create \(directory.path): \(error.localizedDescription)", code: 2)
        }
        let fixture = directory.appendingPathComponent(testName + ".jsonl")
        let test = directory.appendingPathComponent(testName + ".swift")
        let jsonl = lines.map { $0.serialized(.compact) }.joined(separator: "\n") + "\n"
        let swift = Self.testSource(name: testName, replayer: replayer, module: module, maxLines: maxLines,
                                    command: commandLine(name: testName), origin: source.origin,
                                    steps: lines.count - 1, from: from ?? 0, expectations: expectations, crash: crash)
        do {
            try Data(jsonl.utf8).write(to: fixture, options: .atomic)
            try Data(swift.utf8).write(to: test, options: .atomic)
        } catch {
            throw CLIError("cannot write into \(directory.path): \(error.localizedDescription)", code: 2)
        }
        writeEscapedOutput("""
            wrote \(test.path)
            wrote \(fixture.path) (\(lines.count) states)
            run it: swift test --filter \(testName)

            """)
    }

    // MARK: The recording

    struct Source {
        var jsonl: [UInt8]
        /// Where it came from, for the generated comment and errors.
        var origin: String
        var defaultName: String
    }

    private func readFromLog() throws -> Source {
        let reader = try log.openReader()
        let info = try reader.resolveSession(session)
        var bytes: [UInt8] = []
        do {
            try SessionExporter(reader: reader, session: info).write(.jsonl) { chunk in bytes += chunk }
        } catch let error as ExportError {
            throw CLIError("\(error).", code: 1)
        }
        let origin = "session \(info.id) (\(info.uuid), \"\(info.app)\", \(info.eventCount) events) of \(reader.path)"
        return Source(jsonl: bytes, origin: origin, defaultName: Self.identifier(from: info.app) + "Session\(info.id)")
    }

    private func fetchFromServer(_ address: String) throws -> Source {
        let web = try ServerLocation.webURL(address)
        guard let host = web.host else {
            throw CLIError("--server '\(address)' is not a ws:// URL (write ws://HOST:PORT)", code: 2)
        }
        let name = session.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-_."))) ?? session
        let shownHost = host.contains(":") ? "[\(host)]" : host
        let token = ServerLocation.token(token)
        let response: HTTPGet.Response
        if web.scheme == "https" {
            // TLS through libwebsockets' client; plain http keeps its own small GET.
            response = try HTTPGet.fetchSecure(host: shownHost, port: web.port ?? 443, path: "/export/\(name)?format=jsonl",
                                               token: token, caFile: caFile.resolved())
        } else {
            response = try HTTPGet.fetch(host: shownHost, port: web.port ?? 7433, path: "/export/\(name)?format=jsonl", token: token)
        }
        let said = String(decoding: response.body.prefix(500), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        switch response.status {
        case 200: break
        case 401: throw CLIError("rewind serve at \(address) wants its token: pass --token or set REWIND_TOKEN", code: 2)
        case 403: throw CLIError("rewind serve at \(address) refused the token: \(said.isEmpty ? "pass the inspect token or the server's token" : said)", code: 2)
        case 404: throw CLIError("rewind serve at \(address): \(said)", code: 2)
        default: throw CLIError("rewind serve at \(address) answered \(response.status): \(said)", code: 2)
        }
        // The server says which session it is, so the test is named after the app as from a log.
        let defaultName: String
        if let app = response.headers["x-rewind-app"]?.removingPercentEncoding,
           let id = response.headers["x-rewind-session-id"].flatMap(Int64.init) {
            defaultName = Self.identifier(from: app) + "Session\(id)"
        } else {
            defaultName = "session" + Self.identifier(from: session).prefix(1).uppercased() + Self.identifier(from: session).dropFirst()
        }
        return Source(jsonl: response.body, origin: "session \(session) of rewind serve at \(address)", defaultName: defaultName)
    }

    /// The lines of an export, each a JSON object.
    static func lines(of bytes: [UInt8], origin: String) throws -> [JSONValue] {
        var lines: [JSONValue] = []
        for (index, line) in bytes.split(separator: 10, omittingEmptySubsequences: true).enumerated() {
            do {
                lines.append(try JSONValue(parsing: Array(line)))
            } catch {
                throw CLIError("line \(index + 1) of the export of \(origin) is not JSON: \(error)", code: 1)
            }
        }
        guard let first = lines.first, first["action"] == nil else {
            throw CLIError("the export of \(origin) has no initial state: a recorded session starts with one", code: 1)
        }
        return lines
    }

    /// Checks that each expectation's seq is an action of the recording (after `from`), and says
    /// on standard error when the recording already holds the expected value (the test would
    /// then pass with today's reducer: the bug is somewhere else).
    static func check(_ expectations: [Expectation], against lines: [JSONValue], from: Int64, origin: String) throws {
        let last = Int64(lines.count - 1)
        for expectation in expectations {
            guard expectation.seq > from, expectation.seq <= last else {
                throw CLIError("--expect \(expectation.seq): \(origin) has no such action\(from > 0 ? " after --from \(from)" : ""): its actions are seqs \(from + 1)…\(last)", code: 2)
            }
            let line = lines[Int(expectation.seq)]
            guard line["coalesced"] != .bool(true), let state = line["state"],
                  let recorded = (try? JSONPointer(expectation.pointer))?.resolve(in: state), recorded == expectation.json else { continue }
            writeStandardError("rewind test: --expect \(expectation.seq):\(expectation.pointer): the recording already holds \(recorded.serialized()) there, so the test passes with today's reducer; is the bug at another seq or path?")
        }
    }

    /// The recording from the state at `seq`: that state as the first line (marked `from`, with
    /// the first line's redactions), then the lines after it.
    static func starting(_ lines: [JSONValue], at seq: Int64, origin: String) throws -> [JSONValue] {
        let last = Int64(lines.count - 1)
        guard seq <= last else {
            throw CLIError("--from \(seq) is past the end of \(origin): its last seq is \(last)", code: 2)
        }
        let line = lines[Int(seq)]
        if line["coalesced"] == .bool(true) {
            throw CLIError("the state at seq \(seq) was coalesced (not recorded on its own); start --from another seq", code: 2)
        }
        var head: JSONObject = ["state": line["state"] ?? .null]
        if let at = line["at"] { head["at"] = at }
        head["from"] = .number(JSONNumber(seq))
        for key in ["redacted", "redactedKeys"] {
            if let value = lines[0][key] { head[key] = value }
        }
        return [.object(head)] + lines[Int(seq + 1)...]
    }

    // MARK: The test

    private func commandLine(name: String) -> String {
        var parts = ["rewind", "test", session]
        switch replayer {
        case .reducer(let symbol): parts += ["--reducer", symbol]
        case .step(let symbol): parts += ["--step", symbol]
        }
        if let module { parts += ["--module", module] }
        parts += ["--name", name, "-o", output]
        if let from { parts += ["--from", String(from)] }
        if maxLines != 20 { parts += ["--max-lines", String(maxLines)] }
        if let server { parts += ["--server", server] }
        for text in expect { parts += ["--expect", text] }
        return parts.map(Self.shellQuoted).joined(separator: " ")
    }

    /// The crash a session ended with: its last line's action, when that is `@@rewind/crashed`.
    static func crash(in lines: [JSONValue]) -> JSONValue? {
        guard lines.count > 1, let action = lines.last?["action"], action["type"]?.stringValue == SessionInfo.crashedType else { return nil }
        return action
    }

    static func testSource(name: String, replayer: Replayer, module: String?, maxLines: Int, command: String,
                           origin: String, steps: Int, from: Int64, expectations: [Expectation] = [], crash: JSONValue? = nil) -> String {
        let reducer = replayer.symbol
        let start = from > 0 ? " from seq \(from)" : ""
        let date = ISO8601DateFormatter().string(from: Date()).prefix(10)
        var lines = [
            "// Made by `\(Self.commentSafe(command))` on \(date),",
            "// from \(Self.commentSafe(origin))\(start).",
        ]
        if let crash {
            let summary = SessionInfo(id: 0, uuid: "", app: "", startedAt: Date(), crash: crash).crashSummary ?? "a crash"
            let reducing = crash["reducing"]
            let site = reducing?["site"].flatMap { site -> String? in
                guard let file = site["file"]?.stringValue else { return nil }
                return "\(file):\(site["line"]?.numberValue.map { "\($0)" } ?? "?")"
            }
            if let action = reducing?["action"], action != .null {
                return crashTestSource(name: name, replayer: replayer, module: module, head: lines, summary: summary, site: site,
                                       action: action, steps: steps - 1)
            }
            let why = reducing == nil || reducing == .null
                ? "The app crashed (\(summary)), not in the reducer: in a view, an effect or elsewhere."
                : "The app crashed (\(summary)), but the action it was reducing could not be kept."
            lines += [
                "// \(Self.commentSafe(why)) This test cannot send the crash again: it",
                "// replays to the last state before it, and locks in the recorded behaviour up to there.",
            ]
        }
        if let first = expectations.map(\.seq).min() {
            lines += [
                "// A recorded bug: it replays \(name).jsonl (beside this file, \(steps) actions) through today's `\(reducer)`,",
                "// checks every state before seq \(first) against the recording, and then what the state should hold (--expect):",
            ]
            for expectation in expectations {
                let place = expectation.pointer.isEmpty ? "the whole state" : expectation.pointer
                lines.append("//   at seq \(expectation.seq), \(Self.commentSafe(place)) should be \(Self.commentSafe(String(expectation.json.serialized().prefix(200))))")
            }
            lines += [
                "// It fails while the bug is there and passes once the reducer gives those values; keep it as the bug's",
                "// regression test. Nothing needs recording again.",
            ]
        } else {
            lines += [
                "// It replays \(name).jsonl (beside this file, \(steps) actions) through today's `\(reducer)` and fails",
                "// at the first seq whose state differs from the recording: it locks in the recorded behaviour, bugs",
                "// included. For a recorded bug, say what the state should have been with --expect SEQ:POINTER=JSON.",
            ]
        }
        lines += imports(name: name, replayer: replayer, module: module)
        let verifier = verifierCall(replayer)
        lines += [
            "",
            "@Test func \(name)() throws {",
            "    let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()",
            "        .appendingPathComponent(\"\(name).jsonl\").path",
            "    let recording = try Recording.load(fromJSONL: fixture)",
        ]
        if expectations.isEmpty {
            lines.append("    let mismatch = try \(verifier).firstMismatch(in: recording)")
        } else {
            lines.append("    // What the state should have been, where the recording holds the bug.")
            lines.append("    let expected = [")
            for expectation in expectations {
                lines.append("        try ReplayExpectation(seq: \(expectation.seq), pointer: \(Self.stringLiteral(expectation.pointer)), "
                             + "json: \(Self.stringLiteral(expectation.json.serialized()))),")
            }
            lines.append("    ]")
            lines.append("    let mismatch = try \(verifier).firstMismatch(in: recording, expecting: expected)")
        }
        lines += [
            "    #expect(mismatch == nil, \"\\(mismatch?.description(maxLines: \(maxLines)) ?? \"\")\")",
            "}",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// The SwiftPM note and the imports every generated test starts with: RewindRecorder for a
    /// step, Rewind for a reducer, and the app's module.
    static func imports(name: String, replayer: Replayer, module: String?) -> [String] {
        var lines = [
            "// SwiftPM warns about \(name).jsonl until the test target says exclude: [\"\(name).jsonl\"].",
            "import Foundation",
            replayer.isStep ? "import RewindRecorder" : "import Rewind",
            "import Testing",
        ]
        if let module { lines.append("@testable import \(module)") }
        return lines
    }

    /// `ReplayVerifier(step: …)` or `ReplayVerifier(reducer: …)`.
    static func verifierCall(_ replayer: Replayer) -> String {
        "ReplayVerifier(\(replayer.isStep ? "step" : "reducer"): \(replayer.symbol))"
    }

    /// The test of a crash in the reducer: an exit test that replays the recording and sends the
    /// action the app was reducing (``ReplayVerifier/reproduceCrash(in:action:)``); it compiles to
    /// nothing where exit tests do not exist.
    static func crashTestSource(name: String, replayer: Replayer, module: String?, head: [String], summary: String, site: String?,
                                action: JSONValue, steps: Int) -> String {
        let reducer = replayer.symbol
        var lines = head + [
            "// The app crashed: \(Self.commentSafe(summary))\(site.map { ", sent at " + Self.commentSafe($0) } ?? "").",
            "// It replays \(name).jsonl (beside this file, \(steps) actions) through today's `\(reducer)`, then sends the",
            "// action the app was reducing when it crashed, in a process of its own (an exit test): it fails while",
            "// the reducer still crashes on that action and passes once it does not. Keep it as the crash's",
            "// regression test.",
        ] + imports(name: name, replayer: replayer, module: module)
        let verifier = verifierCall(replayer)
        lines += [
            "",
            "#if os(macOS) || os(Linux) || os(Windows)",
            "@Test func \(name)() async {",
            "    await #expect(processExitsWith: .success) {",
            "        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()",
            "            .appendingPathComponent(\"\(name).jsonl\").path",
            "        let recording = try Recording.load(fromJSONL: fixture)",
            "        // The action being reduced when the app crashed.",
            "        let crashing = try JSONValue(parsing: \(Self.stringLiteral(action.serialized())))",
            "        try \(verifier).reproduceCrash(in: recording, action: crashing)",
            "    }",
            "}",
            "#else",
            "// Exit tests need a process of their own, which iOS, tvOS, watchOS and visionOS (their Simulators",
            "// included) cannot spawn: here this file compiles to nothing. Run the test on the Mac, with",
            "// `swift test --filter \(name)` in the package that holds the reducer.",
            "#endif",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// A Swift string literal holding `text`: printable ASCII as it is, `"` and `\` escaped, and
    /// every other scalar (controls, bidirectional formatting, anything not ASCII) as `\u{…}`,
    /// so the generated code reads as it runs.
    static func stringLiteral(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case " "..."~": out.unicodeScalars.append(scalar)
            default: out += "\\u{\(String(scalar.value, radix: 16))}"
            }
        }
        return out + "\""
    }

    // MARK: Names

    /// Words Swift reserves, which a bare name cannot be (each checked with `swiftc -parse` in
    /// TestCommandTests), and `_`, which is no name.
    static let keywords: Set<String> = [
        "_", "precedencegroup", "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout",
        "internal", "let", "open", "operator", "private", "protocol", "public", "rethrows", "static", "struct",
        "subscript", "typealias", "var", "break", "case", "continue", "default", "defer", "do", "else",
        "fallthrough", "for", "guard", "if", "in", "repeat", "return", "switch", "where", "while", "as", "Any",
        "catch", "false", "is", "nil", "super", "self", "Self", "throw", "throws", "true", "try", "await", "async",
    ]

    static func isIdentifier(_ text: String) -> Bool {
        guard !keywords.contains(text) else { return false }
        guard let first = text.unicodeScalars.first, first == "_" || (first.isASCII && CharacterSet.letters.contains(first)) else {
            return false
        }
        return text.unicodeScalars.allSatisfy { $0 == "_" || ($0.isASCII && CharacterSet.alphanumerics.contains($0)) }
    }

    static func isQualifiedIdentifier(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return !parts.isEmpty && parts.allSatisfy { isIdentifier(String($0)) }
    }

    /// lowerCamelCase ASCII letters and digits of `text`: "Images demo" → "imagesDemo".
    static func identifier(from text: String) -> String {
        let words = text.unicodeScalars.split { !($0.isASCII && CharacterSet.alphanumerics.contains($0)) }.map { String(String.UnicodeScalarView($0)) }
        var out = ""
        for (index, word) in words.enumerated() {
            out += index == 0 ? word.prefix(1).lowercased() + word.dropFirst() : word.prefix(1).uppercased() + word.dropFirst()
        }
        if out.isEmpty || out.first!.isNumber { out = "recorded" + out.prefix(1).uppercased() + out.dropFirst() }
        return out
    }

    static func shellQuoted(_ word: String) -> String {
        let plain = word.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-_./:@=,".unicodeScalars.contains($0)) }
        return plain && !word.isEmpty ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// What a `//` comment may hold: one line, no control characters and no bidirectional
    /// formatting characters (which could make the code read otherwise than it runs), escaped as
    /// `rewind` escapes what it prints.
    static func commentSafe(_ text: String) -> String {
        TerminalText.escaped(text)
    }
}
