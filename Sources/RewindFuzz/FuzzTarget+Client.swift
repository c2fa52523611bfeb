import Foundation
import RewindJSON
import RewindWire

/// A state as an app's store holds it: nested, optional, an array of items, an enum, and a part
/// written as TCA's `@ObservableState` expands (`_name` and the registrar), which Rewind's
/// decoder reads from the app's own names.
private struct ClientState: Codable {
    struct Registrar: Codable {
        init() {}
        init(from decoder: any Decoder) throws {}
        func encode(to encoder: any Encoder) throws {}
    }

    struct Item: Codable {
        var _title: String
        var _done: Bool
        var _$observationRegistrar = Registrar()
    }

    enum Filter: String, Codable { case all, open, done }

    var items: [Item]
    var filter: Filter
    var note: String?
    var counts: [String: Int]
    var total: Double
}

private enum ClientAction: Codable {
    case add(String)
    case toggle(index: Int)
    case setFilter(ClientState.Filter)
    case clear
}

extension FuzzTarget {
    /// What a client takes from a server, each line one message: `S` a message to an app
    /// (`ServerToApp`, what the recorder's link reads), `I` a push to an inspector (what `rewind
    /// tail` reads). Each parses or is refused with an error, never a trap; what parses prints
    /// and parses back to the same message; a command's arguments decode into their kind's type,
    /// and its states and actions into an app's types (or are refused).
    static func client(_ bytes: [UInt8]) {
        for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            let message = Array(line.dropFirst())
            switch line.first {
            case UInt8(ascii: "S"): toApp(message)
            case UInt8(ascii: "I"): toInspector(message)
            default: break
            }
        }
    }

    private static func toApp(_ frame: [UInt8]) {
        guard let message = try? ServerToApp(frame: frame) else { return }
        guard let again = try? ServerToApp(json: message.json) else { fail("a message to an app does not read back from its own JSON") }
        if again != message { fail("a message to an app reads back as another") }
        guard case .command(let command) = message else { return }
        let decoder = JSONValueDecoder()
        switch command.kind {
        case .jump:
            if let state = (try? command.decode(JumpArguments.self))?.state { _ = try? decoder.decode(ClientState.self, from: state) }
        case .dispatch:
            if let action = (try? command.decode(DispatchArguments.self))?.action { _ = try? decoder.decode(ClientAction.self, from: action) }
        case .replay:
            guard let replay = try? command.decode(ReplayArguments.self) else { return }
            if let state = replay.state { _ = try? decoder.decode(ClientState.self, from: state) }
            for action in replay.actions.prefix(1_000) { _ = try? decoder.decode(ClientAction.self, from: action) }
        case .branch:
            guard let branch = try? command.decode(BranchArguments.self), let (state, steps) = try? branch.recording() else { return }
            _ = try? decoder.decode(ClientState.self, from: state)
            for step in steps.prefix(1_000) { _ = try? decoder.decode(ClientAction.self, from: step.action) }
        default:
            return
        }
    }

    private static func toInspector(_ frame: [UInt8]) {
        guard let json = try? parseFrame(frame), let push = try? InspectorPush(json: json) else { return }
        guard let again = try? InspectorPush(json: push.json) else { fail("a push does not read back from its own JSON") }
        if again != push { fail("a push reads back as another") }
    }
}
