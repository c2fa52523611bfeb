import Foundation
import Rewind

/// Runs demo apps side by side: each records one session and has its scripted user act `rate`
/// times a second until ``stop()``.
///
/// ```swift
/// let runner = DemoRunner(apps: DemoAppKind.allCases, destination: .file("/tmp/demo.db"), rate: 5, seed: 1)
/// for started in runner.start() { print(started.app, started.session) }
/// try await Task.sleep(for: .seconds(10))
/// for summary in runner.stop() { print(summary.app, summary.events) }
/// ```
@MainActor
public final class DemoRunner {
    /// Where the recordings go.
    public enum Destination: Sendable {
        /// One log file, shared by the apps' sessions (one writer).
        case file(String)
        /// `rewind serve`'s `/app` address; each app has its own connection and takes commands.
        case server(URL, token: String? = nil, caFile: String? = nil)
        /// Equivalent servers (a team's instances on one database), tried in order.
        case servers([URL], token: String? = nil, caFile: String? = nil)
    }

    /// An app that started recording.
    public struct Started: Sendable {
        /// Which app.
        public var app: DemoAppKind
        /// The uuid of the session it records.
        public var session: String
    }

    /// What an app recorded.
    public struct Summary: Sendable {
        /// Which app.
        public var app: DemoAppKind
        /// The uuid of the session it recorded.
        public var session: String
        /// Events in the session: the initial state (seq 0) and one per action.
        public var events: Int
        /// Events the server had not acknowledged when the demo stopped (0 for a file).
        public var undelivered = 0
    }

    /// The apps, in the order given.
    public let apps: [any DemoApp]
    let destination: Destination
    let rate: Double
    let seed: UInt64
    let stateLog: DemoStateLog?
    private var users: [Task<Void, Never>] = []
    private var running = false
    /// The apps' server connections (one sink each, so each store takes its own commands).
    private var serverSinks: [ServerSink] = []
    /// What the state log last said of each app.
    private var lastLogged: [ObjectIdentifier: (hash: String, locked: Bool)] = [:]

    /// Apps of `kinds`, recording to `destination`; each user acts `rate` times a second.
    ///
    /// - Parameters:
    ///   - latencyMs: how long the pretend back end takes per request.
    ///   - stateLog: where every state change is logged (``DemoStateLog``).
    public init(apps kinds: [DemoAppKind], destination: Destination, rate: Double, seed: UInt64,
                latencyMs: ClosedRange<Int> = 120...900, stateLog: DemoStateLog? = nil) {
        apps = kinds.map { $0.make(seed: seed, latencyMs: latencyMs) }
        self.destination = destination
        self.rate = rate
        self.seed = seed
        self.stateLog = stateLog
    }

    /// Starts every app's recording and scripted user; returns the sessions.
    public func start() -> [Started] {
        running = true
        var started: [Started] = []
        // A file is shared through one sink: one writer for the file, as the log wants.
        var fileSink: LogFileSink?
        if case .file(let path) = destination { fileSink = LogFileSink(path: path) }
        for app in apps {
            let recording: RecordingDestination
            switch destination {
            case .file:
                recording = .sinks([fileSink!])
            case .server(let url, let token, let caFile):
                let sink = ServerSink(url: url, token: token, caFile: caFile)
                serverSinks.append(sink)
                recording = .sinks([sink])
            case .servers(let urls, let token, let caFile):
                let sink = ServerSink(url: urls[0], fallbacks: Array(urls.dropFirst()), token: token, caFile: caFile)
                serverSinks.append(sink)
                recording = .sinks([sink])
            }
            let session = app.startRecording(to: recording, seed: seed)
            started.append(Started(app: app.kind, session: session))
            if let stateLog {
                logState(of: app, session: session, to: stateLog)
                app.observeState { [weak self] in
                    guard let self, self.running else { return false }
                    self.logState(of: app, session: session, to: stateLog)
                    return true
                }
            }
            users.append(drive(app))
        }
        return started
    }

    private func logState(of app: any DemoApp, session: String, to log: DemoStateLog) {
        let hash = app.stateHash, locked = app.isLocked
        lastLogged[ObjectIdentifier(app)] = (hash, locked)
        log.append(app: app.kind, session: session, hash: hash, locked: locked)
    }

    /// The scripted user's loop: one step every `1/rate` seconds, on the main actor. While an
    /// inspector shows a past state or replays, the user waits, as a person looking at the
    /// inspector would (a tap would resume the jump); the app's effects go on.
    private func drive(_ app: any DemoApp) -> Task<Void, Never> {
        let interval = Duration.nanoseconds(Int64(1e9 / max(rate, 0.001)))
        return Task { @MainActor in
            let clock = ContinuousClock()
            var next = clock.now
            while !Task.isCancelled {
                next = next.advanced(by: interval)
                do { try await clock.sleep(until: next) } catch { return }
                if !app.isLocked { app.userStep() }
            }
        }
    }

    /// Stops the users, then ends every recording (what is queued is written or sent, the
    /// sessions closed); returns what each app recorded.
    public func stop() -> [Summary] {
        running = false
        for user in users { user.cancel() }
        users = []
        var summaries: [Summary] = []
        for app in apps {
            // A change of this very turn has not reached its observer yet: log it now.
            if let stateLog, let session = app.sessionUUID, let last = lastLogged[ObjectIdentifier(app)],
               last.hash != app.stateHash || last.locked != app.isLocked {
                logState(of: app, session: session, to: stateLog)
            }
            let session = app.sessionUUID ?? ""
            let actions = app.stopRecording()
            summaries.append(Summary(app: app.kind, session: session, events: actions + 1))
        }
        stateLog?.close()
        // Stopping queued each session's `end` and close once the server held all of it; the
        // process may exit once they have left. A missing server must not hold it for long (2 s);
        // a connected one gets up to 10 s, which a loaded machine can need (it takes milliseconds
        // otherwise) and without which the sessions would stay open in the log.
        let start = ContinuousClock.now
        for sink in serverSinks {
            let budget: Duration = sink.isConnected ? .seconds(10) : .seconds(2)
            sink.waitUntilEnded(timeout: max(.zero, start + budget - .now))
        }
        for index in summaries.indices where index < serverSinks.count {
            summaries[index].undelivered = serverSinks[index].unacknowledgedCount
        }
        return summaries
    }

    /// Why the last connection attempt to the server failed, if one did.
    public var serverConnectFailure: String? {
        serverSinks.lazy.compactMap(\.lastConnectFailure).first
    }

    /// `nil` when recording to a file; else whether every app's connection to the server is up.
    public var connectedToServer: Bool? {
        serverSinks.isEmpty ? nil : serverSinks.allSatisfy(\.isConnected)
    }
}
