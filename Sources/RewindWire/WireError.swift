import RewindJSON

/// A protocol error: a stable machine-readable `code` and one sentence for people.
///
/// Sent as `{"type":"error","id":…,"code":"seq-gap","message":"…"}`; `id` echoes the request
/// that failed when there was one.
public struct WireError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Why a message was refused.
    public enum Code: String, Sendable, CaseIterable {
        /// The frame is not valid JSON.
        case badJSON = "bad-json"
        /// Valid JSON, but not a message of this protocol (missing or mistyped member).
        case badMessage = "bad-message"
        /// A `type` this endpoint does not know.
        case unknownType = "unknown-type"
        /// An app sent something before `hello`.
        case helloFirst = "hello-first"
        /// An event's seq is not the next one the server expects.
        case seqGap = "seq-gap"
        /// An event's patch does not apply to the session's current state.
        case patchFailed = "patch-failed"
        /// An event's hash is not the hash of the state its patch gives.
        case hashMismatch = "hash-mismatch"
        /// An event's state would nest deeper than the server stores (so it could not be read back).
        case stateTooDeep = "state-too-deep"
        /// An event's state would be larger than the server's `--max-state`.
        case stateTooLarge = "state-too-large"
        /// No session by that name.
        case unknownSession = "unknown-session"
        /// A seq outside the session.
        case unknownSeq = "unknown-seq"
        /// The server runs with `--read-only`: commands are refused.
        case readOnly = "read-only"
        /// The session's app is not connected, so a command cannot reach it.
        case appOffline = "app-offline"
        /// The app could not perform a command.
        case commandFailed = "command-failed"
        /// The server could not store or read the log.
        case storage = "storage"
        /// The reply would not fit the connection's output bound; the message says what to ask instead.
        case replyTooLarge = "reply-too-large"
        /// The inspector has too many requests waiting for replies.
        case tooManyRequests = "too-many-requests"
        /// The query ran out of its time budget.
        case queryTimeout = "query-timeout"
        /// A `hello` for a session it does not prove to be its app's (the session's secret is
        /// missing or another).
        case notOwner = "not-owner"
    }

    public var code: Code
    public var message: String
    /// The request this error answers, when there was one.
    public var id: JSONValue?

    public init(_ code: Code, _ message: String, id: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.id = id
    }

    public var description: String { "\(code.rawValue): \(message)" }

    /// The error as a wire message.
    public var json: JSONValue {
        var object: JSONObject = ["type": "error", "code": .string(code.rawValue), "message": .string(message)]
        if let id { object["id"] = id }
        return .object(object)
    }
}
