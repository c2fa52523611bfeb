import Foundation
import RewindJSON
import RewindLog
import RewindReplay
import RewindServer
import RewindWire
import Testing

/// Issue 13, repros 1–5: numbers, deep and huge states, and inverses that amplify. Each attack
/// runs against a real server on 127.0.0.1, followed by the shared ``HealthCheck``.
extension HostileInput {
    @Suite("Hostile states")
    struct HostileStateTests {
        /// An app session whose state the test tracks, so its events carry the right hashes.
        final class App {
            let client: JSONClient
            let uuid = UUID().uuidString
            var state: JSONValue
            var next: Int64 = 0

            init(_ fixture: ServerFixture, initial: JSONValue) throws {
                (client, _) = try fixture.helloApp(uuid)
                state = initial
                client.send(AppMessage.event(WireEvent(seq: 0, at: 1_763_700_000, action: ["type": "@@INIT"],
                                                       keyframe: initial, hash: initial.stableHash)).json)
                next = 1
                guard client.waitForAck(0, timeout: 30) else { throw FixtureError(description: "seq 0 was not acked") }
            }

            /// Sends `patch` as the next event with the hash of the state it gives here (or `hash`).
            func send(_ patch: JSONPatch, hash: UInt64? = nil) {
                var after = state
                let computed = hash ?? { (try? after.apply(patch, limits: JSONPatchLimits(maxDepth: 1_000_000))).map { after.stableHash } ?? 0 }()
                client.send(AppMessage.event(WireEvent(seq: next, at: 1_763_700_001, action: ["type": "attack"],
                                                       patch: patch.json, hash: computed)).json)
            }

            /// Sends `patch` and expects it acked; the tracked state moves on.
            func expectAcked(_ patch: JSONPatch) throws {
                send(patch)
                try state.apply(patch)
                #expect(client.waitForAck(next, timeout: 30), "event \(next) was not acked: \(client.state.value.messages.suffix(2))")
                next += 1
            }

            /// Sends `patch` and returns the error it gets; the tracked state stays.
            func expectRefused(_ patch: JSONPatch, hash: UInt64? = nil) -> JSONValue? {
                let before = client.messages(ofType: "error").count
                send(patch, hash: hash)
                guard client.state.wait(timeout: 60, { $0.messages.filter { $0["type"] == "error" }.count > before }) else { return nil }
                return client.messages(ofType: "error").last
            }
        }

        static func pointer(_ text: String) -> JSONPointer {
            do { return try JSONPointer(text) } catch { fatalError("\(text) is not a pointer") }
        }

        static func copies(_ count: Int, from: String, to: String) -> JSONPatch {
            JSONPatch(Array(repeating: .copy(from: pointer(from), path: pointer(to)), count: count))
        }

        // MARK: - 1. Numbers

        @Test("repro 1: integer members with huge exponents get an error naming the member", arguments: [
            "1e99999999999999999999", "1e9223372036854775807", "1e-9223372036854775808", "-1e9223372036854775808",
        ])
        func hugeNumbersInRequests(number: String) throws {
            let fixture = try ServerFixture()
            let check = try HealthCheck(fixture)
            let inspector = try JSONClient.inspector(port: fixture.port)
            defer { inspector.close() }
            inspector.sendRaw(#"{"type":"events","id":1,"session":"latest","limit":\#(number)}"#)
            inspector.sendRaw(#"{"type":"state","id":2,"session":"latest","seq":\#(number)}"#)
            for id in [1, 2] {
                let reply = try #require(inspector.waitForReply(id: id, timeout: 30))
                #expect(reply["type"] == "error")
                #expect(reply["code"] == "bad-message")
                let member = id == 1 ? "limit" : "seq"
                #expect(reply["message"]?.stringValue?.contains("\"\(member)\"") == true, "\(reply)")
            }
            try check.expectHealthy()
        }

        @Test("repro 1: numbers with huge exponents in a state are stored, compared and read back exactly")
        func hugeNumbersInState() throws {
            let fixture = try ServerFixture()
            let check = try HealthCheck(fixture)
            let app = try App(fixture, initial: try JSONValue(parsing: #"{"a":1e99999999999999999999,"b":[1e-9223372036854775808]}"#))
            try app.expectAcked(try JSONPatch(json: JSONValue(parsing: """
                [{"op":"test","path":"/a","value":10e99999999999999999998},
                 {"op":"replace","path":"/a","value":1e9223372036854775807},
                 {"op":"add","path":"/b/-","value":-1e9223372036854775808}]
                """)))
            try check.expectHealthy(alsoAcked: (app.uuid, 1))
            let reader = try fixture.reader()
            let session = try reader.session(named: app.uuid)
            #expect(try Timeline(reader: reader, session: session.id).state(at: 1) == app.state)
            #expect(try Timeline(reader: reader, session: session.id).state(at: 0)["a"]?.numberValue?.text == "1e99999999999999999999")
        }

        // MARK: - 2 and 4. Depth

        @Test("repro 2: 50,000 nesting copies are refused as too deep; nothing is stored")
        func fiftyThousandNestingCopies() throws {
            let fixture = try ServerFixture()
            let check = try HealthCheck(fixture)
            let app = try App(fixture, initial: ["a": ["x": 1]])
            let error = try #require(app.expectRefused(Self.copies(50_000, from: "/a", to: "/a/k"), hash: 0))
            #expect(error["code"] == "state-too-deep")
            #expect(error["message"]?.stringValue?.hasPrefix("event 1: operation 996 (copy /a → /a/k) would nest the state deeper than 998 levels") == true,
                    "\(error)")
            try app.expectAcked(JSONPatch([.add(path: Self.pointer("/ok"), value: true)]))
            try check.expectHealthy(alsoAcked: (app.uuid, 1))
            let reader = try fixture.reader()
            #expect(try reader.session(named: app.uuid).lastSeq == 1)
        }

        @Test("repro 4: a state 1,002 levels deep is refused, one 998 deep is acked and reads back")
        func depthLimitExactly() throws {
            let fixture = try ServerFixture()
            let check = try HealthCheck(fixture)
            let app = try App(fixture, initial: ["a": ["x": 1]])
            // The 1,000 copies of the issue: refused at the limit, not stored.
            let error = try #require(app.expectRefused(Self.copies(1_000, from: "/a", to: "/a/k")))
            #expect(error["code"] == "state-too-deep")
            // 996 copies nest /a to 998 levels, the limit: acked, stored and read back by `verify`.
            try app.expectAcked(Self.copies(996, from: "/a", to: "/a/k"))
            #expect(app.state.measure().depth == RewindServerConfiguration.maxStateDepth)
            // One more level is refused, whether by a patch or a keyframe.
            let deeper = try #require(app.expectRefused(Self.copies(1, from: "/a", to: "/a/k")))
            #expect(deeper["code"] == "state-too-deep")
            var deepKeyframe = app.state
            try deepKeyframe.apply(Self.copies(1, from: "/a", to: "/a/k"))
            app.client.send(AppMessage.event(WireEvent(seq: app.next, at: 1_763_700_002, action: ["type": "deep"],
                                                       keyframe: deepKeyframe, hash: deepKeyframe.stableHash)).json)
            #expect(app.client.waitFor(timeout: 30) {
                $0["code"] == "state-too-deep" && $0["message"]?.stringValue?.contains("the state nests deeper") == true
            } != nil)
            try check.expectHealthy(alsoAcked: (app.uuid, 1))
            let reader = try fixture.reader()
            let session = try reader.session(named: app.uuid)
            #expect(session.lastSeq == 1)
            #expect(try Timeline(reader: reader, session: session.id).state(at: 1) == app.state)
            #expect(try Timeline(reader: reader, session: session.id).state(at: 0) == ["a": ["x": 1]])
        }

        // MARK: - 3. Growth

        @Test("repro 3: 40 doubling copies are refused after a few operations, before memory grows")
        func doublingCopies() throws {
            let fixture = try ServerFixture { $0.maxStateSize = 4 << 20 }
            let check = try HealthCheck(fixture)
            let app = try App(fixture, initial: ["a": [.string(String(repeating: "x", count: 1_800))]])
            let error = try #require(app.expectRefused(Self.copies(40, from: "/a", to: "/a/-"), hash: 0))
            #expect(error["code"] == "state-too-large")
            // 2^11 × 1.8 KB passes 4 MiB: the operation named is about the twelfth, not the fortieth.
            let message = try #require(error["message"]?.stringValue)
            #expect(message.hasPrefix("event 1: operation 1"), "\(message)")
            #expect(message.contains("--max-state of 4194304 bytes"), "\(message)")
            try check.expectHealthy(alsoAcked: (app.uuid, 0))
        }

        @Test("a state over --max-state is refused whether it comes as a patch or a keyframe")
        func stateSizeCap() throws {
            let fixture = try ServerFixture { $0.maxStateSize = 64 << 10 }
            let check = try HealthCheck(fixture)
            let app = try App(fixture, initial: ["a": ""])
            try app.expectAcked(JSONPatch([.replace(path: Self.pointer("/a"), value: .string(String(repeating: "y", count: 60_000)))]))
            let error = try #require(app.expectRefused(JSONPatch([.add(path: Self.pointer("/b"), value: .string(String(repeating: "z", count: 6_000)))])))
            #expect(error["code"] == "state-too-large")
            let big: JSONValue = ["a": .string(String(repeating: "k", count: 70_000))]
            app.client.send(AppMessage.event(WireEvent(seq: app.next, at: 1_763_700_002, action: ["type": "big"],
                                                       keyframe: big, hash: big.stableHash)).json)
            #expect(app.client.waitFor(timeout: 30) {
                $0["code"] == "state-too-large" && $0["message"]?.stringValue?.contains("event 2: the state after it is more than 65536 bytes") == true
            } != nil)
            try check.expectHealthy(alsoAcked: (app.uuid, 1))
        }

        // MARK: - 5. Inverses

        @Test("repro 5: overwriting a 1 MiB value 60 times stores an inverse no larger than the state before; 100 times is refused")
        func amplifyingInverse() throws {
            let fixture = try ServerFixture()
            let check = try HealthCheck(fixture)
            let mebibyte = 1 << 20
            let app = try App(fixture, initial: ["a": .string(String(repeating: "a", count: mebibyte)),
                                                 "c": .string(String(repeating: "c", count: mebibyte)), "b": 0])
            func overwrites(_ count: Int) -> JSONPatch {
                JSONPatch((0..<count).map { .copy(from: Self.pointer($0 % 2 == 0 ? "/a" : "/c"), path: Self.pointer("/b")) })
            }
            #expect(overwrites(100).json.serializedBytes().count < 5_000)
            // 100 MiB placed by one patch is over the 64 MiB a patch may place: refused.
            let error = try #require(app.expectRefused(overwrites(100)))
            #expect(error["code"] == "state-too-large")
            // 60 MiB placed fits, but the undo log would keep 60 overwritten MiB.
            try app.expectAcked(overwrites(60))
            try check.expectHealthy(alsoAcked: (app.uuid, 1))
            let reader = try fixture.reader()
            let session = try reader.session(named: app.uuid)
            var inverseBytes = 0
            try reader.walkEvents(session: session.id, from: 1, to: 1) { row throws(LogError) in
                inverseBytes = row.inverseBytes
                return false
            }
            // The state before holds two 1 MiB strings; the undo log would have kept 60 of them.
            #expect(inverseBytes > 2 * mebibyte && inverseBytes < 2 * mebibyte + 1_000)
            // Stepping back from seq 1 goes through that inverse and gives the state before.
            let timeline = try Timeline(reader: reader, session: session.id)
            _ = try timeline.state(at: 1)
            #expect(try timeline.state(at: 0)["b"] == 0)
        }
    }
}
