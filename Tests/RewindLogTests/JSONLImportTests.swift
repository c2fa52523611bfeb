import Foundation
import RewindJSON
import Testing
@testable import RewindLog
import RewindTestSupport

@Suite("JSONL import: lines to events", .ownThreads)
struct JSONLImportTests {
    @Test("a first line without an action is the initial state, seq 0")
    func initialLine() throws {
        let session = try JSONLImport.parse(ImportSupport.jsonl([
            #"{"state":{"n":0},"at":1700000000}"#,
            #"{"action":{"type":"inc"},"state":{"n":1},"at":1700000001.5}"#,
            #"{"action":"reset","state":{"n":0},"at":1700000002}"#,
        ]))
        #expect(session.events.map(\.seq) == [0, 1, 2])
        #expect(session.events.map(\.action) == [EventBuilder.initialAction, ["type": "inc"], "reset"])
        #expect(session.events.map(\.actionType) == ["@@INIT", "inc", "reset"])
        #expect(try ImportSupport.states(of: session.events) == [["n": 0], ["n": 1], ["n": 0]])
        #expect(session.events.map(\.at.timeIntervalSince1970) == [1_700_000_000, 1_700_000_001.5, 1_700_000_002])
        #expect(session.events.map(\.hash) == [["n": 0], ["n": 1], ["n": 0]].map { (state: JSONValue) in state.stableHash })
        #expect(!session.importMeta.syntheticInitial)
        #expect(session.importMeta.untimed.isEmpty)
        #expect(session.importMeta.atText.isEmpty)
        #expect(session.startedAt == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(session.endedAt == Date(timeIntervalSince1970: 1_700_000_002))
    }

    @Test("a first line with an action becomes seq 1 after a made-up empty initial state")
    func syntheticInitial() throws {
        let session = try JSONLImport.parse(ImportSupport.jsonl([
            #"{"action":{"type":"load"},"state":{"items":[1]},"at":1700000005}"#,
            #"{"action":{"type":"add"},"state":{"items":[1,2]},"at":1700000006}"#,
        ]))
        #expect(session.importMeta.syntheticInitial)
        #expect(try ImportSupport.states(of: session.events) == [[:], ["items": [1]], ["items": [1, 2]]])
        #expect(session.events[0].action == EventBuilder.initialAction)
        #expect(session.events[0].at == Date(timeIntervalSince1970: 1_700_000_005))
        #expect(session.events[1].action == ["type": "load"])
    }

    @Test("lines without at take the previous line's time, those before the first time take it, and they are remembered as untimed ranges")
    func untimed() throws {
        let start = Date(timeIntervalSince1970: 1_600_000_000)
        let all = try JSONLImport.parse(ImportSupport.jsonl([
            #"{"state":{"n":0}}"#, #"{"action":"a","state":{"n":1}}"#, #"{"action":"a","state":{"n":2}}"#,
        ]), options: ImportOptions(importedAt: start))
        #expect(all.importMeta.untimed == [0...2])
        #expect(all.events.allSatisfy { $0.at == start })

        let mixed = try JSONLImport.parse(ImportSupport.jsonl([
            #"{"action":"a","state":{"n":1}}"#,
            #"{"action":"a","state":{"n":2},"at":1700000000.25}"#,
            #"{"action":"a","state":{"n":3}}"#,
            #"{"action":"a","state":{"n":4}}"#,
            #"{"action":"a","state":{"n":5},"at":1700000009}"#,
        ]), options: ImportOptions(importedAt: start))
        #expect(mixed.importMeta.untimed == [1...1, 3...4])
        // Seq 0 (made up for the first line's action) and seq 1 come before any time: they take
        // the first recorded one, not the import time, so the session never ends before it starts.
        #expect(mixed.events.map(\.at.timeIntervalSince1970) == [1_700_000_000.25, 1_700_000_000.25, 1_700_000_000.25,
                                                                1_700_000_000.25, 1_700_000_000.25, 1_700_000_009])
        #expect(mixed.startedAt <= mixed.endedAt)
        #expect(mixed.importMeta.isUntimed(3) && mixed.importMeta.isUntimed(4))
        #expect(!mixed.importMeta.isUntimed(0) && !mixed.importMeta.isUntimed(2) && !mixed.importMeta.isUntimed(5))
    }

    @Test("at texts: shortest form needs nothing, fixed decimals are one rule, odd spellings are kept one by one")
    func atTexts() throws {
        let shortest = try JSONLImport.parse(ImportSupport.jsonl([
            #"{"state":{},"at":1700000000.123}"#, #"{"action":"a","state":{},"at":1700000000.5}"#,
        ]))
        #expect(shortest.importMeta.atDecimals == nil)
        #expect(shortest.importMeta.atText.isEmpty)

        let fixed = try JSONLImport.parse(ImportSupport.jsonl([
            #"{"state":{},"at":1700000000.100}"#, #"{"action":"a","state":{},"at":1700000000.250}"#,
            #"{"action":"a","state":{},"at":1700000000.123}"#,
        ]))
        #expect(fixed.importMeta.atDecimals == 3)
        #expect(fixed.importMeta.atText.isEmpty)

        let odd = try JSONLImport.parse(ImportSupport.jsonl([
            #"{"state":{},"at":1.7e9}"#, #"{"action":"a","state":{},"at":1700000001}"#, #"{"action":"a","state":{},"at":1700000002.0}"#,
        ]))
        #expect(odd.importMeta.atDecimals == nil)
        #expect(odd.importMeta.atText == [0: "1.7e9", 2: "1700000002.0"])
        #expect(odd.events[0].at == Date(timeIntervalSince1970: 1_700_000_000))
    }

    @Test("blank lines are skipped but counted, CRLF endings and a byte-order mark are accepted")
    func blankLinesAndEndings() throws {
        let bytes = [0xEF, 0xBB, 0xBF] + Array("{\"state\":{\"n\":0}}\r\n\r\n  \n{\"action\":\"a\",\"state\":{\"n\":1}}\r\n{\"action\":\"a\"}".utf8)
        let error = ImportSupport.importError { () throws(ImportError) in _ = try JSONLImport.parse(bytes) }
        #expect(error == ImportError(.line(5), #"the line has no "state""#))
        let session = try JSONLImport.parse(Array(bytes.dropLast(#"{"action":"a"}"#.utf8.count)))
        #expect(try ImportSupport.states(of: session.events) == [["n": 0], ["n": 1]])
    }

    @Test("the member order of the first line with an action (else the first line) is remembered when it is not the usual one")
    func memberOrder() throws {
        let usual = try JSONLImport.parse(ImportSupport.jsonl([#"{"state":{}}"#, #"{"action":"a","state":{}}"#]))
        #expect(usual.importMeta.fields == nil)
        let other = try JSONLImport.parse(ImportSupport.jsonl([#"{"at":1,"action":"a","state":{}}"#, #"{"state":{},"action":"b"}"#]))
        #expect(other.importMeta.fields == ["at", "action", "state"])
        let initialOnly = try JSONLImport.parse(ImportSupport.jsonl([#"{"at":1,"state":{}}"#]))
        #expect(initialOnly.importMeta.fields == ["at", "state"])
    }

    @Test("a bad line is reported with its line number", arguments: [
        (#"{"action":"a","state":{} "#, ImportError(.lineAndColumn(3, 26), "unexpected end of input: expected ',' or '}'")),
        (#"{"action":"a"}"#, ImportError(.line(3), #"the line has no "state""#)),
        (#"{"state":{}}"#, ImportError(.line(3), #"the line has no "action" (only the first line, the initial state, may leave it out)"#)),
        (#"[1,2]"#, ImportError(.line(3), "expected a JSON object, found an array")),
        (#"{"action":"a","state":{},"seq":3}"#, ImportError(.line(3), #"the line has a member "seq"; a line holds "action", "state" and "at", and may say "cause", "site" and "coalesced""#)),
        (#"{"action":"a","state":{},"redacted":["/x"]}"#, ImportError(.line(3), #"the line has a member "redacted"; a line holds "action", "state" and "at", and may say "cause", "site" and "coalesced"; only the first line may say "redacted""#)),
        (#"{"action":"a","state":{},"cause":-1}"#, ImportError(.line(3), #""cause" must be a seq, an integer 0 or more"#)),
        (#"{"action":"a","state":{},"cause":3}"#, ImportError(.line(3), #""cause" (3) must be the seq of an earlier line"#)),
        (#"{"action":"a","state":{},"coalesced":1}"#, ImportError(.line(3), #""coalesced" must be true or false"#)),
        (#"{"action":"a","state":{},"site":{"file":"A.swift","line":"7","function":"f"}}"#, ImportError(.line(3), #""site" must be {"file": string, "line": integer 0 or more, "function": string}"#)),
        (#"{"action":"a","state":{},"at":"2024-01-01"}"#, ImportError(.line(3), #""at" must be a number of seconds since 1970, not a string"#)),
        (#"{"action":"a","state":{},"at":1700000000000}"#, ImportError(.line(3), #""at" (1700000000000) is too large for seconds since 1970 (milliseconds?)"#)),
    ])
    func badLine(line: String, expected: ImportError) {
        let bytes = ImportSupport.jsonl([#"{"state":{}}"#, #"{"action":"a","state":{"n":1}}"#, line, #"{"action":"a","state":{}}"#])
        let error = ImportSupport.importError { () throws(ImportError) in _ = try JSONLImport.parse(bytes) }
        #expect(error == expected)
        #expect(error?.description.hasPrefix("line 3") == true)
    }

    @Test("a file with no lines, or only blank ones, is an error")
    func empty() {
        for bytes in [[], Array("\n  \n".utf8)] as [[UInt8]] {
            let error = ImportSupport.importError { () throws(ImportError) in _ = try JSONLImport.parse(bytes) }
            #expect(error == ImportError(.document, "the file holds no lines to import"))
        }
    }

    @Test("the import's meta says the format, the file and when; defaults are left out")
    func meta() throws {
        let at = Date(timeIntervalSince1970: 1_750_000_000)
        let session = try JSONLImport.parse(ImportSupport.jsonl([#"{"action":"a","state":{}}"#]),
                                            options: ImportOptions(importedAt: at, file: "trace.jsonl"))
        #expect(session.importMeta.sessionMeta == [
            "import": ["format": "jsonl", "file": "trace.jsonl", "importedAt": 1_750_000_000, "syntheticInitial": true, "untimed": [[1, 1]]],
        ])
        #expect(ImportMeta(sessionMeta: session.importMeta.sessionMeta) == session.importMeta)
        #expect(ImportMeta(sessionMeta: ["version": "1.0"]) == nil)
    }

    @Test("a recorded session's provenance and redactions come back from its lines")
    func provenance() throws {
        let bytes = ImportSupport.jsonl([
            #"{"state":{"n":0},"redacted":["/token"],"redactedKeys":["password"]}"#,
            #"{"action":"a","state":{"n":1},"site":{"file":"App/V.swift","line":7,"function":"body"}}"#,
            #"{"action":"b","state":{"n":1},"cause":1,"coalesced":true}"#,
        ])
        let session = try JSONLImport.parse(bytes)
        #expect(session.redacted == ["/token"])
        #expect(session.redactedKeys == ["password"])
        #expect(session.events[1].site == SendSite(file: "App/V.swift", line: 7, function: "body"))
        #expect(session.events[2].cause == 1)
        #expect(session.events[2].coalesced)
        #expect(!session.events[1].coalesced)
    }

    @Test("a fixture that starts at a later seq numbers its causes from there")
    func startsLater() throws {
        let bytes = ImportSupport.jsonl([
            #"{"state":{"n":5},"from":5}"#,
            #"{"action":"a","state":{"n":6},"cause":3}"#,
            #"{"action":"b","state":{"n":7},"cause":6}"#,
        ])
        let session = try JSONLImport.parse(bytes)
        #expect(session.firstSeq == 5)
        // Seq 3 is before the fixture: no cause; seq 6 is its line 1.
        #expect(session.events.map(\.cause) == [nil, nil, 1])
    }
}
