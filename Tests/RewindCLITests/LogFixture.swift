import Foundation
import RewindJSON
import RewindLog
import RewindTestSupport

/// A log written with `LogWriter` and `EventBuilder` in a temporary directory, for the commands
/// that read logs. Times are fixed (seq N at 1,700,000,000 + N seconds) and the commands run
/// with `TZ=UTC`, so their output is exact.
struct LogFixture {
    /// The keyframe rule the expected outputs were written for: without the floor of patch bytes
    /// (issue 42), these tiny states take a keyframe whenever the patches outweigh half of them.
    static let keyframesAsBefore = KeyframePolicy(minPatchBytes: 0)

    let directory: TemporaryDirectory
    let path: String

    static let start = Date(timeIntervalSince1970: 1_700_000_000)
    static let counterUUID = "3f2a0000-0000-4000-8000-000000000001"
    static let otherUUID = "9c1d0000-0000-4000-8000-000000000002"

    /// The states of session 1 ("Counter") after each seq.
    static let counterStates: [JSONValue] = [
        ["count": 0, "user": ["name": "Ada"], "todos": []],
        ["count": 1, "user": ["name": "Ada"], "todos": []],
        ["count": 1, "user": ["name": "Grace"], "todos": []],
        ["count": 1, "user": ["name": "Grace"], "todos": [["title": "milk", "done": false]]],
        ["count": 1, "user": ["name": "Grace"], "todos": [["title": "milk", "done": false]]],  // 4: coalesced
        ["count": 3, "user": ["name": "Grace"], "todos": [["title": "milk", "done": false]]],
        ["count": 3, "user": ["name": "Grace"], "todos": [["title": "milk", "done": true]]],
        ["count": 3, "user": ["name": "Grace", "loggedIn": true], "todos": [["title": "milk", "done": true]]],
        ["count": 3, "user": "anonymous", "todos": [["title": "milk", "done": true]]],
    ]

    static let counterActions: [JSONValue] = [
        EventBuilder.initialAction,
        ["type": "increment"],
        ["type": "user/rename", "name": "Grace"],
        ["type": "todo/add", "title": "milk"],
        ["type": "increment"],
        ["type": "increment"],
        ["type": "todo/toggle", "index": 0],
        ["login": ["user": "grace"]],
        "logout",
    ]

    init() throws {
        directory = try TemporaryDirectory()
        path = directory.url.appendingPathComponent("rewind.db").path
        let writer = try LogWriter(path: path)
        defer { writer.close() }
        let counter = try writer.openSession(uuid: Self.counterUUID, app: "Counter", startedAt: Self.start, meta: ["version": "1.2"])
        var builder = EventBuilder(sessionID: counter, policy: Self.keyframesAsBefore)
        var events = [builder.initial(state: Self.counterStates[0], at: Self.start)]
        for seq in 1..<Self.counterStates.count {
            let at = Self.start.addingTimeInterval(Double(seq))
            if seq == 4 {
                events.append(builder.skipped(action: Self.counterActions[seq], at: at, durationNs: 800))
            } else {
                events.append(builder.next(action: Self.counterActions[seq], state: Self.counterStates[seq], at: at,
                                           durationNs: Int64(seq) * 1_500, cause: seq == 2 ? 1 : nil))
            }
        }
        writer.append(events)
        // A second, ended session with a larger state and keyframes every 50 events.
        let other = try writer.openSession(uuid: Self.otherUUID, app: "Other", startedAt: Self.start.addingTimeInterval(60))
        var otherBuilder = EventBuilder(sessionID: other, policy: KeyframePolicy(maxEvents: 50, maxPatchBytesRatio: 1_000))
        var state: JSONValue = ["items": .array((0..<50).map { ["id": .number(JSONNumber($0)), "name": .string("item \($0)")] }), "n": 0]
        var otherEvents = [otherBuilder.initial(state: state, at: Self.start.addingTimeInterval(60))]
        for seq in 1...200 {
            if case .object(var object) = state {
                object["n"] = .number(JSONNumber(seq))
                state = .object(object)
            }
            otherEvents.append(otherBuilder.next(action: ["type": "tick"], state: state, at: Self.start.addingTimeInterval(60 + Double(seq))))
        }
        writer.append(otherEvents)
        try writer.flush()
        try writer.endSession(id: other, at: Self.start.addingTimeInterval(300))
    }

    func cleanup() {
        directory.cleanup()
    }

    /// Records a counter session of `count` events starting at `startedAt`, one second apart;
    /// returns its id.
    @discardableResult
    static func recordSession(path: String, uuid: String, startedAt: Date, count: Int = 3) throws -> Int64 {
        let writer = try LogWriter(path: path)
        defer { writer.close() }
        let id = try writer.openSession(uuid: uuid, app: "Counter", startedAt: startedAt)
        var builder = EventBuilder(sessionID: id, policy: Self.keyframesAsBefore)
        var events = [builder.initial(state: ["count": 0], at: startedAt)]
        for n in 1..<max(count, 1) {
            events.append(builder.next(action: ["type": "increment"], state: ["count": .number(JSONNumber(n))],
                                       at: startedAt.addingTimeInterval(Double(n))))
        }
        writer.append(events)
        try writer.flush()
        return id
    }

    /// A summary of everything the log holds, to compare before and after a command:
    /// each session with its events' actions, patches and keyframes.
    static func snapshot(_ path: String) throws -> String {
        guard FileManager.default.fileExists(atPath: path) else { return "no log" }
        let reader = try LogReader(path: path)
        var text = ""
        for session in try reader.sessions() {
            text += "\(session.id) \(session.uuid) \(session.app) \(session.meta) events=\(session.eventCount) keyframes=\(session.keyframeCount)\n"
            for event in try reader.events(session: session.id, includeKeyframes: true) {
                text += "  \(event.seq) \(event.action) \(event.patch) \(event.keyframe.map(\.description) ?? "-")\n"
            }
        }
        return text
    }


    /// Runs `rewind arguments… --db <this log>` with `TZ=UTC`.
    func run(_ arguments: [String], stdin: Data? = nil) throws -> CLIRunner.Output {
        try CLIRunner.run(arguments + ["--db", path], stdin: stdin, environment: ["TZ": "UTC", "NO_COLOR": "1"])
    }

    /// Damages the log through a raw connection whose append-only triggers are dropped first.
    func corrupt(_ sql: String) throws {
        let connection = try Connection(path: path)
        try connection.execute("DROP TRIGGER events_no_update; DROP TRIGGER keyframes_no_update; DROP TRIGGER events_no_delete")
        try connection.execute(sql)
    }
}

/// Parses each line of `text` as JSON.
func jsonLines(_ text: String) throws -> [JSONValue] {
    try text.split(separator: "\n").map { try JSONValue(parsing: String($0)) }
}
