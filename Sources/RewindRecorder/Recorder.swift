import Foundation
import RewindJSON
import RewindLog

/// Records one session of a store: each action and the state it produced, into sinks.
///
/// ``record(_:state:at:durationNs:cause:)`` is the whole cost on the dispatch path: it takes a
/// lock and appends the action and a copy-on-write snapshot of the state to a bounded queue.
/// The recorder's own thread encodes, redacts, diffs (``EventBuilder``) and writes. When the
/// queue is full, every action is still recorded but the states in between are not: their
/// events are `coalesced` and counted by ``coalescedCount``. Nothing ever makes `record` wait.
///
/// A ``Store`` makes one with ``Store/record(to:app:version:meta:redacting:queueCapacity:)``;
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

    /// Starts recording a session whose seq 0 is `initialState`.
    ///
    /// - Parameters:
    ///   - destination: the log file, server or sinks; when omitted, `REWIND_SERVER` if the
    ///     environment sets it, else the default log (``RecordingDestination/automatic``).
    ///   - replayOf: the uuid of the session this one replays.
    public init(initialState: State, to destination: RecordingDestination = .automatic,
                metadata: RecordingMetadata, options: RecorderOptions = RecorderOptions(),
                replayOf: String? = nil) {
        self.sinks = destination.makeSinks(queueCapacity: options.queueCapacity)
        self.options = options
        self.metadata = metadata
        self.session = RecordingSession(uuid: UUID().uuidString.lowercased(), app: metadata.app, startedAt: Date(),
                                        meta: .object(metadata.json), replayOf: replayOf)
        self.queue = RecorderQueue(capacity: options.queueCapacity)
        let redactor: Redactor
        do {
            redactor = try Redactor(options.redacting)
        } catch {
            status.report(error)
            queue.close()
            return
        }
        let engine = RecorderEngine(queue: queue, sinks: sinks, session: session, redactor: redactor,
                                    status: status, initialState: initialState)
        let thread = Thread { engine.run() }
        thread.name = "rewind.recorder"
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
    @inlinable @discardableResult
    public func record(_ action: Action, state: State, at date: Date = Date(), durationNs: Int64 = 0,
                       cause: Int64? = nil) -> Int64? {
        queue.push(action, state: state, at: date, durationNs: durationNs, cause: cause)
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

    /// Writes what is queued, ends the session and stops; blocks until done.
    public func stop() {
        queue.requestStop()?.wait()
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
    /// The first error that stopped the recording (or the first state that could not be encoded).
    public var lastError: RecorderError? { status.lastError }
}
