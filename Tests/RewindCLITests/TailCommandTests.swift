import Foundation
import RewindJSON
import RewindLog
import Testing
import RewindTestSupport

/// `rewind tail` against a real `rewind serve` child with an app streaming over a real socket.
@Suite("rewind tail", .ownThreads)
struct TailCommandTests {
    /// A server on a free port with its log in a fresh folder.
    struct Server {
        let dir: TemporaryDirectory
        let db: String
        let serve: ServeProcess
        let port: Int

        init(token: String? = nil, arguments: [String] = []) throws {
            dir = try TemporaryDirectory()
            db = dir.url.appendingPathComponent("rewind.db").path
            serve = try ServeProcess(["--port", "0", "--db", db, "--web", dir.url.path] + (token.map { ["--token", $0] } ?? []) + arguments)
            port = try #require(serve.port())
        }

        var url: String { "ws://127.0.0.1:\(port)/inspect" }

        /// `rewind tail SESSION` in a tmux pane 60 columns wide, waiting for the session.
        func tailPane(_ uuid: String) throws -> TmuxPane {
            let command = [CLIRunner.executable.path, "tail", uuid, "--server", url].map { "'\($0)'" }.joined(separator: " ")
            let pane = try TmuxPane(script: "\(command)\nexec sleep 600\n", in: dir, columns: 60, rows: 20)
            #expect(pane.wait(for: "waiting for session").ok)
            return pane
        }

        func cleanup() {
            serve.signal(SIGKILL)
            _ = serve.waitForExit()
            dir.cleanup()
        }
    }

    @Test("waits for a session that has not started, then prints its events in order; --json matches the log; SIGINT exits 0")
    func waitsThenFollowsJSON() throws {
        let server = try Server()
        defer { server.cleanup() }
        let uuid = UUID().uuidString
        let tail = try RunningCLI(["tail", String(uuid.prefix(13)), "--server", server.url, "--json"])
        defer { tail.stop() }
        #expect(tail.waitForError("waiting for session \(uuid.prefix(13)) to start"))

        let app = try StreamingApp(port: server.port)
        #expect(app.hello(session: uuid) == 0)
        let total: Int64 = 60
        for seq in 0..<total { app.send(TwoTypeRecording.event(seq)) }
        #expect(app.waitForAck(total - 1))
        #expect(tail.wait { out, _ in out.split(separator: "\n").count >= Int(total) })

        tail.signal(SIGINT)
        #expect(tail.waitForExit() == 0)
        let printed = try jsonLines(tail.stdout)
        #expect(printed.map { $0["seq"] } == (0..<total).map { .number(JSONNumber($0)) })
        #expect(printed.allSatisfy { $0["session"] == .string(uuid) && $0["app"] == "CLI test" })
        #expect(printed[5]["site"] == ["file": "CLITest/Counter.swift", "line": 5, "function": "tap()"])

        // Every field the log also prints is the same as `rewind log --json` says.
        let logged = try jsonLines(try CLIRunner.run(["log", uuid, "--json", "--db", server.db]).stdout)
        #expect(logged.count == Int(total))
        for (tailLine, logLine) in zip(printed, logged) {
            for key in ["seq", "at", "type", "action", "durationNs", "cause", "coalesced", "site"] {
                #expect(tailLine[key] == logLine[key], "\(key) of seq \(logLine["seq"]!)")
            }
        }
    }

    @Test("without SESSION waits for the next one; --type keeps matching actions; --diff shows old → new under each")
    func typeAndDiff() throws {
        let server = try Server()
        defer { server.cleanup() }
        let tail = try RunningCLI(["tail", "--server", server.url, "--type", "counter/*", "--diff"], environment: ["TZ": "UTC"])
        defer { tail.stop() }
        #expect(tail.waitForError("waiting for a session to start"))

        let app = try StreamingApp(port: server.port)
        #expect(app.hello(session: UUID().uuidString) == 0)
        for seq in Int64(0)..<21 { app.send(TwoTypeRecording.event(seq)) }
        #expect(app.waitForAck(20))
        // The last counter/increment is seq 19.
        let reached = tail.wait { out, _ in printedSeqs(out).last == 19 }
        #expect(reached, "stdout: \(tail.stdout)\nstderr: \(tail.stderr)")
        tail.signal(SIGTERM)
        #expect(tail.waitForExit() == 0)

        let lines = tail.stdout.split(separator: "\n").map(String.init)
        #expect(printedSeqs(tail.stdout) == Array(stride(from: Int64(1), through: 19, by: 2)))
        for seq in stride(from: Int64(1), through: 19, by: 2) {
            let header = try #require(lines.firstIndex { $0.hasPrefix("\(seq)  ") })
            let time = utcTimeOfDay(1_763_700_000 + Double(seq) / 4)
            let site = seq % 4 == 1 ? "  @ CLITest/Counter.swift:\(seq)" : ""
            #expect(lines[header] == "\(seq)  \(time)  counter/increment  {\"by\":1}\(site)")
            let before = TwoTypeRecording.state(seq - 1)["count"]!.serialized()
            let after = TwoTypeRecording.state(seq)["count"]!.serialized()
            #expect(lines[header + 1] == "    ~ /count: \(before) → \(after)")
        }
    }

    @Test("--actions prints each action's payload, whole and indented, under its line")
    func actions() throws {
        let server = try Server()
        defer { server.cleanup() }
        let tail = try RunningCLI(["tail", "--server", server.url, "--actions"], environment: ["TZ": "UTC"])
        defer { tail.stop() }
        #expect(tail.waitForError("waiting for a session to start"))
        let app = try StreamingApp(port: server.port)
        #expect(app.hello(session: UUID().uuidString) == 0)
        for seq in Int64(0)..<5 { app.send(TwoTypeRecording.event(seq)) }
        #expect(app.waitForAck(4))
        #expect(tail.wait { out, _ in printedSeqs(out).last == 4 }, "stdout: \(tail.stdout)")
        tail.signal(SIGTERM)
        #expect(tail.waitForExit() == 0)
        let lines = tail.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for seq in Int64(1)...4 {
            let header = try #require(lines.firstIndex { $0.hasPrefix("\(seq)  ") })
            let payload = TwoTypeRecording.action(seq).serialized(.pretty).split(separator: "\n").map { "    " + $0 }
            #expect(Array(lines[(header + 1)...].prefix(payload.count)) == payload, "seq \(seq)")
        }
        // The note of seq 4 is longer than a summary would show, and is printed whole.
        #expect(tail.stdout.contains("\"text\": \"note 4\""))
    }

    @Test("survives a server killed with SIGKILL and restarted on the same port: no seq twice, none missing")
    func survivesRestart() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let db = dir.url.appendingPathComponent("rewind.db").path
        let first = try ServeProcess(["--port", "0", "--db", db, "--web", dir.url.path])
        let port = try #require(first.port())
        let url = "ws://127.0.0.1:\(port)/inspect"
        let uuid = UUID().uuidString
        let tail = try RunningCLI(["tail", uuid, "--server", url])
        defer { tail.stop() }
        #expect(tail.waitForError("waiting for session"))

        let app = try StreamingApp(port: port)
        #expect(app.hello(session: uuid) == 0)
        for seq in Int64(0)..<150 { app.send(TwoTypeRecording.event(seq)) }
        #expect(app.waitForAck(100))
        #expect(tail.wait { out, _ in (printedSeqs(out).last ?? -1) >= 100 })
        first.signal(SIGKILL)
        #expect(first.waitForExit() != nil)
        #expect(tail.waitForError("lost the connection"))

        let second = try ServeProcess(["--port", String(port), "--db", db, "--web", dir.url.path])
        defer {
            second.signal(SIGKILL)
            _ = second.waitForExit()
        }
        #expect(second.port() == port)
        #expect(tail.waitForError("reconnected"))
        let resumed = try StreamingApp(port: port)
        let next = try #require(resumed.hello(session: uuid))
        let total: Int64 = 400
        for seq in next..<total { resumed.send(TwoTypeRecording.event(seq)) }
        #expect(resumed.waitForAck(total - 1))
        #expect(tail.wait { out, _ in printedSeqs(out).last == total - 1 })
        tail.signal(SIGINT)
        #expect(tail.waitForExit() == 0)
        #expect(printedSeqs(tail.stdout) == Array(0..<total))
    }

    @Test("--all follows a running session from its next event and a new one from seq 0, each line prefixed APP/UUID8")
    func all() throws {
        let server = try Server()
        defer { server.cleanup() }
        let running = UUID().uuidString
        let appA = try StreamingApp(port: server.port)
        #expect(appA.hello(session: running) == 0)
        for seq in Int64(0)..<5 { appA.send(TwoTypeRecording.event(seq)) }
        #expect(appA.waitForAck(4))

        let tail = try RunningCLI(["tail", "--all", "--server", server.url])
        defer { tail.stop() }
        #expect(tail.waitForError("following every session"))
        for seq in Int64(5)..<10 { appA.send(TwoTypeRecording.event(seq)) }
        #expect(appA.waitForAck(9))
        let started = UUID().uuidString
        let appB = try StreamingApp(port: server.port)
        #expect(appB.hello(session: started) == 0)
        for seq in Int64(0)..<5 { appB.send(TwoTypeRecording.event(seq)) }
        #expect(appB.waitForAck(4))

        /// The seqs printed for the session whose uuid starts `uuid`.
        func seqs(_ text: String, _ uuid: String) -> [Int64] {
            let prefix = "CLI test/\(uuid.prefix(8))  "
            return text.split(separator: "\n").filter { $0.hasPrefix(prefix) }.compactMap { Int64($0.dropFirst(prefix.count).prefix { $0.isNumber }) }
        }
        let done = tail.wait { out, _ in seqs(out, running).last == 9 && seqs(out, started).last == 4 }
        #expect(done, "stdout: \(tail.stdout)")
        tail.signal(SIGINT)
        #expect(tail.waitForExit() == 0)
        #expect(seqs(tail.stdout, running) == Array(5..<10))
        #expect(seqs(tail.stdout, started) == Array(0..<5))
        #expect(tail.stdout.split(separator: "\n").count == 10)
    }

    @Test("told it lagged (stopped while the app floods the server), it says so and fills the gap from the log: every seq once")
    func lagged() throws {
        let server = try Server()
        defer { server.cleanup() }
        let uuid = UUID().uuidString
        let tail = try RunningCLI(["tail", uuid, "--server", server.url, "--json"])
        defer { tail.stop() }
        #expect(tail.waitForError("waiting for session"))
        let app = try StreamingApp(port: server.port)
        #expect(app.hello(session: uuid) == 0)
        app.send(TwoTypeRecording.event(0))
        #expect(tail.waitForLines(1))

        // Stopped, tail reads nothing: the kernel's buffers fill, then the server's queue for it
        // (4,096 messages), and the server drops its live events.
        tail.signal(SIGSTOP)
        let padding = JSONValue.string(String(repeating: "x", count: 2_000))
        let total: Int64 = 12_000 // fills the 4,096-message queue
        for seq in Int64(1)..<total {
            guard case .object(var event) = TwoTypeRecording.event(seq), case .object(var action)? = event["action"] else { continue }
            action["pad"] = padding
            event["action"] = .object(action)
            app.send(.object(event))
        }
        #expect(app.waitForAck(total - 1, timeout: 120))
        tail.signal(SIGCONT)
        #expect(tail.waitForError("fell behind", timeout: 60), "stderr: \(tail.stderr)")
        let caughtUp = tail.waitForLines(Int(total), timeout: 120)
        #expect(caughtUp, "printed \(tail.lineCount) lines; stderr: \(tail.stderr)")
        tail.signal(SIGINT)
        #expect(tail.waitForExit() == 0)
        let seqs = try jsonLines(tail.stdout).map { $0["seq"] }
        #expect(seqs == (0..<total).map { .number(JSONNumber($0)) })
    }

    @Test("bad URL, nothing listening, a refused token and an unknown session each exit non-zero with one sentence")
    func errors() throws {
        let badURL = try CLIRunner.run(["tail", "--server", "tcp://127.0.0.1:1/inspect"])
        #expect(badURL.status != 0)
        #expect(badURL.stderr.contains("is not a ws:// or wss:// URL"))
        #expect(badURL.stderr.split(separator: "\n").count == 1)

        // A port nobody listens on, held so that no other test's server is given it meanwhile.
        let reserved = try ReservedPort()
        defer { reserved.release() }
        let closedPort = reserved.port
        let nothing = try CLIRunner.run(["tail", "--server", "ws://127.0.0.1:\(closedPort)/inspect"])
        #expect(nothing.status == 1)
        #expect(nothing.stderr.hasPrefix("cannot connect to ws://127.0.0.1:\(closedPort)/inspect"))
        #expect(nothing.stderr.split(separator: "\n").count == 1)

        let guarded = try Server(token: "right-token")
        defer { guarded.cleanup() }
        let refused = try CLIRunner.run(["tail", "--server", guarded.url, "--token", "wrong-token"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("refused the connection"))
        #expect(refused.stderr.split(separator: "\n").count == 1)
        let noToken = try CLIRunner.run(["tail", "--server", guarded.url], environment: ["REWIND_TOKEN": ""])
        #expect(noToken.stderr.contains("give --token or set REWIND_TOKEN"))
        // The right token, from the environment, is let in.
        let admitted = try RunningCLI(["tail", "--all", "--server", guarded.url], environment: ["REWIND_TOKEN": "right-token"])
        defer { admitted.stop() }
        #expect(admitted.waitForError("following every session"))
        admitted.signal(SIGTERM)
        #expect(admitted.waitForExit() == 0)

        let server = try Server()
        defer { server.cleanup() }
        let unknown = try CLIRunner.run(["tail", "999", "--server", server.url])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("unknown-session") || unknown.stderr.contains("no session"))
        #expect(unknown.stderr.split(separator: "\n").count == 1)
    }

    @Test("on a terminal, lines are cut to its width with …")
    func terminalWidth() throws {
        let server = try Server()
        defer { server.cleanup() }
        let uuid = UUID().uuidString
        let pane = try server.tailPane(uuid)
        defer { pane.kill() }
        let app = try StreamingApp(port: server.port)
        #expect(app.hello(session: uuid) == 0)
        app.send(TwoTypeRecording.event(0))
        guard case .object(var event) = TwoTypeRecording.event(1), case .object(var action)? = event["action"] else { return }
        action["long"] = .string(String(repeating: "abc", count: 40))
        event["action"] = .object(action)
        app.send(.object(event))
        let shown = pane.wait { $0.contains { $0.hasPrefix("1  ") } }
        #expect(shown.ok, "\(shown.lines.joined(separator: "\n"))")
        let line = try #require(shown.lines.first { $0.hasPrefix("1  ") })
        #expect(line.count == 60)
        #expect(line.hasSuffix("…"))
        #expect(line.contains("counter/increment"))
    }
}

/// `HH:mm:ss.SSS` in UTC, as tail prints a time with `TZ=UTC`.
func utcTimeOfDay(_ seconds: Double) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "HH:mm:ss.SSS"
    return formatter.string(from: Date(timeIntervalSince1970: seconds))
}

extension TailCommandTests {
    @Test("a session already live is said at once, with its seq, in both forms; one whose app went is said interrupted (issue 41)")
    func alreadyLiveIsSaid() throws {
        let server = try Server()
        defer { server.cleanup() }
        let uuid = UUID().uuidString
        let app = try StreamingApp(port: server.port)
        #expect(app.hello(session: uuid) == 0)
        for seq in Int64(0)..<5 { app.send(TwoTypeRecording.event(seq)) }
        #expect(app.waitForAck(4))
        for arguments in [["tail", "--server", server.url], ["tail", "1", "--server", server.url]] {
            let tail = try RunningCLI(arguments)
            #expect(tail.waitForError("rewind tail: following session \(uuid) (CLI test), live, at seq 4"), "\(arguments): \(tail.stderr)")
            tail.stop()
        }
        app.client.close(code: .normal)
        #expect(app.waitForClose())
        // The server lets the session go once it has read the close: asked until it has.
        let interrupted = "rewind tail: following session \(uuid) (CLI test), interrupted (no app holds it now), at seq 4"
        var said = ""
        #expect(waitUntil(timeout: .seconds(30)) {
            guard let later = try? RunningCLI(["tail", "1", "--server", server.url]) else { return false }
            defer { later.stop() }
            _ = later.waitForError("rewind tail: following session")
            said = later.stderr
            return said.contains(interrupted)
        }, "\(said)")
    }
}
