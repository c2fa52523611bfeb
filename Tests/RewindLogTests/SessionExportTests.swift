import Foundation
import RewindJSON
import Testing
@testable import RewindLog
import RewindTestSupport

@Suite("Export: sessions back to files", .ownThreads)
struct SessionExportTests {
    /// Imports `bytes` into a fresh log, then exports the session in `format`.
    func roundTrip(_ bytes: [UInt8], format: ImportFormat, pageSize: Int = 1_000) throws -> [UInt8] {
        let directory = try TemporaryDirectory()
        let writer = try LogWriter(path: directory.path("log.db"))
        let id = try writer.write(try SessionImport.parse(bytes), uuid: "import-1", app: "Test")
        writer.close()
        return try export(path: directory.path("log.db"), session: id, format: format, pageSize: pageSize)
    }

    func export(path: String, session: Int64, format: ImportFormat, pageSize: Int = 1_000) throws -> [UInt8] {
        let reader = try LogReader(path: path)
        var exporter = SessionExporter(reader: reader, session: try reader.session(id: session))
        exporter.pageSize = pageSize
        var output: [UInt8] = []
        try exporter.write(format) { output += $0 }
        return output
    }

    @Test("exporting a JSONL import gives back the same bytes", arguments: [
        // An initial line, times in their shortest form.
        [#"{"state":{"todos":[]},"at":1700000000}"#, #"{"action":{"type":"add","title":"milk"},"state":{"todos":["milk"]},"at":1700000000.125}"#,
         #"{"action":{"type":"add","title":"é ✓"},"state":{"todos":["milk","é ✓"]},"at":1700000001.5}"#],
        // No initial line: seq 0 is made up and left out again.
        [#"{"action":{"type":"load"},"state":{"n":1.10,"big":12345678901234567890},"at":1700000000.001}"#, #"{"action":"inc","state":{"n":2.10,"big":12345678901234567890},"at":1700000000.002}"#],
        // No times at all.
        [#"{"state":{"n":0}}"#, #"{"action":"inc","state":{"n":1}}"#, #"{"action":"inc","state":{"n":2}}"#],
        // Some lines with a time, some without.
        [#"{"action":"a","state":{"n":1}}"#, #"{"action":"a","state":{"n":2},"at":1700000000.25}"#, #"{"action":"a","state":{"n":3}}"#, #"{"action":"a","state":{"n":4},"at":1700000009}"#],
        // Times with a fixed number of decimals, one odd spelling, another member order.
        [#"{"at":1700000000.100,"state":{"n":0}}"#, #"{"at":1700000000.250,"action":"a","state":{"n":1}}"#, #"{"at":1.70000001e9,"action":"a","state":{"n":2}}"#],
        // Only an initial line, its members in another order.
        [#"{"at":1700000000,"state":{"only":true}}"#],
        // States that are not objects, actions that change nothing, a state that empties.
        [#"{"state":[1,2,3]}"#, #"{"action":null,"state":[1,2,3]}"#, #"{"action":["x"],"state":"text"}"#, #"{"action":{},"state":null}"#],
    ])
    func jsonlRoundTrip(lines: [String]) throws {
        let file = ImportSupport.jsonl(lines)
        let exported = try roundTrip(file, format: .jsonl, pageSize: 2)
        #expect(String(decoding: exported, as: UTF8.self) == String(decoding: file, as: UTF8.self))
    }

    @Test("a Redux DevTools export imports back to the same actions, states and times")
    func reduxRoundTrip() throws {
        let file = Array(ReduxDevToolsImportTests.lifted.utf8)
        let exported = try roundTrip(file, format: .reduxDevTools)
        let document = try JSONValue(parsing: exported)
        #expect(document["stagedActionIds"] == [0, 1, 2, 3])
        #expect(document["skippedActionIds"] == [])
        #expect(document["currentStateIndex"] == 3)
        #expect(document["nextActionId"] == 4)
        #expect(document["committedState"] == ["todos": []])
        #expect(document["actionsById"]?["1"] == [
            "type": "PERFORM_ACTION", "action": ["type": "todos/add", "payload": ["id": 1, "title": "milk"]], "timestamp": 1_700_000_001_250,
        ])
        #expect(document["computedStates"]?[2] == ["state": ReduxDevToolsImportTests.states[2], "error": "TypeError: x is undefined"])

        let original = try ReduxDevToolsImport.parse(file)
        let again = try ReduxDevToolsImport.parse(exported)
        #expect(again.events.map(\.action) == original.events.map(\.action))
        #expect(try ImportSupport.states(of: again.events) == ReduxDevToolsImportTests.states)
        #expect(again.events.map(\.at) == original.events.map(\.at))
        #expect(again.importMeta.errors == original.importMeta.errors)
    }

    @Test("a JSONL import exported for Redux DevTools and imported again keeps its actions and states")
    func jsonlThroughRedux() throws {
        let lines = [#"{"action":{"type":"a"},"state":{"n":1},"at":1700000000.5}"#, #"{"action":{"type":"b"},"state":{"n":2},"at":1700000001.25}"#]
        let redux = try ReduxDevToolsImport.parse(try roundTrip(ImportSupport.jsonl(lines), format: .reduxDevTools))
        #expect(redux.events.map(\.action) == [EventBuilder.initialAction, ["type": "a"], ["type": "b"]])
        #expect(try ImportSupport.states(of: redux.events) == [[:], ["n": 1], ["n": 2]])
        #expect(redux.events.map(\.at.timeIntervalSince1970) == [1_700_000_000.5, 1_700_000_000.5, 1_700_000_001.25])
    }

    @Test("a long recorded session exports every state, across keyframes and pages")
    func longSession() throws {
        let directory = try TemporaryDirectory()
        let writer = try LogWriter(path: directory.path("log.db"))
        let id = try writer.openSession(uuid: "long", app: "Counter", startedAt: Fixture.start)
        var builder = EventBuilder(sessionID: id, policy: KeyframePolicy(maxEvents: 300))
        var states: [JSONValue] = [["count": 0, "log": []]]
        var events = [builder.initial(state: states[0], at: Fixture.start)]
        for n in 1...1_234 {
            var next = states[n - 1].objectValue!
            next["count"] = .number(JSONNumber(n))
            next["log"] = .array(Array((next["log"]!.arrayValue! + [.number(JSONNumber(n))]).suffix(5)))
            states.append(.object(next))
            events.append(builder.next(action: ["type": "tick", "n": .number(JSONNumber(n))], state: states[n],
                                       at: Fixture.start.addingTimeInterval(Double(n) / 8)))
        }
        writer.append(events)
        try writer.flush()
        writer.close()
        #expect(try LogReader(path: directory.path("log.db")).keyframeSeqs(session: id).count > 4)

        let jsonl = try export(path: directory.path("log.db"), session: id, format: .jsonl, pageSize: 97)
        let lines = String(decoding: jsonl, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == states.count)
        #expect(lines.first == #"{"state":{"count":0,"log":[]},"at":1700000000}"#)
        #expect(lines[8] == #"{"action":{"type":"tick","n":8},"state":{"count":8,"log":[4,5,6,7,8]},"at":1700000001}"#)
        let reread = try JSONLImport.parse(jsonl)
        #expect(try ImportSupport.states(of: reread.events) == states)

        let reduxBytes = try export(path: directory.path("log.db"), session: id, format: .reduxDevTools)
        let redux = try ReduxDevToolsImport.parse(reduxBytes)
        #expect(try ImportSupport.states(of: redux.events) == states)
        #expect(redux.events.map(\.action) == events.map(\.action))
        // The states are read a page of patches at a time too; the pages do not show.
        #expect(try export(path: directory.path("log.db"), session: id, format: .reduxDevTools, pageSize: 97) == reduxBytes)
        #expect(try export(path: directory.path("log.db"), session: id, format: .jsonl, pageSize: 1_000) == jsonl)
    }

    @Test("a patch that does not rebuild its state stops the export, naming the seq")
    func damaged() throws {
        let directory = try TemporaryDirectory()
        let writer = try LogWriter(path: directory.path("log.db"))
        let id = try writer.openSession(uuid: "damaged", app: "Counter", startedAt: Fixture.start)
        var events = Fixture.events(session: id, seqs: 0..<4)
        events[2].patch = [["op": "remove", "path": "/missing"]]
        writer.append(events)
        try writer.flush()
        writer.close()
        for format in ImportFormat.allCases {
            #expect(throws: ExportError.self) { try export(path: directory.path("log.db"), session: id, format: format) }
            do {
                _ = try export(path: directory.path("log.db"), session: id, format: format)
            } catch let error as ExportError {
                #expect(error.seq == 2)
                #expect(error.description.hasPrefix("seq 2 of session \(id) cannot be rebuilt: its patch does not apply"))
            }
        }
    }

    @Test("a session without events exports as an empty JSONL file, and is no Redux DevTools export")
    func emptySession() throws {
        let directory = try TemporaryDirectory()
        let writer = try LogWriter(path: directory.path("log.db"))
        let id = try writer.openSession(uuid: "empty", app: "Counter", startedAt: Fixture.start)
        writer.close()
        #expect(try export(path: directory.path("log.db"), session: id, format: .jsonl).isEmpty)
        #expect(throws: ExportError.self) { try export(path: directory.path("log.db"), session: id, format: .reduxDevTools) }
    }
}
