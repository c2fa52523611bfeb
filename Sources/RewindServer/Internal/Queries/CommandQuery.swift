import RewindJSON
import RewindWebSocket
import RewindWire

/// `command`: relayed to the app streaming the session, which answers it later; a jump given
/// only a seq and a branch get what the app needs from the log first.
struct CommandQuery: InspectorQuery {
    var command: Command
    var connection: WebSocketConnection

    func answer(in context: QueryContext) throws(WireError) -> JSONValue? {
        var command = self.command
        let id = command.id
        guard !context.readOnly else { throw WireError(.readOnly, "the server runs with --read-only: commands are refused", id: id) }
        let session = try context.resolve(command.session ?? "", id: id)
        let app = context.ingest.appConnection(for: session.id)
        // On a shared store the app may stream the session to another server.
        let elsewhere = app == nil && context.relay.cluster?.isLive(session: session.id) == true
        guard app != nil || elsewhere else {
            if command.kind == .branch {
                throw WireError(.appOffline, "no app is connected for session \(session.uuid)\(CommandRelay.branchNeedsApp)", id: id)
            }
            throw WireError(.appOffline, "no app is connected for session \(session.uuid)", id: id)
        }
        if command.kind == .branch {
            try BranchCommand(session: session, id: id, context: context).fill(&command)
        }
        if command.kind == .jump {
            var jump = try command.decode(JumpArguments.self)
            if jump.state == nil {
                // The app shows the state whole: fill it in from the log when only seq was given.
                guard let seq = jump.seq else { throw WireError(.badMessage, "command: a jump needs \"seq\"", id: id) }
                jump.state = try context.state(at: seq, of: session, id: id)
                command.update(jump)
            }
        }
        // An app closes on a message past its limit (1009) and would never answer: say so here.
        var measured = command
        measured.session = nil
        let bytes = ServerToApp.command(measured).json.measure(byteBudget: WireLimits.appReceiveLimit + 1).bytes
        if bytes > WireLimits.appReceiveLimit {
            let what = command.kind == .jump ? "the jump's state" : "the \(command.kind.rawValue) command"
            throw WireError(.commandFailed, "\(what) would reach the app as a message of more than \(WireLimits.appReceiveLimit >> 20) MiB, which apps do not read; it was not sent (inspect that state in the page or with rewind state instead)", id: id)
        }
        if let app {
            context.relay.send(command, to: app, from: connection)
        } else {
            context.relay.sendRemote(command, session: session.id, from: connection)
        }
        return nil
    }
}
