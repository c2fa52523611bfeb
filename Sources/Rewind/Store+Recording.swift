import Foundation
import RewindJSON

extension Store where State: Encodable & Sendable, Action: Sendable {
    /// Starts recording this store: its current state becomes seq 0 of a new session, and every
    /// action applied from now on is recorded with the state it produced.
    ///
    /// ```swift
    /// let store = Store(initialState: AppState(), reducer: appReducer)
    /// store.record(to: .file("/tmp/app.db"), app: "MyApp", redacting: ["/auth/token"])
    /// ```
    ///
    /// A recording already running is stopped first. If the log cannot be opened, recording
    /// stops with one message (``Recorder/lastError``) and the store works on.
    ///
    /// To let the inspector (and `rewind replay --into`, `rewind branch`) drive the store through
    /// a server sink, say so: `commands: .accepted`.
    ///
    /// - Parameters:
    ///   - destination: the log file or sinks; `$REWIND_DB` or the default log when omitted.
    ///   - redacting: JSON Pointers replaced by `"<redacted>"` in states; the strings found there
    ///     are replaced wherever else they appear, in actions too (``RecorderOptions/redacting``).
    ///   - redactingKeys: member names redacted wherever they appear (`password`, `token`).
    ///   - queueCapacity: the most snapshots waiting for the recorder's thread.
    ///   - commands: whether the store performs the commands its server sinks relay
    ///     (``InspectorCommands``); none by default.
    @inlinable @discardableResult
    public func record(to destination: RecordingDestination = .automatic, app: String, version: String? = nil,
                       meta: JSONValue = [:], redacting: [String] = [], redactingKeys: [String] = [],
                       queueCapacity: Int = 10_000, commands: InspectorCommands<State, Action> = .ignored) -> Recorder<State, Action> {
        let recorder = makeRecorder(to: destination, app: app, version: version, meta: meta,
                                    redacting: redacting, redactingKeys: redactingKeys, queueCapacity: queueCapacity)
        attach(recorder, commands: commands)
        return recorder
    }

    /// A recorder starting from the live state.
    @usableFromInline
    func makeRecorder(to destination: RecordingDestination, app: String, version: String?, meta: JSONValue,
                      redacting: [String], redactingKeys: [String], queueCapacity: Int) -> Recorder<State, Action> {
        Recorder<State, Action>(
            initialState: liveState, to: destination,
            metadata: RecordingMetadata(app: app, version: version, extra: meta),
            options: RecorderOptions(redacting: redacting, redactingKeys: redactingKeys, queueCapacity: queueCapacity))
    }

    /// Records this store with `recorder` (whose initial state should be the store's state);
    /// `commands` says whether the store performs the commands its server sinks relay.
    @inlinable
    public func attach(_ recorder: Recorder<State, Action>, commands: InspectorCommands<State, Action> = .ignored) {
        // Built here, in the app's module, so the hand-off is specialised for its types.
        install(recorder, tap: StoreTap(record: { action, state, at, duration, cause, site in
            recorder.record(action, state: state, at: at, durationNs: duration, cause: cause, site: site)
        }, willReduce: { action, site in recorder.willReduce(action, site: site) }))
        commands.accept?(self, recorder.sinks)
    }

    @usableFromInline
    func install(_ recorder: Recorder<State, Action>, tap: StoreTap<State, Action>) {
        self.recorder?.stop()
        self.recorder = recorder
        self.tap = tap
    }

    /// Ends the recording: what is queued is written and the session is closed. It blocks until
    /// a log file has the end committed; a server sink goes on delivering in the background.
    /// ``finishRecording(timeout:)`` also waits for the server, without blocking the main actor.
    public func stopRecording() {
        recorder?.stop()
        recorder = nil
        tap = nil
    }

    /// Ends the recording without blocking the main actor, and returns once the session's end is
    /// written to a log file and taken by a server (at most `timeout` for the server), saying
    /// what became of it: ``RecordingResult/delivered`` when every sink has it, how many events
    /// the server acknowledged and how many the device keeps for later. Sends after the call are
    /// no longer recorded.
    ///
    /// ```swift
    /// let result = await store.finishRecording()   // then exit, or show "saved"
    /// ```
    @discardableResult
    public func finishRecording(timeout: Duration = .seconds(2)) async -> RecordingResult {
        guard let recorder else {
            return RecordingResult(delivered: true, acknowledged: 0, recorded: 0, keptOnDevice: 0, lastError: nil)
        }
        self.recorder = nil
        tap = nil
        return await recorder.finish(timeout: timeout)
    }

    /// The recorder attached to this store, if any.
    public internal(set) var recorder: Recorder<State, Action>? {
        get { recorderBox as? Recorder<State, Action> }
        set { recorderBox = newValue }
    }
}
