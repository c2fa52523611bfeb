import Foundation
import RewindJSON
import RewindWebSocket
import RewindWire
import Testing
import RewindTestSupport
import RewindSupport

/// `rewind tail --diff` when a live patch does not apply to the state it keeps. A real server
/// checks every patch before it pushes it, so an inspector server scripted here sends one that
/// cannot apply.
@Suite("rewind tail --diff: a patch that does not apply", .ownThreads)
struct TailDiffRecoveryTests {
    /// An inspector endpoint that lists one live session, pushes `pushes` after the subscription,
    /// answers `events` with nothing stored and `state` with `stateAnswer` (an error when nil).
    final class ScriptedInspector: WebSocketServerDelegate, @unchecked Sendable {
        let session: WireSession
        let pushes: [JSONValue]
        let stateAnswer: JSONValue?
        private let lock = Mutex()
        private var asked: [Int64] = []

        init(session: WireSession, pushes: [JSONValue], stateAnswer: JSONValue?) {
            self.session = session
            self.pushes = pushes
            self.stateAnswer = stateAnswer
        }

        /// The seqs whose state tail asked for.
        var stateRequests: [Int64] { lock.withLock { asked } }

        func didReceive(_ message: WebSocketMessage, from connection: WebSocketConnection) {
            guard let request = try? InspectorRequest(frame: message.bytes) else { return }
            func reply(_ object: JSONObject) { _ = connection.send(text: JSONValue.object(object).serialized(.compact)) }
            switch request {
            case .sessions(let id):
                reply(["type": "sessions", "id": id ?? .null, "sessions": [session.json]])
            case .subscribe(let id, _):
                reply(["type": "subscribed", "id": id ?? .null])
                for push in pushes { _ = connection.send(text: push.serialized(.compact)) }
            case .events(let id, _, _, _, _, _):
                reply(["type": "events", "id": id ?? .null, "events": []])
            case .state(let id, _, let seq, _):
                lock.withLock { asked.append(seq) }
                if let stateAnswer {
                    reply(["type": "state", "id": id ?? .null, "value": stateAnswer])
                } else {
                    reply(["type": "error", "id": id ?? .null, "code": "replay-failed", "message": "the state cannot be rebuilt"])
                }
            default:
                reply(["type": "error", "id": .null, "code": "bad-request", "message": "not scripted"])
            }
        }
    }

    /// Seq 0 sets count 0; seq 1's patch removes a key that is not there; seq 2 sets count 2.
    static func pushes(_ uuid: String) -> [JSONValue] {
        let states: [JSONValue] = [["count": 0], ["count": 1], ["count": 2]]
        let events = [
            WireEvent(seq: 0, at: 1_763_700_000, action: ["type": "@@INIT"], keyframe: states[0], hash: states[0].stableHash),
            WireEvent(seq: 1, at: 1_763_700_001, action: ["type": "odd"], patch: [["op": "remove", "path": "/missing"]],
                      hash: states[1].stableHash),
            WireEvent(seq: 2, at: 1_763_700_002, action: ["type": "set"], patch: [["op": "replace", "path": "/count", "value": 2]],
                      hash: states[2].stableHash),
        ]
        return events.map { InspectorPush.event(session: uuid, sessionID: 1, actionType: "t", event: $0).json }
    }

    /// Runs `tail UUID --diff --json` against a scripted server until it printed three events.
    static func run(stateAnswer: JSONValue?) throws -> (printed: [JSONValue], stderr: String, asked: [Int64]) {
        let uuid = UUID().uuidString
        let session = WireSession(id: 1, uuid: uuid, app: "scripted", startedAt: 1_763_700_000, live: true, eventCount: 0, lastSeq: nil)
        let inspector = ScriptedInspector(session: session, pushes: pushes(uuid), stateAnswer: stateAnswer)
        let server = WebSocketServer(configuration: WebSocketServerConfiguration(endpoints: [
            WebSocketEndpoint(path: "/inspect", subprotocol: InspectorRequest.subprotocol),
        ]), delegate: inspector)
        try server.start()
        defer { server.shutdown() }
        let port = try #require(server.port)
        let tail = try RunningCLI(["tail", uuid, "--diff", "--json", "--server", "ws://127.0.0.1:\(port)/inspect"])
        defer { tail.stop() }
        #expect(tail.waitForLines(3), "stdout: \(tail.stdout)\nstderr: \(tail.stderr)")
        tail.signal(SIGINT)
        #expect(tail.waitForExit() == 0)
        return (try jsonLines(tail.stdout), tail.stderr, inspector.stateRequests)
    }

    @Test("the state for that seq is read from the server, and the diffs carry on from it")
    func recovers() throws {
        let (printed, stderr, asked) = try Self.run(stateAnswer: ["count": 1])
        #expect(printed.map { $0["seq"] } == [0, 1, 2])
        #expect(asked == [1])
        #expect(printed.count == 3)
        guard printed.count == 3 else { return }
        #expect(printed[1]["changes"] == [["op": "replace", "path": "/count", "old": 0, "new": 1]])
        #expect(printed[2]["changes"] == [["op": "replace", "path": "/count", "old": 1, "new": 2]])
        #expect(!stderr.contains("cannot rebuild"))
    }

    @Test("when the server cannot give the state either, the changes are unknown (null), said once on stderr")
    func unknownWhenTheServerCannotHelp() throws {
        let (printed, stderr, asked) = try Self.run(stateAnswer: nil)
        #expect(printed.map { $0["seq"] } == [0, 1, 2])
        #expect(asked.first == 1)
        guard printed.count == 3 else { return }
        #expect(printed[0]["changes"] == [])
        #expect(printed[1]["changes"] == .null)
        #expect(printed[2]["changes"] == .null)
        #expect(stderr.components(separatedBy: "cannot rebuild the state").count == 2, "stderr: \(stderr)")
    }
}
