import Foundation
import RewindJSON
import Testing
@testable import RewindWire
import RewindTestSupport

/// An app's event frame forwarded to inspectors as it came, with the session added: it must read
/// as the push the server would build from the parsed event, and frames that say more than the
/// event must not be forwarded.
@Suite("Forwarded event pushes", .ownThreads)
struct ForwardedPushTests {
    static let frames: [String] = [
        #"{"type":"event","seq":0,"at":1763700000.25,"action":{"type":"@@INIT"},"keyframe":{"todos":[]},"hash":"00000000000000ff","durationNs":0}"#,
        #"{"type":"event","seq":7,"at":1763700000.31,"action":{"type":"todo/add","title":"milk \"2%\" é \u2603"},"patch":[{"op":"add","path":"/todos/-","value":{"title":"milk"}}],"hash":"0123456789abcdef","durationNs":5400,"cause":3}"#,
        "  {\"type\" : \"event\",\n \"seq\": 8, \"at\": 1.5e9, \"action\": [1, 2.50, -0, 1E400], \"patch\": [], \"hash\": \"ffffffffffffffff\", \"durationNs\": 1 }\n\t ",
        #"{"type":"event","seq":9,"at":1,"action":null,"patch":[],"hash":"0000000000000000","durationNs":2,"coalesced":true,"nonFinite":["/state/x"],"site":{"file":"App/View.swift","line":42,"function":"body"}}"#,
        #"{"seq":10,"type":"event","coalesced":false,"nonFinite":[],"at":2,"action":"tap","patch":[],"hash":"0000000000000001","durationNs":3}"#,
    ]

    @Test("a forwarded frame reads as the push built from its event", arguments: frames)
    func forwardedReadsAsBuilt(frame: String) throws {
        let bytes = Array(frame.utf8)
        let json = try parseFrame(bytes)
        guard case .event(let event) = try AppMessage(json: json), case .object(let object) = json else {
            Issue.record("not an event")
            return
        }
        #expect(InspectorPush.canForward(event: object))
        let session = "6f0c \"quoted\" ✓"
        let built = InspectorPush.event(session: session, sessionID: 42, actionType: "todo/add", event: event)
        let forwarded = try #require(InspectorPush.eventBytes(forwarding: bytes, session: session, sessionID: 42, actionType: "todo/add"))
        let read = try #require(try InspectorPush(json: try JSONValue(parsing: forwarded)))
        #expect(read == built)
        // Member by member too, except what the built push leaves out when it is false or empty.
        var expected = try #require(built.json.objectValue)
        var got = try #require(try JSONValue(parsing: forwarded).objectValue)
        for key in ["coalesced", "nonFinite"] where got[key] == false || got[key] == [] { got[key] = nil; expected[key] = nil }
        #expect(JSONValue.object(got) == .object(expected))
    }

    @Test("a frame with an id, an unknown member, a null patch or site, no durationNs or a hash spelled otherwise is not forwarded", arguments: [
        #"{"type":"event","seq":1,"at":1,"action":1,"patch":[],"hash":"00000000000000FF","durationNs":0}"#,
        #"{"type":"event","seq":1,"at":1,"action":1,"patch":[],"hash":"ff","durationNs":0}"#,
        #"{"type":"event","id":5,"seq":1,"at":1,"action":1,"patch":[],"hash":"0000000000000000","durationNs":0}"#,
        #"{"type":"event","seq":1,"at":1,"action":1,"patch":[],"hash":"0000000000000000","durationNs":0,"sessionId":9}"#,
        #"{"type":"event","seq":0,"at":1,"action":1,"patch":null,"keyframe":{},"hash":"0000000000000000","durationNs":0}"#,
        #"{"type":"event","seq":1,"at":1,"action":1,"patch":[],"hash":"0000000000000000","durationNs":0,"site":null}"#,
        #"{"type":"event","seq":1,"at":1,"action":1,"patch":[],"hash":"0000000000000000"}"#,
    ])
    func notForwarded(frame: String) throws {
        let json = try parseFrame(Array(frame.utf8))
        guard case .event = try AppMessage(json: json), case .object(let object) = json else {
            Issue.record("the server accepts this frame as an event, so the test must too")
            return
        }
        #expect(!InspectorPush.canForward(event: object))
    }

    @Test("a frame that does not end its object with a brace is refused")
    func unterminated() {
        #expect(InspectorPush.eventBytes(forwarding: Array("[1]".utf8), session: "s", sessionID: 1, actionType: "") == nil)
        #expect(InspectorPush.eventBytes(forwarding: [], session: "s", sessionID: 1, actionType: "") == nil)
        #expect(InspectorPush.eventBytes(forwarding: Array("}".utf8), session: "s", sessionID: 1, actionType: "") == nil)
    }
}
