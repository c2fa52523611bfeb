import Foundation

/// Where a store's recording goes.
///
/// ```swift
/// store.record(to: .file("/tmp/app.db"), app: "MyApp")
/// store.record(app: "MyApp")            // .defaultLog: $REWIND_DB or ~/.local/share/rewind/rewind.db
/// store.record(to: .server(URL(string: "ws://127.0.0.1:7433")!), app: "MyApp")
/// store.record(to: .sinks([ServerSink(url: url), LogFileSink(path: path)]), app: "MyApp")  // both
/// ```
public enum RecordingDestination: Sendable {
    /// The log the `rewind` command reads by default: `$REWIND_DB`, else
    /// `$XDG_DATA_HOME/rewind/rewind.db`, else `~/.local/share/rewind/rewind.db`.
    case defaultLog
    /// A log file at this path.
    case file(String)
    /// These sinks (a log file, the server connection, your own).
    case sinks([any RecordingSink])
    /// `rewind serve` at this address (``ServerSink``), with its token when it requires one; the
    /// sink keeps as many unacknowledged states as the recorder's `queueCapacity`.
    case server(URL, token: String? = nil)

    /// The sinks this destination stands for; a server sink keeps as many unacknowledged
    /// states as the recorder queues.
    func makeSinks(queueCapacity: Int) -> [any RecordingSink] {
        switch self {
        case .defaultLog:
            return [LogFileSink(path: Self.defaultLogPath(), createDirectory: true)]
        case .file(let path):
            return [LogFileSink(path: path)]
        case .sinks(let sinks):
            return sinks
        case .server(let url, let token):
            return [ServerSink(url: url, token: token, capacity: queueCapacity)]
        }
    }

    /// The default log's path, from `environment` (the process's by default).
    public static func defaultLogPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let path = environment["REWIND_DB"], !path.isEmpty { return path }
        let dataHome: String
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            dataHome = xdg
        } else {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            dataHome = home + "/.local/share"
        }
        return dataHome + "/rewind/rewind.db"
    }
}
