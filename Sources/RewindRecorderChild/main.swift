import Foundation
import RewindRecorder

// `RewindRecorderChild COUNT`: an app built against RewindRecorder alone, for the tests. It records
// COUNT actions with no destination in its code, so the environment decides (REWIND_SERVER and
// REWIND_TOKEN, else the default log), ends the session, waits until a server has it, and prints
// the session's uuid.

struct ChildState: Codable, Sendable {
    var total = 0
    var added: [Int] = []
}

enum ChildAction: Codable, Sendable {
    case add(Int)
}

let count = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 10
var state = ChildState()
let recorder = Recorder<ChildState, ChildAction>(initialState: state, metadata: RecordingMetadata(app: "RecorderChild"))
for amount in 1...max(1, count) {
    state.total += amount
    state.added.append(amount)
    recorder.record(.add(amount), state: state)
}
recorder.stop()
for case let server as ServerSink in recorder.sinks where !server.waitUntilEnded(timeout: .seconds(30)) {
    FileHandle.standardError.write(Data("RewindRecorderChild: the session was not delivered to \(server.url)\n".utf8))
    exit(1)
}
if let error = recorder.lastError {
    FileHandle.standardError.write(Data("RewindRecorderChild: \(error)\n".utf8))
    exit(1)
}
print(recorder.session.uuid)
