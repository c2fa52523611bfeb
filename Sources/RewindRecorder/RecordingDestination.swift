import Foundation
import RewindLog

/// Where a store's recording goes.
///
/// ```swift
/// store.record(app: "MyApp")            // .automatic: $REWIND_SERVER if set, else the default log
/// store.record(to: .file("/tmp/app.db"), app: "MyApp")
/// store.record(to: .server(URL(string: "ws://127.0.0.1:7433")!), app: "MyApp")
/// store.record(to: .servers([teamA, teamB]), app: "MyApp")  // the next when one is down
/// store.record(to: .sinks([ServerSink(url: url), LogFileSink(path: path)]), app: "MyApp")  // both
/// ```
public enum RecordingDestination: Sendable {
    /// What the process's environment says, so no code changes from one machine to the next:
    /// `rewind serve` at `REWIND_SERVER` (with `REWIND_TOKEN`) when it is set, else the default
    /// log. An Xcode scheme sets both under Run › Arguments › Environment Variables.
    /// `REWIND_SERVER` may list several servers, separated by commas (``servers(_:token:caFile:)``).
    /// `REWIND_CA_FILE` names a CA certificate to trust for a `wss://` server with a private
    /// certificate (for every server of a list). A malformed `REWIND_SERVER` (any entry) gets one
    /// sentence on standard error, and the recording goes to the default log.
    case automatic
    /// The log the `rewind` command reads by default: `$REWIND_DB`, else on Linux
    /// `$XDG_DATA_HOME/rewind/rewind.db` (`~/.local/share/rewind/rewind.db`), on macOS
    /// `~/Library/Application Support/Rewind/rewind.db`, and on iOS the app container's
    /// `Library/Application Support/Rewind/rewind.db`, excluded from backup.
    case defaultLog
    /// A log file at this path; `~` is the home folder, and missing folders are made. A path that
    /// cannot be a log (a folder, an unwritable place) stops the recording with one sentence
    /// naming it (``Recorder/lastError``).
    case file(String)
    /// These sinks (a log file, the server connection, your own).
    case sinks([any RecordingSink])
    /// `rewind serve` at this address (``ServerSink``), with its token when it requires one. Every
    /// event is kept on the device first, in a local log beside the default log (`outbox/`, or
    /// `$REWIND_OUTBOX`), until the server has it: what the server lacks when the app exits is
    /// delivered the next time the app reaches it (store and forward). In memory the sink keeps
    /// as many unacknowledged states as the recorder's `queueCapacity`. The address
    /// is `ws://host:port/app` (`wss://` for a server with `--tls-cert`), or what the server
    /// prints for the browser (`http://host:port/` or `https://`, whose `?token=` is used when
    /// `token` is `nil`). Another scheme or path is one sentence on standard error, and the
    /// recording goes to the default log instead.
    ///
    /// `caFile` is a CA certificate (PEM or DER) to trust besides the system's, for a server
    /// whose certificate a private CA signed; when `nil`, `REWIND_CA_FILE` is used if set.
    case server(URL, token: String? = nil, caFile: String? = nil)
    /// `rewind serve` at the first of these addresses that answers, tried in order (as
    /// ``server(_:token:caFile:)`` for each): equivalent servers, such as a team's instances on
    /// one database, sharing one token and one CA file. A session stays on the server that works
    /// and moves to the next when a connect fails, its connection closes, or the server cannot
    /// store (`read-only`, `storage`); after a round that reached none, the sink waits (0.1 s
    /// doubling to 5 s) and starts again. Wherever it lands, a session resumes from the
    /// `nextSeq` that server answers; a server that lacks what another acknowledged gets it from
    /// the local log. The local log is the first server's (`outbox/APP@HOST_PORT.db`), so adding
    /// servers behind the one an app used keeps what it still owes. An empty list, an entry that
    /// `.server` would refuse, or a server named twice is one sentence on standard error naming
    /// the entry, and the recording goes to the default log instead.
    case servers([URL], token: String? = nil, caFile: String? = nil)

    /// The sinks this destination stands for; a server sink keeps as many unacknowledged
    /// states as the recorder queues.
    func makeSinks(queueCapacity: Int,
                   environment: [String: String] = ProcessInfo.processInfo.environment,
                   report: @Sendable (String) -> Void = ServerSink.reportToStandardError) -> [any RecordingSink] {
        switch self {
        case .automatic:
            switch Self.server(fromEnvironment: environment) {
            case .success(let server?):
                return [ServerSink(url: server.urls[0], fallbacks: Array(server.urls.dropFirst()), token: server.token,
                                   caFile: server.caFile, capacity: queueCapacity,
                                   localLog: Outbox.defaultFolder(environment: environment))]
            case .success(nil):
                return RecordingDestination.defaultLog.makeSinks(queueCapacity: queueCapacity, environment: environment)
            case .failure(let problem):
                let path = Self.defaultLogPath(environment: environment)
                report("\(problem.message); recording to \(path) instead")
                return RecordingDestination.defaultLog.makeSinks(queueCapacity: queueCapacity, environment: environment)
            }
        case .defaultLog:
            return [LogFileSink(path: Self.defaultLogPath(environment: environment), createDirectory: true)]
        case .file(let path):
            return [LogFileSink(path: path, createDirectory: true)]
        case .sinks(let sinks):
            return sinks
        case .server(let url, let token, let caFile):
            return RecordingDestination.servers([url], token: token, caFile: caFile)
                .makeSinks(queueCapacity: queueCapacity, environment: environment, report: report)
        case .servers(let urls, let token, let caFile):
            let addresses: [(url: URL, token: String?)]
            switch ServerAddress.resolve(list: urls) {
            case .success(let resolved):
                addresses = resolved
            case .failure(let problem):
                let path = Self.defaultLogPath(environment: environment)
                report("\(problem.message); recording to \(path) instead")
                return RecordingDestination.defaultLog.makeSinks(queueCapacity: queueCapacity, environment: environment)
            }
            // As `.automatic`: with no token in the code or in an address (`?token=`), the
            // environment's, so a token stays out of the app's source.
            let token = token ?? (addresses.contains { $0.token != nil } ? nil : Self.token(fromEnvironment: environment))
            return [ServerSink(url: urls[0], fallbacks: Array(urls.dropFirst()), token: token,
                               caFile: caFile ?? Self.caFile(fromEnvironment: environment), capacity: queueCapacity,
                               localLog: Outbox.defaultFolder(environment: environment))]
        }
    }

    /// The default log's path, from `environment` (the process's by default).
    public static func defaultLogPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        DefaultLog.path(environment: environment)
    }

    /// `REWIND_CA_FILE`, when set and not empty.
    static func caFile(fromEnvironment environment: [String: String]) -> String? {
        environment["REWIND_CA_FILE"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The servers `REWIND_SERVER` names (one, or several separated by commas, tried in
    /// order), with `REWIND_TOKEN` (else `REWIND_APP_TOKEN`) and `REWIND_CA_FILE`, which every
    /// server of a list shares; `nil` when it is unset or empty. A wrong entry, an empty one or
    /// a server named twice is one sentence; with several entries it names the entry's position.
    public static func server(fromEnvironment environment: [String: String]) -> Result<ServerSettings?, ServerSettingsError> {
        guard let text = environment["REWIND_SERVER"]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else {
            return .success(nil)
        }
        let entries = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        var urls: [URL] = []
        for (index, entry) in entries.enumerated() {
            // One entry keeps the sentence it always had; in a list, the entry and its position.
            let subject = entries.count == 1 ? "REWIND_SERVER=\(entry)" : "REWIND_SERVER's server \(index + 1) of \(entries.count), \(entry),"
            let how = entries.count == 1 ? "" : ", and separate servers with commas"
            func problem(_ why: String) -> Result<ServerSettings?, ServerSettingsError> {
                .failure(ServerSettingsError(message: "\(subject) \(why); write ws://HOST:7433/app (wss:// with TLS), as `rewind serve` prints it\(how)"))
            }
            guard !entry.isEmpty else {
                return .failure(ServerSettingsError(message: "REWIND_SERVER's server \(index + 1) of \(entries.count) is empty (\(text)); write ws://HOST:7433/app for each, separated by single commas"))
            }
            guard entry.contains("://") else { return problem("has no ws:// in front") }
            guard let components = URLComponents(string: entry), let scheme = components.scheme?.lowercased() else {
                return problem("is not a URL")
            }
            switch scheme {
            case "ws", "wss": break
            case "http", "https": return problem("is an \(scheme) URL, and the recorder needs the WebSocket address")
            default: return problem("has the scheme \(scheme), not ws or wss")
            }
            guard let host = components.host, !host.isEmpty else { return problem("names no host") }
            var url = components
            url.scheme = scheme
            // rewind serve listens on 7433 unless told otherwise.
            if url.port == nil { url.port = 7433 }
            guard let resolved = url.url else { return problem("is not a URL") }
            // The path and the token are the sink's to judge; a path it refuses is said here.
            if case .failure(let refused) = ServerAddress.resolve(resolved) {
                return .failure(ServerSettingsError(message: entries.count == 1
                    ? "REWIND_SERVER=\(refused.message)"
                    : "REWIND_SERVER's server \(index + 1) of \(entries.count): \(refused.message)"))
            }
            if let earlier = urls.firstIndex(where: { ServerAddress.sameServer($0, resolved) }) {
                return .failure(ServerSettingsError(message: "REWIND_SERVER's server \(index + 1) of \(entries.count), \(entry), is server \(earlier + 1) again (\(text)); name each server once"))
            }
            urls.append(resolved)
        }
        return .success(ServerSettings(urls: urls, token: token(fromEnvironment: environment), caFile: caFile(fromEnvironment: environment)))
    }

    /// `REWIND_TOKEN`, else `REWIND_APP_TOKEN` (an app's scheme may name the app token by its own
    /// name), when set and not empty.
    static func token(fromEnvironment environment: [String: String]) -> String? {
        ["REWIND_TOKEN", "REWIND_APP_TOKEN"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
    }
}

/// The servers the environment names for recording (`REWIND_SERVER`), with the token and the CA
/// file it gives for them: what ``RecordingDestination/server(fromEnvironment:)`` reads.
public struct ServerSettings: Sendable, Equatable {
    /// `REWIND_SERVER`'s first server, with the port (7433) filled in when it had none.
    public var url: URL {
        get { urls[0] }
        set { urls[0] = newValue }
    }
    /// Every server `REWIND_SERVER` lists, in order (one or more), each with its port.
    public var urls: [URL]
    /// `REWIND_TOKEN` (else `REWIND_APP_TOKEN`), when set: for every server.
    public var token: String?
    /// `REWIND_CA_FILE`, when set: a CA certificate to trust for a `wss://` server (for every
    /// server).
    public var caFile: String?

    package init(url: URL, token: String? = nil, caFile: String? = nil) {
        self.init(urls: [url], token: token, caFile: caFile)
    }

    /// At least one server: `urls[0]` is ``url``.
    package init(urls: [URL], token: String? = nil, caFile: String? = nil) {
        precondition(!urls.isEmpty, "REWIND_SERVER names at least one server")
        self.urls = urls
        self.token = token
        self.caFile = caFile
    }
}

/// Why `REWIND_SERVER` cannot be used, in one sentence naming the variable and what to write.
public struct ServerSettingsError: Error, Sendable, Equatable {
    /// The sentence.
    public var message: String
}
