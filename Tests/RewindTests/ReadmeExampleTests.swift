import Foundation
import RewindJSON
import Testing
@testable import Rewind
import RewindTestSupport
@testable import RewindAppTestSupport

// README example begin
nonisolated struct CounterState: Codable, Sendable { var count = 0 }
nonisolated enum CounterAction: Codable, Sendable { case increment, decrement }

let counterReducer: Reducer<CounterState, CounterAction> = { state, action in
    switch action {
    case .increment: state.count += 1
    case .decrement: state.count -= 1
    }
    return .none
}

// server: the address `rewind serve` prints, URL(string: "ws://127.0.0.1:7433/app")!
@MainActor func startCounter(server: URL) -> Store<CounterState, CounterAction> {
    let store = Store(initialState: CounterState(), reducer: counterReducer)
    store.record(to: .server(server), app: "Counter", commands: .accepted)
    store.send(.increment)
    return store
}
// README example end

/// The README's "Attach your app" example is this file's code, and it records as it says.
@Suite("README example", .ownThreads)
@MainActor
struct ReadmeExampleTests {
    @Test("the README shows exactly the example compiled here")
    func readmeMatchesThisFile() throws {
        let here = URL(fileURLWithPath: #filePath)
        let root = here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let source = try String(contentsOf: here, encoding: .utf8)
        let begin = try #require(source.range(of: "// README example begin\n"))
        let end = try #require(source.range(of: "// README example end\n"))
        let example = String(source[begin.upperBound..<end.lowerBound])
        #expect(readme.contains("```swift\nimport Foundation\nimport Rewind\n\n" + example + "```"))
    }

    @Test("the example's store streams its session to the server")
    func exampleRecordsToTheServer() async throws {
        let peer = try ProtocolPeer()
        defer { peer.shutdown() }
        let store = startCounter(server: peer.url)
        #expect(store.state.count == 1)
        store.send(.decrement)
        #expect(await waitUntil { peer.state.states.count == 3 })
        #expect(peer.state.hellos.first?.app == "Counter")
        #expect(peer.state.states.map { $0["count"] } == [0, 1, 0])
        store.stopRecording()
    }
}
