import Foundation
import RewindJSON
import RewindLog
import RewindServer
import RewindWire
import Testing
import RewindTestSupport
import RewindSupport

@Suite("Inspectors on /inspect", .ownThreads)
struct InspectorTests {
    /// A server with one session of `count` events, streamed by an app that stays connected.
    static func recorded(_ count: Int64, configure: (inout RewindServerConfiguration) -> Void = { _ in }) throws
        -> (ServerFixture, JSONClient, String, Recording) {
        let fixture = try ServerFixture(configure: configure)
        let uuid = UUID().uuidString
        var recording = Recording()
        let (app, _) = try fixture.helloApp(uuid)
        for event in recording.events(0..<count) { app.send(event) }
        guard app.waitForAck(count - 1) else { throw FixtureError(description: "no ack") }
        return (fixture, app, uuid, recording)
    }

    @Test("sessions lists the log's sessions with live set for connected apps")
    func sessions() throws {
        let (fixture, app, uuid, _) = try Self.recorded(5)
        let inspector = try JSONClient.inspector(port: fixture.port)
        inspector.send(["type": "sessions", "id": 1])
        let reply = try #require(inspector.waitForReply(id: 1))
        #expect(reply["type"] == "sessions")
        let sessions = try #require(reply["sessions"]?.arrayValue)
        #expect(sessions.count == 1)
        #expect(sessions.first?["uuid"]?.stringValue == uuid)
        #expect(sessions.first?["live"] == true)
        #expect(sessions.first?["eventCount"] == 5)
        app.close()
        inspector.close()
    }

    @Test("subscribe streams live events and session changes")
    func subscribeLive() throws {
        let fixture = try ServerFixture()
        let inspector = try JSONClient.inspector(port: fixture.port)
        inspector.send(["type": "subscribe", "id": 1, "session": "*"])
        #expect(inspector.waitForReply(id: 1)?["session"] == "*")
        let uuid = UUID().uuidString
        var recording = Recording()
        let (app, _) = try fixture.helloApp(uuid)
        let events = recording.events(0..<20)
        for event in events { app.send(event) }
        #expect(inspector.state.wait(timeout: 30) { state in state.messages.filter { $0["type"] == "event" }.count == 20 })
        let live = inspector.messages(ofType: "event")
        #expect(live.map { $0["seq"]?.int64 ?? -1 } == Array(0..<20))
        #expect(live.allSatisfy { $0["session"]?.stringValue == uuid && $0["actionType"] != nil })
        #expect(live[0]["keyframe"] != nil)
        #expect(live[5]["patch"] == events[5]["patch"])
        #expect(inspector.messages(ofType: "session").first?["change"] == "started")
        app.close()
        #expect(inspector.waitFor { $0["type"] == "session" && $0["change"] == "ended" } != nil)
        inspector.close()
    }

    @Test("subscribing to one session leaves out the others")
    func subscribeOne() throws {
        let (fixture, app, uuid, _) = try Self.recorded(1)
        let inspector = try JSONClient.inspector(port: fixture.port)
        inspector.send(["type": "subscribe", "id": 1, "session": .string(String(uuid.prefix(8)))])
        #expect(inspector.waitForReply(id: 1)?["session"]?.stringValue == uuid)
        var other = Recording()
        let (otherApp, _) = try fixture.helloApp(UUID().uuidString)
        otherApp.send(other.event(0))
        #expect(otherApp.waitForAck(0))
        var recording = Recording()
        _ = recording.event(0)
        app.send(recording.event(1))
        #expect(inspector.waitFor { $0["type"] == "event" } != nil)
        #expect(inspector.messages(ofType: "event").map { $0["session"]?.stringValue } == [uuid])
        inspector.send(["type": "subscribe", "id": 2, "session": "no-such-session"])
        #expect(inspector.waitForReply(id: 2)?["code"] == "unknown-session")
        app.close()
        otherApp.close()
        inspector.close()
    }

    @Test("events pages, state with a path, diff and blame")
    func queries() throws {
        let (fixture, app, uuid, recording) = try Self.recorded(30)
        let inspector = try JSONClient.inspector(port: fixture.port)
        inspector.send(["type": "events", "id": 1, "session": "latest", "from": 0, "limit": 10])
        let page = try #require(inspector.waitForReply(id: 1))
        let events = try #require(page["events"]?.arrayValue)
        #expect(events.map { $0["seq"]?.int64 ?? -1 } == Array(0..<10))
        #expect(page["next"] == 10)
        #expect(events[0]["keyframe"] == ["count": 0, "items": []])
        #expect(events[3]["actionType"] == "add")
        #expect(page["session"]?.stringValue == uuid)

        inspector.send(["type": "events", "id": 2, "session": "latest", "from": 25, "limit": 10])
        let last = try #require(inspector.waitForReply(id: 2))
        #expect(last["events"]?.arrayValue?.count == 5)
        #expect(last["next"] == .null)

        inspector.send(["type": "state", "id": 3, "session": .string(uuid), "seq": 29])
        let state = try #require(inspector.waitForReply(id: 3))
        #expect(state["value"] == recording.state)
        #expect(state["hash"]?.stringValue == wireHash(recording.state.stableHash))

        inspector.send(["type": "state", "id": 4, "session": .string(uuid), "seq": 7, "path": "/count"])
        #expect(inspector.waitForReply(id: 4)?["value"] == 7)
        inspector.send(["type": "state", "id": 5, "session": .string(uuid), "seq": 7, "path": "/nowhere"])
        #expect(inspector.waitForReply(id: 5)?["exists"] == false)
        inspector.send(["type": "state", "id": 6, "session": .string(uuid), "seq": 900])
        #expect(inspector.waitForReply(id: 6)?["code"] == "unknown-seq")

        inspector.send(["type": "diff", "id": 7, "session": .string(uuid), "from": 3, "to": 5])
        let diff = try #require(inspector.waitForReply(id: 7))
        var before = try #require(inspector.waitForReply(id: 3)?["value"])
        before = ["count": 3, "items": .array(Array(before["items"]!.arrayValue!.prefix(3)))]
        let patch = try JSONPatch(json: try #require(diff["patch"]))
        #expect(try patch.apply(to: before)["count"] == 5)

        inspector.send(["type": "blame", "id": 8, "session": .string(uuid), "path": "/count"])
        let blame = try #require(inspector.waitForReply(id: 8))
        let entries = try #require(blame["entries"]?.arrayValue)
        #expect(entries.count == 30)
        #expect(entries[4]["before"] == 3)
        #expect(entries[4]["after"] == 4)

        inspector.sendRaw("{broken")
        #expect(inspector.waitFor { $0["type"] == "error" && $0["code"] == "bad-json" } != nil)
        app.close()
        inspector.close()
    }

    @Test("find answers with the hits a walk of the session gives; a bad condition is one sentence")
    func find() throws {
        let (fixture, app, uuid, _) = try Self.recorded(30)
        let inspector = try JSONClient.inspector(port: fixture.port)
        // count is the seq: it passes 20 at seq 21 and stays there.
        inspector.send(["type": "find", "id": 1, "session": .string(uuid), "path": "/count", "gt": 20])
        let above = try #require(inspector.waitForReply(id: 1))
        #expect(above["hits"]?.arrayValue?.map { $0["seq"] } == [21])
        #expect(above["hits"]?.arrayValue?.first?["value"] == 21)
        #expect(above["hits"]?.arrayValue?.first?["event"] == "starts")
        #expect(above["complete"] == true && above["lastSeq"] == 29 && above["scannedThrough"] == 29)
        inspector.send(["type": "find", "id": 2, "session": .string(uuid), "path": "/count", "changed": true, "limit": 5])
        let changed = try #require(inspector.waitForReply(id: 2))
        #expect(changed["hits"]?.arrayValue?.map { $0["seq"] } == [1, 2, 3, 4, 5])
        #expect(changed["complete"] == false && changed["stoppedBecause"] == "it reached 5 hits")
        inspector.send(["type": "find", "id": 3, "session": .string(uuid), "path": "/count", "lt": 5, "all": true])
        #expect(try #require(inspector.waitForReply(id: 3))["hits"]?.arrayValue?.map { $0["event"] } == ["starts", "stops"])
        for (id, request) in [(4, ["type": "find", "session": .string(uuid), "path": "/count"] as JSONObject),
                              (5, ["type": "find", "session": .string(uuid), "path": "/count", "exists": true, "missing": true]),
                              (6, ["type": "find", "session": .string(uuid), "path": "/count", "matches": "("]),
                              (7, ["type": "find", "session": .string(uuid), "path": "/count", "exists": true, "limit": 5_000]),
                              (8, ["type": "find", "session": .string(uuid), "path": "count", "exists": true])] {
            var request = request
            request["id"] = .number(JSONNumber(Int64(id)))
            inspector.send(.object(request))
            let reply = try #require(inspector.waitForReply(id: id))
            #expect(reply["code"] == "bad-message", "request \(id): \(reply)")
            #expect((reply["message"]?.stringValue ?? "").count > 10)
        }
        inspector.send(["type": "find", "id": 9, "session": "no-such", "path": "/count", "exists": true])
        #expect(inspector.waitForReply(id: 9)?["code"] == "unknown-session")
        // The server still answers.
        inspector.send(["type": "sessions", "id": 10])
        #expect(inspector.waitForReply(id: 10)?["sessions"] != nil)
        app.close()
        inspector.close()
    }

    @Test("a command goes to the app and its result comes back")
    func commandRelay() throws {
        let (fixture, app, uuid, _) = try Self.recorded(3)
        let received = Condition<[JSONValue]>([])
        app.onMessage = { message, connection in
            guard message["type"] == "command", let id = message["id"] else { return }
            received.update { $0.append(message) }
            _ = connection.send(text: AppMessage.result(AppMessage.CommandResult(id: id, ok: true, message: "jumped")).json.serialized(.compact))
        }
        let inspector = try JSONClient.inspector(port: fixture.port)
        inspector.send(["type": "command", "id": 11, "session": .string(uuid), "kind": "jump", "seq": 1])
        let reply = try #require(inspector.waitForReply(id: 11))
        #expect(reply["type"] == "command")
        #expect(reply["ok"] == true)
        #expect(reply["message"] == "jumped")
        let relayed = try #require(received.value.first)
        #expect(relayed["kind"] == "jump")
        #expect(relayed["state"]?["count"] == 1)
        #expect(relayed["session"] == nil)
        #expect(relayed["id"] != 11)
        app.close()
        inspector.close()
    }

    @Test("a command for a session without an app is app-offline")
    func appOffline() throws {
        let (fixture, app, uuid, _) = try Self.recorded(2)
        let inspector = try JSONClient.inspector(port: fixture.port)
        #expect(inspector.ready())
        app.close()
        // The ended push goes out once the server has let the app go.
        #expect(inspector.waitFor { $0["type"] == "session" && $0["change"] == "ended" } != nil)
        inspector.send(["type": "command", "id": 1, "session": .string(uuid), "kind": "pause"])
        #expect(inspector.waitForReply(id: 1)?["code"] == "app-offline")
        inspector.close()
    }

    @Test("--read-only runs beside the log's writer: it answers queries, refuses commands and apps; a second writer is refused at start")
    func readOnly() throws {
        let (fixture, app, uuid, _) = try Self.recorded(2)
        let beside = try ServerFixture { $0.logPath = fixture.logPath; $0.readOnly = true }
        let inspector = try JSONClient.inspector(port: beside.port)
        inspector.send(["type": "sessions", "id": 1])
        let sessions = inspector.waitForReply(id: 1)?["sessions"]?.arrayValue ?? []
        #expect(sessions.compactMap { $0["uuid"]?.stringValue } == [uuid])
        inspector.send(["type": "command", "id": 2, "session": .string(uuid), "kind": "pause"])
        #expect(inspector.waitForReply(id: 2)?["code"] == "read-only")
        // An app that reaches the read-only server is told so; nothing is stored there.
        let stray = try JSONClient.app(port: beside.port)
        stray.send(hello(UUID().uuidString))
        let refusal = stray.waitFor { $0["type"] == "error" }
        #expect(refusal?["code"] == "read-only", "\(String(describing: refusal))")
        // A second writing server on the same log does not start.
        do {
            _ = try ServerFixture { $0.logPath = fixture.logPath }
            Issue.record("a second writing server started on \(fixture.logPath)")
        } catch {
            #expect("\(error)".contains("\(fixture.logPath) is already being written by another process (pid \(getpid()): "), "\(error)")
        }
        // The writer still takes events.
        var recording = Recording()
        _ = recording.events(0..<2)
        app.send(recording.event(2))
        #expect(app.waitForAck(2))
        stray.close()
        app.close()
        inspector.close()
    }
}
