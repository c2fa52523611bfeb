import Foundation
import RewindJSON

extension SessionExporter {
    /// The lifted state that the Redux DevTools' Import button reads: `actionsById` (seq →
    /// `{"type": "PERFORM_ACTION", "action": …, "timestamp": ms}`), `computedStates` (every
    /// state, with the reducer `error` an import kept), `committedState` (the state at seq 0),
    /// `currentStateIndex` (the last seq), `nextActionId`, `skippedActionIds` (`[]`) and
    /// `stagedActionIds` (`[0, 1, …]`). Seq 0's action is the init action.
    ///
    /// Two walks: the actions first, then the states, so neither list is held in memory.
    func writeReduxDevTools(into buffer: inout ExportBuffer) throws {
        try check(.reduxDevTools)
        guard let last = session.lastSeq else { return }
        let errors = importMeta(for: .reduxDevTools)?.errors ?? [:]
        let total = 2 * session.eventCount
        var done = 0
        try buffer.append(#"{"actionsById":{"#)
        try forEachEvent { event, _ in
            done += 1
            report(done, of: total)
            try buffer.append(event.seq == 0 ? "\"0\":" : ",\"\(event.seq)\":")
            try buffer.append(#"{"type":"PERFORM_ACTION","action":"#)
            try buffer.append(event.action.serializedBytes(.compact))
            try buffer.append(#","timestamp":"#)
            try buffer.append(Self.milliseconds(event.at))
            try buffer.append(byte: UInt8(ascii: "}"))
        }
        try buffer.append(#"},"computedStates":["#)
        var initial = JSONValue.null
        try forEachState { seq, state in
            done += 1
            report(done, of: total)
            if seq == 0 { initial = state }
            try buffer.append(seq == 0 ? #"{"state":"# : #",{"state":"#)
            try buffer.append(state.serializedBytes(.compact))
            if let error = errors[seq] {
                try buffer.append(#","error":"#)
                try buffer.append(JSONValue.string(error).serializedBytes(.compact))
            }
            try buffer.append(byte: UInt8(ascii: "}"))
        }
        try buffer.append(#"],"committedState":"#)
        try buffer.append(initial.serializedBytes(.compact))
        try buffer.append(#","currentStateIndex":\#(last),"nextActionId":\#(last + 1)"#)
        try buffer.append(#","isLocked":false,"isPaused":false,"skippedActionIds":[],"stagedActionIds":["#)
        for seq in 0...last {
            try buffer.append(seq == 0 ? "0" : ",\(seq)")
        }
        try buffer.append("]}\n")
    }

    /// `date` in milliseconds since 1970: whole when it is within a microsecond of a whole
    /// millisecond (DevTools writes `Date.now()`), else to the microsecond.
    static func milliseconds(_ date: Date) -> String {
        let milliseconds = date.timeIntervalSince1970 * 1_000
        let whole = milliseconds.rounded()
        if abs(milliseconds - whole) < 0.001, let number = JSONNumber(whole) { return number.text }
        return JSONNumber((milliseconds * 1_000).rounded() / 1_000)?.text ?? "0"
    }
}
