import Foundation
import RewindJSON
import RewindLog
import RewindWire

/// A branch command on its way to the app: its `skip` and `edit` checked against the session,
/// and what the app recomputes read from the log: the state at seq 0 and its time, and every
/// recorded step (action, time, cause, site).
struct BranchCommand {
    /// The most actions a branch recomputes.
    static let maxActions = 20_000
    /// How many actions a branch reads at once.
    static let page: Int64 = 256

    /// The most bytes a branch command carries to the app: half the app connection's output
    /// bound (16 MiB by default), so acks and other commands still fit beside it.
    static func byteLimit(maxReplyBytes: Int) -> Int {
        maxReplyBytes / 2
    }

    let session: SessionInfo
    let id: JSONValue?
    let context: QueryContext

    /// The recording the app recomputes.
    private struct Recording {
        var initial: JSONValue
        var initialAt: Date
        var steps: [BranchArguments.Step]
    }

    /// Checks `command` against the session and fills in what the app recomputes.
    func fill(_ command: inout Command) throws(WireError) {
        guard let last = session.lastSeq, last >= 1 else {
            throw WireError(.badMessage, "command: session \(session.uuid) has no actions to branch from", id: id)
        }
        guard last <= Int64(Self.maxActions) else {
            throw WireError(.badMessage, "command: a branch recomputes at most \(Self.maxActions) actions, and session \(session.uuid) has \(last)", id: id)
        }
        var branch = try command.decode(BranchArguments.self)
        let seqs = branch.skip + branch.edit.map(\.seq)
        if let outside = seqs.first(where: { $0 < 1 || $0 > last }) {
            throw WireError(.badMessage, "command: seq \(outside) is not an action of session \(session.uuid) (1…\(last))", id: id)
        }
        let recording = try read(through: last)
        branch.state = recording.initial
        // Seq 0's time: the branch's offsets then read as the original's.
        branch.at = recording.initialAt.timeIntervalSince1970
        branch.steps = recording.steps
        branch.of = session.uuid
        command.update(branch)
    }

    /// Reads the recording through seq `last`. The command carries the initial state and every
    /// step to the app in one message, so it is bounded as it is read: pages of actions, each
    /// measured against what is left of the budget, and nothing past the first page that goes
    /// over is read.
    private func read(through last: Int64) throws(WireError) -> Recording {
        let budget = Self.byteLimit(maxReplyBytes: context.limits.maxReplyBytes)
        func tooLarge(_ what: String) -> WireError {
            WireError(.replyTooLarge, "command: the branch would carry \(what) to the app, over the limit of \(budget) bytes for one command; branch a shorter session, or skip and edit on a recording with smaller states and actions", id: id)
        }
        let session = self.session
        let (initial, initialAt) = try context.read(id, scan: true) { reader throws(LogError) in
            (try reader.keyframe(atOrBefore: 0, session: session.id)?.state, try reader.events(session: session.id, from: 0, to: 0).first?.at)
        }
        guard let initial else {
            throw WireError(.storage, "session \(session.uuid) could not be read whole to branch from", id: id)
        }
        var used = initial.measure(byteBudget: budget + 1).bytes
        guard used <= budget else { throw tooLarge("an initial state of more than \(budget) bytes") }
        var steps: [BranchArguments.Step] = []
        steps.reserveCapacity(Int(last))
        var from: Int64 = 1
        while from <= last {
            let to = min(last, from + Self.page - 1)
            let page = try context.read(id, scan: true) { reader throws(LogError) in try reader.events(session: session.id, from: from, to: to) }
            guard page.count == Int(to - from + 1) else {
                throw WireError(.storage, "session \(session.uuid) could not be read whole to branch from", id: id)
            }
            for event in page {
                let step = try step(event)
                used += step.json.measure(byteBudget: budget - used + 1).bytes + 1
                guard used <= budget else {
                    throw tooLarge("more than \(budget) bytes (the initial state and the actions up to seq \(event.seq) of \(last) alone)")
                }
                steps.append(step)
            }
            from = to + 1
        }
        return Recording(initial: initial, initialAt: initialAt ?? session.startedAt, steps: steps)
    }

    /// One recorded step as the app replays it.
    private func step(_ event: LogEvent) throws(WireError) -> BranchArguments.Step {
        var step = BranchArguments.Step(action: event.action, at: event.at.timeIntervalSince1970, cause: event.cause,
                                        site: event.site.map { WireEvent.Site(file: $0.file, line: $0.line, function: $0.function) })
        // Where a replay set the state (its mark), the app sets the same state: the step
        // carries it.
        if event.actionType == "@@rewind/replayed" {
            step.state = try context.state(at: event.seq, of: session, id: id, scan: true)
        }
        return step
    }
}
