import Foundation
import RewindJSON
import RewindServer
import RewindWire
import Testing
import RewindSupport
import RewindTestSupport

/// After a service pass that read little, the server checks the events it read on its socket
/// thread instead of waking the ingest queue (issue 42, the steady-rate cost). Only cheap events
/// go there: these tests hold it to that, and to the order of what it hands on.
@Suite("Ingest on the service thread", .ownThreads)
struct ServiceThreadIngestTests {
    typealias App = HostileInput.HostileStateTests.App

    /// The next `count` events of `app`, each setting `/n`, with their hashes worked out before
    /// any is sent (so that they leave back to back).
    static func events(of app: App, count: Int) throws -> [JSONValue] {
        var state = app.state
        var messages: [JSONValue] = []
        for seq in app.next..<(app.next + Int64(count)) {
            let patch = JSONPatch([.replace(path: HostileInput.HostileStateTests.pointer("/n"), value: .number(JSONNumber(seq)))])
            try state.apply(patch)
            messages.append(AppMessage.event(WireEvent(seq: seq, at: 1_763_700_001, action: ["type": "set"],
                                                       patch: patch.json, hash: state.stableHash)).json)
        }
        return messages
    }

    @Test("events on a large state are checked off the socket thread: a question asked meanwhile is answered before they are all pushed")
    func largeStateLeavesTheSocketThread() throws {
        let fixture = try ServerFixture()
        let inspector = try JSONClient.inspector(port: fixture.port)
        defer { inspector.close() }
        inspector.send(["type": "subscribe", "id": 1, "session": "*"])
        #expect(inspector.waitForReply(id: 1)?["session"] == "*")
        // Each event's check hashes the whole 4 MB state: tens of milliseconds each.
        let app = try App(fixture, initial: ["n": 0, "big": .string(String(repeating: "b", count: 4 << 20))])
        defer { app.client.close() }
        let count = 30
        let first = app.next
        for event in try Self.events(of: app, count: count) { app.client.send(event) }
        // Once the first of them is pushed, checking is under way, with the rest read (they left
        // back to back) or coming: a question now finds the socket thread free, unless it is
        // the one checking them.
        #expect(inspector.waitFor(timeout: 120) { $0["type"] == "event" && $0["seq"]?.int64 == first } != nil)
        inspector.send(["type": "sessions", "id": 2])
        let last = first + Int64(count) - 1
        #expect(inspector.waitFor(timeout: 120) { $0["type"] == "event" && $0["seq"]?.int64 == last } != nil)
        #expect(inspector.waitForReply(id: 2, timeout: 60) != nil)
        let order = inspector.state.value.messages
        let answered = try #require(order.firstIndex { $0["id"] == 2 })
        let lastPush = try #require(order.firstIndex { $0["type"] == "event" && $0["seq"]?.int64 == last })
        #expect(answered < lastPush, "the question was answered only after every event on the large state was checked")
        #expect(app.client.waitForAck(last, timeout: 60))
    }

    @Test("a burst past the socket thread's budget goes on on the ingest queue: every event stored and pushed once, in order")
    func burstPastTheBudgetKeepsOrder() throws {
        let fixture = try ServerFixture()
        let inspector = try JSONClient.inspector(port: fixture.port)
        defer { inspector.close() }
        inspector.send(["type": "subscribe", "id": 1, "session": "*"])
        #expect(inspector.waitForReply(id: 1)?["session"] == "*")
        // A 48 KB state is cheap enough for the socket thread, and six of its events fill what one
        // pass may check there: each group of twenty below (ten of each app), read in one small
        // pass, leaves the rest to the queue mid-round.
        let app = try App(fixture, initial: ["n": 0, "text": .string(String(repeating: "t", count: 48 << 10))])
        defer { app.client.close() }
        // A second app, cheap too, streams beside it: the two take turns in each round.
        let other = try App(fixture, initial: ["n": 0])
        defer { other.client.close() }
        let count = 200
        let first = try Self.events(of: app, count: count), second = try Self.events(of: other, count: count)
        for group in stride(from: 0, to: count, by: 10) {
            for index in group..<(group + 10) {
                app.client.send(first[index])
                other.client.send(second[index])
            }
            // Acked before the next group leaves: each group is a pass of its own, not a burst.
            let acked = Int64(group + 10)
            #expect(app.client.waitForAck(acked, timeout: 60) && other.client.waitForAck(acked, timeout: 60), "group \(group)")
        }
        let last = Int64(count)
        #expect(app.client.waitForAck(last, timeout: 60))
        #expect(other.client.waitForAck(last, timeout: 60))
        #expect(app.client.messages(ofType: "error").isEmpty && other.client.messages(ofType: "error").isEmpty)
        #expect(inspector.state.wait(timeout: 30) { $0.messages.filter { $0["type"] == "event" }.count == 2 * (count + 1) })
        for uuid in [app.uuid, other.uuid] {
            let pushed = inspector.messages(ofType: "event").filter { $0["session"]?.stringValue == uuid }.map { $0["seq"]?.int64 ?? -1 }
            #expect(pushed == Array(0...last), "session \(uuid) was pushed out of order or twice")
            let stored = try fixture.reader().session(named: uuid)
            #expect(stored.lastSeq == last)
        }
    }
}
