import Foundation
import RewindJSON
import RewindLog

/// Logs prepared directly through `RewindLog`, and what tests read back from them.
enum LogFixture {
    /// Records a counter session of `count` events starting at `startedAt`, one second apart;
    /// returns its id.
    @discardableResult
    static func recordSession(path: String, uuid: String, startedAt: Date, count: Int = 3) throws -> Int64 {
        let writer = try LogWriter(path: path)
        defer { writer.close() }
        let id = try writer.openSession(uuid: uuid, app: "Counter", startedAt: startedAt)
        var builder = EventBuilder(sessionID: id)
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
}
