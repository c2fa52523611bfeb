import RewindJSON

extension SessionExporter {
    /// One line per state: `{"action": …, "state": …, "at": …}`, compact, `\n` after each.
    ///
    /// Seq 0 is the first line, without an action, unless the import made it up
    /// (``ImportMeta/syntheticInitial``): then it is left out. Members come in the order the
    /// imported file used; `at` is written the way the import saw it, and left out where the
    /// imported line had none.
    func writeJSONL(into buffer: inout ExportBuffer) throws {
        let meta = importMeta(for: .jsonl)
        let order = Self.memberOrder(meta?.fields)
        let total = session.eventCount
        var done = 0
        try forEachEvent { event, state in
            done += 1
            report(done, of: total)
            if event.seq == 0 && meta?.syntheticInitial == true { return }
            var first = true
            try buffer.append(byte: UInt8(ascii: "{"))
            for member in order {
                let value: [UInt8]
                switch member {
                case "action":
                    guard event.seq > 0 else { continue }
                    value = event.action.serializedBytes(.compact)
                case "state":
                    value = state.serializedBytes(.compact)
                default:
                    if meta?.isUntimed(event.seq) == true { continue }
                    let seconds = event.at.timeIntervalSince1970
                    value = Array((meta?.atText[event.seq] ?? SecondsText.text(seconds, decimals: meta?.atDecimals)).utf8)
                }
                try buffer.append(first ? "\"\(member)\":" : ",\"\(member)\":")
                try buffer.append(value)
                first = false
            }
            try buffer.append("}\n")
        }
    }

    /// The imported order of `action`, `state` and `at`, completed with the members it lacks.
    static func memberOrder(_ fields: [String]?) -> [String] {
        let known = (fields ?? []).filter(JSONLImport.fields.contains)
        return known + JSONLImport.fields.filter { !known.contains($0) }
    }
}
