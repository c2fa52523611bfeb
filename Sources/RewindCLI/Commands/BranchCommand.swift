import ArgumentParser
import Foundation
import RewindJSON
import RewindWire

/// `rewind branch`: asks the live app, through the server, to recompute a session with some
/// actions left out or replaced.
struct BranchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "branch",
        abstract: "Recompute a session with actions left out or replaced, through the app's own reducer.",
        discussion: """
        Sends the session's app (connected to rewind serve) a branch command: the app runs the \
        recorded actions again through its reducer, without effects, leaving out the seqs given \
        to --skip and replacing those given to --edit SEQ=JSON, into a new session linked to the \
        original (replayOf; "branch" in its meta). Its live state is not touched. A left-out \
        action keeps its seq (recorded as @@rewind/skipped), so both sessions line up seq for seq; \
        the first seq where their states differ is printed.

        With no app connected, the server says in one sentence that a branch needs the app's \
        reducer. SESSION: an id, a uuid prefix or 'latest', as the server knows it, resolved once \
        before the branch is made (so the branch is compared with the session it came from). \
        'latest' never names a branch: it is the newest session that is not one; name a branch \
        by its id or uuid to branch it again.

        Examples:
          rewind branch latest --skip 12
          rewind branch 3 --skip 4,9 --edit '20={"type":"cart/add","id":7}'
        """
    )

    @Argument(help: "The session: an id, a uuid prefix or 'latest'.")
    var session: String

    @Option(help: ArgumentHelp("Seqs whose actions are left out, comma-separated.", valueName: "seqs"))
    var skip: String?

    @Option(help: ArgumentHelp("SEQ=JSON: the action that replaces seq's (repeatable).", valueName: "seq=json"))
    var edit: [String] = []

    @Option(help: ArgumentHelp("The server's inspector URL.", valueName: "url"))
    var server = ServerLocation.defaultURL

    @Option(help: "The server's token or inspect token (default: $REWIND_TOKEN, else $REWIND_INSPECT_TOKEN).")
    var token: String?

    @OptionGroup var caFile: CAFileOption

    func validate() throws {
        if skip == nil && edit.isEmpty { throw ValidationError("give --skip SEQ[,SEQ…] or --edit SEQ=JSON (or both)") }
    }

    /// The seqs of `--skip`.
    func skipped() throws -> [Int64] {
        guard let skip else { return [] }
        return try skip.split(separator: ",").map { part in
            guard let seq = Int64(part.trimmingCharacters(in: .whitespaces)), seq >= 1 else {
                throw CLIError("--skip '\(skip)' must list seqs, 1 or more, separated by commas", code: 2)
            }
            return seq
        }
    }

    /// The actions of `--edit`, in the order given; a seq given twice keeps its first place and
    /// its last action.
    func edits() throws -> [BranchArguments.Edit] {
        var edits: [BranchArguments.Edit] = []
        for text in edit {
            guard let equals = text.firstIndex(of: "="), let seq = Int64(text[..<equals]), seq >= 1 else {
                throw CLIError("--edit '\(text)' must be SEQ=JSON, such as 12='{\"type\":\"reset\"}'", code: 2)
            }
            let action: JSONValue
            do {
                action = try JSONValue(parsing: String(text[text.index(after: equals)...]))
            } catch {
                throw CLIError("--edit \(seq): the action is not JSON: \(error)", code: 2)
            }
            if let index = edits.firstIndex(where: { $0.seq == seq }) {
                edits[index].action = action
            } else {
                edits.append(BranchArguments.Edit(seq: seq, action: action))
            }
        }
        return edits
    }

    func run() throws {
        let url = try ServerLocation.inspectorURL(server)
        let token = ServerLocation.token(self.token)
        var command = Command(id: 1, session: session, BranchArguments(skip: try skipped(), edit: try edits()))
        let mailbox = Mailbox()
        let signals = mailbox.catchInterrupts()
        defer { withExtendedLifetime(signals) {} }
        let link = try InspectorLink(url: url, token: token, caFile: try caFile.resolved(), mailbox: mailbox, generation: 1)
        defer { link.close() }
        // The session named, once: `latest` (or a uuid prefix) asked again after the branch
        // exists could name the branch itself.
        link.send(.events(id: 3, session: session, from: 0, limit: 1, typeGlob: nil, text: nil))
        let original = try awaitReply(id: 3, mailbox: mailbox, url: url, token: token) { reply -> String in
            guard reply.string("type") != "error", let uuid = reply.string("session") else {
                throw CLIError("the server has no session \(session): \(reply.string("message") ?? "no reason given")", code: 2)
            }
            return uuid
        }
        command.session = original
        link.send(.command(command))
        let branch = try awaitReply(id: command.id, mailbox: mailbox, url: url, token: token) { reply in
            if reply.string("type") == "error" {
                throw CLIError("the server refused the branch (\(reply.string("code") ?? "error")): \(reply.string("message") ?? "no reason given")", code: 1)
            }
            let message = reply.string("message") ?? ""
            guard case .bool(true)? = reply["ok"] else { throw CLIError("the app refused the branch: \(message)", code: 1) }
            return message
        }
        // The app's answer, escaped: its words are the app's.
        writeEscapedOutput("\(shown: branch)\n")
        // The branch session's uuid is the fourth word of the app's answer.
        guard let uuid = branch.split(separator: " ").dropFirst(3).first.map({ String($0.trimmingCharacters(in: [":"])) }) else { return }
        link.send(.compare(id: 2, session: original, with: uuid, seq: nil))
        let first = try awaitReply(id: 2, mailbox: mailbox, url: url, token: token) { reply -> String in
            if reply.string("type") == "error" { return "" }
            if case .number(let seq)? = reply["firstDifference"] { return "first difference from the original at seq \(seq.text)" }
            return "the branch holds the same states as the original"
        }
        if !first.isEmpty { writeEscapedOutput(first + "\n") }
    }

    private func awaitReply<T>(id: JSONValue, mailbox: Mailbox, url: String, token: String?, _ handle: (JSONObject) throws -> T) throws -> T {
        while true {
            switch mailbox.next(until: nil) {
            case .message(let reply, _)? where reply["id"] == id:
                return try handle(reply)
            case .lost(let reason, _, let connected)?:
                if connected { throw CLIError("the server at \(url) closed the connection before the app answered (\(reason))", code: 1) }
                throw TailCommand.connectError(url: url, reason: reason, token: token)
            case .interrupted?:
                throw CLIError("interrupted before the app answered; it may still be branching", code: 130)
            default:
                continue
            }
        }
    }
}
