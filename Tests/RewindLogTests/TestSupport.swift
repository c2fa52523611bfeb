import Foundation
import RewindJSON
@testable import RewindLog
import RewindSupport
import RewindTestSupport

/// Builds events with small patches, as a recorder would.
enum Fixture {
    static let start = Date(timeIntervalSince1970: 1_700_000_000)

    static func event(session: Int64, seq: Int64, type: String = "counter/increment", keyframe: Bool = false,
                      text: String? = nil) -> LogEvent {
        var payload: JSONObject = ["step": .number(JSONNumber(seq))]
        if let text { payload.updateValue(.string(text), forKey: "note") }
        let action: JSONValue = ["type": .string(type), "payload": .object(payload)]
        let state: JSONValue = ["count": .number(JSONNumber(seq)), "title": "counter"]
        // Spelled out: a bare `nil` would become JSONValue.null, which is a literal too.
        let storedState: JSONValue? = keyframe || seq == 0 ? state : Optional.none
        return LogEvent(
            sessionID: session, seq: seq, at: start.addingTimeInterval(Double(seq)), action: action,
            patch: [["op": "replace", "path": "/count", "value": .number(JSONNumber(seq))]],
            inverse: [["op": "replace", "path": "/count", "value": .number(JSONNumber(seq - 1))]],
            hash: state.stableHash, durationNs: 1_000 + seq, cause: seq > 0 ? seq - 1 : nil,
            coalesced: seq % 7 == 3, keyframe: storedState)
    }

    static func events(session: Int64, seqs: Range<Int64>) -> [LogEvent] {
        seqs.map { event(session: session, seq: $0) }
    }
}

/// Collects completion results from the writer thread; tests wait on it with a deadline.
final class Completions: Sendable {
    private let results = Condition<[Result<Void, LogError>]>([])

    var handler: @Sendable (Result<Void, LogError>) -> Void {
        { [results] result in
            results.update(waking: .all) { $0.append(result) }
        }
    }

    /// The results once `count` have arrived, or `nil` after `timeout` seconds.
    func wait(for count: Int, timeout: Double = 30) -> [Result<Void, LogError>]? {
        results.withLock(when: { $0.count >= count }, deadline: MonotonicClock.deadline(after: timeout)) { $0 }
    }
}

extension Result where Success == Void, Failure == LogError {
    var error: LogError? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// Opens a writer with one session and returns both.
func makeWriter(_ directory: TemporaryDirectory, name: String = "log.db", uuid: String = "3f2a0000-0000-4000-8000-000000000001",
                options: LogWriter.Options = LogWriter.Options()) throws -> (LogWriter, Int64) {
    let writer = try LogWriter(path: directory.path(name), options: options)
    let id = try writer.openSession(uuid: uuid, app: "Counter", startedAt: Fixture.start, meta: ["version": "1.0"])
    return (writer, id)
}
