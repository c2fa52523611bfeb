import Foundation
import RewindJSON
import RewindWire
import Testing
@testable import RewindCLI
import RewindTestSupport

/// What an app recorded reaches the terminal escaped (control characters made visible) and cut
/// by display columns (wide characters count two).
@Suite("rewind tail and replay: terminal-safe text", .ownThreads)
struct TerminalTextTests {
    /// Event 1 of the two-type recording with `type` as its action type.
    static func event1(type: String) -> JSONValue {
        let after = TwoTypeRecording.state(1)
        return AppMessage.event(WireEvent(seq: 1, at: 1_763_700_000.25, action: ["type": .string(type), "by": 1],
                                          patch: [["op": "replace", "path": "/count", "value": after["count"]!]],
                                          hash: after.stableHash)).json
    }

    @Test("an action type with ESC [2J and a newline prints escaped on one line, piped from tail and from replay")
    func controlCharactersEscaped() throws {
        let server = try TailCommandTests.Server()
        defer { server.cleanup() }
        let uuid = UUID().uuidString
        let tail = try RunningCLI(["tail", uuid, "--server", server.url])
        defer { tail.stop() }
        #expect(tail.waitForError("waiting for session"))
        let app = try StreamingApp(port: server.port)
        #expect(app.hello(session: uuid) == 0)
        app.send(TwoTypeRecording.event(0))
        app.send(Self.event1(type: "evil\u{1B}[2J\nsecond line\u{7}"))
        #expect(app.waitForAck(1))
        let escaped = "evil\\e[2J\\nsecond line\\u0007"

        #expect(tail.waitForLines(2), "stdout: \(tail.stdout)")
        tail.signal(SIGINT)
        #expect(tail.waitForExit() == 0)
        let tailLines = tail.stdout.split(separator: "\n").map(String.init)
        #expect(tailLines.count == 2, "stdout: \(tail.stdout)")
        #expect(tailLines.last?.hasPrefix("1  ") == true)
        #expect(tailLines.last?.contains("  \(escaped)  {\"by\":1}") == true, "stdout: \(tail.stdout)")
        #expect(!tail.stdout.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })

        let replay = try CLIRunner.run(["replay", uuid, "--db", server.db], environment: ["NO_COLOR": "1"])
        #expect(replay.status == 0, "stderr: \(replay.stderr)")
        let header = replay.stdout.split(separator: "\n").first { $0.hasPrefix("1  ") }
        #expect(header?.contains("  \(escaped)  {\"by\":1}") == true, "stdout: \(replay.stdout)")
        #expect(!replay.stdout.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
        // The event's change follows its header directly: the type did not break the line.
        let lines = replay.stdout.split(separator: "\n").map(String.init)
        let index = try #require(lines.firstIndex { $0.hasPrefix("1  ") })
        #expect(lines[index + 1].hasPrefix("  ~ /count: "))
    }

    @Test("on a terminal, a line of wide characters is cut to the width in columns, not characters")
    func wideCharactersFit() throws {
        let server = try TailCommandTests.Server()
        defer { server.cleanup() }
        let uuid = UUID().uuidString
        let pane = try server.tailPane(uuid)
        defer { pane.kill() }
        let app = try StreamingApp(port: server.port)
        #expect(app.hello(session: uuid) == 0)
        app.send(TwoTypeRecording.event(0))
        app.send(Self.event1(type: "wide/" + String(repeating: "漢", count: 40)))
        #expect(app.waitForAck(1))
        let shown = pane.wait { $0.contains { $0.hasPrefix("1  ") } }
        #expect(shown.ok, "\(shown.lines.joined(separator: "\n"))")
        let row = try #require(shown.lines.firstIndex { $0.hasPrefix("1  ") })
        // Counted in characters the line would be 59 of them, most two columns wide: it would
        // wrap, and its row would not end with the ellipsis.
        #expect(shown.lines[row].hasSuffix("…"), "\(shown.lines.joined(separator: "\n"))")
        #expect(row + 1 >= shown.lines.count || !shown.lines[row + 1].contains("漢"))
    }

    @Test("full-screen replay shows an action type with ESC [2J and a newline escaped, and keeps its frame")
    func fullScreenEscaped() throws {
        let server = try TailCommandTests.Server()
        defer { server.cleanup() }
        let uuid = UUID().uuidString
        let app = try StreamingApp(port: server.port)
        #expect(app.hello(session: uuid) == 0)
        app.send(TwoTypeRecording.event(0))
        app.send(Self.event1(type: "evil\u{1B}[2J\nsecond line"))
        #expect(app.waitForAck(1))

        let command = [CLIRunner.executable.path, "replay", uuid, "--db", server.db].map { "'\($0)'" }.joined(separator: " ")
        let pane = try TmuxPane(script: "\(command)\nexec sleep 600\n", in: server.dir, columns: 100, rows: 20)
        defer { pane.kill() }
        // Step to seq 1 so its heading shows in the right pane too.
        #expect(pane.wait(for: ReplayInteractiveTests.keysLine).ok)
        pane.send(["j"])
        let escaped = "evil\\e[2J\\nsecond line"
        let shown = pane.wait { lines in lines.filter { $0.contains(escaped) }.count >= 2 && lines.first?.contains("CLI test") == true
            && lines.contains { $0.contains("seq 1") } }
        #expect(shown.ok, "\(shown.lines.joined(separator: "\n"))")
        // The list row and the pane's heading, one row each; the title row is still on top.
        #expect(shown.lines.filter { $0.contains(escaped) }.count == 2)
        #expect(!shown.lines.contains { $0.hasPrefix("second line") })
    }

    // MARK: the rule itself

    @Test("escaped: C0 controls, DEL, C1 controls and the bidi formatting characters become visible escapes", arguments: [
        ("\u{1B}[2J", "\\e[2J"), ("a\nb\rc\td", "a\\nb\\rc\\td"), ("\u{0}", "\\u0000"), ("\u{7}", "\\u0007"),
        ("\u{1F}", "\\u001f"), ("\u{7F}", "\\u007f"), ("\u{80}", "\\u0080"), ("\u{85}", "\\u0085"), ("\u{9B}31m", "\\u009b31m"),
        ("\u{9F}", "\\u009f"), ("\u{061C}", "\\u061c"), ("\u{200E}", "\\u200e"), ("\u{200F}", "\\u200f"),
        ("\u{202A}", "\\u202a"), ("\u{202B}", "\\u202b"), ("\u{202C}", "\\u202c"), ("\u{202D}", "\\u202d"),
        ("\u{202E}evil", "\\u202eevil"), ("\u{2066}", "\\u2066"), ("\u{2067}", "\\u2067"), ("\u{2068}", "\\u2068"),
        ("\u{2069}", "\\u2069"),
    ])
    func escapesEachControl(text: String, expected: String) {
        #expect(TerminalText.escaped(text) == expected)
        // Escaping what is escaped changes nothing: the escapes are plain characters.
        #expect(TerminalText.escaped(expected) == expected)
    }

    @Test("escaped: plain text, backslashes and the neighbours of the escaped ranges are left as they are")
    func leavesTheRest() {
        for text in ["user/rename", #"a\b \e"#, "é漢😀", " ~", "\u{A0}", "\u{061B}\u{061D}", "\u{200B}\u{200C}\u{200D}", "\u{2010}",
                     "\u{2028}\u{2029}", "\u{202F}", "\u{2065}", "\u{206A}", "\u{FEFF}"] {
            #expect(TerminalText.escaped(text) == text, "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }

    @Test("escapedLines keeps line breaks and escapes the rest of each line")
    func escapedLines() {
        #expect(TerminalText.escapedLines("one \u{1B}[2J\ntwo \u{202E}\n") == "one \\e[2J\ntwo \\u202e\n")
        #expect(TerminalText.escapedLines("\r\n") == "\\r\n")
    }

    @Test("tables escape every cell but the styled columns, and align the escaped text")
    func tableCells() {
        let rows = [["A", "B", "C"], ["\u{1B}[2J", "\u{9B}x", ANSI.green + "ok" + ANSI.reset]]
        let text = OutputFormat.table(rows, styled: [2])
        #expect(text == "A      B        C\n\\e[2J  \\u009bx  \(ANSI.green)ok\(ANSI.reset)\n")
    }

    @Test("a generated test's comment holds no control or bidi character")
    func commentSafe() {
        #expect(TestCommand.commentSafe("app \u{1B}[2J\n\u{202E}x") == "app \\e[2J\\n\\u202ex")
    }

    @Test("export on a terminal: the stream escapes as JSON wherever the chunks are cut, and the value is the same")
    func jsonStream() throws {
        let payload = "\u{1B}[2J\u{1B}]0;PWNED\u{07}\u{9B}31m\u{85}\u{202E}evil\u{7F}😀é"
        let value: JSONValue = ["type": .string(payload), "list": [.string(payload)]]
        let text = Array((value.serialized() + "\n" + value.serialized() + "\n").utf8)
        var whole = TerminalJSONStream()
        let expected = whole.filter(text) + whole.finish()
        #expect(String(decoding: expected, as: UTF8.self).contains(#"\u001b[2J\u001b]0;PWNED\u0007\u009b31m\u0085\u202eevil\u007f😀é"#))
        #expect(try jsonLines(String(decoding: expected, as: UTF8.self)) == [value, value])
        #expect(!String(decoding: expected, as: UTF8.self).unicodeScalars.contains { $0 != "\n" && TerminalText.needsEscape($0) })
        // Cut anywhere, even inside a character: the same bytes come out.
        for cut in 0...text.count {
            var stream = TerminalJSONStream()
            let out = stream.filter(Array(text[..<cut])) + stream.filter(Array(text[cut...])) + stream.finish()
            #expect(out == expected, "cut at \(cut)")
        }
        // One byte at a time.
        var bytewise = TerminalJSONStream()
        #expect(text.flatMap { bytewise.filter([$0]) } + bytewise.finish() == expected)
    }
}
