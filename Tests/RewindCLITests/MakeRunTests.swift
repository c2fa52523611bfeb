import Foundation
import RewindJSON
import Testing
import RewindTestSupport

/// `make run`'s script (.ci/run-demo.sh) on a free port: a real `rewind serve`, a real
/// `rewind demo` streaming to it, an inspector watching, jumping and resuming, then SIGINT.
@Suite("make run", .ownThreads)
struct MakeRunTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The number after `prefix` in `text`.
    static func number(after prefix: String, in text: String) -> Int? {
        guard let range = text.range(of: prefix) else { return nil }
        return Int(text[range.upperBound...].prefix { $0.isNumber })
    }

    /// The state log's lines for one session.
    static func stateLines(_ path: String, session: String) -> [JSONValue] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { try? JSONValue(parsing: Array($0.utf8)) }
            .filter { $0["session"] == .string(session) }
    }

    static func waitUntil(timeout: Double = 60, _ condition: () -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while !condition() {
            if Date() > deadline { return false }
            usleep(20_000)
        }
        return true
    }

    @Test("streams the four apps live to an inspector, obeys jump and resume, and stops cleanly on SIGINT")
    func liveStream() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let db = dir.url.appendingPathComponent("rewind.db").path
        let states = dir.url.appendingPathComponent("states.jsonl").path
        let script = Self.repository.appendingPathComponent(".ci/run-demo.sh").path
        let run = try OutputProcess("/bin/bash", [script, "--rate", "20", "--seed", "5", "--state-log", states], environment: [
            "PORT": "0", "REWIND_BIN": CLIRunner.executable.path, "REWIND_DB": db, "HOME": dir.url.path,
        ])
        defer {
            // A failed run must not leave a server or a demo behind.
            if run.isRunning {
                for pid in [Self.number(after: "rewind demo pid ", in: run.text), Self.number(after: "rewind serve pid ", in: run.text)] {
                    if let pid { kill(pid_t(pid), SIGINT) }
                }
                kill(run.pid, SIGKILL)
            }
        }
        #expect(run.waitForOutput { $0.contains("run-demo: inspector at") && $0.components(separatedBy: "  session ").count == 5 },
                "\(run.text)")
        let text = run.text
        let port = try #require(Self.number(after: "run-demo: inspector at http://127.0.0.1:", in: text))
        let serverPID = try #require(Self.number(after: "rewind serve pid ", in: text))
        let demoPID = try #require(Self.number(after: "rewind demo pid ", in: text))
        let sessions = DemoCommandTests.sessions(in: text)
        #expect(Set(sessions.keys) == ["images", "users", "breweries", "orders"])

        let inspector = try DemoInspector(port: port)
        defer { inspector.close() }
        inspector.send(["type": "subscribe", "id": 1, "session": "*"])
        #expect(inspector.wait { $0["id"] == 1 }?["type"] == "subscribe")
        // Live events from every app arrive while they run.
        for (app, uuid) in sessions {
            let live = inspector.wait { $0["type"] == "event" && $0["session"] == .string(uuid) && $0["seq"] != 0 }
            #expect(live != nil, "no live event from \(app)")
        }

        // Jump the images app to seq 1 (loading, before any picture) once it has moved past it.
        // (Past it, not at seq 3 exactly: the app may have passed seq 3 before the subscription.)
        let images = try #require(sessions["images"])
        #expect(inspector.wait {
            $0["type"] == "event" && $0["session"] == .string(images) && ($0["seq"]?.numberValue?.int64Value ?? 0) >= 3
        } != nil)
        // Live events fan out before the log commits them: ask until seq 1 is there.
        var recordedHash: JSONValue?
        for attempt in 0..<100 where recordedHash == nil {
            inspector.send(["type": "state", "id": .number(JSONNumber(100 + attempt)), "session": .string(images), "seq": 1])
            recordedHash = inspector.wait { $0["id"] == .number(JSONNumber(100 + attempt)) }?["hash"]
            if recordedHash == nil { usleep(50_000) }
        }
        let hash = try #require(recordedHash)
        inspector.send(["type": "command", "id": 3, "session": .string(images), "kind": "jump", "seq": 1])
        let jumped = inspector.wait { $0["id"] == 3 }
        #expect(jumped?["ok"] == true, "\(String(describing: jumped))")
        #expect(Self.waitUntil { Self.stateLines(states, session: images).last?["locked"] == true })
        #expect(Self.stateLines(states, session: images).last?["hash"] == hash)

        inspector.send(["type": "command", "id": 4, "session": .string(images), "kind": "resume"])
        #expect(inspector.wait { $0["id"] == 4 }?["ok"] == true)
        #expect(Self.waitUntil { Self.stateLines(states, session: images).last?["locked"] == false })
        let afterResume = Self.stateLines(states, session: images).last?["hash"]
        #expect(afterResume != hash)

        kill(run.pid, SIGINT)
        #expect(run.waitForExit(timeout: 60) == 0, "\(run.text)")
        #expect(run.text.contains("rewind demo: stopped"))
        #expect(run.text.contains("rewind serve: stopped"))
        #expect(run.text.contains("run-demo: stopped (demo exit 0, server exit 0)"))
        // Nothing is left running.
        for pid in [serverPID, demoPID] {
            #expect(kill(pid_t(pid), 0) == -1 && errno == ESRCH, "pid \(pid) is still there")
        }
        // Every session reached the log whole and was ended.
        let verify = try CLIRunner.run(["verify", "--db", db])
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
        let listed = try CLIRunner.run(["sessions", "--db", db, "--json"])
        let rows = try listed.stdout.split(separator: "\n").map { try JSONValue(parsing: Array($0.utf8)) }
        for uuid in sessions.values {
            let row = rows.first { $0["uuid"] == .string(uuid) }
            #expect(row != nil && row?["endedAt"] != nil && row?["endedAt"] != .null, "\(String(describing: row))")
        }
    }
}
