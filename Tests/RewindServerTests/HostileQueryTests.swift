import Foundation
import RewindTestSupport
import RewindJSON
import RewindLog
import RewindServer
import RewindWebSocket
import RewindWire
import Testing
import RewindSupport

/// Issue 13, repros 6, 7 and 9: replies too large for their connection, output nobody reads, and
/// queries that starve each other. Each runs against a real server, then the ``HealthCheck``.
extension HostileInput {
    @Suite("Hostile queries")
    struct HostileQueryTests {
        typealias App = HostileInput.HostileStateTests.App

        struct Ending: Sendable {
            var closeCode: UInt16?
            var dropped: Bool
        }

        /// An app session of `count` events whose actions each carry `actionBytes` of text.
        static func bigActions(_ fixture: ServerFixture, count: Int64, actionBytes: Int) throws -> App {
            let app = try App(fixture, initial: ["n": 0])
            let filler = String(repeating: "w", count: actionBytes)
            for seq in 1...count {
                var after = app.state
                let patch = JSONPatch([.replace(path: HostileInput.HostileStateTests.pointer("/n"), value: .number(JSONNumber(seq)))])
                try after.apply(patch)
                app.client.send(AppMessage.event(WireEvent(seq: seq, at: 1_763_700_001, action: ["type": "big", "filler": .string(filler)],
                                                           patch: patch.json, hash: after.stableHash)).json)
                app.state = after
            }
            app.next = count + 1
            guard app.client.waitForAck(count, timeout: 60) else { throw FixtureError(description: "the big actions were not acked") }
            return app
        }

        @Test("repro 6: an events page too large for the connection is cut to fit, with next; a state too large is an error")
        func replyTooLarge() throws {
            let fixture = try ServerFixture { $0.queueLimits = WebSocketQueueLimits(maxMessages: 4_096, maxBytes: 1 << 20) }
            let check = try HealthCheck(fixture)
            // 200 actions of 20 KB: 4 MB for a page of 200, over the 1 MiB bound.
            let app = try Self.bigActions(fixture, count: 200, actionBytes: 20_000)
            let inspector = try JSONClient.inspector(port: fixture.port)
            defer { inspector.close() }
            var seen: [Int64] = []
            var from: Int64 = 0
            var id = 1
            while true {
                inspector.send(["type": "events", "id": .number(JSONNumber(id)), "session": .string(app.uuid),
                                "from": .number(JSONNumber(from)), "limit": 200])
                let reply = try #require(inspector.waitForReply(id: id, timeout: 30))
                #expect(reply["type"] == "events", "\(reply)")
                let events = try #require(reply["events"]?.arrayValue)
                #expect(!events.isEmpty && events.count < 200, "a page of \(events.count) events")
                seen += events.compactMap { $0["seq"]?.int64 }
                guard let next = reply["next"]?.int64 else { break }
                #expect(next == (seen.last ?? -1) + 1)
                from = next
                id += 1
            }
            #expect(seen == Array(0...200))
            #expect(id > 4)
            // A state over the bound: an error that says what to ask instead, never silence.
            try app.expectAcked(JSONPatch([.add(path: HostileInput.HostileStateTests.pointer("/big"), value: .string(String(repeating: "s", count: 1_200_000)))]))
            inspector.send(["type": "state", "id": 99, "session": .string(app.uuid), "seq": 201])
            let error = try #require(inspector.waitForReply(id: 99, timeout: 30))
            #expect(error["code"] == "reply-too-large")
            let message = try #require(error["message"]?.stringValue)
            #expect(message.contains("over this connection's limit of 1048576 bytes; ask for part of the state with \"path\""), "\(message)")
            inspector.send(["type": "state", "id": 100, "session": .string(app.uuid), "seq": 201, "path": "/n"])
            #expect(inspector.waitForReply(id: 100, timeout: 30)?["value"] == 200)
            try check.expectHealthy(alsoAcked: (app.uuid, 201))
        }

        @Test("repro 7: inspectors that never read are closed with 1008 once the output cap is reached; others go on")
        func outputCap() throws {
            let fixture = try ServerFixture {
                $0.queueLimits = WebSocketQueueLimits(maxMessages: 4_096, maxBytes: 4 << 20)
                $0.maxQueuedOutput = 6 << 20
            }
            let check = try HealthCheck(fixture)
            let app = try App(fixture, initial: ["blob": .string(String(repeating: "b", count: 256 << 10))])
            var attackers: [RawSocket] = []
            for _ in 0..<6 {
                let socket = try RawSocket(port: fixture.port, receiveBuffer: 4_096)
                #expect(try socket.upgrade(path: InspectorRequest.path, port: fixture.port, subprotocol: InspectorRequest.subprotocol).status == 101)
                attackers.append(socket)
            }
            // The 101 can reach a client before the server has counted the connection: wait until
            // all six are counted, or a late one would read as "an inspector was let go" below.
            let counted = Date(timeIntervalSinceNow: 30)
            while fixture.server.inspectorCount < attackers.count, Date() < counted { usleep(10_000) }
            let open = fixture.server.inspectorCount
            #expect(open == attackers.count, "the server counts \(open) of \(attackers.count) inspectors")
            // Each asks for the 256 KB state 40 times (10 MB each, 60 MB in all) and reads nothing.
            for socket in attackers {
                for id in 1...40 { try socket.sendText(#"{"type":"state","id":\#(id),"session":"\#(app.uuid)","seq":0}"#) }
            }
            // Reading nothing until the server has let an attacker go: one that read at once would
            // keep its queue short and never reach the cap.
            let deadline = Date(timeIntervalSinceNow: 60)
            while fixture.server.inspectorCount == open, Date() < deadline { usleep(10_000) }
            #expect(fixture.server.inspectorCount < open, "no inspector was let go")
            // Then read every attacker at once: the evicted are closed with 1008 (or, as they did
            // not read in time for the close frame, dropped after the close timeout); the rest stay
            // open.
            let endings = Condition<[Ending]>([])
            // On threads of their own: these reads block for seconds, too long to hold the pool.
            let finished = DispatchSemaphore(value: 0)
            for socket in attackers {
                nonisolated(unsafe) let socket = socket
                startThread(named: "test-reader") {
                    let ending = socket.ending(timeout: 12)
                    endings.update { $0.append(Ending(closeCode: ending.closeCode, dropped: ending.dropped)) }
                    finished.signal()
                }
            }
            for _ in attackers { finished.wait() }
            let all = endings.value
            #expect(all.contains { $0.closeCode == 1008 || $0.dropped }, "no attacker was closed: \(all)")
            #expect(all.allSatisfy { $0.closeCode == nil || $0.closeCode == 1008 }, "\(all)")
            try check.expectHealthy(alsoAcked: (app.uuid, 0))
        }

        @Test("too many requests in flight get too-many-requests at once; every request is answered exactly once")
        func inFlightLimit() throws {
            let fixture = try ServerFixture()
            let check = try HealthCheck(fixture)
            let app = try App(fixture, initial: ["blob": .string(String(repeating: "b", count: 128 << 10))])
            let inspector = try JSONClient.inspector(port: fixture.port)
            defer { inspector.close() }
            for id in 1...100 { inspector.send(["type": "state", "id": .number(JSONNumber(id)), "session": .string(app.uuid), "seq": 0]) }
            #expect(inspector.state.wait(timeout: 60) { state in
                Set(state.messages.compactMap { $0["id"]?.int64 }).count == 100
            })
            let replies = inspector.state.value.messages.filter { $0["id"] != nil }
            #expect(replies.count == 100)
            let refused = replies.filter { $0["code"] == "too-many-requests" }
            #expect(!refused.isEmpty)
            #expect(replies.filter { $0["type"] == "state" }.count == 100 - refused.count)
            #expect(refused.first?["message"]?.stringValue == "16 requests of this inspector are already waiting for replies; send more as replies arrive")
            try check.expectHealthy(alsoAcked: (app.uuid, 0))
        }

        @Test("repro 9: one inspector's pipelined queries do not keep another's sessions waiting")
        func queriesDoNotStarve() throws {
            let fixture = try ServerFixture()
            let check = try HealthCheck(fixture)
            let app = try App(fixture, initial: ["blob": .string(String(repeating: "b", count: 512 << 10))])
            let attacker = try JSONClient.inspector(port: fixture.port)
            let victim = try JSONClient.inspector(port: fixture.port)
            defer { attacker.close(); victim.close() }
            // The attacker keeps 16 `state` requests in flight (the most it may) until it has sent
            // 200: the server is never without its work while the victim waits.
            let total = 200
            var sent = 0
            func repliesToAttacker() -> Int { attacker.state.value.messages.filter { $0["id"] != nil }.count }
            func refill() {
                let answered = repliesToAttacker()
                while sent < total, sent - answered < 16 {
                    sent += 1
                    attacker.send(["type": "state", "id": .number(JSONNumber(sent)), "session": .string(app.uuid), "seq": 0])
                }
            }
            refill()
            #expect(attacker.waitFor(timeout: 30) { $0["type"] == "state" } != nil)
            victim.send(["type": "sessions", "id": 1])
            let deadline = Date().addingTimeInterval(60)
            while victim.state.value.messages.allSatisfy({ $0["id"] != 1 }), Date() < deadline {
                refill()
                let before = repliesToAttacker()
                _ = attacker.state.wait(timeout: 0.5) { state in
                    state.messages.filter { $0["id"] != nil }.count > before
                } || victim.state.wait(timeout: 0.01) { $0.messages.contains { $0["id"] == 1 } }
            }
            #expect(victim.waitForReply(id: 1, timeout: 1)?["type"] == "sessions")
            // Served in turn, the victim waited behind at most the attacker's 16 in flight, not
            // behind all 200.
            let answeredBefore = repliesToAttacker()
            #expect(answeredBefore < total, "all \(total) attacker replies came before the victim's")
            while sent < total, Date() < deadline.addingTimeInterval(60) {
                refill()
                let before = repliesToAttacker()
                _ = attacker.state.wait(timeout: 1) { state in state.messages.filter { $0["id"] != nil }.count > before }
            }
            #expect(attacker.state.wait(timeout: 120) { $0.messages.filter { $0["id"] != nil }.count == total })
            let replies = attacker.state.value.messages.filter { $0["id"] != nil }
            #expect(replies.allSatisfy { $0["type"] == "state" }, "a request within the limit was refused")
            try check.expectHealthy(alsoAcked: (app.uuid, 0))
        }

        @Test("repro 9: a text filter of more than 64 words or 1,024 bytes is refused in one sentence")
        func textFilterBounds() throws {
            let fixture = try ServerFixture()
            let check = try HealthCheck(fixture)
            let app = try App(fixture, initial: ["n": 0])
            let inspector = try JSONClient.inspector(port: fixture.port)
            defer { inspector.close() }
            let words = Array(repeating: "word", count: 65).joined(separator: " ")
            inspector.send(["type": "events", "id": 1, "session": .string(app.uuid), "text": .string(words)])
            let tooMany = try #require(inspector.waitForReply(id: 1, timeout: 30))
            #expect(tooMany["code"] == "bad-message")
            #expect(tooMany["message"] == "events: \"text\" must be at most 64 words and 1024 bytes; got 65 words, 324 bytes")
            inspector.send(["type": "events", "id": 2, "session": .string(app.uuid), "text": .string(String(repeating: "x", count: 1_025))])
            #expect(inspector.waitForReply(id: 2, timeout: 30)?["code"] == "bad-message")
            inspector.send(["type": "events", "id": 3, "session": .string(app.uuid), "text": .string(Array(repeating: "word", count: 64).joined(separator: " "))])
            #expect(inspector.waitForReply(id: 3, timeout: 30)?["type"] == "events")
            try check.expectHealthy(alsoAcked: (app.uuid, 0))
        }

        @Test("a query past its time budget is stopped with query-timeout; the server goes on answering")
        func queryTimeBudget() throws {
            // A budget of 0 s: any query SQLite runs long enough to check (every 4,096 steps) stops.
            let fixture = try ServerFixture { $0.queryTimeBudget = 0 }
            let app = try Self.bigActions(fixture, count: 1_000, actionBytes: 20)
            let inspector = try JSONClient.inspector(port: fixture.port)
            defer { inspector.close() }
            // A glob that matches nothing scans all 1,000 actions: far past the first check.
            inspector.send(["type": "events", "id": 1, "session": .string(app.uuid), "typeGlob": "nothing*", "limit": 5000])
            let timeout = try #require(inspector.waitForReply(id: 1, timeout: 30))
            #expect(timeout["code"] == "query-timeout", "\(timeout)")
            #expect(timeout["message"]?.stringValue?.hasPrefix("the query ran past its time budget of 0 s and was stopped") == true)
            // The server goes on answering (with a budget of 0 s, anything but the smallest query
            // times out too), and the log is whole.
            inspector.send(["type": "state", "id": 2, "session": .string(app.uuid), "seq": 1_000])
            let reply = try #require(inspector.waitForReply(id: 2, timeout: 30))
            #expect(reply["value"] == ["n": 1_000] || reply["code"] == "query-timeout", "\(reply)")
            #expect(try fixture.reader().session(named: app.uuid).lastSeq == 1_000)
        }
    }
}
