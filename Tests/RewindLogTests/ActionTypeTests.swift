import RewindJSON
import Testing
@testable import RewindLog
import RewindTestSupport

@Suite("Action type extraction", .ownThreads)
struct ActionTypeTests {
    @Test("type string, enum case name, bare string, else ?", arguments: [
        (#"{"type":"todo/add","payload":{"title":"milk"}}"#, "todo/add"),
        (#"{"login":{"user":"ada","password":"x"}}"#, "login"),
        (#"{"logout":{}}"#, "logout"),
        (#""increment""#, "increment"),
        (#"{"type":42,"x":1}"#, "?"),
        (#"{"type":{"a":1}}"#, "?"),
        (#"{"a":1,"b":2}"#, "?"),
        (#"{}"#, "?"),
        (#"[1,2]"#, "?"),
        (#"null"#, "?"),
        (#""""#, "?"),
        (#"7"#, "?"),
    ])
    func extraction(json: String, expected: String) throws {
        #expect(LogEvent.actionType(of: try JSONValue(parsing: json)) == expected)
    }

    @Test("LogEvent takes its type from the action unless told otherwise")
    func eventDefault() {
        let event = LogEvent(sessionID: 1, seq: 0, at: Fixture.start, action: ["select": ["tab": 2]], hash: 0)
        #expect(event.actionType == "select")
        let named = LogEvent(sessionID: 1, seq: 0, at: Fixture.start, action: "x", actionType: "custom", hash: 0)
        #expect(named.actionType == "custom")
    }
}
