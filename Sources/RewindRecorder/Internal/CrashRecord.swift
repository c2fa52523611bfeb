import CRewindCrash
import Foundation
import RewindJSON
import RewindLog

/// What a dead session's crash journal says, and what the next run writes into its log: one
/// last event, `@@rewind/crashed`, and the session's end at the signal's time.
struct CrashRecord: Equatable {
    var session: String
    var app: String
    var pid: Int32
    /// The signal, or 0 when the process died without one its handler saw (SIGKILL, a power
    /// loss, `exit` without ending the recording): the session then just never ended.
    var signal: Int32
    var at: Date?
    /// The action being reduced when the signal came: its seq-to-be, send site, and the action
    /// itself when the watcher wrote it in time, and its type (the type alone when the action
    /// was too large to keep).
    var reducing: (seq: Int64, site: SendSite?, action: JSONValue?, type: String?)?
    /// The last seq handed to the recorder before the crash.
    var recordedThrough: Int64

    init(_ slot: rewind_crash_slot) {
        var slot = slot
        session = Self.text(&slot.session, count: nil)
        app = Self.text(&slot.app, count: nil)
        pid = slot.pid
        signal = slot.signal
        at = slot.signal_at_ns > 0 ? Date(timeIntervalSince1970: Double(slot.signal_at_ns) / 1e9) : nil
        recordedThrough = slot.recorded_through
        if slot.reducing != 0 {
            let file = Self.text(&slot.file, count: Int(slot.file_length))
            let function = Self.text(&slot.function, count: Int(slot.function_length))
            let site = file.isEmpty ? nil : SendSite(file: file, line: Int(slot.line), function: function)
            var action: JSONValue?
            var type: String?
            if slot.action_state == 1 || slot.action_state == 2 {
                let length = min(Int(slot.action_length), Int(REWIND_CRASH_ACTION))
                let written = withUnsafeBytes(of: &slot.action) { raw in try? JSONValue(parsing: Array(raw.prefix(length))) }
                if let written {
                    type = LogEvent.actionType(of: written)
                    if slot.action_state == 1 { action = written }
                }
            }
            reducing = (slot.next_seq, site, action, type)
        }
    }

    static func == (lhs: CrashRecord, rhs: CrashRecord) -> Bool {
        lhs.session == rhs.session && lhs.signal == rhs.signal && lhs.recordedThrough == rhs.recordedThrough
            && lhs.reducing?.seq == rhs.reducing?.seq && lhs.reducing?.site == rhs.reducing?.site
            && lhs.reducing?.action == rhs.reducing?.action
    }

    private static func text<T>(_ field: inout T, count: Int?) -> String {
        withUnsafeBytes(of: &field) { raw in
            let limit = min(count ?? raw.count, raw.count)
            let bytes = raw.prefix(limit)
            let end = count == nil ? (bytes.firstIndex(of: 0) ?? bytes.endIndex) : bytes.endIndex
            return String(decoding: bytes[..<end], as: UTF8.self)
        }
    }

    /// The signal's name (`SIGSEGV`…), or its number.
    var signalName: String {
        switch signal {
        case SIGSEGV: "SIGSEGV"
        case SIGBUS: "SIGBUS"
        case SIGABRT: "SIGABRT"
        case SIGILL: "SIGILL"
        case SIGTRAP: "SIGTRAP"
        case SIGFPE: "SIGFPE"
        default: "signal \(signal)"
        }
    }

    /// The action type of the event that says a session crashed.
    static let crashedType = SessionInfo.crashedType

    /// The crashed event's action: the signal, when, the action being reduced (or that the crash
    /// came between actions), and how many recorded actions the log lacks (`lost`).
    func action(lost: Int64) -> JSONValue {
        var object: JSONObject = ["type": .string(Self.crashedType), "signal": .string(signalName),
                                  "number": .number(JSONNumber(Int64(signal))), "lost": .number(JSONNumber(lost))]
        // Milliseconds, as a whole number: JSON's numbers and every reader agree on those.
        if let at { object["at"] = .number(JSONNumber(Int64((at.timeIntervalSince1970 * 1000).rounded()))) }
        if let reducing {
            var during: JSONObject = ["seq": .number(JSONNumber(reducing.seq))]
            if let type = reducing.type { during["type"] = .string(type) }
            if let action = reducing.action { during["action"] = action }
            if let site = reducing.site {
                during["site"] = ["file": .string(site.file), "line": .number(JSONNumber(Int64(site.line))), "function": .string(site.function)]
            }
            object["reducing"] = .object(during)
        } else {
            object["reducing"] = .null
        }
        return .object(object)
    }

    /// Writes the crash into the session of the log at `path` (through `writer`, its one
    /// writer): the crashed event after the last one the log holds, its state unchanged, and the
    /// session's end at the signal's time. A session the log never got, or got without a
    /// committed event (the app crashed before its recorder wrote anything), is made there, its
    /// state unknown (`{}` at seq 0), so the crash and the count of actions lost are still told.
    /// A journal without a signal writes nothing: the session stays as it was, never ended. A
    /// session without a delivery mark is marked for `server` (a local log's) from its start.
    /// The journal is a file like any other: its session is looked up by its exact uuid, and its
    /// numbers are taken with saturating arithmetic. Returns whether the journal is done with.
    @discardableResult
    func write(into writer: LogWriter, path: String, server: String? = nil) throws -> Bool {
        try writer.commit()
        let reader = try LogReader(path: path)
        // Exactly this uuid (never a prefix, an id or `latest`, as a name typed by a user may be).
        let found = try reader.session(uuid: session)
        guard signal != 0 else { return true }
        if let found, found.endedAt != nil { return true }
        let at = self.at ?? Date()
        let id: Int64
        var last: Int64 = -1
        let hash: UInt64
        // Whether the log had any event of the session (else what it has is made here).
        var hadEvents = false
        if let found, let lastSeq = found.lastSeq, let previous = try reader.event(session: found.id, seq: lastSeq) {
            id = found.id
            last = lastSeq
            hash = previous.hash
            hadEvents = true
        } else {
            if let found {
                // Begun in the log, but the app crashed before its first event was committed.
                id = found.id
            } else {
                // Only a session of this log's app: another app's journal waits for its own log.
                let sessions = try reader.sessions()
                guard sessions.isEmpty || sessions.contains(where: { $0.app == app }) else { return false }
                id = try writer.openSession(uuid: session, app: app, startedAt: at, meta: ["lostBeforeWritten": true], replayOf: nil,
                                            run: nil, hashVersion: .v2, owner: nil)
            }
            // The state is unknown: seq 0 says so with an empty object, and the crash follows it.
            let unknown: JSONValue = .object([:])
            hash = unknown.hash(found?.hashVersion ?? .v2)
            writer.append([LogEvent(sessionID: id, seq: 0, at: at, action: ["type": "@@rewind/unknown"], actionType: "@@rewind/unknown",
                                    patch: [], hash: hash, coalesced: true, keyframe: unknown)])
            last = 0
        }
        // A local log delivers what it marks for its server: a session the app began there may have
        // died before its mark was written (two commits), and one made here has none.
        if let server, try reader.deliveredSeq(session: id) < 0 {
            try writer.markDelivered(session: id, server: server, through: -1)
        }
        // What the log lacks of what the recorder was handed (seq 0, the initial state, counts
        // as recorded): lost with the process.
        let (difference, overflow) = recordedThrough.subtractingReportingOverflow(hadEvents ? last : -1)
        let lost = overflow ? (recordedThrough > 0 ? Int64.max : 0) : max(0, difference)
        var event = LogEvent(sessionID: id, seq: last + 1, at: at, action: action(lost: lost), actionType: Self.crashedType,
                             patch: [], hash: hash)
        event.site = reducing?.site
        writer.append([event])
        try writer.endSession(id: id, at: at)
        try writer.commit()
        return true
    }
}
