import Foundation
import Rewind
import RewindJSON
import RewindLog
import Testing
import RewindTestSupport

/// A small app: a Swift `Store` that records to `rewind serve` through its `ServerSink`.
struct ShopState: Codable, Sendable, Equatable {
    var total = 0
    var items: [String] = []
}

enum ShopAction: Codable, Sendable, Equatable {
    case add(Int)
    case append(String)
}

let shopReducer: Reducer<ShopState, ShopAction> = { state, action in
    switch action {
    case .add(let amount): state.total += amount
    case .append(let item): state.items.append(item)
    }
    return .none
}

/// `rewind tail` and `rewind replay --into` with a real app: a `Store` streaming to a real server.
@Suite("rewind tail and replay --into with a Store streaming", .serialized, .ownThreads)
@MainActor
struct StoreStreamingTests {
    /// Sends `count` actions, alternating the two kinds.
    static func shop(_ store: Store<ShopState, ShopAction>, count: Int) {
        for index in 1...count {
            store.send(index % 2 == 0 ? .append("item \(index)") : .add(index))
        }
    }

    @Test("tail --diff prints every event of a Store's recording, each change as `rewind diff` gives it")
    func tailFollowsAStore() async throws {
        let server = try TailCommandTests.Server()
        defer { server.cleanup() }
        let tail = try RunningCLI(["tail", "--server", server.url, "--diff"])
        defer { tail.stop() }
        #expect(await onOwnThread { tail.waitForError("waiting for a session to start") })

        let store = Store(initialState: ShopState(), reducer: shopReducer)
        let recorder = store.record(to: .server(URL(string: "ws://127.0.0.1:\(server.port)")!), app: "Shop")
        let sink = try #require(recorder.sinks.first as? ServerSink)
        let count = 40
        Self.shop(store, count: count)
        recorder.flush()
        #expect(await onOwnThread { sink.waitForAcknowledgements(timeout: .seconds(20)) })
        let done = await onOwnThread { tail.wait { out, _ in printedSeqs(out).last == Int64(count) } }
        #expect(done, "stdout: \(tail.stdout)\nstderr: \(tail.stderr)")
        tail.signal(SIGINT)
        #expect(await onOwnThread { tail.waitForExit() } == 0)
        store.stopRecording()

        #expect(printedSeqs(tail.stdout) == Array(0...Int64(count)))
        // The lines under each event are `rewind diff UUID@N-1 UUID@N`, indented by four.
        var blocks: [Int64: [String]] = [:]
        var current: Int64 = -1
        for line in tail.stdout.split(separator: "\n").map(String.init) {
            if line.first?.isNumber == true {
                current = Int64(line.prefix { $0.isNumber })!
                blocks[current] = []
            } else {
                blocks[current, default: []].append(line)
            }
        }
        let uuid = recorder.session.uuid
        for seq in 1...Int64(count) {
            let diff = try CLIRunner.run(["diff", "\(uuid)@\(seq - 1)", "\(uuid)@\(seq)", "--db", server.db])
            let expected = diff.stdout.split(separator: "\n").map { "    " + $0 }
            #expect(blocks[seq] == expected, "changes of seq \(seq)")
        }
    }

    @Test("replay --into sends a recorded session's actions to a live Store, which ends in the recorded state")
    func replayIntoAStore() async throws {
        // The store answers on the main actor, which other tests share: under a loaded machine
        // its answer may take longer than the default 10 s.
        let server = try TailCommandTests.Server(arguments: ["--command-timeout", "120"])
        defer { server.cleanup() }
        let url = URL(string: "ws://127.0.0.1:\(server.port)")!

        // The recording to replay.
        let original = Store(initialState: ShopState(), reducer: shopReducer)
        let first = original.record(to: .server(url), app: "Shop")
        Self.shop(original, count: 25)
        first.flush()
        let firstSink = try #require(first.sinks.first as? ServerSink)
        #expect(await onOwnThread { firstSink.waitForAcknowledgements(timeout: .seconds(20)) })
        let recorded = original.state
        original.stopRecording()

        // A second app, live, starting from scratch with other data.
        let live = Store(initialState: ShopState(total: 999, items: ["other"]), reducer: shopReducer)
        let second = live.record(to: .server(url), app: "Shop", commands: .accepted)
        live.send(.add(1))
        second.flush()
        let secondSink = try #require(second.sinks.first as? ServerSink)
        #expect(await onOwnThread { secondSink.waitForAcknowledgements(timeout: .seconds(20)) })

        let arguments = ["replay", first.session.uuid, "--into", second.session.uuid, "--server", "ws://127.0.0.1:\(server.port)/inspect",
                         "--db", server.db]
        let result = try await onOwnThread { try CLIRunner.run(arguments) }
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("sending 25 actions (seq 1…25"))
        #expect(result.stdout.contains("replayed 25 actions"))
        #expect(live.state == recorded)
        live.stopRecording()
    }
}
