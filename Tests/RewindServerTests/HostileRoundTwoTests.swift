import Foundation
import RewindTestSupport
import RewindJSON
import RewindLog
import RewindReplay
import RewindServer
import RewindWebSocket
import RewindWire
import Testing

/// Issue 25's repros against a real server on 127.0.0.1: a hostile `find`, a branch too large to
/// build, loose validation, and a log that cannot store. Each ends with the ``HealthCheck``.
extension HostileInput {
    @Suite("Hostile input, round two")
    struct HostileRoundTwoTests {
        typealias App = HostileInput.HostileStateTests.App

        @Test("repro 1: two regular-expression finds that backtrack for ever elsewhere answer, and a third inspector is answered meanwhile")
        func hostileFind() throws {
            let fixture = try ServerFixture { $0.queryTimeBudget = 2 }
            let check = try HealthCheck(fixture)
            let app = try App(fixture, initial: ["s": .string(String(repeating: "a", count: 200))])
            #expect(app.client.waitForAck(0))
            let hostile: JSONValue = ["type": "find", "session": .string(app.uuid), "path": "/s", "matches": "(.*a){12}!x"]
            let attackers = try (0..<2).map { _ in try JSONClient.inspector(port: fixture.port) }
            defer { attackers.forEach { $0.close() } }
            for (index, attacker) in attackers.enumerated() {
                var request = hostile.objectValue ?? [:]
                request["id"] = .number(JSONNumber(index + 1))
                attacker.send(.object(request))
            }
            let third = try JSONClient.inspector(port: fixture.port)
            defer { third.close() }
            third.send(["type": "sessions", "id": 7])
            #expect(third.waitForReply(id: 7, timeout: 10)?["type"] == "sessions", "a third inspector waited behind two finds")
            for (index, attacker) in attackers.enumerated() {
                let reply = attacker.waitForReply(id: index + 1, timeout: 10)
                #expect(reply?["type"] == "find", "\(String(describing: reply))")
                // Linear in the string: the whole session is scanned, and nothing matches.
                #expect(reply?["complete"] == true && reply?["hits"]?.arrayValue?.isEmpty == true, "\(String(describing: reply))")
            }
            // A pattern of one character and four megabytes of combining marks is refused by its
            // bytes, and the error quotes only its start.
            let bomb = "a" + String(repeating: "\u{0301}", count: 2_000_000)
            third.send(["type": "find", "id": 8, "session": .string(app.uuid), "path": "/s", "matches": .string(bomb)])
            let refused = try #require(third.waitForReply(id: 8, timeout: 30))
            #expect(refused["code"] == "bad-message", "\(refused)")
            let message = refused["message"]?.stringValue ?? ""
            #expect(message.contains("at most 256 bytes (UTF-8); this one has 4000001"), "\(message.prefix(300))")
            #expect(message.utf8.count < 300)
            // A pattern the matcher refuses is quoted briefly too.
            third.send(["type": "find", "id": 9, "session": .string(app.uuid), "path": "/s", "matches": "(?<=a)b"])
            let lookBehind = try #require(third.waitForReply(id: 9, timeout: 30))
            #expect(lookBehind["code"] == "bad-message")
            #expect(lookBehind["message"]?.stringValue?.contains("a look-behind (it needs backtracking") == true, "\(lookBehind)")
            try check.expectHealthy(alsoAcked: (app.uuid, 0))
        }

        @Test("repro 3: a branch is measured while its actions are read and refused as reply-too-large, naming size and limit, with the app connected")
        func branchTooLarge() throws {
            // A 1 MiB output bound: a branch carries at most 512 KiB to the app.
            let fixture = try ServerFixture { $0.queueLimits = WebSocketQueueLimits(maxMessages: 4_096, maxBytes: 1 << 20) }
            let check = try HealthCheck(fixture)
            let app = try HostileInput.HostileQueryTests.bigActions(fixture, count: 300, actionBytes: 5_000)
            let inspector = try JSONClient.inspector(port: fixture.port)
            defer { inspector.close() }
            inspector.send(["type": "command", "id": 1, "session": .string(app.uuid), "kind": "branch", "skip": [3]])
            let reply = try #require(inspector.waitForReply(id: 1, timeout: 30))
            #expect(reply["code"] == "reply-too-large", "\(reply)")
            let message = reply["message"]?.stringValue ?? ""
            #expect(message.contains("over the limit of 524288 bytes for one command"), "\(message)")
            #expect(message.contains("up to seq "), "\(message)")
            // The app is there: a small command still reaches it (it does not answer; the server
            // relays and waits, and nothing says app-offline).
            inspector.send(["type": "command", "id": 2, "session": .string(app.uuid), "kind": "pause"])
            let relayed = app.client.waitFor { $0["type"] == "command" }
            #expect(relayed?["kind"] == "pause", "\(String(describing: relayed))")
            try check.expectHealthy(alsoAcked: (app.uuid, 300))
        }

        @Test("repro 5: nonFinite pointers are exact, edit keys canonical, and a resume in another run is refused")
        func exactValidation() throws {
            let fixture = try ServerFixture()
            let check = try HealthCheck(fixture)
            let app = try App(fixture, initial: ["n": 0])
            #expect(app.client.waitForAck(0))
            for pointers: JSONValue in [["/stateX/evil"], ["/actionable"], ["/state/~9"], ["state/n"]] {
                let event = AppMessage.event(WireEvent(seq: 1, at: 1_763_700_001, action: ["type": "x"], patch: [],
                                                       hash: app.state.stableHash)).json
                var object = try #require(event.objectValue)
                object["nonFinite"] = pointers
                app.client.send(.object(object))
                let error = app.client.waitFor { $0["type"] == "error" && $0["message"]?.stringValue?.contains("nonFinite") == true }
                #expect(error?["code"] == "bad-message", "\(pointers): \(String(describing: error))")
                app.client.state.update { $0.messages.removeAll() }
            }
            // Exact pointers under /state and /action are taken.
            var good = try #require(AppMessage.event(WireEvent(seq: 1, at: 1_763_700_001, action: ["type": "x"], patch: [],
                                                               hash: app.state.stableHash)).json.objectValue)
            good["nonFinite"] = ["/state", "/action/~0~1"]
            app.client.send(.object(good))
            #expect(app.client.waitForAck(1))

            // Edit keys: "01" and "+1" are not seqs.
            let inspector = try JSONClient.inspector(port: fixture.port)
            defer { inspector.close() }
            for (id, key) in [(1, "01"), (2, "+1"), (3, " 1")] {
                inspector.send(["type": "command", "id": .number(JSONNumber(id)), "session": .string(app.uuid), "kind": "branch",
                                "edit": .object([key: ["type": "y"]])])
                let reply = inspector.waitForReply(id: id, timeout: 30)
                #expect(reply?["code"] == "bad-message", "\(key): \(String(describing: reply))")
                #expect(reply?["message"]?.stringValue?.contains("plain decimal") == true, "\(String(describing: reply))")
            }

            // A resume that names another run is refused; the same run, or none, resumes.
            let uuid = UUID().uuidString
            let first = try JSONClient.app(port: fixture.port)
            defer { first.close() }
            first.send(AppMessage.hello(AppMessage.Hello(id: 1, session: uuid, app: "Runs", run: "run-a")).json)
            #expect(first.waitFor { $0["type"] == "welcome" } != nil)
            first.close()
            let other = try JSONClient.app(port: fixture.port)
            defer { other.close() }
            other.send(AppMessage.hello(AppMessage.Hello(id: 2, session: uuid, app: "Runs", run: "run-b")).json)
            let refused = other.waitFor { $0["type"] == "error" }
            #expect(refused?["code"] == "bad-message", "\(String(describing: refused))")
            #expect(refused?["message"]?.stringValue?.contains("was recorded in run run-a; it cannot continue in run run-b") == true,
                    "\(String(describing: refused))")
            other.send(AppMessage.hello(AppMessage.Hello(id: 3, session: uuid, app: "Runs", run: "run-a")).json)
            #expect(other.waitFor { $0["type"] == "welcome" } != nil)
            #expect(try fixture.reader().session(named: uuid).run == "run-a")
            try check.expectHealthy(alsoAcked: (app.uuid, 1))
        }

        @Test("repro 7: a log that cannot store never closes the app, which gets storage errors, keeps its events and has them acked once there is room")
        func fullDisk() throws {
            let fixture = try ServerFixture()
            let check = try HealthCheck(fixture)
            let writer = try #require(fixture.server.logWriter)
            let app = try App(fixture, initial: ["n": 0, "notes": []])
            #expect(app.client.waitForAck(0))
            // The log may not grow: SQLite answers SQLITE_FULL, as it does on a full disk.
            let pages = try writer.limitPages(0)
            #expect(pages > 0)
            var recording: [JSONValue] = []
            var state = app.state
            for seq in Int64(1)...40 {
                let patch: JSONValue = [["op": "add", "path": "/notes/-", "value": .string(String(repeating: "n", count: 8_000) + "\(seq)")]]
                try state.apply(JSONPatch(json: patch))
                recording.append(AppMessage.event(WireEvent(seq: seq, at: 1_763_700_001, action: ["type": "note"], patch: patch,
                                                            hash: state.stableHash)).json)
            }
            for event in recording { app.client.send(event) }
            // The reason comes once; the events that arrived behind the one refused may be
            // answered first ("the log refused an earlier event"), as the writer's answer and
            // theirs race.
            let storage = app.client.waitFor { $0["code"] == "storage" && $0["message"]?.stringValue?.contains("could not be stored") == true }
            #expect(storage != nil, "\(app.client.state.value.messages.suffix(3))")
            #expect(storage?["message"]?.stringValue?.contains("database or disk is full") == true, "\(String(describing: storage))")
            // Every later event of the session is refused with `storage` too, until the app says
            // hello again: more than the ten protocol errors in a row that close an app.
            for event in recording.prefix(15) { app.client.send(event) }
            #expect(app.client.state.wait(timeout: 30) { state in state.messages.filter { $0["code"] == "storage" }.count >= 15 },
                    "\(app.client.state.value.messages.suffix(3))")
            let messages = app.client.state.value.messages.filter { $0["code"] == "storage" }.compactMap { $0["message"]?.stringValue }
            #expect(messages.allSatisfy { !$0.contains("leaves a gap") }, "\(messages.prefix(3))")
            #expect(app.client.state.value.closeCode == nil)
            #expect(JSONClient.highestAck(in: app.client.state.value) < 40)
            // Room again: the app says hello once more and resends from the server's nextSeq.
            try writer.limitPages(nil)
            app.client.send(hello(app.uuid, id: 2))
            let welcome = try #require(app.client.waitFor { $0["type"] == "welcome" && $0["id"] == 2 })
            let next = try #require(welcome["nextSeq"]?.int64)
            #expect(next >= 1 && next <= 40)
            for event in recording.dropFirst(Int(next) - 1) { app.client.send(event) }
            #expect(app.client.waitForAck(40, timeout: 60))
            let stored = try Timeline(reader: fixture.reader(), session: fixture.reader().session(named: app.uuid).id)
            #expect(try stored.state(at: 40) == state)
            try check.expectHealthy(alsoAcked: (app.uuid, 40))
        }
    }
}
