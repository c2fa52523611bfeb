import Foundation
import RewindSupport

/// A real PostgreSQL server for the tests, made by scripts/pg-cluster: superuser `rewind` with the
/// password `rewind`, listening on 127.0.0.1 only, on a port of its own.
///
/// ``shared()`` is the one every test of the process uses through databases of its own
/// (``createDatabase(prefix:)``): `make test`'s cluster when REWIND_TEST_PG says where it is,
/// otherwise one this process starts once and stops when it exits. ``startPrivate()`` gives a test
/// a cluster of its own, to stop and restart under its feet.
public final class PostgresTestCluster: Sendable {
    /// `postgres://rewind:rewind@127.0.0.1:PORT/postgres`.
    public let url: String
    public let port: Int
    /// The cluster's folder (data, log, unix socket); `nil` for a cluster given only by its URL.
    public let directory: String?
    /// The folder holding its psql (and initdb, pg_ctl, postgres).
    public let binDirectory: String
    /// The URL up to the database name: `postgres://rewind:rewind@127.0.0.1:PORT`.
    private let server: String
    /// Whether this value started the cluster, and so may stop it: false for `make test`'s.
    private let owned: Bool
    /// Whether it is the process's shared cluster, which no test stops.
    private let isShared: Bool
    private let destroyed = Mutex(false)

    private init(url: String, directory: String?, binDirectory: String, owned: Bool, isShared: Bool) throws {
        guard let components = URLComponents(string: url), let scheme = components.scheme, let host = components.host else {
            throw PostgresTestClusterError("\(url) is not a postgres:// URL.")
        }
        self.url = url
        port = components.port ?? 5432
        var authority = ""
        if let user = components.percentEncodedUser {
            authority = user + (components.percentEncodedPassword.map { ":" + $0 } ?? "") + "@"
        }
        server = "\(scheme)://\(authority)\(host):\(port)"
        self.directory = directory
        self.binDirectory = binDirectory
        self.owned = owned
        self.isShared = isShared
    }

    deinit {
        destroy()
    }

    // MARK: Clusters

    private enum SharedState {
        case none
        case starting
        case ready(PostgresTestCluster)
        case failed(PostgresTestClusterError)
    }

    private static let sharedState = Condition(SharedState.none)

    /// The process's cluster: `make test`'s (REWIND_TEST_PG, and REWIND_TEST_PG_DIR for its
    /// folder) when set, otherwise one started on the first call and stopped when the process
    /// exits. Only the first caller starts it; the others wait for it. A failed start is thrown to
    /// every caller, not tried again.
    public static func shared() throws -> PostgresTestCluster {
        let mustStart = sharedState.withLock(when: { if case .starting = $0 { false } else { true } }) { state in
            guard case .none = state else { return false }
            state = .starting
            return true
        } ?? false
        if mustStart {
            let started: SharedState
            do {
                started = .ready(try makeShared())
            } catch let error as PostgresTestClusterError {
                started = .failed(error)
            } catch {
                started = .failed(PostgresTestClusterError("the shared PostgreSQL cluster did not start: \(error)."))
            }
            sharedState.update { $0 = started }
        }
        return try sharedState.withLock(when: { if case .starting = $0 { false } else { true } }) { state -> PostgresTestCluster in
            switch state {
            case .ready(let cluster): return cluster
            case .failed(let error): throw error
            case .none, .starting: throw PostgresTestClusterError("the shared PostgreSQL cluster is in no state to use.")
            }
        }!
    }

    private static func makeShared() throws -> PostgresTestCluster {
        let environment = ProcessInfo.processInfo.environment
        if let url = environment["REWIND_TEST_PG"], !url.isEmpty {
            let directory = environment["REWIND_TEST_PG_DIR"].flatMap { $0.isEmpty ? nil : $0 }
            // The cluster's own programs when its folder says which, else the ones the script finds.
            let recorded = directory.flatMap { try? String(contentsOfFile: $0 + "/bindir", encoding: .utf8) }
            let binDirectory = try recorded.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? findBinDirectory()
            return try PostgresTestCluster(url: url, directory: directory, binDirectory: binDirectory, owned: false, isShared: true)
        }
        let cluster = try start(isShared: true)
        // The cluster's watcher (--owner) would stop it within a second of the process's end
        // anyway; this stops it at once on a normal exit.
        atexit { PostgresTestCluster.stopSharedAtExit() }
        return cluster
    }

    /// A cluster of the test's own, which it may ``stop()``, ``restart()`` and ``destroy()``
    /// (released, it is destroyed). Its watcher stops it if the test process dies first.
    public static func startPrivate() throws -> PostgresTestCluster {
        try start(isShared: false)
    }

    private static func start(isShared: Bool) throws -> PostgresTestCluster {
        // Under /tmp rather than $TMPDIR: the unprivileged user the server runs as (tests run as
        // root) must reach the folder, and its unix socket's path must stay short.
        var template = Array("/tmp/rewind-pg.XXXXXX".utf8CString)
        guard mkdtemp(&template) != nil else {
            throw PostgresTestClusterError("cannot make a folder for PostgreSQL under /tmp: errno \(errno).")
        }
        let directory = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        let result = try runTool(script, ["start", directory, "--owner", "\(getpid())"], timeout: 180)
        guard result.status == 0 else {
            _ = try? runTool(script, ["stop", directory], timeout: 60)
            try? FileManager.default.removeItem(atPath: directory)
            throw PostgresTestClusterError(result.reason(or: "scripts/pg-cluster start failed"))
        }
        let url = result.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let binDirectory = try String(contentsOfFile: directory + "/bindir", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        return try PostgresTestCluster(url: url, directory: directory, binDirectory: binDirectory, owned: true, isShared: isShared)
    }

    /// Stops the server and keeps its folder: a connection then fails until ``restart()``.
    public func stop() throws {
        let directory = try ownDirectory("stopped")
        let result = try Self.runTool(Self.script, ["down", directory], timeout: 120)
        guard result.status == 0 else { throw PostgresTestClusterError(result.reason(or: "scripts/pg-cluster down failed")) }
    }

    /// Stops the server if it runs and starts it again on the same port, with its data.
    public func restart() throws {
        let directory = try ownDirectory("restarted")
        let result = try Self.runTool(Self.script, ["restart", directory], timeout: 180)
        guard result.status == 0 else { throw PostgresTestClusterError(result.reason(or: "scripts/pg-cluster restart failed")) }
    }

    /// Stops the server and removes its folder; for a private cluster only (the shared one stops
    /// with the process). Calling it again does nothing.
    public func destroy() {
        guard owned, !isShared, let directory else { return }
        let first = destroyed.withLock { done in
            defer { done = true }
            return !done
        }
        guard first else { return }
        _ = try? Self.runTool(Self.script, ["stop", directory], timeout: 120)
    }

    private func ownDirectory(_ what: String) throws -> String {
        guard owned, !isShared, let directory else {
            throw PostgresTestClusterError("the shared PostgreSQL cluster is not \(what) by a test: use PostgresTestCluster.startPrivate().")
        }
        guard !destroyed.withLock({ $0 }) else {
            throw PostgresTestClusterError("the PostgreSQL cluster in \(directory) was destroyed.")
        }
        return directory
    }

    // MARK: Databases and SQL

    /// Creates a database with a fresh name that starts with `prefix` (letters, digits and `_`
    /// kept, lowercased) and returns its URL.
    public func createDatabase(prefix: String = "rewind_test") throws -> String {
        var cleaned = String(prefix.lowercased().map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" }.prefix(40))
        if cleaned.first.map({ !$0.isLetter }) ?? true { cleaned = "db_" + cleaned }
        let suffix = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        let name = "\(cleaned)_\(suffix)"
        _ = try psql("CREATE DATABASE \(name)")
        return url(database: name)
    }

    /// Drops a database, given by name or by the URL ``createDatabase(prefix:)`` returned; its
    /// open connections are ended first. One that does not exist is no error.
    public func dropDatabase(_ database: String) throws {
        let name = Self.databaseName(database)
        _ = try psql("DROP DATABASE IF EXISTS \"\(name.replacingOccurrences(of: "\"", with: "\"\""))\" WITH (FORCE)")
    }

    /// The URL of `database` on this cluster.
    public func url(database: String) -> String {
        "\(server)/\(database)"
    }

    /// Runs `sql` (one statement or several) through psql on `database` (a name on this cluster,
    /// or any URL) and returns what it printed: each row on a line, its columns joined by `|`, no
    /// headers and no command tags, without the last line's newline. The first error stops it and
    /// is thrown as one sentence.
    @discardableResult
    public func psql(_ sql: String, database: String = "postgres") throws -> String {
        let target = database.contains("://") ? database : url(database: database)
        // A file rather than psql's standard input: a psql that fails to connect exits before it
        // reads, and writing to its closed pipe would raise SIGPIPE in the test process.
        let file = "/tmp/rewind-psql-\(UUID().uuidString).sql"
        try Data(sql.utf8).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        let result = try Self.runTool(binDirectory + "/psql",
                                      ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", target, "-f", file],
                                      environment: Self.psqlEnvironment, timeout: 300)
        guard result.status == 0 else {
            var reason = result.reason(or: "psql exited with status \(result.status)")
            // psql names the file and line of a failed statement: the file is this call's own.
            if reason.hasPrefix("psql:\(file):"), let colon = reason.dropFirst("psql:\(file):".count).firstIndex(of: ":") {
                reason = reason[reason.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            throw PostgresTestClusterError("psql on \(Self.databaseName(database)) failed: \(reason)")
        }
        var output = result.output
        while output.hasSuffix("\n") { output.removeLast() }
        return output
    }

    /// The test process's environment without the PG variables that would change where psql
    /// connects or how (PGOPTIONS, PGSSLMODE, PGSERVICE…): the URL says it all. A server that
    /// accepts the connection but does not answer fails it after 10 s.
    private static let psqlEnvironment: [String: String] = {
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PG") }
        environment["PGCONNECT_TIMEOUT"] = "10"
        return environment
    }()

    /// The database's name, given by name or by URL.
    public static func databaseName(_ database: String) -> String {
        guard database.contains("://") else { return database }
        let path = URLComponents(string: database)?.path ?? ""
        return String(path.drop { $0 == "/" })
    }

    // MARK: Processes

    /// scripts/pg-cluster in this checkout (this file is Tests/RewindTestSupport/…).
    private static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/pg-cluster").path

    private static func findBinDirectory() throws -> String {
        let result = try runTool(script, ["bindir"], timeout: 60)
        guard result.status == 0 else { throw PostgresTestClusterError(result.reason(or: "scripts/pg-cluster bindir failed")) }
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private struct ToolResult {
        var status: Int32
        var output: String
        var error: String

        /// The tool's own first line of complaint, or `fallback`, as one sentence.
        func reason(or fallback: String) -> String {
            let line = error.split(separator: "\n").first { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            var text = line.map(String.init) ?? fallback
            if text.hasPrefix("pg-cluster: ") { text.removeFirst("pg-cluster: ".count) }
            if text.hasPrefix("psql: error: ") { text.removeFirst("psql: error: ".count) }
            return text.hasSuffix(".") ? text : text + "."
        }
    }

    private struct Collected {
        var output = Data()
        var error = Data()
        var openPipes = 2
    }

    /// Runs `executable arguments…` to its end (killing it after `timeout` seconds) and returns its
    /// status and both outputs.
    private static func runTool(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                                timeout: Double) throws -> ToolResult {
        let child = try Subprocess(executable, arguments, environment: environment, output: .pipe, error: .pipe)
        let collected = Condition(Collected())
        PipeReader.start(child.standardOutput!, onEnd: { collected.update { $0.openPipes -= 1 } }) { data in
            collected.update(waking: .one) { $0.output.append(data) }
        }
        PipeReader.start(child.standardError!, onEnd: { collected.update { $0.openPipes -= 1 } }) { data in
            collected.update(waking: .one) { $0.error.append(data) }
        }
        guard let status = child.waitForExit(timeout: timeout) else {
            child.signal(SIGKILL)
            child.waitUntilExit()
            throw PostgresTestClusterError("\(URL(fileURLWithPath: executable).lastPathComponent) \(arguments.first ?? "") did not finish within \(Int(timeout)) s.")
        }
        // Whatever the tool started and left running (the server, the cluster's watcher) lets go
        // of these pipes, so both ends come at once.
        let outputs = collected.withLock(when: { $0.openPipes == 0 }, deadline: MonotonicClock.deadline(after: 30)) { $0 }
            ?? collected.withLock { $0 }
        return ToolResult(status: status, output: String(decoding: outputs.output, as: UTF8.self),
                          error: String(decoding: outputs.error, as: UTF8.self))
    }

    /// Stops the shared cluster this process started, from `atexit`: spawned and waited for here,
    /// on the exiting thread, with no thread of the Subprocess kind started so late.
    private static func stopSharedAtExit() {
        let cluster: PostgresTestCluster? = sharedState.withLock { state in
            if case .ready(let cluster) = state, cluster.owned { return cluster }
            return nil
        }
        guard let cluster, let directory = cluster.directory else { return }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        Subprocess.closeFrom3(&actions)
        let words: [String] = [script, "stop", directory]
        let argv = words.map { strdup($0) } + [nil]
        let envp = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var child: pid_t = 0
        guard posix_spawn(&child, script, &actions, nil, argv, envp) == 0 else { return }
        var status: Int32 = 0
        while waitpid(child, &status, 0) == -1 && errno == EINTR {}
    }
}

/// Why a cluster could not be started, stopped or used, in one sentence.
public struct PostgresTestClusterError: Error, CustomStringConvertible, Sendable {
    public let reason: String

    public init(_ reason: String) {
        self.reason = reason
    }

    public var description: String { reason }
}
