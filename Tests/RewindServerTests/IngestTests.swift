import Foundation
import RewindJSON
import RewindLog
import RewindReplay
import RewindServer
import RewindWire
import Testing
import RewindTestSupport
import RewindSupport

@Suite("Ingest on /app", .ownThreads)
struct IngestTests {
    @Test("events are stored exactly once, acked only once durable, and verify")
    func streamsEvents() throws {
        let fixture = try ServerFixture()
        let uuid = UUID().uuidString
        let (app, next) = try fixture.helloApp(uuid)
        #expect(next == 0)
        let reader = try fixture.reader()
        // Each ack must find its event already in the log, read through a connection of our own.
        let violations = Condition<[Int64]>([])
        app.onMessage = { message, _ in
            guard message["type"] == "ack", let seq = message["seq"]?.int64 else { return }
            let session = try? reader.session(named: uuid)
            if (session?.lastSeq ?? -1) < seq { violations.update { $0.append(seq) } }
        }
        var recording = Recording()
        for event in recording.events(0..<300) { app.send(event) }
        #expect(app.waitForAck(299))
        #expect(violations.value.isEmpty)
        let session = try reader.session(named: uuid)
        #expect(session.eventCount == 300)
        #expect(session.lastSeq == 299)
        let report = try Timeline(reader: reader, session: session.id).verify()
        #expect(report.passed)
        #expect(try Timeline(reader: reader, session: session.id).state(at: 299) == recording.state)
        #expect(app.messages(ofType: "error").isEmpty)
        app.close()
    }

    @Test("a reconnecting app resumes at nextSeq; resent events are acked and dropped")
    func resumes() throws {
        let fixture = try ServerFixture()
        let uuid = UUID().uuidString
        var recording = Recording()
        let events = recording.events(0..<80)
        let (first, next) = try fixture.helloApp(uuid)
        #expect(next == 0)
        for event in events[0..<50] { first.send(event) }
        #expect(first.waitForAck(49))
        first.close()

        let (second, resumed) = try fixture.helloApp(uuid)
        #expect(resumed == 50)
        // The app resends a few it was not sure of, then carries on.
        for event in events[40..<80] { second.send(event) }
        #expect(second.waitForAck(79))
        #expect(second.messages(ofType: "error").isEmpty)
        let reader = try fixture.reader()
        let session = try reader.session(named: uuid)
        #expect(session.eventCount == 80)
        let stored = try reader.events(session: session.id).map(\.seq)
        #expect(stored == Array(0..<80))
        #expect(try Timeline(reader: reader, session: session.id).verify().passed)
        second.close()
    }

    @Test("a coalesced event with an empty patch is stored as skipped")
    func coalescedEmptyPatch() throws {
        let fixture = try ServerFixture()
        let uuid = UUID().uuidString
        var recording = Recording()
        let (app, _) = try fixture.helloApp(uuid)
        for event in recording.events(0..<3) { app.send(event) }
        let skipped = AppMessage.event(WireEvent(seq: 3, at: 1_763_700_001, action: ["type": "tick"], patch: [],
                                                 hash: recording.state.stableHash, coalesced: true)).json
        app.send(skipped)
        #expect(app.waitForAck(3))
        let reader = try fixture.reader()
        let stored = try #require(try reader.event(session: try reader.session(named: uuid).id, seq: 3))
        #expect(stored.coalesced)
        #expect(stored.patch == [])
        #expect(stored.hash == recording.state.stableHash)
        app.close()
    }

    @Test("the session ends with end")
    func endsSession() throws {
        let fixture = try ServerFixture()
        let uuid = UUID().uuidString
        var recording = Recording()
        let inspector = try JSONClient.inspector(port: fixture.port)
        #expect(inspector.ready())
        let (app, _) = try fixture.helloApp(uuid)
        for event in recording.events(0..<2) { app.send(event) }
        app.send(["type": "end", "id": 9])
        #expect(app.waitForAck(1))
        // The ended push goes out after the end is recorded.
        let ended = inspector.waitFor { $0["type"] == "session" && $0["change"] == "ended" }
        #expect(ended?["session"]?["live"] == false)
        #expect(try fixture.reader().session(named: uuid).endedAt != nil)
        app.close()
        inspector.close()
    }

    @Test("end's at is the session's end time, held between its start and the server's clock")
    func endKeepsTheAppsTime() throws {
        let fixture = try ServerFixture()
        let started = Date().timeIntervalSince1970 - 3_600
        // (claimed end, what is stored): the device's time; before the start; in the future; none.
        let cases: [(JSONValue?, (Double) -> Bool)] = [
            (JSONNumber(started + 60.5).map(JSONValue.number), { abs($0 - (started + 60.5)) < 0.001 }),
            (JSONNumber(started - 500).map(JSONValue.number), { abs($0 - started) < 0.001 }),
            (JSONNumber(started + 86_400 * 400).map(JSONValue.number), { $0 <= Date().timeIntervalSince1970 && $0 > started + 3_000 }),
            (nil, { $0 > started + 3_000 && $0 <= Date().timeIntervalSince1970 }),
        ]
        for (claimed, check) in cases {
            let uuid = UUID().uuidString
            var recording = Recording()
            let app = try JSONClient.app(port: fixture.port)
            app.send(AppMessage.hello(AppMessage.Hello(id: 1, session: uuid, app: "Tests", startedAt: started)).json)
            #expect(app.waitFor { $0["type"] == "welcome" } != nil)
            for event in recording.events(0..<2) { app.send(event) }
            var end: JSONObject = ["type": "end", "id": 9]
            if let claimed { end["at"] = claimed }
            app.send(.object(end))
            #expect(app.waitForAck(1))
            var endedAt: Date?
            #expect(waitUntil { endedAt = try? fixture.reader().session(named: uuid).endedAt; return endedAt != nil })
            let stored = try #require(endedAt).timeIntervalSince1970
            #expect(check(stored), "claimed \(String(describing: claimed)), stored \(stored), started \(started)")
            app.close()
        }
    }

    @Test("a replay's hello names the session it replays; the log and inspectors keep the link")
    func helloCarriesReplayOf() throws {
        let fixture = try ServerFixture()
        let original = UUID().uuidString
        let replay = UUID().uuidString
        let (first, _) = try fixture.helloApp(original)
        let app = try JSONClient.app(port: fixture.port)
        app.send(AppMessage.hello(AppMessage.Hello(id: 2, session: replay, app: "Tests", replayOf: original)).json)
        #expect(app.waitFor { $0["type"] == "welcome" } != nil)
        let reader = try fixture.reader()
        #expect(try reader.session(named: replay).replayOf == original)
        #expect(try reader.session(named: original).replayOf == nil)
        let inspector = try JSONClient.inspector(port: fixture.port)
        #expect(inspector.ready())
        inspector.send(["type": "sessions", "id": 5])
        let sessions = inspector.waitFor { $0["type"] == "sessions" }?["sessions"]?.arrayValue ?? []
        #expect(sessions.first { $0["uuid"]?.stringValue == replay }?["replayOf"]?.stringValue == original)
        app.close()
        first.close()
        inspector.close()
    }
}

@Suite("Commands an app could not read", .ownThreads)
struct OversizedCommandTests {
    @Test("a jump to a state past what apps read (16 MiB) is refused up front with one sentence and never sent (issue 38)")
    func jumpPastTheAppsLimit() throws {
        let fixture = try ServerFixture()
        let uuid = UUID().uuidString
        var recording = Recording()
        let (app, _) = try fixture.helloApp(uuid)
        for event in recording.events(0..<2) { app.send(event) }
        // Seq 2 replaces /last with 17 MiB of text: the state at seq 2 is past the apps' limit.
        app.send(recording.replacing(2, payload: String(repeating: "s", count: 17 << 20)))
        app.send(recording.replacing(3, payload: "small again"))
        #expect(app.waitForAck(3, timeout: 60))
        let inspector = try JSONClient.inspector(port: fixture.port)
        #expect(inspector.ready())
        inspector.send(["type": "command", "id": 7, "session": .string(uuid), "kind": "jump", "seq": 2])
        let refused = inspector.waitForReply(id: 7, timeout: 60)
        #expect(refused?["type"] == "error" && refused?["code"] == "command-failed", "\(String(describing: refused))")
        #expect(refused?["message"]?.stringValue?.contains("16 MiB") == true, "\(String(describing: refused))")
        // A jump that fits still goes, and it is the first command the app sees.
        inspector.send(["type": "command", "id": 8, "session": .string(uuid), "kind": "jump", "seq": 3])
        let relayed = app.waitFor(timeout: 30) { $0["type"] == "command" }
        #expect(relayed?["kind"] == "jump" && relayed?["seq"] == 3, "\(String(describing: relayed))")
        app.close()
        inspector.close()
    }
}

@Suite("Names that no log keeps", .ownThreads)
struct NULNameTests {
    @Test("a hello whose session, app, run or replayOf holds U+0000 is refused by name, and no session row is left (issue 38)", arguments: ["session", "app", "run", "replayOf"])
    func refused(member: String) throws {
        let fixture = try ServerFixture()
        let uuid = UUID().uuidString
        var hello: JSONObject = ["type": "hello", "id": 1, "session": .string(uuid), "app": "Tests", "run": "r1"]
        hello[member] = .string(member == "session" ? uuid + "\u{0}x" : "a\u{0}b")
        let app = try JSONClient.app(port: fixture.port)
        app.send(.object(hello))
        let refused = app.waitFor { $0["type"] == "error" || $0["type"] == "welcome" }
        #expect(refused?["type"] == "error" && refused?["code"] == "bad-message", "\(String(describing: refused))")
        #expect(refused?["message"] == .string("hello: \"\(member)\" must be a string without U+0000"), "\(String(describing: refused))")
        #expect(try fixture.reader().sessions().isEmpty)
        app.close()
    }
}
