import Foundation
import RewindJSON
import RewindLog
import RewindReplay
import RewindWire

/// `find`: the events where a path's value meets a condition (a scan that stops at the time
/// budget with what it found, saying how far it got).
struct FindQuery: SessionQuery {
    var find: InspectorRequest.Find
    var id: JSONValue? { find.id }
    var session: String { find.session }

    var askInstead: String { "ask for fewer hits with \"limit\" or \"first\", or about a narrower \"path\"" }

    func answer(about session: SessionInfo, in context: QueryContext) throws(WireError) -> JSONValue? {
        let condition = try self.condition()
        // Stop with what was found before the query budget interrupts the read: a partial
        // answer says how far it got.
        let deadline = ContinuousClock.now.advanced(by: .milliseconds(Int64(context.limits.queryTimeBudget * 900)))
        let result = try context.replay(session, id: id, scan: true) { timeline throws(ReplayError) in
            try timeline.find(path: find.path, condition: condition, all: find.all, first: find.first,
                              limit: find.limit, deadline: deadline)
        }
        var members: JSONObject = ["path": .string(find.path.description), "hits": .array(result.hits.map(InspectorReplies.findHit)),
                                   "scannedThrough": InspectorReplies.number(result.scannedThrough),
                                   "lastSeq": InspectorReplies.number(result.lastSeq), "complete": .bool(result.complete)]
        if let because = result.stoppedBecause { members["stoppedBecause"] = .string(because) }
        return InspectorReplies.reply("find", id: id, session: session, members)
    }

    /// The request's condition as the timeline tests it (a `matches` pattern compiled).
    private func condition() throws(WireError) -> FindCondition {
        switch find.condition {
        case .isEqual(let value): return .isEqual(value)
        case .isNot(let value): return .isNot(value)
        case .greaterThan(let bound): return .greaterThan(bound)
        case .lessThan(let bound): return .lessThan(bound)
        case .matches(let pattern):
            do { return .matches(try FindPattern(pattern)) } catch {
                throw WireError(.badMessage, "find: \(error)", id: find.id)
            }
        case .exists: return .exists
        case .missing: return .missing
        case .changed: return .changed
        }
    }
}
