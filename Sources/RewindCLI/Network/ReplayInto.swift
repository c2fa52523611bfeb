import Foundation
import RewindJSON
import RewindLog
import RewindReplay
import RewindWire

/// `rewind replay … --into TARGET`: sends recorded actions to a live app as the inspector
/// `replay` command, and reports the app's answer.
struct ReplayInto {
    let timeline: Timeline
    let info: SessionInfo
    /// First and last seq whose actions are sent (`from` ≥ 1: seq 0 is the initial state).
    let from: Int64
    let to: Int64
    let pace: Double?
    let target: String
    let url: String
    let token: String?
    let caFile: String?
    /// The server's largest incoming message (`rewind serve --max-message`): a bigger command
    /// would only get the connection closed.
    let maxMessage: Int

    func run() throws {
        guard from <= to else { throw CLIError("session \(info.id) has no actions after its initial state to replay", code: 2) }
        let events: [LogEvent]
        do {
            events = try timeline.reader.events(session: info.id, from: from, to: to)
        } catch {
            throw CLIError(error.description, code: 2)
        }
        let start = try ReplayAccess.cli { () throws(ReplayError) in try timeline.state(at: from - 1) }
        // Where an earlier replay set the state (its mark), the app sets the same state: the mark
        // carries it.
        var actions: [JSONValue] = []
        for event in events {
            guard event.actionType == "@@rewind/replayed", case .object(var mark) = event.action else {
                actions.append(event.action)
                continue
            }
            mark["state"] = try ReplayAccess.cli { () throws(ReplayError) in try timeline.state(at: event.seq) }
            actions.append(.object(mark))
        }
        // Where the app sent each: the replay's session records them as the original did.
        let sites = events.map { event in event.site.map { WireEvent.Site(file: $0.file, line: $0.line, function: $0.function) } }
        let command = Command(id: 1, session: target, ReplayArguments(actions: actions, state: start, of: info.uuid,
                                                                      from: from, to: to, pace: pace, sites: sites))
        let size = InspectorRequest.command(command).json.serialized(.compact).utf8.count
        if size > maxMessage {
            throw CLIError("the replay of seq \(from)…\(to) is \(Self.sizeText(size)) as one message, over the server's limit of \(Self.sizeText(maxMessage)) (--max-message); replay a narrower range with --from and --to", code: 2)
        }

        let mailbox = Mailbox()
        let signals = mailbox.catchInterrupts()
        defer { withExtendedLifetime(signals) {} }
        let link = try InspectorLink(url: url, token: token, caFile: caFile, mailbox: mailbox, generation: 1)
        defer { link.close() }
        writeStandardError("rewind replay: sending \(events.count) actions (seq \(from)…\(to) of session \(info.id)) to the app of session \(target)")
        link.send(.command(command))
        let paceNote = pace.map { " (about \(String(format: "%.1f", Double(events.count) / $0))s at \($0)/s)" } ?? ""
        writeStandardError("rewind replay: sent; waiting for the app to replay them\(paceNote)")
        while true {
            switch mailbox.next(until: nil) {
            case .message(let reply, _)? where reply["id"] == command.id:
                if reply.string("type") == "error" {
                    throw CLIError("the server refused the replay (\(reply.string("code") ?? "error")): \(reply.string("message") ?? "no reason given")", code: 1)
                }
                let message = reply.string("message")
                guard case .bool(true)? = reply["ok"] else {
                    throw CLIError("the app refused the replay: \(message ?? "no reason given")", code: 1)
                }
                writeEscapedOutput("replayed seq \(from)…\(to) into session \(shown: target)" + (message.map { ": \(shown: $0)" } ?? "") + "\n")
                return
            case .lost(let reason, _, let connected)?:
                if connected { throw CLIError("the server at \(url) closed the connection before the app answered (\(reason))", code: 1) }
                throw TailCommand.connectError(url: url, reason: reason, token: token)
            case .interrupted?:
                throw CLIError("interrupted before the app answered; it may still be replaying", code: 130)
            default:
                continue
            }
        }
    }

    /// `17.2 MiB`, `3.0 KiB` or `900 bytes`.
    static func sizeText(_ bytes: Int) -> String {
        if bytes >= 1 << 20 { return String(format: "%.1f MiB", Double(bytes) / Double(1 << 20)) }
        if bytes >= 1 << 10 { return String(format: "%.1f KiB", Double(bytes) / Double(1 << 10)) }
        return "\(bytes) bytes"
    }
}
