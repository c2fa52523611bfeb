import Foundation
import RewindJSON
import RewindLog
import RewindReplay

/// Opens timelines and states for the query commands, turning the replay engine's errors into
/// one-sentence ``CLIError``s that exit 2.
struct ReplayAccess {
    let reader: LogReader
    private var timelines: [Int64: Timeline] = [:]

    init(log: LogLocation) throws {
        reader = try log.openReader()
    }

    /// The timeline of the session named `name` (an id, a uuid prefix or `latest`); one per
    /// session, so states of the same session share a cache.
    mutating func timeline(_ name: String) throws -> Timeline {
        let session = try reader.resolveSession(name)
        if let timeline = timelines[session.id] { return timeline }
        let timeline = try Self.cli { () throws(ReplayError) in try Timeline(reader: reader, session: session.id) }
        timelines[session.id] = timeline
        return timeline
    }

    /// The recorded state `reference` names, with the seq it resolved to (`last` → the last seq).
    mutating func state(_ reference: StateReference) throws -> (timeline: Timeline, seq: Int64, state: JSONValue) {
        let timeline = try timeline(reference.session)
        let seq: Int64
        if let explicit = reference.seq {
            seq = explicit
        } else {
            guard let last = try Self.cli({ () throws(ReplayError) in try timeline.lastSeq() }) else {
                throw CLIError("session \(timeline.sessionID) has no events yet", code: 2)
            }
            seq = last
        }
        let state = try Self.cli { () throws(ReplayError) in try timeline.state(at: seq) }
        return (timeline, seq, state)
    }

    /// Runs `body`, turning a ``ReplayError`` into a ``CLIError`` with `code`.
    static func cli<T>(code: Int32 = 2, _ body: () throws(ReplayError) -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw CLIError(error.description, code: code)
        }
    }
}

/// Parses a JSON Pointer argument, as a ``CLIError`` (exit 2) when it is not one.
func parsePointer(_ text: String) throws -> JSONPointer {
    do {
        return try JSONPointer(text)
    } catch {
        throw CLIError("'\(text)' is not a JSON Pointer: \(error.message) (write /user/name, or \"\" for the whole state)", code: 2)
    }
}
