import Foundation
import RewindJSON
import RewindLog

extension Timeline {
    /// Every event whose patch touched `path`: an operation whose `path` or `from` is `path`, one
    /// of its ancestors or one of its descendants (``JSONPointer/overlaps(_:)``), with the value at
    /// `path` before and after the event. Seq 0 is listed first when the initial state has a
    /// value at `path`.
    ///
    /// It walks the session once from its first keyframe, applying each patch in place and
    /// resolving `path` only around the events that touch it.
    ///
    /// An insertion or removal earlier in an array shifts the later elements without touching
    /// their pointers: `remove /items/1` is not listed for `/items/3/name`, although the value
    /// there changes; the next entry's `before` shows the value it left.
    ///
    /// ```swift
    /// for entry in try timeline.blame(path: JSONPointer("/user/name")) {
    ///     print(entry.seq, entry.actionType, entry.before ?? "absent", "→", entry.after ?? "absent")
    /// }
    /// ```
    public func blame(path: JSONPointer) throws(ReplayError) -> [BlameEntry] {
        lock.lock()
        defer { lock.unlock() }
        let session = sessionID
        guard let last = try readingLog({ () throws(LogError) in try reader.lastSeq(session: session) }) else { return [] }
        let initial = try readingLog { () throws(LogError) in try reader.keyframeState(session: session, seq: 0) }
        guard var state = initial?.state else {
            throw .brokenChain(session: session, seq: 0, reason: "no keyframe holds the initial state")
        }
        var entries: [BlameEntry] = []
        var expected: Int64 = 0
        var failure: ReplayError?
        try readingLog { () throws(LogError) in
            try reader.walkEvents(session: session, from: 0, to: last) { row throws(LogError) in
                guard row.seq == expected else {
                    failure = .brokenChain(session: session, seq: expected, reason: "seq \(expected) is missing")
                    return false
                }
                expected += 1
                if row.seq == 0 {
                    if let value = path.resolve(in: state) {
                        entries.append(BlameEntry(seq: 0, at: row.at, actionType: row.actionType, action: try row.action(),
                                                  before: nil, after: value, operations: []))
                    }
                    return true
                }
                let text = try row.patch()
                let patch: JSONPatch
                do {
                    patch = try JSONPatch(json: text)
                } catch {
                    failure = .brokenChain(session: session, seq: row.seq, reason: "its patch is not a JSON Patch: \(error)")
                    return false
                }
                let touching = patch.operations.filter { operation in
                    operation.path.overlaps(path) || operation.from.map { $0.overlaps(path) } == true
                }
                let before = touching.isEmpty ? nil : path.resolve(in: state)
                do {
                    try state.apply(patch)
                } catch {
                    failure = .brokenChain(session: session, seq: row.seq, reason: "its patch does not apply: \(error)")
                    return false
                }
                if !touching.isEmpty {
                    entries.append(BlameEntry(seq: row.seq, at: row.at, actionType: row.actionType, action: try row.action(),
                                              before: before, after: path.resolve(in: state), operations: touching))
                }
                return true
            }
        }
        if let failure { throw failure }
        if expected <= last { throw .brokenChain(session: session, seq: expected, reason: "seq \(expected) is missing") }
        return entries
    }
}
