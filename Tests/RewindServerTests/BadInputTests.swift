import Foundation
import RewindJSON
import RewindLog
import RewindServer
import RewindWebSocket
import RewindWire
import Testing
import RewindTestSupport

@Suite("Bad input on /app", .ownThreads)
struct BadInputTests {
    struct Case: Sendable, CustomStringConvertible {
        var description: String
        var code: String
        var frame: @Sendable (inout Recording) -> String
    }

    static let cases: [Case] = [
        Case(description: "seq gap", code: "seq-gap") { recording in
            var copy = recording
            _ = copy.event(3)
            return copy.event(4).serialized(.compact)
        },
        Case(description: "patch that does not apply", code: "patch-failed") { recording in
            AppMessage.event(WireEvent(seq: 3, at: 1, action: ["type": "bad"], patch: [["op": "remove", "path": "/nowhere"]],
                                       hash: recording.state.stableHash)).json.serialized(.compact)
        },
        Case(description: "hash mismatch", code: "hash-mismatch") { recording in
            AppMessage.event(WireEvent(seq: 3, at: 1, action: ["type": "bad"], patch: [["op": "replace", "path": "/count", "value": 99]],
                                       hash: 12345)).json.serialized(.compact)
        },
        Case(description: "keyframe not JSON", code: "bad-json") { _ in
            #"{"type":"event","seq":3,"at":1,"action":{"type":"x"},"keyframe":{"count":,"#
        },
        Case(description: "malformed JSON", code: "bad-json") { _ in "{not json" },
        Case(description: "unknown type", code: "unknown-type") { _ in #"{"type":"frobnicate","id":4}"# },
        Case(description: "missing member", code: "bad-message") { _ in #"{"type":"event","seq":3}"# },
        Case(description: "not an object", code: "bad-message") { _ in "[1,2,3]" },
    ]

    @Test("is refused with its code, stores nothing and keeps the connection", arguments: cases)
    func refused(_ badCase: Case) throws {
        let fixture = try ServerFixture()
        let uuid = UUID().uuidString
        var recording = Recording()
        let (app, _) = try fixture.helloApp(uuid)
        for event in recording.events(0..<3) { app.send(event) }
        #expect(app.waitForAck(2))
        app.sendRaw(badCase.frame(&recording))
        let error = app.waitFor { $0["type"] == "error" }
        #expect(error?["code"]?.stringValue == badCase.code)
        let message = error?["message"]?.stringValue ?? ""
        #expect(!message.isEmpty)
        // Still up: the next good event is stored.
        app.send(recording.event(3))
        #expect(app.waitForAck(3))
        #expect(app.state.value.closeCode == nil)
        let reader = try fixture.reader()
        let session = try reader.session(named: uuid)
        #expect(session.eventCount == 4)
        #expect(try reader.events(session: session.id).map(\.seq) == [0, 1, 2, 3])
        app.close()
    }

    @Test("an event before hello is refused with hello-first")
    func helloFirst() throws {
        let fixture = try ServerFixture()
        let app = try JSONClient.app(port: fixture.port)
        var recording = Recording()
        app.send(recording.event(0))
        #expect(app.waitFor { $0["type"] == "error" }?["code"] == "hello-first")
        #expect(try fixture.reader().sessions().isEmpty)
        app.close()
    }

    @Test("a peer that keeps breaking the protocol is closed with 1008")
    func persistentErrors() throws {
        let fixture = try ServerFixture()
        let app = try JSONClient.app(port: fixture.port)
        for _ in 0..<10 { app.sendRaw("nope") }
        #expect(app.state.wait(timeout: 30) { $0.closeCode != nil })
        #expect(app.state.value.closeCode == .policyViolation)
        #expect(app.messages(ofType: "error").count == 10)
    }

    @Test("an oversized message closes with 1009 and stores nothing")
    func oversized() throws {
        // On /app the limit is the larger of --max-message and --max-state + 1 MiB.
        let fixture = try ServerFixture {
            $0.maxMessageSize = 64 * 1024
            $0.maxStateSize = 64 * 1024
        }
        let uuid = UUID().uuidString
        var recording = Recording()
        let (app, _) = try fixture.helloApp(uuid)
        app.send(recording.event(0))
        #expect(app.waitForAck(0))
        app.send(recording.event(1, payload: String(repeating: "y", count: (1 << 20) + 100 * 1024)))
        #expect(app.state.wait(timeout: 30) { $0.closeCode != nil })
        #expect(app.state.value.closeCode == .messageTooLarge)
        let reader = try fixture.reader()
        #expect(try reader.session(named: uuid).eventCount == 1)
    }
}
