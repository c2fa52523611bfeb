import Foundation
import RewindJSON
import RewindWire
import Testing
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
        let command = [CLIRunner.executable.path, "tail", uuid, "--server", server.url].map { "'\($0)'" }.joined(separator: " ")
        let pane = try TmuxPane(script: "\(command)\nexec sleep 600\n", in: server.dir, columns: 60, rows: 20)
        defer { pane.kill() }
        #expect(pane.wait(for: "waiting for session").ok)
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
}
