import Foundation
import RewindJSON

/// Turns the records of a file, in order, into events, and keeps the clock: a record without a
/// time happened at the previous record's time.
struct ImportedSessionBuilder {
    private var builder = EventBuilder(sessionID: 0)
    private(set) var events: [LogEvent] = []
    private var lastAt: Date
    /// Events before the first recorded time: they take that time once it comes (the import
    /// time only when no record has one), so a session never ends before it starts.
    private var untimedHead: [Int] = []
    private var sawTime = false

    init(importedAt: Date) {
        lastAt = importedAt
    }

    /// Gives the last event what the file said of where it came from.
    mutating func annotateLast(cause: Int64?, site: SendSite?, coalesced: Bool) {
        guard let last = events.indices.last else { return }
        events[last].cause = cause
        events[last].site = site
        events[last].coalesced = coalesced
    }

    /// The seq the next record gets.
    var nextSeq: Int64 { builder.nextSeq }

    /// Adds the next record. Only seq 0 may come without an action (it gets `@@INIT`).
    mutating func add(action: JSONValue?, state: JSONValue, at: Date?) {
        let date = at ?? lastAt
        lastAt = date
        if let at, !sawTime {
            sawTime = true
            for index in untimedHead { events[index].at = at }
            untimedHead = []
        } else if at == nil, !sawTime {
            untimedHead.append(events.count)
        }
        if builder.nextSeq == 0 {
            events.append(builder.initial(state: state, at: date, action: action ?? EventBuilder.initialAction))
        } else {
            guard let action else { preconditionFailure("only seq 0 comes without an action") }
            events.append(builder.next(action: action, state: state, at: date))
        }
    }
}
