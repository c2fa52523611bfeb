import Foundation
import RewindLog
import RewindPostgres
import RewindSupport

/// A private PostgreSQL server for the `server-postgres` group, made by the checkout's
/// `scripts/pg-cluster` in a temporary folder: superuser `rewind`/`rewind` on 127.0.0.1, on a port
/// of its own, with the script's settings except that `fsync` is turned back on (the tests' cluster
/// turns it off), so each commit waits for its WAL to reach the disk as in a real deployment.
///
/// The script rather than initdb and pg_ctl run from Swift: it is the one place that knows how
/// to start a cluster here (a free port, the user `postgres` when root, a UTF-8 C collation), the
/// same one `make test` uses, and its `--owner` watcher stops the cluster and removes its folder
/// once this process is gone, also after a `kill -9` or a crash that no `defer` would survive.
final class BenchPostgresCluster {
    let directory: String
    /// `postgres://rewind:rewind@127.0.0.1:PORT`, without a database.
    let server: String
    /// The folder of the cluster's psql.
    let binDirectory: String
    private let script: String
    private var stopped = false

    /// Why the group cannot run here (no checkout, no PostgreSQL): printed as one line.
    struct Unavailable: Error {
        let reason: String
    }

    private init(directory: String, url: String, binDirectory: String, script: String) throws {
        guard let suffix = url.range(of: "/postgres", options: .backwards) else {
            throw BenchFailure("scripts/pg-cluster printed no URL: \(url)")
        }
        self.directory = directory
        server = String(url[..<suffix.lowerBound])
        self.binDirectory = binDirectory
        self.script = script
    }

    deinit {
        stop()
    }

    /// Starts a cluster; throws ``Unavailable`` when none can be started here.
    static func start() throws -> BenchPostgresCluster {
        guard let script = findScript() else {
            throw Unavailable(reason: "scripts/pg-cluster is not found beside rewind-bench, in the current folder or in the checkout it was built from")
        }
        let bin = try runTool(script, ["bindir"])
        guard bin.status == 0 else { throw Unavailable(reason: bin.sentence(or: "no PostgreSQL server programs found")) }
        // Under /tmp: the user the server runs as (this may be root) must reach it, and the unix
        // socket's path inside it must stay short.
        var template = Array("/tmp/rewind-bench-pg.XXXXXX".utf8CString)
        guard mkdtemp(&template) != nil else { throw Unavailable(reason: "cannot make a folder under /tmp (errno \(errno))") }
        let directory = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        let started = try runTool(script, ["start", directory, "--owner", String(getpid())])
        guard started.status == 0 else {
            _ = try? runTool(script, ["stop", directory])
            try? FileManager.default.removeItem(atPath: directory)
            throw Unavailable(reason: started.sentence(or: "scripts/pg-cluster start failed"))
        }
        let cluster = try BenchPostgresCluster(directory: directory, url: started.output.trimmingCharacters(in: .whitespacesAndNewlines),
                                               binDirectory: bin.output.trimmingCharacters(in: .whitespacesAndNewlines), script: script)
        do {
            let admin = try cluster.connect()
            try admin.execute("ALTER SYSTEM SET fsync = on")
            try admin.execute("SELECT pg_reload_conf()")
            // The reload is asynchronous: wait until this connection sees it.
            let deadline = MonotonicClock.seconds() + 10
            while try admin.scalarText("SHOW fsync") != "on" {
                guard MonotonicClock.seconds() < deadline else { throw BenchFailure("fsync did not turn on within 10 s") }
                usleep(10_000)
            }
        } catch {
            cluster.stop()
            throw error
        }
        return cluster
    }

    /// A cluster for the group `group`, or `nil` (said in one line on standard error) when there
    /// is no PostgreSQL to start here: the group then gives no figures, which is no failure.
    static func startOrSkip(_ group: String) throws -> BenchPostgresCluster? {
        do {
            return try start()
        } catch let unavailable as Unavailable {
            FileHandle.standardError.write(Data("rewind-bench: \(group) skipped: no PostgreSQL to start here (\(unavailable.reason)).\n".utf8))
            return nil
        }
    }

    /// Stops the server and removes its folder (the watcher would, once this process ends).
    func stop() {
        guard !stopped else { return }
        stopped = true
        _ = try? Self.runTool(script, ["stop", directory])
    }

    // MARK: Databases

    func url(database: String) -> String {
        "\(server)/\(database)"
    }

    func connect(database: String = "postgres") throws -> PGConnection {
        try PGConnection(url: PostgresURL(url(database: database)), applicationName: "rewind-bench")
    }

    /// A new, empty database named `prefix_N`; returns its name.
    func createDatabase(_ prefix: String) throws -> String {
        let name = "\(prefix)_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased())"
        try connect().execute("CREATE DATABASE \(name)")
        return name
    }

    func dropDatabase(_ name: String) {
        _ = try? connect().execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
    }

    /// Writes what is buffered to the data files, so the next measurement does not pay for the
    /// previous one's checkpoint.
    func checkpoint() throws {
        try connect().execute("CHECKPOINT")
    }

    /// Runs one psql command (`\copy …` included) on `database`.
    func psql(_ command: String, database: String) throws {
        // The URL says where and how to connect; PG variables of the caller's must not.
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PG") }
        environment["PGCONNECT_TIMEOUT"] = "10"
        let result = try Self.runTool(binDirectory + "/psql", ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", url(database: database), "-c", command],
                                      environment: environment)
        guard result.status == 0 else { throw BenchFailure("psql: \(result.sentence(or: "exited with status \(result.status)"))") }
    }

    // MARK: CPU

    /// The CPU time (user and system, seconds) of every process of the cluster so far: the
    /// postmaster, the processes it runs now (backends, WAL writer, checkpointer…) and those that
    /// ended (their time is in the postmaster's children's time once it reaped them).
    ///
    /// A child reaped while its siblings are read would be in neither sum (its /proc entry gone,
    /// the postmaster's read before): the postmaster is read again after them, and the whole
    /// reading taken again when it changed (a bench once saw a COPY's cluster CPU as 0 when the
    /// backends of the run before ended under it).
    func cpuSeconds() -> Double {
        guard let text = try? String(contentsOfFile: directory + "/data/postmaster.pid", encoding: .utf8),
              let postmaster = text.split(separator: "\n").first.flatMap({ Int32($0) }) else { return .nan }
        var total = Double.nan
        for _ in 0..<20 {
            guard let before = ProcStat.cpuSeconds(pid: postmaster, withReapedChildren: true) else { return .nan }
            total = before
            for child in ProcStat.children(of: postmaster) {
                total += ProcStat.cpuSeconds(pid: child) ?? 0
            }
            if ProcStat.cpuSeconds(pid: postmaster, withReapedChildren: true) == before { return total }
        }
        return total
    }

    // MARK: Tools

    /// scripts/pg-cluster: in the checkout around this binary (`.build/<triple>/release/`), in
    /// the current folder, or in the checkout this file was compiled in (a binary copied away).
    private static func findScript() -> String? {
        var candidates: [URL] = []
        var folder = ProcessServerBenchmarks.bench.deletingLastPathComponent()
        for _ in 0..<4 {
            folder = folder.deletingLastPathComponent()
            candidates.append(folder.appendingPathComponent("scripts/pg-cluster"))
        }
        candidates.append(URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("scripts/pg-cluster"))
        candidates.append(URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/pg-cluster"))
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }?.path
    }

    struct ToolResult {
        var status: Int32
        var output: String
        var error: String

        /// The tool's first line of complaint, or `fallback`.
        func sentence(or fallback: String) -> String {
            let line = error.split(separator: "\n").first { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            var text = line.map(String.init) ?? fallback
            for prefix in ["pg-cluster: ", "psql: error: "] where text.hasPrefix(prefix) { text.removeFirst(prefix.count) }
            return text
        }
    }

    /// Runs a tool to its end, its outputs into files. Spawned here rather than with Foundation's
    /// Process, which learns of a child's end through a descriptor the child inherits: what
    /// `pg-cluster start` leaves running (the server, the watcher) would keep that open, and the
    /// wait would never end. Here the child gets standard input from /dev/null, its outputs as
    /// files, and no other descriptor of this process.
    static func runTool(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws -> ToolResult {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("rewind-bench-tool-\(UUID().uuidString)").path
        let outPath = base + ".out", errPath = base + ".err"
        defer {
            unlink(outPath)
            unlink(errPath)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        closeDescriptorsAbove2(&actions)
        let words = [executable] + arguments
        let argv = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let variables = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { variables.forEach { free($0) } }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, executable, &actions, nil, argv, variables)
        guard spawned == 0 else { throw BenchFailure("cannot run \(executable): errno \(spawned)") }
        var status: Int32 = 0
        while waitpid(child, &status, 0) == -1, errno == EINTR {}
        // A normal exit's status is in bits 8-15; a signal's end counts as a failure.
        let exitStatus: Int32 = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return ToolResult(status: exitStatus,
                          output: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
                          error: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")
    }

    /// Adds to `actions` the closing of every descriptor above 2: glibc's
    /// posix_spawn_file_actions_addclosefrom_np (2.34 and later, looked up at run time since the
    /// Glibc module may not declare it), else each one /proc/self/fd lists now.
    private static func closeDescriptorsAbove2(_ actions: inout posix_spawn_file_actions_t) {
        typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") {
            _ = unsafeBitCast(symbol, to: AddCloseFrom.self)(&actions, 3)
            return
        }
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        // The listing's own descriptor is closed by now; closing a closed one in the child is harmless.
        for fd in open.compactMap({ Int32($0) }) where fd > 2 {
            posix_spawn_file_actions_addclose(&actions, fd)
        }
    }
}

/// CPU times from /proc/PID/stat (Linux).
enum ProcStat {
    /// The fields after the command name (which may hold spaces): `fields[0]` is the state
    /// (field 3 of proc(5)), so field N is `fields[N - 3]`.
    private static func fields(pid: Int32) -> [Substring]? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        return text[text.index(after: close)...].split(separator: " ")
    }

    /// utime + stime (fields 14 and 15), and with `withReapedChildren` cutime + cstime (16 and
    /// 17): the time of children the process waited for.
    static func cpuSeconds(pid: Int32, withReapedChildren: Bool = false) -> Double? {
        guard let fields = fields(pid: pid), fields.count > 14 else { return nil }
        let indices = withReapedChildren ? [11, 12, 13, 14] : [11, 12]
        var ticks = 0.0
        for index in indices {
            guard let value = Double(fields[index]) else { return nil }
            ticks += value
        }
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The processes whose parent is `pid` now.
    static func children(of pid: Int32) -> [Int32] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        return entries.compactMap { Int32($0) }.filter { candidate in
            // Field 4 is the parent.
            guard let fields = fields(pid: candidate), fields.count > 1 else { return false }
            return Int32(fields[1]) == pid
        }
    }
}
