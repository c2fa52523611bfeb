import Foundation
import RewindJSON
import RewindLog
import RewindSupport

/// Records one session of a store: each action and the state it produced, into sinks.
///
/// ``record(_:state:at:durationNs:cause:)`` is the whole cost on the dispatch path: it takes a
/// lock and appends the action and a copy-on-write snapshot of the state to a bounded queue.
/// The recorder's own thread encodes, redacts, diffs (``EventBuilder``) and writes. When the
/// queue is full, every action is still recorded but the states in between are not: their
/// events are `coalesced` and counted by ``coalescedCount``. Nothing ever makes `record` wait.
///
/// A ``Store`` makes one with ``Store/record(to:app:version:meta:redacting:redactingKeys:queueCapacity:commands:)``;
/// any other store (ReSwift, TCA) can call it from its own dispatch:
///
/// ```swift
/// let recorder = Recorder<AppState, AppAction>(initialState: store.state, to: .file(path),
///                                              metadata: RecordingMetadata(app: "MyApp"))
/// recorder.record(action, state: store.state)
/// ```
///
/// A sink that fails (a log file that cannot be opened or written) stops the recording with one
/// message on standard error and in ``lastError``; `record` then does nothing.
public final class Recorder<State: Encodable & Sendable, Action: Sendable>: Sendable {
    /// The session this recorder writes.
    public let session: RecordingSession
    /// Where it writes.
    public let sinks: [any RecordingSink]
    /// How it records.
    public let options: RecorderOptions
    /// What it says about the app.
    public let metadata: RecordingMetadata
    @usableFromInline let queue: RecorderQueue<State, Action>
    private let status = RecorderStatus()
    /// The session's crash journal, in the first sink that keeps one (`nil`: none, or it could
    /// not be made).
    @usableFromInline let crash: CrashJournal?
    /// The action being reduced, kept for the crash journal's watcher (``willReduce(_:site:)``).
    private let reducing = Mutex<Action?>(nil)

    /// Starts recording a session whose seq 0 is `initialState`.
    ///
    /// - Parameters:
    ///   - destination: the log file, server or sinks; when omitted, `REWIND_SERVER` if the
    ///     environment sets it, else the default log (``RecordingDestination/automatic``).
    ///   - replayOf: the uuid of the session this one replays.
    ///   - startedAt: the time of seq 0 (now when `nil`); a branch takes its original's.
    public init(initialState: State, to destination: RecordingDestination = .automatic,
                metadata: RecordingMetadata, options: RecorderOptions = RecorderOptions(),
                replayOf: String? = nil, startedAt: Date? = nil) {
        self.sinks = destination.makeSinks(queueCapacity: options.queueCapacity)
        self.options = options
        self.metadata = metadata
        let (meta, tagsLeftOut) = metadata.sessionMeta
        self.session = RecordingSession(uuid: UUID().uuidString.lowercased(), app: metadata.app, startedAt: startedAt ?? Date(),
                                        meta: .object(meta), replayOf: replayOf)
        self.queue = RecorderQueue(capacity: options.queueCapacity)
        // Only Rewind's own sinks can be written (``RecordingSink``): one of the app's stops the
        // recording before it starts, in one sentence.
        let writable = sinks.compactMap { $0 as? any SessionSink }
        let foreign = sinks.first { !($0 is any SessionSink) }
        let redactor = Result { () throws(RecorderError) -> Redactor in try Redactor(options.redacting, keys: options.redactingKeys) }
        // The secrets the recorder's thread has seen, for the crash journal's watcher: the action it
        // writes is redacted as the recorder would have.
        let secrets = Mutex<Set<String>>([])
        if foreign == nil, case .success(let redacting) = redactor, options.keepsCrashJournal {
            let session = self.session
            let reducing = self.reducing
            let encoder = ActionEncoder()
            self.crash = writable.lazy.compactMap(\.crashJournalFolder).first.flatMap {
                CrashJournal(folder: $0, session: session) {
                    guard let action = reducing.withLock({ $0 }) else { return nil }
                    var json = encoder.encode(action).value
                    redacting.redact(&json, secrets: secrets.withLock { $0 })
                    return json
                }
            }
        } else {
            self.crash = nil
        }
        if let tagsLeftOut { status.report(RecorderError(kind: .tagsLeftOut, message: tagsLeftOut)) }
        let redactorMade: Redactor
        switch redactor {
        case .success(let made):
            redactorMade = made
        case .failure(let error):
            status.report(error)
            queue.close()
            return
        }
        if let foreign {
            status.report(RecorderError(kind: .sink, message: "\(type(of: foreign)) is not a sink Rewind can write to (use LogFileSink or ServerSink)"))
            queue.close()
            return
        }
        let engine = RecorderEngine(queue: queue, sinks: writable, session: session, redactor: redactorMade,
                                    status: status, initialState: initialState,
                                    reusesEncodings: options.reusesUnchangedEncodings, crash: crash, sharedSecrets: secrets)
        let uuid = session.uuid
        let thread = Thread {
            // Named from inside: on Linux, Foundation applies a name set before start to the
            // Thread object only, so `top -H` and `perf` would show "rewind".
            Thread.current.name = "rewind-recorder"
            engine.run()
            OpenRecordings.shared.remove(session: uuid)
        }
        let queue = self.queue
        OpenRecordings.shared.add(session: uuid, sinks: sinks) { queue.requestStop() }
        thread.start()
    }

    deinit {
        queue.requestStop()
    }

    /// Hands one action and the state it produced to the recorder's thread; returns the action's
    /// seq in the session, or `nil` when nothing is recorded (paused or stopped).
    ///
    /// - Parameters:
    ///   - durationNs: how long the reducer ran.
    ///   - cause: the seq of the action whose effect sent this one.
    ///   - site: where the app sent the action (`SendSite(file: #fileID, line: #line, function: #function)`).
    @inlinable @discardableResult
    public func record(_ action: Action, state: State, at date: Date = Date(), durationNs: Int64 = 0,
                       cause: Int64? = nil, site: SendSite? = nil) -> Int64? {
        let seq = queue.push(action, state: state, at: date, durationNs: durationNs, cause: cause, site: site)
        crash?.didRecord(seq)
        return seq
    }

    /// Before the reducer runs `action`, sent from `site`: the crash journal notes it, so a crash
    /// in the reducer is recorded with it (``CrashJournal``).
    @usableFromInline
    package func willReduce(_ action: Action, site: SendSite?) {
        guard let crash else { return }
        reducing.withLock { $0 = action }
        crash.willReduce(site: site)
    }

    /// The action type a branch records in place of an action it left out.
    package static var skippedType: String { "@@rewind/skipped" }

    /// Records `action` as left out by a branch: its event's action is
    /// `{"type": "@@rewind/skipped", "action": …}` and `state` is the state before it.
    package func recordSkipped(_ action: Action, state: State, at date: Date = Date(), cause: Int64? = nil,
                               site: SendSite? = nil) {
        _ = queue.push(action, state: state, at: date, durationNs: 0, cause: cause, site: site, skipped: true)
    }

    /// Blocks until everything recorded before the call is written by every sink (committed to
    /// the log file). Returns at once when the recorder has stopped.
    public func flush() {
        queue.requestFlush()?.wait()
    }

    /// Stops recording actions until ``resume()``; the first event after it is `coalesced`, its
    /// patch covering what changed meanwhile.
    public func pause() {
        queue.setPaused(true)
    }

    /// Records again after ``pause()``.
    public func resume() {
        queue.setPaused(false)
    }

    /// The state changed without an action (a replay set it): the next event is coalesced, its
    /// patch covering the change.
    package func markGap() {
        queue.markGap()
    }

    /// Writes what is queued, ends the session and stops; blocks until done. A log file has the
    /// session's end committed when it returns; a server sink goes on delivering in the
    /// background (``finish(timeout:)`` waits for it too, without blocking).
    public func stop() {
        queue.requestStop()?.wait()
    }

    /// Stops as ``stop()`` does, on another thread, then waits up to `timeout` for every server
    /// sink to have the session's end, and says what became of the recording: whether every sink
    /// has it, how many events the server acknowledged, and how many the device keeps for later
    /// (a server sink with a local log). The caller's actor is never blocked:
    ///
    /// ```swift
    /// let result = await recorder.finish()
    /// if !result.delivered { print(result) }
    /// ```
    @discardableResult
    public func finish(timeout: Duration = .seconds(2)) async -> RecordingResult {
        await withCheckedContinuation { continuation in
            finishInBackground(timeout: timeout) { continuation.resume(returning: $0) }
        }
    }

    /// The non-blocking form of ``finish(timeout:)``: returns at once; `completion` runs on
    /// another thread with the result.
    public func finishInBackground(timeout: Duration = .seconds(2),
                                   completion: @escaping @Sendable (RecordingResult) -> Void = { _ in }) {
        let queue = self.queue
        let sinks = self.sinks
        let status = self.status
        let uuid = session.uuid
        Thread {
            let deadline = Deadline.after(timeout)
            queue.requestStop()?.wait()
            // Only a sink's failure means the end did not get through; a state that could not be
            // encoded was skipped (tags left out were left out), and the session still ended.
            var delivered = true
            var lastError: String?
            if let error = status.lastError {
                lastError = error.description
                if !error.isNonFatal { delivered = false }
            }
            let recorded = queue.pushed + 1
            var acknowledged = recorded
            var kept = 0
            for case let server as ServerSink in sinks {
                if !server.waitUntilEnded(timeout: deadline.remaining) { delivered = false }
                if let counts = server.delivery(of: uuid) {
                    acknowledged = min(acknowledged, counts.acknowledged)
                    let missing = max(0, counts.recorded - counts.acknowledged)
                    if server.keepsLocalLog { kept = max(kept, missing) }
                    if missing > 0 { delivered = false }
                }
                // The last failure, even when everything arrived in the end (a state withheld
                // for the server's limit, a connect that failed before one that worked).
                if let failure = server.lastFailure {
                    lastError = failure
                } else if let counts = server.delivery(of: uuid), counts.acknowledged < counts.recorded {
                    // Nothing has failed yet: the first connect has not come back.
                    lastError = (server.servers.count == 1 ? "\(server.url.absoluteString) has not answered yet"
                        : "none of \(server.servers.map(\.absoluteString).joined(separator: ", ")) has answered yet")
                        + (server.keepsLocalLog ? "; the events wait on this device for it" : "")
                }
            }
            completion(RecordingResult(delivered: delivered, acknowledged: delivered ? recorded : acknowledged,
                                       recorded: recorded, keptOnDevice: delivered ? 0 : kept, lastError: lastError))
        }.start()
    }

    /// `true` while paused.
    public var isPaused: Bool { queue.isPaused }
    /// `true` until the recorder stops (``stop()`` or an error).
    public var isRecording: Bool { !queue.isClosed }
    /// Actions recorded so far (after seq 0).
    public var recordedCount: Int { queue.pushed }
    /// Actions whose state was not recorded because the queue was full (their events are
    /// `coalesced` and carry no patch).
    public var coalescedCount: Int { queue.dropped }
    /// Events whose state or action held NaN or an infinity, recorded as a string.
    public var nonFiniteCount: Int { status.nonFiniteCount }
    /// The first error that stopped the recording (or the first state that could not be
    /// encoded, or the tags left out of the session).
    public var lastError: RecorderError? { status.lastError }
}
