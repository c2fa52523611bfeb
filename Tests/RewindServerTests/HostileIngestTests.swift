import Foundation
import RewindJSON
import RewindServer
import RewindWire
import Testing
import RewindSupport
import RewindTestSupport

/// Issue 13, repro 8: one app's flood must not stall another app. Against a real server, then
/// the ``HealthCheck``.
extension HostileInput {
    @Suite("Hostile ingest")
    struct HostileIngestTests {
        @Test("repro 8: a flood of large events from one app delays another app's ack by about one event, and loses nothing")
        func floodDoesNotStallOthers() throws {
            let fixture = try ServerFixture()
            let check = try HealthCheck(fixture)
            let flood = try HostileInput.HostileStateTests.App(fixture, initial: ["n": 0])
            // The other app says hello first, so that only its event waits on the flood.
            let (other, _) = try fixture.helloApp(UUID().uuidString)
            defer { other.close() }
            // 60 events of 1 MB each: more than a connection's inbox holds (32 MiB), so reading the
            // flood is paused and resumed along the way.
            let filler = String(repeating: "f", count: 1 << 20)
            // When the other app's first ack arrives, how far the flood's acks have come.
            let floodAckedThen = Condition<Int64?>(nil)
            let floodClient = flood.client
            other.onMessage = { json, _ in
                guard json["type"] == "ack", json["seq"] == 0 else { return }
                let acked = floodClient.highestAck
                floodAckedThen.update { if $0 == nil { $0 = acked } }
            }
            var recording = Recording()
            var state = flood.state
            for seq in Int64(1)...60 {
                let patch = JSONPatch([.replace(path: HostileInput.HostileStateTests.pointer("/n"), value: .number(JSONNumber(seq)))])
                try state.apply(patch)
                flood.client.sendWaitingForRoom(AppMessage.event(WireEvent(seq: seq, at: 1_763_700_001, action: ["type": "flood", "filler": .string(filler)],
                                                             patch: patch.json, hash: state.stableHash)).json)
                // The other app's first event goes out in the middle of the flood, while 30 MB of
                // it are still to be sent, read and stored (waiting for the flood's first ack could
                // wait for all of it: acks are cumulative, and one committed batch may hold the
                // whole flood).
                if seq == 30 { other.send(recording.event(0)) }
            }
            #expect(other.waitForAck(0, timeout: 60))
            let acked = try #require(floodAckedThen.value)
            #expect(acked < 60, "the other app's first ack came only after the whole flood (\(acked))")
            // Nothing of the flood is lost.
            #expect(flood.client.waitForAck(60, timeout: 120))
            try check.expectHealthy(alsoAcked: (flood.uuid, 60))
            #expect(try fixture.reader().session(named: flood.uuid).lastSeq == 60)
        }
    }
}
