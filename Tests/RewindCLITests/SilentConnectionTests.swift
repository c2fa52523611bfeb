#if os(Linux)
import Foundation
import Testing
import RewindTestSupport

// Linux only: the server is started through prlimit(1), and its limits are read from /proc.

/// Issue 38, item 5: connections that send nothing cannot take the server's descriptors before
/// any token is checked. `rewind serve` starts with a soft limit of 1,024 (as many systems give
/// it); 1,100 silent connections come from one address.
@Suite("Silent connections cannot exhaust descriptors", .ownThreads)
struct SilentConnectionTests {
    /// A TCP connection from `source` (a loopback address) to the server, or `nil`.
    static func connect(to port: Int, from source: String = "127.0.0.1") -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, source, &local.sin_addr)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &remote.sin_addr)
        let bound = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        let connected = withUnsafePointer(to: &remote) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard bound == 0, connected == 0 else { close(fd); return nil }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    /// Whether the server closed `fd` (a read returns end of file at once).
    static func closedByServer(_ fd: Int32) -> Bool {
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, Int32(MSG_DONTWAIT)) == 0
    }

    @Test("1,100 silent connections from one address: the server raised its soft limit, closes all but 256 at once, and answers another address at once")
    func silentFlood() throws {
        var own = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &own)
        own.rlim_cur = own.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &own)
        try #require(own.rlim_max >= 4_096, "the test needs a hard limit of 4,096 descriptors or more")
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let serve = try ServeProcess(["--port", "0", "--db", folder.path("served.db")],
                                     launcher: ["/usr/bin/prlimit", "--nofile=1024:\(own.rlim_max)"])
        defer { serve.signal(SIGKILL); _ = serve.waitForExit() }
        let port = try #require(serve.port(), "\(serve.text)")
        let limits = try String(contentsOfFile: "/proc/\(serve.pid)/limits", encoding: .utf8)
        let line = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max open files") })
        let numbers = line.split(separator: " ").compactMap { UInt64($0) }
        #expect(numbers.count == 2 && numbers[0] == numbers[1] && numbers[0] == UInt64(own.rlim_max), "\(line)")

        var silent: [Int32] = []
        defer { silent.forEach { close($0) } }
        for _ in 0..<1_100 {
            if let fd = Self.connect(to: port) { silent.append(fd) }
        }
        #expect(silent.count == 1_100)
        // What the server closed at once (within a second: long before its 10 s timeout).
        var closed = 0
        let deadline = Date(timeIntervalSinceNow: 5)
        repeat {
            closed = silent.filter(Self.closedByServer).count
            if closed >= 1_100 - 256 { break }
            usleep(50_000)
        } while Date() < deadline
        #expect(closed == 1_100 - 256, "\(closed) closed")

        // Another address is answered at once.
        let began = Date()
        let other = try #require(Self.connect(to: port, from: "127.0.0.2"))
        defer { close(other) }
        let request = Array("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        #expect(send(other, request, request.count, 0) == request.count)
        var reply = [UInt8](repeating: 0, count: 64)
        let read = recv(other, &reply, reply.count, 0)
        #expect(read > 0 && String(decoding: reply.prefix(max(read, 0)), as: UTF8.self).hasPrefix("HTTP/1.1 "), "read \(read)")
        #expect(Date().timeIntervalSince(began) < 2)
        // The 256 that were let wait are closed once libwebsockets' 10 s are up.
        let timedOut = Date(timeIntervalSinceNow: 15)
        while silent.contains(where: { !Self.closedByServer($0) }), Date() < timedOut { usleep(100_000) }
        #expect(silent.allSatisfy(Self.closedByServer), "\(silent.filter { !Self.closedByServer($0) }.count) silent connections still open after 15 s")
    }
}

/// Issue 38, item 8: requests with a wrong token are counted, the first of a burst is said, and
/// an address that keeps failing is slowed, while other addresses are served as before.
@Suite("Wrong tokens: counted, said once a burst, and slowed per address", .ownThreads)
struct WrongTokenTests {
    /// `GET path` from `source`; the status code, and the first line of the body.
    static func get(_ path: String, port: Int, from source: String) -> (status: Int, body: String)? {
        guard let fd = SilentConnectionTests.connect(to: port, from: source) else { return nil }
        defer { close(fd) }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8)
        guard send(fd, request, request.count, 0) == request.count else { return nil }
        var reply: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let read = recv(fd, &chunk, chunk.count, 0)
            if read <= 0 { break }
            reply += chunk.prefix(read)
        }
        let text = String(decoding: reply, as: UTF8.self)
        guard let status = text.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return nil }
        let body = text.components(separatedBy: "\r\n\r\n").dropFirst().first ?? ""
        return (status, body)
    }

    @Test("ten wrong tokens from one address: each refused; the next request from it, even with the right token, waits its pause (429); another address is served; one line says the burst began")
    func slowsAnAddress() throws {
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let token = "a-right-token-of-thirty-two-chars"
        let serve = try ServeProcess(["--port", "0", "--db", folder.path("served.db"), "--token", token])
        defer { serve.signal(SIGKILL); _ = serve.waitForExit() }
        let port = try #require(serve.port(), "\(serve.text)")
        for attempt in 1...10 {
            let reply = Self.get("/?token=wrong-\(attempt)", port: port, from: "127.0.0.1")
            #expect(reply?.status == 401, "attempt \(attempt): \(String(describing: reply))")
        }
        let slowed = try #require(Self.get("/?token=\(token)", port: port, from: "127.0.0.1"))
        #expect(slowed.status == 429, "\(slowed)")
        #expect(slowed.body.hasPrefix("too many requests with a wrong or missing token came from this address: it may try again in 1 s"), "\(slowed.body)")
        let other = Self.get("/?token=\(token)", port: port, from: "127.0.0.2")
        #expect(other?.status == 200, "\(String(describing: other))")
        // The pause ends: the right token is served again.
        let deadline = Date(timeIntervalSinceNow: 10)
        var again = slowed.status
        while again == 429, Date() < deadline {
            usleep(100_000)
            again = Self.get("/?token=\(token)", port: port, from: "127.0.0.1")?.status ?? 0
        }
        #expect(again == 200)
        let said = serve.text.split(separator: "\n").filter { $0.contains("wrong or missing token") }
        #expect(said == ["rewind serve: refused a request from 127.0.0.1 to /: wrong or missing token (the first of a burst; more are counted, and an address that fails 10 times in 10 s is slowed)"],
                "\(serve.text)")
    }
}

/// Issue 43: `/healthz` and `/readyz`, without a token: live while the server answers; ready
/// when it takes apps and its log takes writes (not `--read-only`; on a team store, only while
/// the database answers).
@Suite("Health and readiness", .ownThreads)
struct HealthTests {
    @Test("a file log: live and ready without the token, the page still needs it; --read-only is live but not ready")
    func fileLog() throws {
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let db = folder.path("served.db")
        let serve = try ServeProcess(["--port", "0", "--db", db], environment: ProcessInfo.processInfo.environment.merging(["REWIND_TOKEN": "a-token-for-the-health-checks-00"]) { $1 })
        defer { serve.signal(SIGKILL); _ = serve.waitForExit() }
        let port = try #require(serve.port(), "\(serve.text)")
        let live = WrongTokenTests.get("/healthz", port: port, from: "127.0.0.1")
        #expect(live?.status == 200 && live?.body == "ok\n", "\(String(describing: live))")
        let ready = WrongTokenTests.get("/readyz", port: port, from: "127.0.0.1")
        #expect(ready?.status == 200 && ready?.body == "ready\n", "\(String(describing: ready))")
        #expect(WrongTokenTests.get("/", port: port, from: "127.0.0.1")?.status == 401)

        let readOnly = try ServeProcess(["--port", "0", "--db", db, "--read-only"])
        defer { readOnly.signal(SIGKILL); _ = readOnly.waitForExit() }
        let other = try #require(readOnly.port(), "\(readOnly.text)")
        #expect(WrongTokenTests.get("/healthz", port: other, from: "127.0.0.1")?.status == 200)
        let notReady = WrongTokenTests.get("/readyz", port: other, from: "127.0.0.1")
        #expect(notReady?.status == 503 && notReady?.body == "not ready: this server runs with --read-only and takes no app\n",
                "\(String(describing: notReady))")
    }

    @Test("a team store: not ready while the database is stopped, ready again once it is back; live throughout")
    func teamStore() throws {
        let cluster = try PostgresTestCluster.startPrivate()
        defer { cluster.destroy() }
        let url = try cluster.createDatabase()
        let serve = try ServeProcess(["--port", "0", "--db", url])
        defer { serve.signal(SIGKILL); _ = serve.waitForExit() }
        let port = try #require(serve.port(), "\(serve.text)")
        func ready() -> (status: Int, body: String)? { WrongTokenTests.get("/readyz", port: port, from: "127.0.0.1") }
        #expect(ready()?.status == 200)
        try cluster.stop()
        var answer = ready()
        let down = Date(timeIntervalSinceNow: 30)
        while answer?.status != 503, Date() < down { usleep(200_000); answer = ready() }
        #expect(answer?.status == 503 && answer?.body.hasPrefix("not ready: ") == true, "\(String(describing: answer))")
        #expect(answer?.body.contains("rewind:rewind@") == false, "the password is never shown: \(String(describing: answer))")
        #expect(WrongTokenTests.get("/healthz", port: port, from: "127.0.0.1")?.status == 200)
        try cluster.restart()
        let up = Date(timeIntervalSinceNow: 60)
        answer = ready()
        while answer?.status != 200, Date() < up { usleep(200_000); answer = ready() }
        #expect(answer?.status == 200 && answer?.body == "ready\n", "\(String(describing: answer))")
    }
}
#endif
