import RewindJSON
import RewindWire

/// How the app carried out a command from the inspector: what a handler of the app's own
/// (``ServerSink/onCommand(_:)``) answers. The sink sends it back under the command's id.
public struct CommandResult: Sendable, Equatable {
    /// Whether the app did what the command asked.
    public var ok: Bool
    /// One sentence: why it failed, or a note on what it did (`replayed 12 actions`).
    public var message: String?

    public init(ok: Bool, message: String? = nil) {
        self.ok = ok
        self.message = message
    }

    /// The command was carried out; `note` says how, if there is something to say.
    public static func done(_ note: String? = nil) -> CommandResult {
        CommandResult(ok: true, message: note)
    }

    /// The command was not carried out, for `reason` (one sentence).
    public static func failed(_ reason: String) -> CommandResult {
        CommandResult(ok: false, message: reason)
    }

    /// The result on the wire, answering the command `id`.
    package func wire(id: JSONValue) -> AppMessage.CommandResult {
        AppMessage.CommandResult(id: id, ok: ok, message: message)
    }
}
