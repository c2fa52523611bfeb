import Foundation
import Observation
import Rewind

/// One of the sample apps: a store after one of the seed articles' patterns, and a scripted user
/// who drives it one action at a time.
///
/// ```swift
/// let app = DemoAppKind.breweries.make(seed: 1)
/// app.startRecording(to: .file("/tmp/demo.db"))
/// app.userStep()             // types a letter, submits, retries…
/// ```
@MainActor
public protocol DemoApp: AnyObject {
    /// The state the store holds.
    associatedtype State: Codable & Sendable
    /// The actions it takes: each encodes as an object whose `type` names it.
    associatedtype Action: Codable & Sendable

    /// Which app this is.
    static var kind: DemoAppKind { get }
    /// The store behind the app (for recording and time travel).
    var store: Store<State, Action> { get }
    /// Performs the scripted user's next action, chosen from what the screen shows; waits (does
    /// nothing) while a request is in flight, as a person would.
    func userStep()

    /// What the recording redacts (`record(redacting:redactingKeys:)`): JSON Pointers into the
    /// state, and member names anywhere in states and actions. None by default.
    static var redacted: (pointers: [String], keys: [String]) { get }
}

extension DemoApp {
    /// The app's kind (instance side).
    public var kind: DemoAppKind { Self.kind }

    /// Nothing is redacted unless the app says so.
    public static var redacted: (pointers: [String], keys: [String]) { ([], []) }

    /// Starts recording the store (one session) and, when recording to a server, performing the
    /// inspector's commands. Returns the session's uuid.
    @discardableResult
    public func startRecording(to destination: RecordingDestination, seed: UInt64) -> String {
        let recorder = store.record(to: destination, app: Self.kind.title, version: DemoAppKind.version,
                                    meta: ["demo": .string(Self.kind.rawValue), "seed": .string(String(seed))],
                                    redacting: Self.redacted.pointers, redactingKeys: Self.redacted.keys, commands: .accepted)
        return recorder.session.uuid
    }

    /// Ends the recording (what is queued is written, the session closed); returns how many
    /// actions it recorded.
    @discardableResult
    public func stopRecording() -> Int {
        let count = store.recorder?.recordedCount ?? 0
        store.stopRecording()
        return count
    }

    /// Actions recorded so far in the current session.
    public var recordedCount: Int { store.recorder?.recordedCount ?? 0 }

    /// Waits until every request in flight has answered (and what its answer started).
    public func settle() async {
        await store.settle()
    }

    /// The session being recorded, if any.
    public var sessionUUID: String? { store.recorder?.session.uuid }

    /// `true` while a jump or a replay holds the store.
    public var isLocked: Bool { store.isLocked }

    /// The hash of the shown state as the recorder computes it (the state's JSON value with its
    /// redacted places replaced, by the session's hash version), as 16 lowercase hex digits: what
    /// the log and the wire carry as `hash`.
    public var stateHash: String {
        DemoAppKind.hashText(of: store.state, version: store.recorder?.session.hashVersion ?? .v2,
                             redacting: Self.redacted.pointers, keys: Self.redacted.keys)
    }

    /// Calls `onChange` after every change of the shown state: actions, jumps, resumes and
    /// replays alike (it observes the store, not `send`). Changes made in one turn of the main
    /// actor are reported once, with the state they left. Stops when `onChange` returns `false`.
    public func observeState(_ onChange: @escaping @MainActor @Sendable () -> Bool) {
        observeStore(store, onChange)
    }
}

/// Registers for the store's next state change; after it, calls `onChange` and registers again.
@MainActor
private func observeStore<State: Sendable, Action: Sendable>(_ store: Store<State, Action>,
                                                             _ onChange: @escaping @MainActor @Sendable () -> Bool) {
    withObservationTracking {
        _ = store.state
    } onChange: {
        // Called before the change lands: look once the current turn is over.
        Task { @MainActor in
            guard onChange() else { return }
            observeStore(store, onChange)
        }
    }
}
