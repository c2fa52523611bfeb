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
        try locked { _ throws(ReplayError) in
            guard let last = try lastSeq() else { return [] }
            var state = try initialState()
            var entries: [BlameEntry] = []
            // The operations of the event being applied that touch `path`, and the value there before it.
            var touching: [JSONPatchOperation] = []
            var before: JSONValue?
            try walkChain(from: 0, to: last, startsAtKeyframe: true, state: &state, willApply: { _, patch, state in
                touching = patch.operations.filter { operation in
                    operation.path.overlaps(path) || operation.from.map { $0.overlaps(path) } == true
                }
                before = touching.isEmpty ? nil : path.resolve(in: state)
            }) { row, patch, state throws(LogError) in
                if patch == nil {
                    if let value = path.resolve(in: state) {
                        entries.append(BlameEntry(seq: 0, at: row.at, actionType: row.actionType, action: try row.action(),
                                                  before: nil, after: value, operations: []))
                    }
                } else if !touching.isEmpty {
                    entries.append(BlameEntry(seq: row.seq, at: row.at, actionType: row.actionType, action: try row.action(),
                                              before: before, after: path.resolve(in: state), operations: touching))
                }
                return true
            }
            return entries
        }
    }
}
