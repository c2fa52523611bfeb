import Foundation
import RewindJSON
import RewindWebSocket
import RewindWire
import RewindSupport

/// An app that speaks `rewind.app.v1` itself, so that it chooses every field a real app could:
/// its session uuid, app name, version, run, meta and `replayOf`, each action, state and send site,
/// and the messages it answers commands with. Every one of them carries ``payload``.
final class HostileApp: Sendable {
    /// Clears the screen, retitles the window, rings the bell, opens a CSI with U+009B, breaks the
    /// line with U+0085 and turns the rest of the line right-to-left with U+202E.
    static let payload = "\u{1B}[2J\u{1B}]0;PWNED\u{07}\u{9B}31m\u{85}\u{202E}evil"

    /// `tag` and the payload: each field gets its own tag, so a test can find each field.
    static func hostile(_ tag: String) -> String { tag + payload }

    /// How a text column or sentence of `rewind` shows `hostile(tag)` (``TerminalText``).
    static func shown(_ tag: String) -> String { tag + #"\e[2J\e]0;PWNED\u0007\u009b31m\u0085\u202eevil"# }

    /// How the first 8 characters of `hostile(tag)` (a one-character tag) show: the UUID and
    /// RUN columns print that much.
    static func shownPrefix(_ tag: String) -> String { tag + #"\e[2J\e]0"# }

    /// How `hostile(tag)` shows inside JSON (a string's text, between its quotes).
    static func json(_ tag: String) -> String { tag + #"\u001b[2J\u001b]0;PWNED\u0007\u009b31m\u0085\u202eevil"# }

    static let uuid = hostile("U")
    static let stateKey = hostile("K")
    /// The pointer to the state's hostile key.
    static let pointer = "/" + stateKey

    /// The state after each seq: the hostile key's value changes at seq 1, `count` at seq 2.
    static func state(_ seq: Int64) -> JSONValue {
        let members: [(String, JSONValue)] = [
            (stateKey, .string(hostile(seq == 0 ? "S" : "s"))),
            ("list", [.string(hostile("L"))]),
            ("count", seq >= 2 ? 1 : 0),
        ]
        return .object(JSONObject(members))
    }

    /// The action of each seq: seq 1's type, payload key and value are hostile, seq 2's type.
    static func action(_ seq: Int64) -> JSONValue {
        switch seq {
        case 0: return ["type": "@@INIT"]
        case 1:
            let members: [(String, JSONValue)] = [("type", .string(hostile("T"))), (hostile("P"), .string(hostile("p")))]
            return .object(JSONObject(members))
        default: return ["type": .string(hostile("W"))]
        }
    }

    /// Where seq 1 was sent: a hostile file and function.
    static let site = WireEvent.Site(file: hostile("F"), line: 12, function: hostile("N"))

    static func event(_ seq: Int64) -> JSONValue {
        let at = 1_763_700_000 + Double(seq)
        let after = state(seq)
        if seq == 0 {
            return AppMessage.event(WireEvent(seq: 0, at: at, action: action(0), keyframe: after, hash: after.stableHash)).json
        }
        let operation: JSONValue = seq == 1
            ? ["op": "replace", "path": .string(JSONPointer(tokens: [stateKey]).description), "value": after[stateKey]!]
            : ["op": "replace", "path": "/count", "value": 1]
        return AppMessage.event(WireEvent(seq: seq, at: at, action: action(seq), patch: [operation], hash: after.stableHash,
                                          durationNs: 2_000, site: seq == 1 ? site : nil)).json
    }

    private let socket: AppSocket
    var client: WebSocketClient { socket.client }

    init(port: Int) throws {
        // Each relayed command is answered (see `answer`): the socket is made first, so the
        // handler reaches it through a box filled right after.
        let box = Mutex<AppSocket?>(nil)
        socket = try AppSocket(port: port) { command in
            if let socket = box.withLock({ $0 }) { Self.answer(command, on: socket) }
        }
        box.withLock { $0 = socket }
    }

    /// Says hello with every field hostile; whether the server welcomed it within 20 s.
    func hello() -> Bool {
        let meta: JSONObject = JSONObject([("version", .string(Self.hostile("V"))), (Self.hostile("M"), .string(Self.hostile("m")))])
        let hello = AppMessage.Hello(id: 1, session: Self.uuid, app: Self.hostile("A"), version: Self.hostile("V"), meta: meta,
                                     replayOf: Self.hostile("O"), run: Self.hostile("R"))
        socket.send(AppMessage.hello(hello).json)
        return socket.wait { $0.welcomed ? true : nil } ?? false
    }

    /// The commands the server relayed, in order.
    var commands: [Command] { socket.state.value.commands }

    func send(_ message: JSONValue) {
        socket.send(message)
    }

    func waitForAck(_ seq: Int64) -> Bool {
        socket.wait { $0.acked >= seq ? true : nil } ?? false
    }

    func waitForClose() -> Bool {
        socket.wait { $0.closed ? true : nil } ?? false
    }

    /// A branch that skips seq 1 succeeds, any other branch is refused, a replay succeeds: each
    /// answer's message is hostile (`B`, `X`, `Y`).
    private static func answer(_ command: Command, on socket: AppSocket) {
        let result: AppMessage.CommandResult
        switch command.kind {
        case .branch where command.arguments["skip"] == [1]:
            result = .init(id: command.id, ok: true, message: "branched into session \(Self.hostile("B")): 1 left out, \(Self.hostile("C"))")
        case .branch:
            result = .init(id: command.id, ok: false, message: Self.hostile("X"))
        default:
            result = .init(id: command.id, ok: true, message: Self.hostile("Y"))
        }
        socket.send(AppMessage.result(result).json)
    }
}
