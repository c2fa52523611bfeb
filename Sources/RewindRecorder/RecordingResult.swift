/// What became of a recording when it finished: whether everything arrived, how many events
/// the server acknowledged, and how many the device keeps for later.
///
/// ```swift
/// let result = await store.finishRecording()
/// if !result.delivered { print(result) }  // "12 of 40 events reached the server; 28 are kept on this device …"
/// ```
public struct RecordingResult: Sendable, Equatable, CustomStringConvertible {
    /// Every sink has the whole session, its end included.
    public var delivered: Bool
    /// Events of the session (seq 0 included) the server acknowledged; for a log file, every
    /// event committed.
    public var acknowledged: Int
    /// Events of the session written so far.
    public var recorded: Int
    /// Events the server has not acknowledged that stay in the device's local log, to be
    /// delivered the next time the app reaches the server (or by `rewind push`).
    public var keptOnDevice: Int
    /// The last failure, in one sentence: the recorder's own, the local log's, or the server's
    /// (refused, unreachable, a refused event, a state withheld for the server's limit), also
    /// when everything arrived in the end.
    public var lastError: String?

    /// Makes a result.
    public init(delivered: Bool, acknowledged: Int, recorded: Int, keptOnDevice: Int, lastError: String?) {
        self.delivered = delivered
        self.acknowledged = acknowledged
        self.recorded = recorded
        self.keptOnDevice = keptOnDevice
        self.lastError = lastError
    }

    public var description: String {
        if delivered { return "all \(recorded) events were delivered" + (lastError.map { " (\($0))" } ?? "") }
        var text = "\(acknowledged) of \(recorded) events reached the server"
        if keptOnDevice > 0 { text += "; \(keptOnDevice) are kept on this device and go out the next time the app reaches the server" }
        if let lastError { text += " (\(lastError))" }
        return text
    }
}
