import Foundation
import RewindJSON
import RewindLog
import RewindWire
import RewindSupport

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
///
/// A state over the server's limits (`welcome`'s `maxState`, or a message over its
/// `maxMessage`) is withheld the same way (``withhold(from:)``): that event goes without its
/// state change, and the next state that fits goes whole. To know a state's size without
/// measuring every state, each entry carries an upper bound (``Entry/stateBytes``): measured at
/// keyframes, then grown by each patch's own size, and measured again only when the bound passes
/// the limit.
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
        /// At most the size of the state after the event, as ``StateSize`` counts it; `nil` when
        /// unknown (a patch failed to apply).
        var stateBytes: Int?
        /// Whether ``stateBytes`` was measured (rather than bounded).
        var stateBytesExact = false
    }

    let capacity: Int
    /// The pending entries, oldest first; acknowledged ones leave from the front.
    private(set) var entries: RingQueue<Entry> = []
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
    /// What the server accepts: its `welcome`'s limits, or what a server states by default
    /// until one says.
    var limits = WireLimits.unstated
    /// Events whose states were withheld because the server would refuse them.
    private(set) var withheldStates = 0
    /// Whether a withheld event was reported and no state went to the server since: one report
    /// per run of states over a limit.
    var reportedWithholding = false
    /// At most the size of ``tipState``, and whether that is measured.
    private var tipBytes: Int?
    private var tipBytesExact = false
    /// A state was withheld and the server's state is behind: the next event appended carries
    /// the whole state.
    private var wholeStateDue = false

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// The index of the oldest pending entry. Indices count from it, so an acknowledgement
    /// moves them: use one only until the next ``acknowledge(through:)``.
    var startIndex: Int { entries.startIndex }
    var isEmpty: Bool { entries.isEmpty }
    var count: Int { entries.count }
    /// The newest seq appended, or `ackedThrough` when none is pending.
    var lastSeq: Int64 { entries.last?.seq ?? ackedThrough }

    /// The pending entries from `seq` on.
    func indices(from seq: Int64) -> Range<Int> {
        guard let first = entries.firstIndex(where: { $0.seq >= seq }) else { return entries.count..<entries.count }
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
            tipBytes = StateSize.of(keyframe)
            tipBytesExact = true
        } else if let tip = tipState {
            tipState = try? JSONPatch(json: event.patch).apply(to: tip)
            if tipState == nil {
                tipBytes = nil
            } else if let bytes = tipBytes {
                let growth = StateSize.growthBound(of: event.patch)
                if growth > 0 {
                    tipBytes = bytes + growth
                    tipBytesExact = false
                }
            }
        }
        // Measured once the bound passes the limit: a state near the limit is measured at each
        // event that may change it, any other only at keyframes.
        if let bytes = tipBytes, !tipBytesExact, bytes > limits.maxState, let tip = tipState {
            tipBytes = StateSize.of(tip)
            tipBytesExact = true
        }
        var body: Body = event.seq == 0 ? .keyframe(event.keyframe ?? tipState ?? .null) : .patch(event.patch)
        var coalesced = event.coalesced
        if wholeStateDue, event.seq > 0 {
            // The server holds an older state than this patch starts from.
            body = tipState.map { .keyframe($0) } ?? .dropped
            coalesced = true
            wholeStateDue = tipState == nil
        }
        entries.append(Entry(seq: event.seq, at: event.at, action: event.action, body: body, hash: event.hash,
                             durationNs: event.durationNs, cause: event.cause, coalesced: coalesced,
                             nonFinite: event.nonFinite, site: event.site, stateBytes: tipBytes, stateBytesExact: tipBytesExact))
        if case .dropped = body {} else { statefulCount += 1 }
        if statefulCount > capacity, let tip = tipState { dropStates(keeping: tip) }
    }

    /// Why the state of the pending entry at `index` must not be sent, if it must not: it is
    /// over ``limits``' `maxState` (the newest entry's state is measured when only its bound is
    /// over; an older one's bound stands, its state is gone).
    mutating func stateRefusal(at index: Int) -> WithheldEvent? {
        if case .dropped = entries[index].body { return nil }
        guard var bytes = entries[index].stateBytes, bytes > limits.maxState else { return nil }
        var exact = entries[index].stateBytesExact
        if !exact, index == entries.count - 1, let tip = tipState {
            bytes = StateSize.of(tip)
            exact = true
            tipBytes = bytes
            tipBytesExact = true
            entries[index].stateBytes = bytes
            entries[index].stateBytesExact = true
            if bytes <= limits.maxState { return nil }
        }
        return WithheldEvent(seq: entries[index].seq, reason: .stateTooLarge(bytes: bytes, exact: exact, limit: limits.maxState))
    }

    /// Keeps the state of the pending entry at `index` from the server, which would refuse it.
    /// It, and every later entry but the newest, goes without its state change (`coalesced`,
    /// changing nothing); the newest carries the whole state, or, when it is the one withheld,
    /// the next event appended does. The server's state then never depends on a state it was
    /// not sent.
    mutating func withhold(from index: Int) {
        let newest = entries.count - 1
        for position in index..<newest where withholdState(at: position) {}
        if index == newest || tipState == nil {
            withholdState(at: newest)
            wholeStateDue = true
        } else {
            if case .dropped = entries[newest].body { statefulCount += 1 }
            entries[newest].body = .keyframe(tipState!)
            entries[newest].coalesced = true
            entries[newest].stateBytes = tipBytes
            entries[newest].stateBytesExact = tipBytesExact
        }
    }

    /// Drops the state change of the entry at `index`; `true` when it had one.
    @discardableResult
    private mutating func withholdState(at index: Int) -> Bool {
        if case .dropped = entries[index].body { return false }
        entries[index].body = .dropped
        entries[index].coalesced = true
        statefulCount -= 1
        withheldStates += 1
        return true
    }

    private mutating func dropStates(keeping tip: JSONValue) {
        var kept = 1
        for index in entries.indices.dropLast() {
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

    /// The oldest seq still held: the first pending one, or the one after `ackedThrough` when
    /// none is pending. A server whose `nextSeq` is below it lacks events already forgotten.
    var firstHeldSeq: Int64 { entries.first?.seq ?? ackedThrough + 1 }

    /// Events another server acknowledged (so they were forgotten), read back from the local
    /// log for a server that lacks them, made into entries: built off the link's lock, then put
    /// back in front by ``restore(_:)``.
    struct Restored {
        /// Entries for seqs `nextSeq..<firstHeld`, each with its own patch (seq 0 whole).
        var entries: [Entry]
        /// The seq the server asks for next.
        var nextSeq: Int64
        /// The hash of the state after `nextSeq - 1`, when it was read.
        var heldHash: UInt64?
    }

    /// Entries for the events from `nextSeq` up to `firstHeld` (excluded), from `earlier`: the
    /// local log's copy in seq order from at or before `nextSeq` (from a keyframe, whose state
    /// lets the sizes be bounded as ``append(_:)`` does) to at least `firstHeld - 1`. `nil` when
    /// it does not cover them.
    static func restoring(_ earlier: [LogEvent], from nextSeq: Int64, before firstHeld: Int64,
                          limits: WireLimits) -> Restored? {
        guard let start = earlier.first?.seq, start <= nextSeq, nextSeq < firstHeld,
              earlier.enumerated().allSatisfy({ $0.element.seq == start + Int64($0.offset) }),
              let end = earlier.last?.seq, end >= firstHeld - 1 else { return nil }
        var rebuilt = UnackedEvents(capacity: .max)
        rebuilt.limits = limits
        for event in earlier where event.seq < firstHeld { rebuilt.append(event) }
        return Restored(entries: rebuilt.entries.filter { $0.seq >= nextSeq }, nextSeq: nextSeq,
                        heldHash: rebuilt.entries.last { $0.seq == nextSeq - 1 }?.hash)
    }

    /// Puts `restored` back in front, so the session resends from the server's `nextSeq`; the
    /// server holds `nextSeq - 1` from here, as its `welcome` said. Past the bound, the older
    /// states are dropped as for any unacknowledged events (the actions stay). `false`,
    /// changing nothing, when the entries do not end right before ``firstHeldSeq``.
    mutating func restore(_ restored: Restored) -> Bool {
        guard restored.entries.first?.seq == restored.nextSeq, restored.entries.last?.seq == firstHeldSeq - 1 else { return false }
        var rebuilt = RingQueue<Entry>(minimumCapacity: restored.entries.count + entries.count)
        rebuilt.append(contentsOf: restored.entries)
        rebuilt.append(contentsOf: entries)
        entries = rebuilt
        statefulCount += restored.entries.count { if case .dropped = $0.body { false } else { true } }
        ackedThrough = restored.nextSeq - 1
        ackedHash = restored.heldHash
        if statefulCount > capacity, let tip = tipState { dropStates(keeping: tip) }
        return true
    }

    /// Forgets every event up to `seq`: the server holds them.
    mutating func acknowledge(through seq: Int64) {
        guard seq > ackedThrough else { return }
        while let entry = entries.first, entry.seq <= seq {
            ackedHash = entry.sentHash ?? entry.hash
            if case .dropped = entry.body {} else { statefulCount -= 1 }
            entries.popFirst()
        }
        ackedThrough = seq
    }
}
