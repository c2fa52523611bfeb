import Foundation
import RewindJSON
import Testing
import RewindTestSupport

/// The full-screen `rewind replay`, driven in a real terminal (tmux) with keys and signals.
@Suite("rewind replay (interactive, in tmux)", .serialized, .ownThreads)
struct ReplayInteractiveTests {
    /// Runs `rewind replay ARGS` in a tmux pane; after it exits the script saves `stty -a`,
    /// prints the exit status and stays alive so the pane can be read.
    struct Session {
        let fixture: LogFixture
        let pane: TmuxPane
        let sttyPath: String
        let pidPath: String

        init(_ arguments: [String], fixture: LogFixture, columns: Int = 120, rows: Int = 40) throws {
            self.fixture = fixture
            sttyPath = fixture.directory.url.appendingPathComponent("stty-\(UUID().uuidString).txt").path
            pidPath = fixture.directory.url.appendingPathComponent("pid-\(UUID().uuidString).txt").path
            let command = ([CLIRunner.executable.path, "replay"] + arguments + ["--db", fixture.path]).map { "'\($0)'" }.joined(separator: " ")
            let script = """
            export TZ=UTC
            sh -c 'echo $$ > "$0"; exec "$@"' '\(pidPath)' \(command)
            rc=$?
            stty -a > '\(sttyPath)'
            echo "replay exited $rc"
            exec sleep 600
            """
            pane = try TmuxPane(script: script, in: fixture.directory, columns: columns, rows: rows)
        }

        /// The stty settings saved after replay exited, once the file is complete.
        func sttySettings() -> String {
            pane.wait(for: "replay exited")
            return (try? String(contentsOfFile: sttyPath, encoding: .utf8)) ?? ""
        }

        var pid: Int32? {
            (try? String(contentsOfFile: pidPath, encoding: .utf8)).flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
    }

    static let keysLine = "↑↓/jk step"

    /// The list column of the body rows (the text left of `│`).
    static func listRows(_ lines: [String]) -> [String] {
        lines.compactMap { line in
            guard let bar = line.firstIndex(of: "│") else { return nil }
            let left = line[..<bar].trimmingCharacters(in: .whitespaces)
            return left.isEmpty ? nil : left
        }
    }

    /// `rewind diff S@A S@B` output lines, each as the diff pane shows it (after `│ `).
    static func diffLines(_ fixture: LogFixture, _ from: Int, _ to: Int) throws -> [String] {
        try fixture.run(["diff", "1@\(from)", "1@\(to)"]).stdout.split(separator: "\n").map(String.init)
    }

    /// Whether every line of `expected` shows in the right pane.
    static func paneShows(_ lines: [String], _ expected: [String]) -> Bool {
        expected.allSatisfy { want in lines.contains { $0.contains("│ " + want) } }
    }

    @Test("steps with j/k, jumps with ':', filters with 'f', redraws on resize, and q leaves the terminal clean")
    func stepJumpFilterResizeQuit() throws {
        let fixture = try LogFixture()
        defer { fixture.cleanup() }
        let session = try Session(["1"], fixture: fixture)
        defer { session.pane.kill() }
        let pane = session.pane

        let start = pane.wait { lines in lines.contains { $0.contains(Self.keysLine) } && lines.contains { $0.contains("the initial state") } }
        #expect(start.ok, "first screen: \(start.lines.joined(separator: "\n"))")
        #expect(Self.listRows(start.lines).count == LogFixture.counterStates.count)

        // j: forward to seq 1, whose diff is what `rewind diff 1@0 1@1` prints.
        pane.send(["j"])
        let one = try Self.diffLines(fixture, 0, 1)
        let stepped = pane.wait { $0.first?.contains("seq 1 ") == true && Self.paneShows($0, ["diff 0 → 1"] + one) }
        #expect(stepped.ok, "after j: \(stepped.lines.joined(separator: "\n"))")
        pane.send(["j", "j", "k"])
        let two = try Self.diffLines(fixture, 1, 2)
        let back = pane.wait { $0.first?.contains("seq 2 ") == true && Self.paneShows($0, ["diff 1 → 2"] + two) }
        #expect(back.ok, "after jjk: \(back.lines.joined(separator: "\n"))")

        // ':' + seq jumps there.
        pane.send([":"])
        pane.send(["6"], literal: true)
        pane.send(["Enter"])
        let six = try Self.diffLines(fixture, 5, 6)
        let jumped = pane.wait { $0.first?.contains("seq 6 ") == true && Self.paneShows($0, ["diff 5 → 6"] + six) }
        #expect(jumped.ok, "after :6: \(jumped.lines.joined(separator: "\n"))")

        // 'f' + glob keeps only the matching types.
        pane.send(["f"])
        pane.send(["todo/*"], literal: true)
        pane.send(["Enter"])
        let filtered = pane.wait { lines in
            let rows = Self.listRows(lines)
            return !rows.isEmpty && rows.allSatisfy { $0.contains(" todo/") }
        }
        #expect(filtered.ok, "after f todo/*: \(filtered.lines.joined(separator: "\n"))")
        let todoCount = LogFixture.counterActions.filter { $0["type"]?.stringValue?.hasPrefix("todo/") == true }.count
        #expect(Self.listRows(filtered.lines).count == todoCount)

        // A smaller window: the screen is redrawn to fit it, keys on the last row.
        pane.resize(columns: 80, rows: 20)
        let resized = pane.wait { lines in
            lines.count == 20 && lines[19].hasPrefix(Self.keysLine) && lines.allSatisfy { $0.count <= 80 } && lines[0].contains("seq ")
        }
        #expect(resized.ok, "after resize: \(resized.lines.joined(separator: "\n"))")

        pane.send(["q"])
        let settings = session.sttySettings()
        let after = pane.wait(for: "replay exited 0")
        #expect(after.ok, "after q: \(after.lines.joined(separator: "\n"))")
        #expect(!after.lines.contains { $0.contains(Self.keysLine) }, "the main screen is back")
        let flags = settings.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
        #expect(flags.contains("icanon") && flags.contains("echo") && flags.contains("isig"), "stty after q: \(settings)")
    }

    @Test("'/' searches the actions, 'p' shows the value at a pointer, tab goes back to the diff, space plays to the end")
    func searchPointerPlay() throws {
        let fixture = try LogFixture()
        defer { fixture.cleanup() }
        let session = try Session(["1"], fixture: fixture)
        defer { session.pane.kill() }
        let pane = session.pane
        #expect(pane.wait(for: Self.keysLine).ok)

        // The first action mentioning "milk" (case-insensitive), found from the log, not written out.
        let milk = try #require(LogFixture.counterActions.firstIndex { $0.serialized().lowercased().contains("milk") })
        pane.send(["/"])
        pane.send(["MILK"], literal: true)
        pane.send(["Enter"])
        let found = pane.wait { $0.first?.contains("seq \(milk) ") == true }
        #expect(found.ok, "after /MILK: \(found.lines.joined(separator: "\n"))")

        pane.send(["p"])
        pane.send(["/user/name"], literal: true)
        pane.send(["Enter"])
        let value = try fixture.run(["state", "1@\(milk)", "--path", "/user/name"]).stdout.trimmingCharacters(in: .newlines)
        let pointer = pane.wait { Self.paneShows($0, ["state after \(milk) at /user/name", value]) }
        #expect(pointer.ok, "after p /user/name: \(pointer.lines.joined(separator: "\n"))")

        pane.send(["Tab"])
        let diff = try Self.diffLines(fixture, milk - 1, milk)
        let back = pane.wait { Self.paneShows($0, ["diff \(milk - 1) → \(milk)"] + diff) }
        #expect(back.ok, "after tab: \(back.lines.joined(separator: "\n"))")

        // Playing at the top speed reaches the last seq and stops there.
        for _ in 0..<8 { pane.send(["+"]) }
        pane.send(["Space"])
        let last = LogFixture.counterStates.count - 1
        let played = pane.wait { $0.first?.contains("seq \(last) ") == true && $0.contains { $0.contains("end of the recording") } }
        #expect(played.ok, "after space: \(played.lines.joined(separator: "\n"))")
        pane.send(["q"])
        #expect(pane.wait(for: "replay exited 0").ok)
    }

    @Test("Ctrl-C and SIGTERM both restore the terminal", arguments: ["C-c", "SIGTERM"])
    func interruptRestores(way: String) throws {
        let fixture = try LogFixture()
        defer { fixture.cleanup() }
        let session = try Session(["latest"], fixture: fixture)
        defer { session.pane.kill() }
        #expect(session.pane.wait(for: Self.keysLine).ok)
        if way == "SIGTERM" {
            let pid = try #require(session.pid)
            kill(pid, SIGTERM)
        } else {
            session.pane.send(["C-c"])
        }
        let settings = session.sttySettings()
        let after = session.pane.wait(for: "replay exited")
        #expect(after.ok)
        #expect(!after.lines.contains { $0.contains(Self.keysLine) })
        let flags = settings.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
        #expect(flags.contains("icanon") && flags.contains("echo"), "stty after \(way): \(settings)")
    }

    @Test("an error while reading the log restores the terminal, then says so in one sentence and exits 2")
    func readerErrorRestores() throws {
        let fixture = try LogFixture()
        defer { fixture.cleanup() }
        // Session 2's keyframe at seq 50 is damaged: the list loads, the state after 60 (rebuilt
        // from that keyframe, the nearest; the next is at 100) does not.
        try fixture.corrupt("UPDATE keyframes SET state = 'not json' WHERE session_id = 2 AND seq = 50")
        let session = try Session(["2"], fixture: fixture, columns: 250)
        defer { session.pane.kill() }
        #expect(session.pane.wait(for: Self.keysLine).ok)
        session.pane.send([":"])
        session.pane.send(["60"], literal: true)
        session.pane.send(["Enter"])
        let settings = session.sttySettings()
        let after = session.pane.wait(for: "replay exited 2")
        #expect(after.ok, "after the error: \(after.lines.joined(separator: "\n"))")
        #expect(!after.lines.contains { $0.contains(Self.keysLine) })
        let exitRow = try #require(after.lines.firstIndex { $0.contains("replay exited 2") })
        let message = after.lines[..<exitRow].filter { !$0.isEmpty }
        #expect(message.count == 1, "one sentence: \(message)")
        #expect(message.first?.contains("not valid JSON") == true, "\(message)")
        let flags = settings.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
        #expect(flags.contains("icanon") && flags.contains("echo"))
    }
}
