import Foundation
import RewindJSON
import RewindServer
import RewindWire
import Testing

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
            // 40 events of 1 MB each: more than a connection's inbox holds (32 MiB), so reading the
            // flood is paused and resumed along the way.
            let filler = String(repeating: "f", count: 1 << 20)
            var state = flood.state
            for seq in Int64(1)...40 {
                let patch = JSONPatch([.replace(path: HostileInput.HostileStateTests.pointer("/n"), value: .number(JSONNumber(seq)))])
                try state.apply(patch)
                flood.client.send(AppMessage.event(WireEvent(seq: seq, at: 1_763_700_001, action: ["type": "flood", "filler": .string(filler)],
                                                             patch: patch.json, hash: state.stableHash)).json)
            }
            #expect(flood.client.waitForAck(1, timeout: 60))
            // Another app starts while the flood is being stored.
            let (other, _) = try fixture.helloApp(UUID().uuidString)
            defer { other.close() }
            var recording = Recording()
            other.send(recording.event(0))
            #expect(other.waitForAck(0, timeout: 60))
            let floodAckedThen = flood.client.highestAck
            #expect(floodAckedThen < 40, "the other app's first ack came only after the whole flood (\(floodAckedThen))")
            // Nothing of the flood is lost.
            #expect(flood.client.waitForAck(40, timeout: 120))
            try check.expectHealthy(alsoAcked: (flood.uuid, 40))
            #expect(try fixture.reader().session(named: flood.uuid).lastSeq == 40)
        }
    }
}
