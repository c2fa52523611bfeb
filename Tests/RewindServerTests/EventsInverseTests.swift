import Foundation
import RewindJSON
import RewindServer
import Testing
import RewindTestSupport

@Suite("Events pages carry inverses", .ownThreads)
struct EventsInverseTests {
    @Test("each event's inverse takes its state back to the one before")
    func inverses() throws {
        let fixture = try ServerFixture()
        let (app, _) = try fixture.helloApp(UUID().uuidString)
        var recording = Recording()
        var states: [JSONValue] = []
        for seq in Int64(0)..<12 {
            app.send(recording.event(seq, payload: "p\(seq)"))
            states.append(recording.state)
        }
        #expect(app.waitForAck(11))
        let inspector = try JSONClient.inspector(port: fixture.port)
        inspector.send(["type": "events", "id": 7, "session": "latest", "from": 0, "limit": 50])
        let reply = try #require(inspector.waitForReply(id: 7))
        guard case .array(let events)? = reply["events"] else {
            Issue.record("no events in \(reply)")
            return
        }
        #expect(events.count == 12)
        #expect(events.first?["inverse"] == nil)
        #expect(events.first?["keyframe"] == states[0])
        for (index, event) in events.enumerated().dropFirst() {
            let inverse = try JSONPatch(json: try #require(event["inverse"]))
            #expect(try inverse.apply(to: states[index]) == states[index - 1])
            let patch = try JSONPatch(json: try #require(event["patch"]))
            #expect(try patch.apply(to: states[index - 1]) == states[index])
        }
    }
}
