import Foundation
import Rewind

// `ReadmeCounter [N]`: README.md's "Attach your app" snippet (Counter.swift, verbatim), run as a
// new user would: `startCounter(server:)` with the address in REWIND_SERVER, N more increments,
// then `finishRecording()`; prints `session UUID`, then the result as `finished {…}` and exits
// 0 when the server has everything. StandInSnippetTests builds it in three isolation settings.

let count = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 3
guard let address = ProcessInfo.processInfo.environment["REWIND_SERVER"], let server = URL(string: address) else {
    FileHandle.standardError.write(Data("ReadmeCounter: set REWIND_SERVER to the address rewind serve prints\n".utf8))
    exit(2)
}
Task { @MainActor in
    let store = startCounter(server: server)
    if let uuid = store.recorder?.session.uuid { print("session \(uuid)") }
    for _ in 0..<count { store.send(.increment) }
    let result = await store.finishRecording(timeout: .seconds(20))
    print("finished {\"delivered\":\(result.delivered),\"recorded\":\(result.recorded),\"count\":\(store.state.count)}")
    exit(result.delivered ? 0 : 1)
}
dispatchMain()
