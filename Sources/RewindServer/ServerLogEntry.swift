/// One thing the server says while it runs, with what a log collector files it under:
/// `rewind serve --log-format json` writes each as one JSON object a line.
public struct ServerLogEntry: Sendable, Equatable {
    /// How much it matters.
    public enum Level: String, Sendable {
        case info, warning, error
    }

    public var level: Level
    /// What happened, in a word a collector can filter on: `session-started`, `session-resumed`,
    /// `session-ended`, `session-interrupted` (its app went without `end`), `session-moved` (resumed on
    /// another server of a team store), `token-refused`.
    public var event: String
    /// The session's uuid, when it is about one.
    public var session: String?
    /// The app's name, when it is about one.
    public var app: String?
    /// One sentence, as the text log says it.
    public var message: String

    public init(level: Level, event: String, session: String? = nil, app: String? = nil, message: String) {
        self.level = level
        self.event = event
        self.session = session
        self.app = app
        self.message = message
    }
}
