import Foundation
import RewindJSON
import RewindWire

/// Sizes of states as the server's `--max-state` counts them, so that the link never sends a
/// state the server would refuse.
///
/// The server weighs a state it receives whole (a keyframe) by its compact JSON
/// (`measure`, numbers as written, escapes not counted) and a state it builds from a patch by its
/// canonical text (numbers in canonical form, escapes counted). ``of(_:)`` is the larger of the
/// two, so a state within it passes either check.
enum StateSize {
    /// The size of `state`: a walk of the whole value.
    static func of(_ state: JSONValue) -> Int {
        max(state.measure().bytes, state.hashAndCanonicalSize(.v2).size)
    }

    /// At most what applying `patch` (the recorder's, which holds `add`, `remove` and `replace`
    /// only, never `copy`) can add to a state's size: the patch's own size, which holds every
    /// value it places and every key it adds. A walk of the patch, not of the state.
    static func growthBound(of patch: JSONValue) -> Int {
        if case .array(let operations) = patch, operations.isEmpty { return 0 }
        return max(patch.measure().bytes, patch.hashAndCanonicalSize(.v2).size)
    }

    /// A size for people: `2.0 MiB`, `512.0 KiB` or `900 bytes`.
    static func text(_ bytes: Int) -> String {
        if bytes >= 1 << 20 { return String(format: "%.1f MiB", Double(bytes) / Double(1 << 20)) }
        if bytes >= 1 << 10 { return String(format: "%.1f KiB", Double(bytes) / Double(1 << 10)) }
        return "\(bytes) bytes"
    }
}

/// Why the link kept part of an event from the server: the one sentence it reports.
struct WithheldEvent {
    enum Reason {
        /// The state after the event is over the server's `--max-state` (`exact`: measured;
        /// otherwise an upper bound).
        case stateTooLarge(bytes: Int, exact: Bool, limit: Int)
        /// The event with its state, as one message, is over the server's largest message.
        case messageTooLarge(bytes: Int, limit: Int)
        /// The action alone makes the message too large: it went as a placeholder.
        case actionTooLarge(bytes: Int, limit: Int)
        /// The event nests deeper than the server reads (its state, or its action when
        /// `action`): withheld, or the action sent as a placeholder.
        case tooDeep(depth: Int, limit: Int, action: Bool)
    }

    /// The deepest nesting an event's members may have: with the batch around it (`{"events":
    /// [ … ]}`) a frame then stays under the server parser's 1,000 levels, and a state under
    /// its 998.
    static let maxMemberDepth = 997

    /// The deepest nesting of arrays and objects in `bytes`, a JSON text (strings skipped).
    static func nesting(of bytes: [UInt8]) -> Int {
        var depth = 0
        var deepest = 0
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                deepest = max(deepest, depth)
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        return deepest
    }

    var seq: Int64
    var reason: Reason

    /// One sentence naming the event, its size, the server's limit and the flag that sets it.
    func sentence(app: String, session: String) -> String {
        let event = "event \(seq) of \(app) (session \(session.prefix(8)))"
        let goesOn = "the server gets its action without that state, and later events from the next state that fits"
        switch reason {
        case .stateTooLarge(let bytes, let exact, let limit):
            let size = exact ? "is \(StateSize.text(bytes))" : "may be up to \(StateSize.text(bytes))"
            return "the state after \(event) \(size), over the server's state limit of \(StateSize.text(limit)) "
                + "(rewind serve --max-state): \(goesOn); start the server with a larger --max-state to keep such states"
        case .messageTooLarge(let bytes, let limit):
            return "\(event) is \(StateSize.text(bytes)) as one message, over the server's message limit of "
                + "\(StateSize.text(limit)) (rewind serve --max-message): \(goesOn); start the server with a larger --max-message to keep it"
        case .actionTooLarge(let bytes, let limit):
            return "the action of \(event) is \(StateSize.text(bytes)) as one message, over the server's message limit of "
                + "\(StateSize.text(limit)) (rewind serve --max-message): the server gets a placeholder "
                + "{\"type\": \"\(WithheldEvent.placeholderType)\"} in its place; start the server with a larger --max-message to keep it"
        case .tooDeep(let depth, let limit, let action):
            if action {
                return "the action of \(event) nests \(depth) levels deep, deeper than the \(limit) the server reads: the server gets a "
                    + "placeholder {\"type\": \"\(WithheldEvent.placeholderType)\"} in its place"
            }
            return "\(event) nests \(depth) levels deep, deeper than the \(limit) the server reads: \(goesOn)"
        }
    }

    /// The `type` of the action sent in place of one too large for any message.
    static let placeholderType = "@@rewind/too-large"

    /// The action sent instead of `action`, which is `bytes` long: its `type` (when a string)
    /// and its size, so the inspector still shows what happened.
    static func placeholder(for action: JSONValue, bytes: Int) -> JSONValue {
        var object: JSONObject = ["type": .string(placeholderType), "bytes": .number(JSONNumber(Int64(bytes)))]
        if case .object(let members) = action, case .string(let type)? = members["type"] {
            // Bounded, so the placeholder itself always fits.
            object["actionType"] = .string(String(type.utf8.prefix(1_024)) ?? "")
        }
        return .object(object)
    }
}
