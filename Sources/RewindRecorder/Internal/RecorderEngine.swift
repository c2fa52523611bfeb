import Foundation
import RewindJSON
import RewindLog
import RewindSupport

/// The recorder's thread: encodes, redacts, builds events and writes them to the sinks.
final class RecorderEngine<State: Encodable & Sendable, Action: Sendable>: @unchecked Sendable {
    typealias Entry = RecorderQueue<State, Action>.Entry

    private let queue: RecorderQueue<State, Action>
    private let sinks: [any SessionSink]
    private var session: RecordingSession
    private let redactor: Redactor
    private let status: RecorderStatus
    private let initialState: State
    private let encoder = JSONValueEncoder()
    /// The previous state's parts and their encodings, when unchanged parts are reused.
    private let memo: JSONValueEncoder.Memo?
    private let actionEncoder = ActionEncoder()
    private var builder: EventBuilder
    /// States were skipped since the last recorded one: the next event is coalesced.
    private var skippedSinceLast = false
    /// Every secret (a string found at a redacted pointer or key) of the states recorded so far:
    /// a token stays a secret after it leaves its place (copied into a header, say).
    private var secretsBefore: Set<String> = [] {
        // Shared with the crash journal's watcher, which redacts the action it writes with them.
        didSet { if secretsBefore.count != oldValue.count { sharedSecrets.withLock { $0 = secretsBefore } } }
    }
    /// ``secretsBefore`` for other threads (the crash journal's watcher).
    private let sharedSecrets: Mutex<Set<String>>
    /// How many events go to the sinks at once.
    private static var chunk: Int { 1_000 }

    /// The session's crash journal: removed once the session has ended (or the recording
    /// stopped for a sink's failure).
    private let crash: CrashJournal?

    init(queue: RecorderQueue<State, Action>, sinks: [any SessionSink], session: RecordingSession,
         redactor: Redactor, status: RecorderStatus, initialState: State, reusesEncodings: Bool, crash: CrashJournal?,
         sharedSecrets: Mutex<Set<String>>) {
        self.crash = crash
        self.sharedSecrets = sharedSecrets
        self.memo = reusesEncodings ? JSONValueEncoder.Memo() : nil
        self.queue = queue
        self.sinks = sinks
        self.session = session
        self.redactor = redactor
        self.status = status
        self.initialState = initialState
        // No floor of patch bytes (issue 42's floor is the stores'): a server link that lost
        // track of the state (a patch it could not apply to its copy, a state nesting past its
        // parser) sends states again from the next keyframe, which a small state then gets
        // within an event or two, not 16 KiB of patches later.
        self.builder = EventBuilder(sessionID: 0, policy: KeyframePolicy(minPatchBytes: 0), hashVersion: session.hashVersion)
    }

    func run() {
        // Flush waiters taken but not yet released: an error must not leave them blocked.
        var held: [DispatchSemaphore] = []
        do {
            try start()
            var entries: [Entry] = []
            while true {
                let batch = queue.take(into: &entries)
                held = batch.flushWaiters
                try process(&entries)
                entries.removeAll(keepingCapacity: true)
                if !batch.flushWaiters.isEmpty || batch.stop {
                    for sink in sinks { try sink.flush() }
                }
                if batch.stop {
                    let end = Date()
                    for sink in sinks { try sink.end(session, at: end) }
                    crash?.close(removing: true)
                    // Closing releases the waiters after the session has ended.
                    queue.close()
                    for waiter in batch.flushWaiters { waiter.signal() }
                    return
                }
                for waiter in batch.flushWaiters { waiter.signal() }
                held = []
            }
        } catch let error as RecorderError {
            status.report(error)
        } catch {
            status.report(RecorderError(kind: .sink, message: "\(error)"))
        }
        crash?.close(removing: true)
        queue.close()
        for waiter in held { waiter.signal() }
    }

    /// Encodes the initial state, begins the session (its meta flags non-finite numbers in the
    /// initial state) and writes seq 0.
    private func start() throws {
        let encoded: JSONValueEncoder.EncodedValue
        do {
            encoded = try encode(initialState)
        } catch {
            throw RecorderError(kind: .sink, message: "the initial state cannot be encoded at '\(Self.pointer(of: error))': \(error)")
        }
        var state = encoded.value
        secretsBefore = redactor.secrets(in: state)
        redactor.redact(&state, secrets: secretsBefore)
        if case .object(var meta) = session.meta {
            if !redactor.pointers.isEmpty {
                meta["redacted"] = .array(redactor.pointers.map { .string($0.description) })
            }
            if !redactor.keys.isEmpty {
                meta["redactedKeys"] = .array(redactor.keys.sorted().map { .string($0) })
            }
            if !encoded.nonFinitePointers.isEmpty {
                meta["nonFinite"] = .array(encoded.nonFinitePointers.map { .string("/state" + $0) })
            }
            session.meta = .object(meta)
        }
        var initial = RecordedEvent(event: builder.initial(state: state, at: session.startedAt),
                                    nonFinitePointers: encoded.nonFinitePointers.map { "/state" + $0 })
        initial.event.nonFinite = initial.nonFinitePointers
        if !encoded.nonFinitePointers.isEmpty { status.noteNonFinite() }
        for sink in sinks {
            try sink.begin(session)
            try sink.write([initial], of: session)
        }
    }

    private func process(_ entries: inout [Entry]) throws {
        var events: [RecordedEvent] = []
        events.reserveCapacity(min(entries.count, Self.chunk))
        var released = 0
        for index in entries.indices {
            events.append(build(entries[index]))
            if entries[index].state != nil {
                // Let the snapshot go before saying so, so the bound holds for memory too.
                entries[index].state = nil
                released += 1
            }
            if events.count == Self.chunk || index == entries.count - 1 {
                queue.released(released)
                released = 0
                for sink in sinks { try sink.write(events, of: session) }
                events.removeAll(keepingCapacity: true)
            }
        }
    }

    private func build(_ entry: Entry) -> RecordedEvent {
        var (action, actionNonFinite): (JSONValue, [String])
        if let marker = entry.marker {
            (action, actionNonFinite) = (marker, [])
        } else if let appAction = entry.action {
            (action, actionNonFinite) = actionEncoder.encode(appAction)
        } else {
            (action, actionNonFinite) = (.null, [])
        }
        var nonFinite = actionNonFinite.map { "/action" + $0 }
        if entry.skipped {
            action = ["type": .string(Recorder<State, Action>.skippedType), "action": action]
            nonFinite = actionNonFinite.map { "/action/action" + $0 }
        }
        guard let snapshot = entry.state else {
            redactor.redact(&action, secrets: secretsBefore)
            skippedSinceLast = true
            return finish(RecordedEvent(event: builder.skipped(action: action, at: entry.at, durationNs: entry.durationNs,
                                                               cause: entry.cause), nonFinitePointers: nonFinite),
                          site: entry.site)
        }
        let encoded: JSONValueEncoder.EncodedValue
        do {
            encoded = try encode(snapshot)
        } catch {
            redactor.redact(&action, secrets: secretsBefore)
            status.report(RecorderError(kind: .encoding(pointer: Self.pointer(of: error)), message: "\(error)"))
            skippedSinceLast = true
            return finish(RecordedEvent(event: builder.skipped(action: action, at: entry.at, durationNs: entry.durationNs,
                                                               cause: entry.cause), nonFinitePointers: nonFinite),
                          site: entry.site)
        }
        var state = encoded.value
        // The secrets of this state and of every one before: the action that set a token
        // carries it, and a copy of an old token elsewhere in the state is still a secret.
        secretsBefore.formUnion(redactor.secrets(in: state))
        redactor.redact(&action, secrets: secretsBefore)
        redactor.redact(&state, secrets: secretsBefore)
        nonFinite += encoded.nonFinitePointers.map { "/state" + $0 }
        let event = builder.next(action: action, state: state, at: entry.at, durationNs: entry.durationNs,
                                 cause: entry.cause, coalesced: skippedSinceLast || entry.afterGap)
        skippedSinceLast = false
        return finish(RecordedEvent(event: event, nonFinitePointers: nonFinite), site: entry.site)
    }

    private func encode(_ state: State) throws -> JSONValueEncoder.EncodedValue {
        guard let memo else { return try encoder.encodeReportingNonFinite(state) }
        return try encoder.encodeReportingNonFinite(state, reusing: memo)
    }

    private func finish(_ event: RecordedEvent, site: SendSite?) -> RecordedEvent {
        var marked = event
        marked.event.site = site.map(SendSite.bounded)
        guard !event.nonFinitePointers.isEmpty else { return marked }
        status.noteNonFinite()
        // The log marks the event (schema 2), and the server link sends the marks.
        marked.event.nonFinite = event.nonFinitePointers
        return marked
    }

    private static func pointer(of error: any Error) -> String {
        if let error = error as? EncodingError { return error.jsonPointer }
        return ""
    }
}
