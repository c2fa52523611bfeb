import RewindJSON
import RewindWire
import Testing
import RewindTestSupport

@Suite("Wire messages", .ownThreads)
struct WireMessageTests {
    @Test("app messages survive a round trip through JSON text")
    func appRoundTrip() throws {
        let messages: [AppMessage] = [
            .hello(.init(id: 1, session: "6F0C-1", app: "Todos", version: "1.4", meta: ["device": "sim"], lastAckedSeq: 41, startedAt: 1_763_700_000.25)),
            .hello(.init(session: "s", app: "a")),
            .hello(.init(session: "s", app: "a", run: "0b1e-run")),
            .hello(.init(session: "s", app: "a", hashVersion: .v2)),
            .event(WireEvent(seq: 2, at: 1, action: "tap", patch: [], hash: 1,
                             site: WireEvent.Site(file: "App/CartView.swift", line: 42, function: "body"))),
            .event(WireEvent(seq: 0, at: 1_763_700_000.5, action: ["type": "@@INIT"], keyframe: ["todos": []], hash: 0xDEAD_BEEF_0000_0001)),
            .event(WireEvent(seq: 7, at: 1.5, action: "tick", patch: [["op": "replace", "path": "/n", "value": 7]], hash: UInt64.max, durationNs: 5_400, cause: 6, coalesced: true)),
            .events(WireEventBatch(events: [
                WireEvent(seq: 3, at: 1.5, action: "a", patch: [["op": "add", "path": "/x", "value": 1]], hash: 7, durationNs: 10),
                WireEvent(seq: 4, at: 1.75, action: ["type": "b"], keyframe: ["x": 2], hash: 8, cause: 3, coalesced: true),
            ])),
            .result(.init(id: "c7", ok: false, message: "state does not decode at /user/age")),
            .end(id: 9),
            .end(id: nil, at: 1_795_855_863.25),
        ]
        for message in messages {
            let text = message.json.serializedBytes()
            #expect(try AppMessage(frame: text) == message)
        }
    }

    @Test("server and inspector messages survive a round trip")
    func otherRoundTrips() throws {
        let toApp: [ServerToApp] = [
            .welcome(id: 1, session: "s", nextSeq: 42), .ack(seq: 41),
            .welcome(id: nil, session: "s", nextSeq: 0, limits: WireLimits(maxMessage: 68_157_440, maxState: 67_108_864)),
            .command(Command(id: "c1", kind: .jump, arguments: ["seq": 12, "state": ["n": 12]])),
            .error(WireError(.seqGap, "expected seq 5, got 7", id: nil)),
        ]
        for message in toApp {
            #expect(try ServerToApp(frame: message.json.serializedBytes()) == message)
        }
        let requests: [InspectorRequest] = [
            .sessions(id: 1), .subscribe(id: 2, session: "*"), .unsubscribe(id: 3, session: "latest"),
            .events(id: 4, session: "3", from: 10, limit: 50, typeGlob: "user/*", text: "ada"),
            .state(id: 5, session: "3", seq: 9, path: try JSONPointer("/a~1b/0")),
            .diff(id: 6, session: "3", from: 1, to: 2), .blame(id: 7, session: "3", path: try JSONPointer("/cart")),
            .command(Command(id: 8, kind: .dispatch, session: "3", arguments: ["action": ["type": "reset"]])),
            .find(.init(id: 9, session: "3", path: try JSONPointer("/cart/total"), condition: .lessThan(0), all: true)),
            .find(.init(id: 10, session: "3", path: try JSONPointer("/name"), condition: .matches("^A"), first: true, limit: 5)),
            .find(.init(id: 11, session: "3", path: try JSONPointer("/done"), condition: .isEqual(["a": 1]))),
            .find(.init(id: 12, session: "3", path: try JSONPointer(""), condition: .changed)),
            .sessionPage(.init(id: 13, app: "Todos", appVersion: "1.4", device: "iPhone15,2", tag: "bug report",
                               since: 1_763_700_000, until: 1_763_800_000.5, limit: 250, after: 1_234)),
            .sessionPage(.init(id: 14, tag: "beta")),
            .sessionPage(.init(after: 7)),
        ]
        for request in requests {
            #expect(try InspectorRequest(frame: request.json.serializedBytes()) == request)
        }
        let pushes: [InspectorPush] = [
            .event(session: "s", sessionID: 3, actionType: "add", event: WireEvent(seq: 1, at: 2, action: ["type": "add"], patch: [], hash: 5)),
            .session(change: .ended, session: WireSession(id: 3, uuid: "s", app: "a", startedAt: 1, endedAt: 2, live: false, eventCount: 4, lastSeq: 3)),
            .session(change: .started, session: WireSession(id: 4, uuid: "t", app: "a", startedAt: 1, live: true, eventCount: 1, lastSeq: 0, run: "r")),
            .session(change: .started, session: WireSession(id: 5, uuid: "u", app: "a", startedAt: 1, live: true, eventCount: 0, lastSeq: nil,
                                                            appVersion: "1.4", device: "iPad13,4", os: "iPadOS 17.4", tags: ["bug report", "beta"])),
            .lagged(session: "s", message: "dropped 120 events"),
        ]
        for push in pushes {
            #expect(try InspectorPush(json: push.json) == push)
        }
    }

    @Test("a sessions request is a page when it has a filter or page member; with none (or all null), every session")
    func sessionsRequests() throws {
        #expect(try InspectorRequest(json: ["type": "sessions", "id": 1]) == .sessions(id: 1))
        #expect(try InspectorRequest(json: ["type": "sessions", "id": 1, "tag": .null, "limit": .null]) == .sessions(id: 1))
        #expect(try InspectorRequest(json: ["type": "sessions", "id": 1, "device": "x86_64"])
            == .sessionPage(.init(id: 1, device: "x86_64", limit: 100)))
        #expect(try InspectorRequest(json: ["type": "sessions", "limit": 1_000]) == .sessionPage(.init(limit: 1_000)))
        #expect(InspectorRequest.sessionPage(.init(tag: "x")).type == "sessions")
    }

    @Test("hashes travel as 16 hex digits")
    func hashes() {
        #expect(wireHash(0) == "0000000000000000")
        #expect(wireHash(UInt64.max) == "ffffffffffffffff")
        #expect(parseWireHash("00000000000000ff") == 255)
        #expect(parseWireHash("xyz") == nil)
        #expect(parseWireHash("1ffffffffffffffff") == nil)
    }

    @Test("broken frames give a code and a sentence", arguments: [
        ("{\"type\":\"hello\"", WireError.Code.badJSON),
        ("[1,2]", .badMessage),
        ("{\"id\":1}", .badMessage),
        ("{\"type\":\"fly\",\"id\":1}", .unknownType),
        ("{\"type\":\"hello\",\"app\":\"a\"}", .badMessage),
        ("{\"type\":\"hello\",\"session\":\"\",\"app\":\"a\"}", .badMessage),
        ("{\"type\":\"event\",\"seq\":-1,\"at\":1,\"action\":null,\"patch\":[],\"hash\":\"00\"}", .badMessage),
        ("{\"type\":\"event\",\"seq\":1,\"at\":1,\"action\":null,\"hash\":\"00\"}", .badMessage),
        ("{\"type\":\"event\",\"seq\":1,\"at\":1,\"action\":null,\"patch\":{},\"hash\":\"00\"}", .badMessage),
        ("{\"type\":\"event\",\"seq\":1,\"at\":1,\"action\":null,\"patch\":[],\"keyframe\":{},\"hash\":\"00\"}", .badMessage),
        ("{\"type\":\"event\",\"seq\":1,\"at\":1,\"action\":null,\"patch\":[],\"hash\":\"zz\"}", .badMessage),
        ("{\"type\":\"result\",\"ok\":true}", .badMessage),
        ("{\"type\":\"hello\",\"session\":\"s\",\"app\":\"a\",\"run\":\"\"}", .badMessage),
        ("{\"type\":\"hello\",\"session\":\"s\",\"app\":\"a\",\"hashVersion\":3}", .badMessage),
        ("{\"type\":\"hello\",\"session\":\"s\",\"app\":\"a\",\"hashVersion\":\"2\"}", .badMessage),
        ("{\"type\":\"hello\",\"session\":\"s\",\"app\":\"a\",\"hashVersion\":1.5}", .badMessage),
        ("{\"type\":\"hello\",\"session\":\"s\",\"app\":\"a\",\"run\":\"\(String(repeating: "r", count: 129))\"}", .badMessage),
        ("{\"type\":\"event\",\"seq\":1,\"at\":1,\"action\":null,\"patch\":[],\"hash\":\"0000000000000000\",\"site\":\"A.swift:1\"}", .badMessage),
        ("{\"type\":\"event\",\"seq\":1,\"at\":1,\"action\":null,\"patch\":[],\"hash\":\"0000000000000000\",\"site\":{\"file\":\"A\",\"line\":-1,\"function\":\"f\"}}", .badMessage),
        ("{\"type\":\"event\",\"seq\":1,\"at\":1,\"action\":null,\"patch\":[],\"hash\":\"0000000000000000\",\"site\":{\"file\":\"A\",\"line\":1e30,\"function\":\"f\"}}", .badMessage),
        ("{\"type\":\"event\",\"seq\":1,\"at\":1,\"action\":null,\"patch\":[],\"hash\":\"0000000000000000\",\"site\":{\"file\":\"A\",\"line\":1}}", .badMessage),
        ("{\"type\":\"event\",\"seq\":1,\"at\":1,\"action\":null,\"patch\":[],\"hash\":\"0000000000000000\",\"site\":{\"file\":\"\(String(repeating: "f", count: 1_025))\",\"line\":1,\"function\":\"f\"}}", .badMessage),
    ])
    func brokenAppFrames(text: String, code: WireError.Code) {
        #expect {
            _ = try AppMessage(frame: Array(text.utf8))
        } throws: { error in
            guard let error = error as? WireError else { return false }
            return error.code == code && !error.message.isEmpty
        }
    }

    @Test("a batch's frame is its events written without their type; single frames are `event` messages")
    func batchFrames() throws {
        let events = [
            WireEvent(seq: 1, at: 2, action: "x", patch: [], hash: 1, durationNs: 3),
            WireEvent(seq: 2, at: 2.5, action: ["type": "y"], patch: [["op": "replace", "path": "/n", "value": 2]], hash: 2),
        ]
        let members = events.map { $0.json(withType: false).serializedBytes(.compact) }
        let frame = WireEventBatch.frame(members: members)
        #expect(frame.count == WireEventBatch.frameSize(memberBytes: members.reduce(0) { $0 + $1.count }, count: 2))
        #expect(try AppMessage(frame: frame) == .events(WireEventBatch(events: events)))
        #expect(try JSONValue(parsing: frame) == AppMessage.events(WireEventBatch(events: events)).json)
        let single = WireEventBatch.singleFrame(members: members[0])
        #expect(single.count == WireEventBatch.singleFrameSize(memberBytes: members[0].count))
        #expect(single == AppMessage.event(events[0]).json.serializedBytes(.compact))
    }

    @Test("a batch reads its elements in order and stops at the first broken one, naming it")
    func brokenBatches() throws {
        let good: JSONValue = ["seq": 1, "at": 1, "action": "x", "patch": [], "hash": "0000000000000001"]
        let stopped = try AppMessage(json: ["type": "events", "id": 5, "events": [good, ["seq": 2, "at": 1, "action": "x", "patch": []], good]])
        guard case .events(let batch) = stopped else {
            Issue.record("not a batch: \(stopped)")
            return
        }
        #expect(batch.events.map(\.seq) == [1])
        #expect(batch.broken?.code == .badMessage)
        #expect(batch.broken?.message.hasPrefix("events[1]: \"hash\"") == true, "\(String(describing: batch.broken))")
        #expect(batch.broken?.id == 5)
        let notAnObject = try AppMessage(json: ["type": "events", "events": [7]])
        #expect(notAnObject == .events(WireEventBatch(events: [], broken: WireError(.badMessage, "events[0] must be an event object"))))
        for members: JSONObject in [["events": []], [:], ["events": good]] {
            var message = members
            message["type"] = "events"
            #expect(throws: WireError.self) { try AppMessage(json: .object(message)) }
        }
        // A `type` inside an element is ignored, as any unknown member.
        guard case .object(var typed) = good else { return }
        typed["type"] = "event"
        #expect(try AppMessage(json: ["type": "events", "events": [.object(typed)]]) == AppMessage(json: ["type": "events", "events": [good]]))
    }

    @Test("a welcome without limits has none; with one of them, the other is the default")
    func welcomeLimits() throws {
        #expect(try ServerToApp(json: ["type": "welcome", "session": "s", "nextSeq": 0]) == .welcome(id: nil, session: "s", nextSeq: 0))
        #expect(try ServerToApp(json: ["type": "welcome", "session": "s", "nextSeq": 0, "maxState": 1024])
                == .welcome(id: nil, session: "s", nextSeq: 0, limits: WireLimits(maxMessage: 16 << 20, maxState: 1024)))
        #expect(throws: WireError.self) { try ServerToApp(json: ["type": "welcome", "session": "s", "nextSeq": 0, "maxMessage": -1]) }
    }

    @Test("a bad request echoes its id")
    func errorEchoesID() {
        do {
            _ = try InspectorRequest(json: ["type": "state", "id": 41, "session": "3"])
            Issue.record("expected an error")
        } catch {
            #expect(error.id == 41)
            #expect(error.code == .badMessage)
            #expect(error.message.contains("seq"))
        }
        do {
            _ = try InspectorRequest(json: ["type": "events", "id": 2, "session": "3", "limit": 100_000])
            Issue.record("expected an error")
        } catch {
            #expect(error.message.contains("limit"))
        }
        do {
            _ = try InspectorRequest(json: ["type": "command", "id": 2, "kind": "jump"])
            Issue.record("expected an error")
        } catch {
            #expect(error.message.contains("session"))
        }
    }
}
