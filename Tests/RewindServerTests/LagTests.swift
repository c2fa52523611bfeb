import Foundation
import RewindJSON
import RewindServer
import RewindWebSocket
import RewindWire
import Testing
import RewindTestSupport

@Suite("Fan-out and lag", .ownThreads)
struct LagTests {
    @Test("nine inspectors get every event; one that never reads is told lagged and slows nobody")
    func tenInspectors() throws {
        let fixture = try ServerFixture { $0.queueLimits = WebSocketQueueLimits(maxMessages: 4_096, maxBytes: 1 << 20) }
        var readers: [JSONClient] = []
        for _ in 0..<9 {
            let inspector = try JSONClient.inspector(port: fixture.port)
            inspector.send(["type": "subscribe", "id": 1, "session": "*"])
            #expect(inspector.waitForReply(id: 1) != nil)
            readers.append(inspector)
        }
        let slow = try RawSocket(port: fixture.port, receiveBuffer: 4096)
        #expect(try slow.upgrade(path: "/inspect", port: fixture.port, subprotocol: InspectorRequest.subprotocol).status == 101)
        try slow.sendText(#"{"type":"subscribe","id":1,"session":"*"}"#)
        // The subscribe reply proves the slow one is subscribed; then it stops reading.
        _ = slow.read { String(decoding: $0, as: UTF8.self).contains(#""type":"subscribe""#) }

        let count: Int64 = 5_000
        var recording = Recording()
        let (app, _) = try fixture.helloApp(UUID().uuidString)
        let payload = String(repeating: "p", count: 2_000)
        app.send(recording.event(0))
        // In windows of 100 unacked events, as an app's recorder would keep them: the readers
        // stay well inside their queues, the one that never reads does not.
        for seq in 1..<count {
            if seq % 100 == 0 { #expect(app.waitForAck(seq - 100)) }
            app.send(recording.replacing(seq, payload: payload))
        }
        #expect(app.waitForAck(count - 1, timeout: 60))
        for inspector in readers {
            #expect(inspector.state.wait(timeout: 30) { $0.eventCount == Int(count) })
            #expect(inspector.messages(ofType: "lagged").isEmpty)
        }
        // Now it reads: its queue drains and `lagged` follows what was queued.
        let received = slow.read(timeout: 30) { String(decoding: $0.suffix(512), as: UTF8.self).contains(#""type":"lagged""#) }
        let text = String(decoding: received, as: UTF8.self)
        #expect(text.contains(#""type":"lagged""#))
        #expect(text.components(separatedBy: #""type":"event""#).count - 1 < Int(count))
        app.close()
        for inspector in readers { inspector.close() }
    }
}
