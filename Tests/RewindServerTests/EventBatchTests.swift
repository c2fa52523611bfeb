import Foundation
import RewindJSON
import RewindLog
import RewindReplay
import RewindServer
import RewindWire
import Testing
import RewindTestSupport

/// An `events` frame holding `events` (each an `event` message, written without its `type`).
func batch(_ events: [JSONValue]) -> JSONValue {
    ["type": "events", "events": .array(events.map { event in
        guard case .object(var members) = event else { return event }
        members["type"] = nil
        return .object(members)
    })]
}

@Suite("Event batches and limits on /app", .ownThreads)
struct EventBatchTests {
    @Test("a batch is taken like its events one by one: stored once, acked by the highest seq, pushed to inspectors one by one")
    func batchesStoreAndFanOut() throws {
        let fixture = try ServerFixture()
        let inspector = try JSONClient.inspector(port: fixture.port)
        defer { inspector.close() }
        inspector.send(["type": "subscribe", "id": 1, "session": "*"])
        #expect(inspector.waitForReply(id: 1) != nil)
        let uuid = UUID().uuidString
        let (app, _) = try fixture.helloApp(uuid)
        defer { app.close() }
        var recording = Recording()
        let events = recording.events(0..<300)
        for start in stride(from: 0, to: 300, by: 100) { app.send(batch(Array(events[start..<start + 100]))) }
        #expect(app.waitForAck(299))
        #expect(app.messages(ofType: "error").isEmpty)
        // Acks are cumulative, one per commit, and a batch is handed to the writer whole.
        #expect(app.messages(ofType: "ack").count <= 3)
        #expect(inspector.state.wait(timeout: 30) { $0.eventCount == 300 })
        let pushed = inspector.messages(ofType: "event")
        #expect(pushed.compactMap { $0["seq"]?.int64 } == Array(0..<300))
        #expect(pushed.allSatisfy { $0["session"] == .string(uuid) && $0["actionType"] != nil })
        #expect(pushed[7]["patch"] == events[7]["patch"])

        let reader = try fixture.reader()
        let session = try reader.session(named: uuid)
        #expect(session.eventCount == 300)
        #expect(try Timeline(reader: reader, session: session.id).verify().passed)
        #expect(try Timeline(reader: reader, session: session.id).state(at: 299) == recording.state)
    }

    @Test("a refused event stops its batch there with its own error; the events before it stand")
    func refusalStopsTheBatch() throws {
        let fixture = try ServerFixture()
        let uuid = UUID().uuidString
        let (app, _) = try fixture.helloApp(uuid)
        defer { app.close() }
        var recording = Recording()
        var events = recording.events(0..<6)
        let good3 = events[3]
        guard case .object(var wrong) = events[3] else { Issue.record("not an object"); return }
        wrong["hash"] = "0000000000000001"
        events[3] = .object(wrong)
        app.send(batch(events))
        let error = try #require(app.waitFor { $0["type"] == "error" })
        #expect(error["code"] == "hash-mismatch")
        #expect(error["message"]?.stringValue?.hasPrefix("event 3:") == true)
        #expect(app.waitForAck(2))
        // Event 4 and 5 were not looked at: one error, not three seq-gaps.
        let reader = try fixture.reader()
        #expect(try reader.session(named: uuid).lastSeq == 2)
        #expect(app.messages(ofType: "error").count == 1)

        // An element that is not an event: the ones before it stand, the message names it.
        var rest = [good3, events[4], events[5]]
        rest[1] = ["seq": 4, "at": 1, "action": "x", "patch": []]
        app.send(batch(rest))
        #expect(app.state.wait(timeout: 30) { $0.messages.filter { $0["type"] == "error" }.count == 2 })
        let broken = app.messages(ofType: "error")[1]
        #expect(broken["code"] == "bad-message")
        #expect(broken["message"]?.stringValue?.hasPrefix("events[1]") == true, "\(broken)")
        #expect(app.waitForAck(3))

        app.send(batch([events[4], events[5]]))
        #expect(app.waitForAck(5))
        for bad: JSONValue in [["type": "events", "events": []], ["type": "events"], ["type": "events", "events": [1]]] {
            app.send(bad)
        }
        #expect(app.state.wait(timeout: 30) { $0.messages.filter { $0["type"] == "error" }.count == 5 })
        #expect(app.messages(ofType: "error").dropFirst(2).allSatisfy { $0["code"] == "bad-message" })
        let session = try reader.session(named: uuid)
        #expect(session.lastSeq == 5)
        #expect(try Timeline(reader: reader, session: session.id).verify().passed)
    }

    @Test("a batch resent after a reconnect is acked once, not once per event")
    func resentBatchAckedOnce() throws {
        let fixture = try ServerFixture()
        let uuid = UUID().uuidString
        let (app, _) = try fixture.helloApp(uuid)
        defer { app.close() }
        var recording = Recording()
        let events = recording.events(0..<21)
        app.send(batch(Array(events[0..<20])))
        #expect(app.waitForAck(19))
        let before = app.messages(ofType: "ack").count
        app.send(batch(Array(events[0..<20])))
        app.send(events[20])
        #expect(app.waitForAck(20))
        // One ack for the whole resent batch, one for event 20.
        #expect(app.state.wait(timeout: 30) { $0.messages.filter { $0["type"] == "ack" }.count >= before + 2 })
        #expect(app.messages(ofType: "ack").count == before + 2)
        #expect(app.messages(ofType: "error").isEmpty)
    }

    @Test("welcome states the limits; /app reads a message past --max-message within --max-state + 1 MiB, /inspect does not")
    func appMessageLimitFromTheStateLimit() throws {
        let fixture = try ServerFixture {
            $0.maxMessageSize = 64 * 1024
            $0.maxStateSize = 512 * 1024
        }
        #expect(fixture.server.configuration.appMessageLimit == 512 * 1024 + (1 << 20))
        let uuid = UUID().uuidString
        let app = try JSONClient.app(port: fixture.port)
        defer { app.close() }
        app.send(hello(uuid))
        let welcome = try #require(app.waitFor { $0["type"] == "welcome" })
        #expect(welcome["maxMessage"]?.int64 == Int64(512 * 1024 + (1 << 20)))
        #expect(welcome["maxState"]?.int64 == Int64(512 * 1024))
        #expect(try ServerToApp(json: welcome) == .welcome(id: 1, session: uuid, nextSeq: 0,
                                                           limits: WireLimits(maxMessage: 512 * 1024 + (1 << 20), maxState: 512 * 1024)))

        var recording = Recording()
        app.send(recording.event(0))
        // 400 KiB: over --max-message, within the state limit.
        app.send(recording.replacing(1, payload: String(repeating: "y", count: 400 * 1024)))
        #expect(app.waitForAck(1))
        #expect(app.state.value.closeCode == nil)

        let inspector = try JSONClient.inspector(port: fixture.port)
        defer { inspector.close() }
        #expect(inspector.ready())
        inspector.send(["type": "sessions", "id": 1, "padding": .string(String(repeating: "z", count: 100 * 1024))])
        #expect(inspector.state.wait(timeout: 30) { $0.closeCode != nil })
        #expect(inspector.state.value.closeCode == .messageTooLarge)
    }
}
