import Foundation
import RewindRecorder

// `RewindRecorderChild COUNT [stop|return|exit]`: an app built against RewindRecorder alone, for
// the tests. It records COUNT actions with no destination in its code, so the environment decides
// (REWIND_SERVER and REWIND_TOKEN, else the default log), and prints the session's uuid. Then:
// `stop` (the default) ends the session and waits until a server has it; `return` returns from
// main at once and `exit` calls exit(0) at once, leaving the rest to the exit hook; `finish`
// calls `finish()` and prints its result as a JSON line after the uuid; `commit` commits the
// local log (store and forward), prints `committed` and waits to be killed; `catchup-finish`
// waits until the earlier sessions of the local log are delivered and their connections closed
// (a relaunched device caught up), then finishes as `finish` does; `soak` prints the uuid first
// and paces its actions (below), then finishes; `final` waits until connected and every earlier
// session of the local log is delivered, then finishes.

struct ChildState: Codable, Sendable {
    var total = 0
    var added: [Int] = []
}

enum ChildAction: Codable, Sendable {
    case add(Int)
}

let arguments = Array(CommandLine.arguments.dropFirst())
let count = arguments.first.flatMap(Int.init) ?? 10
let mode = arguments.dropFirst().first ?? "stop"
var state = ChildState()
// `trap small-queue`: a recorder queue of 16 states, which the actions before the trap overflow.
let smallQueue = mode == "trap" && arguments.dropFirst(2).first == "small-queue"
let recorder = Recorder<ChildState, ChildAction>(initialState: state, metadata: RecordingMetadata(app: "RecorderChild"),
                                                 options: RecorderOptions(queueCapacity: smallQueue ? 16 : 10_000))
// `trap [paced|small-queue]`: the app's reducer, behind a StoreLink, traps on action COUNT (a
// failed precondition, as a bug would): the uuid first, then the actions before it as fast as it
// can (or 2 ms apart, `paced`; or with a queue of 16 states, `small-queue`), then the crash.
if mode == "trap" {
    let link = StoreLink(recorder: recorder)
    let slow = arguments.dropFirst(2).first == "paced"
    FileHandle.standardOutput.write(Data((recorder.session.uuid + "\n").utf8))
    for amount in 1...max(1, count) {
        _ = link.reduce(&state, .add(amount)) { state in
            precondition(amount != count, "the reducer traps on action \(amount)")
            state.total += amount
            state.added.append(amount)
        }
        if slow { usleep(2_000) }
    }
}
// `soak` (the field soak, Tests/soak): the uuid first, so a run killed mid-way is known; an
// action every 1–3 ms, as a user and the app's effects would send them; then `finish`.
let paced = mode == "soak"
if paced { FileHandle.standardOutput.write(Data((recorder.session.uuid + "\n").utf8)) }
for amount in 1...max(1, count) {
    state.total += amount
    state.added.append(amount)
    recorder.record(.add(amount), state: state)
    if paced { usleep(useconds_t(1_000 + (amount * 7_919) % 2_000)) }
}
if !paced { FileHandle.standardOutput.write(Data((recorder.session.uuid + "\n").utf8)) }
switch mode {
case "return":
    break
case "finish", "catchup-finish", "soak", "final":
    if mode == "final" {
        // The soak's last run of a device: once connected (the sink has begun, and with it the
        // catch-up), everything the local log owes is delivered before the finish.
        let deadline = Date(timeIntervalSinceNow: 30)
        let servers = recorder.sinks.compactMap { $0 as? ServerSink }
        while servers.contains(where: { !$0.isConnected }) && Date() < deadline { usleep(2_000) }
        for server in servers where !server.waitForCatchUp(timeout: .seconds(90)) {
            FileHandle.standardError.write(Data("RewindRecorderChild: the earlier sessions were not delivered to \(server.url)\n".utf8))
        }
    }
    if mode == "catchup-finish" {
        // The catch-up starts once the server has welcomed this run's session.
        let deadline = Date(timeIntervalSinceNow: 30)
        let servers = recorder.sinks.compactMap { $0 as? ServerSink }
        while servers.contains(where: { $0.catchUpCount == 0 }) && Date() < deadline { usleep(2_000) }
        for server in servers where !server.waitForCatchUp(timeout: .seconds(30)) {
            FileHandle.standardError.write(Data("RewindRecorderChild: the earlier sessions were not delivered to \(server.url)\n".utf8))
        }
    }
    let result = await recorder.finish(timeout: .seconds(mode == "soak" ? 5 : mode == "final" ? 30 : 10))
    var line: [String: Any] = ["delivered": result.delivered, "acknowledged": result.acknowledged,
                               "recorded": result.recorded, "keptOnDevice": result.keptOnDevice]
    if let error = result.lastError { line["lastError"] = error }
    let data = try JSONSerialization.data(withJSONObject: line, options: [.sortedKeys])
    FileHandle.standardOutput.write(data + Data("\n".utf8))
case "commit":
    recorder.flush()
    FileHandle.standardOutput.write(Data("committed\n".utf8))
    while true { pause() }
case "exit":
    exit(0)
default:
    recorder.stop()
    for case let server as ServerSink in recorder.sinks where !server.waitUntilEnded(timeout: .seconds(30)) {
        FileHandle.standardError.write(Data("RewindRecorderChild: the session was not delivered to \(server.url)\n".utf8))
        exit(1)
    }
    if let error = recorder.lastError {
        FileHandle.standardError.write(Data("RewindRecorderChild: \(error)\n".utf8))
        exit(1)
    }
}
