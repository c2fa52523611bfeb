import RewindJSON

extension SessionExporter {
    /// One line per state: `{"action": …, "state": …, "at": …}`, compact, `\n` after each. A
    /// recorded session's lines also say where each action came from, when known: `cause`,
    /// `site` and `coalesced`; and its first line what the recorder redacted (`redacted`,
    /// `redactedKeys`), so that a verifier reading the file redacts the same way.
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
        var firstLine = true
        let redacted = session.meta["redacted"]?.arrayValue?.filter { $0.stringValue != nil } ?? []
        let redactedKeys = session.meta["redactedKeys"]?.arrayValue?.filter { $0.stringValue != nil } ?? []
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
            if event.seq > 0 {
                if let cause = event.cause { try buffer.append(",\"cause\":\(cause)") }
                if let site = event.site {
                    let json: JSONValue = ["file": .string(site.file), "line": .number(JSONNumber(Int64(site.line))),
                                           "function": .string(site.function)]
                    try buffer.append(",\"site\":")
                    try buffer.append(json.serializedBytes(.compact))
                }
                if event.coalesced { try buffer.append(",\"coalesced\":true") }
            }
            if firstLine {
                firstLine = false
                if !redacted.isEmpty {
                    try buffer.append(",\"redacted\":")
                    try buffer.append(JSONValue.array(redacted).serializedBytes(.compact))
                }
                if !redactedKeys.isEmpty {
                    try buffer.append(",\"redactedKeys\":")
                    try buffer.append(JSONValue.array(redactedKeys).serializedBytes(.compact))
                }
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
