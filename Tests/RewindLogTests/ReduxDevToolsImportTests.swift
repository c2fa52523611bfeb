import Foundation
import RewindJSON
import Testing
@testable import RewindLog
import RewindTestSupport

@Suite("Redux DevTools import: both export shapes to events", .ownThreads)
struct ReduxDevToolsImportTests {
    /// A lifted state as the DevTools' Export button writes it: an init action, two actions of a
    /// todo app, the third skipped (so its state repeats the one before).
    static let lifted = """
    {
      "monitorState": {},
      "actionsById": {
        "0": {"type": "PERFORM_ACTION", "action": {"type": "@@INIT"}, "timestamp": 1700000000000},
        "1": {"type": "PERFORM_ACTION", "action": {"type": "todos/add", "payload": {"id": 1, "title": "milk"}}, "timestamp": 1700000001250},
        "2": {"type": "PERFORM_ACTION", "action": {"type": "todos/toggle", "payload": 1}, "timestamp": 1700000002500},
        "3": {"type": "PERFORM_ACTION", "action": {"type": "todos/clear"}, "timestamp": 1700000003000}
      },
      "nextActionId": 4,
      "stagedActionIds": [0, 1, 2, 3],
      "skippedActionIds": [3],
      "committedState": {"todos": []},
      "currentStateIndex": 3,
      "computedStates": [
        {"state": {"todos": []}},
        {"state": {"todos": [{"id": 1, "title": "milk", "done": false}]}},
        {"state": {"todos": [{"id": 1, "title": "milk", "done": true}]}, "error": "TypeError: x is undefined"},
        {"state": {"todos": [{"id": 1, "title": "milk", "done": true}]}}
      ],
      "isLocked": false,
      "isPaused": false
    }
    """

    static let states: [JSONValue] = [
        ["todos": []],
        ["todos": [["id": 1, "title": "milk", "done": false]]],
        ["todos": [["id": 1, "title": "milk", "done": true]]],
        ["todos": [["id": 1, "title": "milk", "done": true]]],
    ]

    /// The `{payload, preloadedState}` shape, whose values are JSON texts.
    static func payloadShape(payload: String, preloadedState: String? = #"{"todos":[]}"#) -> String {
        var object: JSONObject = ["payload": .string(payload)]
        if let preloadedState { object["preloadedState"] = .string(preloadedState) }
        return JSONValue.object(object).serialized(.pretty)
    }

    func check(_ session: ImportedSession) throws {
        #expect(session.events.map(\.actionType) == ["@@INIT", "todos/add", "todos/toggle", "todos/clear"])
        #expect(session.events[1].action == ["type": "todos/add", "payload": ["id": 1, "title": "milk"]])
        #expect(try ImportSupport.states(of: session.events) == Self.states)
        #expect(session.events.map(\.at.timeIntervalSince1970) == [1_700_000_000, 1_700_000_001.25, 1_700_000_002.5, 1_700_000_003])
        #expect(session.events[3].patch == [])
        #expect(session.importMeta.format == .reduxDevTools)
        #expect(session.importMeta.skippedActionIds == [3])
        #expect(session.importMeta.errors == [2: "TypeError: x is undefined"])
    }

    @Test("the lifted state: staged action i produced computedStates[i], the first is seq 0")
    func liftedState() throws {
        try check(try ReduxDevToolsImport.parse(Array(Self.lifted.utf8)))
    }

    @Test("{payload, preloadedState}: the payload is the lifted state as JSON text")
    func payload() throws {
        let compact = try ImportSupport.json(Self.lifted).serialized(.compact)
        try check(try ReduxDevToolsImport.parse(Array(Self.payloadShape(payload: compact).utf8)))
        try check(try ReduxDevToolsImport.parse(Array(Self.payloadShape(payload: compact, preloadedState: nil).utf8)))
    }

    @Test("the format is guessed from the content")
    func guess() throws {
        let compact = try ImportSupport.json(Self.lifted).serialized(.compact)
        #expect(SessionImport.guessFormat(Array(Self.lifted.utf8)) == .reduxDevTools)
        #expect(SessionImport.guessFormat(Array(Self.payloadShape(payload: compact).utf8)) == .reduxDevTools)
        #expect(SessionImport.guessFormat(ImportSupport.jsonl([#"{"state":{}}"#, #"{"action":"a","state":{}}"#])) == .jsonl)
        #expect(SessionImport.guessFormat(ImportSupport.jsonl([#"{"state":{"payload":1}}"#])) == .jsonl)
        #expect(SessionImport.guessFormat(ImportSupport.jsonl([#"{"state":{}}"#, #"{"action":"a","#])) == .jsonl)
        try check(try SessionImport.parse(Array(Self.lifted.utf8)))
        // A pretty-printed export with a syntax error is a broken document, not a bad first line.
        let broken = Array(Self.lifted.replacingOccurrences(of: #""nextActionId": 4,"#, with: #""nextActionId": 4,,"#).utf8)
        let error = ImportSupport.importError { () throws(ImportError) in _ = try SessionImport.parse(broken) }
        #expect(error?.location == .document)
        #expect(error?.message.hasPrefix("the file is a JSON document that does not parse (line 9, column") == true)
    }

    /// Replaces the first occurrence of `old` in the fixture.
    static func lifted(replacing old: String, with new: String) -> String {
        precondition(lifted.contains(old))
        return lifted.replacingOccurrences(of: old, with: new)
    }

    @Test("a bad export is reported with the action id it concerns", arguments: [
        (lifted(replacing: #""stagedActionIds": [0, 1, 2, 3]"#, with: #""stagedActionIds": [0, 1, 2, 3, 4]"#),
         ImportError(.action("4"), "stagedActionIds lists 5 actions but computedStates holds only 4 states, so this action has none")),
        (lifted(replacing: #""stagedActionIds": [0, 1, 2, 3]"#, with: #""stagedActionIds": [0, 1, 2]"#),
         ImportError(.document, "computedStates holds 4 states but stagedActionIds lists only 3 actions: each staged action needs exactly one state")),
        (lifted(replacing: #""stagedActionIds": [0, 1, 2, 3]"#, with: #""stagedActionIds": [0, 1, 7, 3]"#),
         ImportError(.action("7"), "stagedActionIds lists it but actionsById has no entry for it")),
        (lifted(replacing: #"{"type": "PERFORM_ACTION", "action": {"type": "todos/toggle", "payload": 1}, "#, with: #"{"type": "PERFORM_ACTION", "#),
         ImportError(.action("2"), #"its entry in actionsById has no "action" (expected {"type": "PERFORM_ACTION", "action": …})"#)),
        (lifted(replacing: #""timestamp": 1700000002500"#, with: #""timestamp": "yesterday""#),
         ImportError(.action("2"), "its timestamp must be a number of milliseconds, not a JSON string")),
        (lifted(replacing: #"{"state": {"todos": [{"id": 1, "title": "milk", "done": false}]}}"#, with: #"{"todos": []}"#),
         ImportError(.action("1"), #"its entry in computedStates has no "state""#)),
        (lifted(replacing: #""stagedActionIds": [0, 1, 2, 3]"#, with: #""stagedActionIds": []"#),
         ImportError(.document, "stagedActionIds is empty: the export lacks even the init action")),
        (lifted(replacing: #""computedStates""#, with: #""computed""#),
         ImportError(.document, #"the lifted state has no "computedStates" array"#)),
        ("[1]", ImportError(.document, "a Redux DevTools export is a JSON object, not a JSON array")),
        (payloadShape(payload: #"{"actionsById": {"#),
         ImportError(.document, "payload is not valid JSON: line 1, column 18: unexpected end of input: expected a string key")),
        (payloadShape(payload: "{}", preloadedState: "{nope}"),
         ImportError(.document, "preloadedState is not valid JSON: line 1, column 2: expected a string key")),
        (payloadShape(payload: #"[{"type":"todos/add"}]"#),
         ImportError(.document, "payload lists actions without the states they produced, and Rewind cannot run your reducer: export the whole lifted state instead")),
    ])
    func badExport(text: String, expected: ImportError) {
        let error = ImportSupport.importError { () throws(ImportError) in _ = try ReduxDevToolsImport.parse(Array(text.utf8)) }
        #expect(error == expected)
    }
}
