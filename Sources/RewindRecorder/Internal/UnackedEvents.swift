import Foundation
import RewindJSON
import RewindLog
import RewindWire

/// The events of one session the server has not acknowledged yet, in seq order.
///
/// At most `capacity` of them keep their state change (a patch); the actions are always kept.
/// When one more would pass the bound, every kept event gives up its patch and the newest
/// carries the whole state instead (a keyframe), so memory holds the actions plus one state
/// (two while seq 0, the session's first keyframe, is not yet acknowledged).
/// On the wire an event without its patch is `coalesced`: it changes nothing and carries the
/// hash of the state the server holds, exactly like an event the recorder itself skipped. The
/// keyframe then sets the full state, whatever the server had, so a resend never depends on
/// which of the earlier versions the server stored.
struct UnackedEvents {
    /// How one event travels.
    enum Body {
        /// The recorder's patch from the previous state.
        case patch(JSONValue)
        /// The whole state after the event.
        case keyframe(JSONValue)
        /// Its state change was dropped to stay within the bound.
        case dropped
    }

    struct Entry {
        var seq: Int64
        var at: Date
        var action: JSONValue
        var body: Body
        /// The hash of the state after the event.
        var hash: UInt64
        var durationNs: Int64
        var cause: Int64?
        var coalesced: Bool
        /// JSON Pointers of the numbers recorded as strings (NaN, ±infinity).
        var nonFinite: [String] = []
        /// Where the app sent the action.
        var site: SendSite?
        /// The hash the last sent version of this event carried (what the server holds if it stored it).
        var sentHash: UInt64?
    }

    let capacity: Int
    private(set) var entries: [Entry] = []
    private var head = 0
    /// Entries that still carry a patch or a keyframe.
    private var statefulCount = 0
    /// The state after the newest event, kept so that a keyframe can replace dropped patches;
    /// `nil` if a patch ever failed to apply (then nothing is dropped).
    private var tipState: JSONValue?
    /// The highest seq the server acknowledged; -1 before the first ack.
    private(set) var ackedThrough: Int64 = -1
    /// The hash of the state the server holds after `ackedThrough`.
    private(set) var ackedHash: UInt64?
    /// Events whose states were dropped to stay within the bound.
    private(set) var droppedStates = 0

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// The index of the oldest pending entry.
    var startIndex: Int { head }
    var isEmpty: Bool { head == entries.count }
    var count: Int { entries.count - head }
    /// The newest seq appended, or `ackedThrough` when none is pending.
    var lastSeq: Int64 { isEmpty ? ackedThrough : entries[entries.count - 1].seq }

    /// The pending entries from `seq` on.
    func indices(from seq: Int64) -> Range<Int> {
        guard let first = entries[head...].firstIndex(where: { $0.seq >= seq }) else { return entries.count..<entries.count }
        return first..<entries.count
    }

    subscript(index: Int) -> Entry {
        get { entries[index] }
        set { entries[index] = newValue }
    }

    /// Appends one recorded event, dropping older states when the bound is passed.
    mutating func append(_ event: LogEvent) {
        if let keyframe = event.keyframe {
            tipState = keyframe
        } else if let tip = tipState {
            tipState = try? JSONPatch(json: event.patch).apply(to: tip)
        }
        let body: Body = event.seq == 0 ? .keyframe(event.keyframe ?? tipState ?? .null) : .patch(event.patch)
        entries.append(Entry(seq: event.seq, at: event.at, action: event.action, body: body, hash: event.hash,
                             durationNs: event.durationNs, cause: event.cause, coalesced: event.coalesced,
                             nonFinite: event.nonFinite, site: event.site))
        statefulCount += 1
        if statefulCount > capacity, let tip = tipState { dropStates(keeping: tip) }
    }

    private mutating func dropStates(keeping tip: JSONValue) {
        var kept = 1
        for index in head..<(entries.count - 1) {
            if case .dropped = entries[index].body { continue }
            // Seq 0 is the state everything starts from: the server needs it first.
            if entries[index].seq == 0 {
                kept += 1
                continue
            }
            entries[index].body = .dropped
            entries[index].coalesced = true
            droppedStates += 1
        }
        entries[entries.count - 1].body = .keyframe(tip)
        entries[entries.count - 1].coalesced = true
        statefulCount = kept
    }

    /// Forgets every event up to `seq`: the server holds them.
    mutating func acknowledge(through seq: Int64) {
        guard seq > ackedThrough else { return }
        while head < entries.count, entries[head].seq <= seq {
            let entry = entries[head]
            ackedHash = entry.sentHash ?? entry.hash
            if case .dropped = entry.body {} else { statefulCount -= 1 }
            head += 1
        }
        ackedThrough = seq
        if head > 1_024, head * 2 > entries.count {
            entries.removeFirst(head)
            head = 0
        }
    }
}
