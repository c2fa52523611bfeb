import Foundation
import RewindJSON
import RewindLog
import RewindWebSocket
import Testing
import RewindTestSupport

/// `rewind serve --tls-cert/--tls-key` and scoped tokens, on real `rewind serve` processes:
/// a throwaway CA and server certificate made with `openssl`, a recorder process streaming over
/// wss with the CA trusted (and refused without it), `rewind tail` and `rewind test --server`
/// over TLS, the page over https, plain HTTP to the TLS port, and each token refused what its
/// scope does not open.
@Suite("rewind serve over TLS, and scoped tokens", .ownThreads)
struct ServeTLSTests {
    struct TLSServer {
        let certificates: TestCertificates
        let db: String
        let serve: ServeProcess
        let port: Int

        init(arguments: [String] = []) throws {
            certificates = try TestCertificates()
            db = certificates.directory.path("rewind.db")
            serve = try ServeProcess(["--port", "0", "--db", db, "--tls-cert", certificates.certificate,
                                      "--tls-key", certificates.key] + arguments)
            port = try #require(serve.port())
        }

        var appURL: String { "wss://127.0.0.1:\(port)/app" }

        func cleanup() {
            serve.signal(SIGKILL)
            _ = serve.waitForExit()
        }
    }

    /// Runs the recorder child (`count` actions) against `server` with `environment` added.
    func record(_ count: Int, _ environment: [String: String]) throws -> CLIRunner.Output {
        try CLIRunner.run(["\(count)"], program: EnvironmentRecordingTests.child, environment: environment)
    }

    @Test("a recorder streams over wss with the CA trusted and its events read back; without the CA it is refused in one sentence about the certificate")
    func recorderOverWSS() throws {
        let server = try TLSServer()
        defer { server.cleanup() }
        #expect(server.serve.text.contains("inspector at https://127.0.0.1:\(server.port)/"), "\(server.serve.text)")
        #expect(server.serve.text.contains("apps connect to wss://127.0.0.1:\(server.port)/app"))
        let fallback = server.certificates.directory.path("fallback.db")
        let run = try record(7, ["REWIND_SERVER": server.appURL, "REWIND_CA_FILE": server.certificates.caFile, "REWIND_DB": fallback])
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(EnvironmentRecordingTests.unexpectedStderr(run.stderr).isEmpty, "\(run.stderr)")
        let uuid = run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let reader = try LogReader(path: server.db)
        #expect(waitUntil { (try? reader.session(named: uuid).lastSeq) == 7 })
        let state = try CLIRunner.run(["state", "\(uuid)@last", "--db", server.db])
        #expect(try JSONValue(parsing: state.stdout)["total"] == .number(JSONNumber(28)))
        #expect(!FileManager.default.fileExists(atPath: fallback))

        // Without the CA: the child gives up after its wait, having said why in one sentence.
        let untrusted = try CLIRunner.run(["1", "finish"], program: EnvironmentRecordingTests.child, environment: [
            "REWIND_SERVER": server.appURL, "REWIND_DB": fallback, "REWIND_OUTBOX": server.certificates.directory.path("outbox"),
        ])
        let said = untrusted.stderr.split(separator: "\n").filter { $0.contains("certificate") }
        #expect(said.count == 1, "\(untrusted.stderr)")
        #expect(said.first?.contains("cannot connect to \(server.appURL): the server's certificate is not trusted (unable to get local issuer certificate)") == true,
                "\(untrusted.stderr)")
        #expect(said.first?.contains("REWIND_CA_FILE") == true)
    }

    @Test("rewind tail and rewind test --server work over wss with --ca-file; without it tail says the certificate is not trusted")
    func cliOverWSS() throws {
        let server = try TLSServer()
        defer { server.cleanup() }
        let inspect = "wss://127.0.0.1:\(server.port)"
        let tail = try RunningCLI(["tail", "--json", "--server", inspect, "--ca-file", server.certificates.caFile])
        defer { tail.stop() }
        #expect(tail.waitForError("waiting for"), "\(tail.stderr)")
        let run = try record(5, ["REWIND_SERVER": server.appURL, "REWIND_CA_FILE": server.certificates.caFile])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(tail.waitForLines(5), "\(tail.stdout) \(tail.stderr)")
        #expect(tail.waitForExit() == 0, "\(tail.stderr)")
        let uuid = run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(tail.stdout.contains(uuid) || tail.stdout.split(separator: "\n").count >= 5)

        let refused = try CLIRunner.run(["tail", "--server", inspect])
        #expect(refused.status == 1)
        #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("the server's certificate is not trusted"), "\(refused.stderr)")

        // The session as a test, fetched over https from the export.
        let output = server.certificates.directory.path("Generated")
        let test = try CLIRunner.run(["test", uuid, "--server", inspect, "--ca-file", server.certificates.caFile,
                                      "--reducer", "reduce", "--module", "App", "-o", output])
        #expect(test.status == 0, "\(test.stderr)")
    }

    @Test("rewind push delivers a log's session over wss with --ca-file; without it, one sentence about the certificate")
    func pushOverWSS() throws {
        let server = try TLSServer()
        defer { server.cleanup() }
        let local = server.certificates.directory.path("device.db")
        let recorded = try record(4, ["REWIND_DB": local])
        #expect(recorded.status == 0, "\(recorded.stderr)")
        let uuid = recorded.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let refused = try CLIRunner.run(["push", "--db", local, "--server", server.appURL, "--timeout", "5"])
        #expect(refused.status == 1)
        #expect(refused.stdout.contains("the server's certificate is not trusted"), "\(refused.stdout) \(refused.stderr)")
        let pushed = try CLIRunner.run(["push", "--db", local, "--server", server.appURL, "--ca-file", server.certificates.caFile])
        #expect(pushed.status == 0, "\(pushed.stdout) \(pushed.stderr)")
        #expect(try LogReader(path: server.db).session(named: uuid).lastSeq == 4)
    }

    @Test("the page over https; plain HTTP to the TLS port gets no page and holds nobody up")
    func pageOverHTTPS() throws {
        let server = try TLSServer()
        defer { server.cleanup() }
        let silent = try RawSocket(port: server.port)
        let plain = try RawSocket(port: server.port)
        try plain.write("GET / HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n\r\n")
        let answer = String(decoding: plain.read(timeout: 10) { _ in false }, as: UTF8.self)
        #expect(!answer.contains("200 OK") && !answer.contains("<html"))
        let page = try HTTPFetch.get("https://127.0.0.1:\(server.port)/", caFile: server.certificates.caFile)
        #expect(page.status == 200)
        #expect(String(decoding: page.body, as: UTF8.self).contains("<html"))
        let script = try HTTPFetch.get("https://127.0.0.1:\(server.port)/js/main.js", caFile: server.certificates.caFile)
        #expect(String(decoding: script.body, as: UTF8.self).contains("location.protocol === 'https:' ? 'wss' : 'ws'"))
        #expect(throws: WebSocketError.self) { _ = try HTTPFetch.get("https://127.0.0.1:\(server.port)/") }
        withExtendedLifetime(silent) {}
        #expect(server.serve.text.contains("apps connect to"))
        server.serve.signal(SIGINT)
        #expect(server.serve.waitForExit() == 0)
    }

    @Test("an expired certificate starts with one warning that names it and its date; a valid one with none (issue 38)")
    func expiredCertificateWarns() throws {
        let certificates = try TestCertificates()
        let expired = try ServeProcess(["--port", "0", "--db", certificates.directory.path("expired.db"),
                                        "--tls-cert", certificates.expiredCertificate, "--tls-key", certificates.expiredKey])
        defer { expired.signal(SIGKILL); _ = expired.waitForExit() }
        #expect(expired.port() != nil, "\(expired.text)")
        let warnings = expired.text.split(separator: "\n").filter { $0.contains("warning:") }
        #expect(warnings == ["rewind serve: warning: the certificate \(certificates.expiredCertificate) expired on 2020-02-01 00:00:00Z: clients that check it refuse every connection; renew it and restart"],
                "\(expired.text)")
        let valid = try TLSServer()
        defer { valid.cleanup() }
        #expect(!valid.serve.text.contains("warning:"), "\(valid.serve.text)")
    }

    @Test("--tls-cert without --tls-key, a missing file and a key that is not the certificate's are each one sentence at start")
    func badTLSFlags() throws {
        let certificates = try TestCertificates()
        let db = certificates.directory.path("rewind.db")
        let missing = certificates.directory.path("nope.pem")
        let cases: [([String], String)] = [
            (["--tls-cert", certificates.certificate], "--tls-cert \(certificates.certificate) needs --tls-key with its private key"),
            (["--tls-key", certificates.key], "--tls-key \(certificates.key) needs --tls-cert with its certificate"),
            (["--tls-cert", missing, "--tls-key", certificates.key], "cannot read the TLS certificate \(missing): there is no such file"),
            (["--tls-cert", certificates.certificate, "--tls-key", certificates.strayKey],
             "the TLS key \(certificates.strayKey) does not match the certificate \(certificates.certificate)"),
        ]
        for (arguments, sentence) in cases {
            let run = try CLIRunner.run(["serve", "--port", "0", "--db", db] + arguments)
            #expect(run.status != 0)
            #expect(run.stderr.contains(sentence), "\(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
            #expect(!run.stdout.contains("apps connect to"))
        }
    }

    /// The status of an upgrade to `path` carrying `token`, and the sentence of a refusal.
    func upgrade(_ path: String, subprotocol: String, port: Int, token: String) throws -> (status: Int, said: String) {
        let socket = try RawSocket(port: port)
        var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        request += "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: \(subprotocol)\r\n"
        request += "Authorization: Bearer \(token)\r\n\r\n"
        try socket.write(request)
        let raw = String(decoding: socket.read(timeout: 10) { bytes in
            let text = String(decoding: bytes, as: UTF8.self)
            return text.hasPrefix("HTTP/1.1 101") && text.contains("\r\n\r\n") || text.contains("</html>")
        }, as: UTF8.self)
        let status = Int(raw.split(separator: " ").dropFirst().first ?? "") ?? 0
        return (status, raw)
    }

    func get(_ target: String, port: Int, token: String) throws -> (status: Int, body: String) {
        let socket = try RawSocket(port: port)
        try socket.write("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\nAuthorization: Bearer \(token)\r\n\r\n")
        let raw = String(decoding: socket.read(timeout: 20) { _ in false }, as: UTF8.self)
        let status = Int(raw.split(separator: " ").dropFirst().first ?? "") ?? 0
        let body = raw.range(of: "\r\n\r\n").map { String(raw[$0.upperBound...]) } ?? ""
        return (status, body)
    }

    @Test("an app token may only stream and an inspect token may only inspect, each refused the other's paths in one sentence; the server's token opens both")
    func scopedTokens() throws {
        let directory = try TemporaryDirectory()
        let db = directory.path("rewind.db")
        let serve = try ServeProcess(["--port", "0", "--db", db, "--token", "full-token",
                                      "--app-token", "app-token", "--inspect-token", "inspect-token"])
        defer { serve.kill(SIGKILL) }
        let port = try #require(serve.port())
        #expect(serve.text.contains("inspector at http://127.0.0.1:\(port)/?token=inspect%2Dtoken"), "\(serve.text)")
        #expect(serve.text.contains("scoped tokens: the app token may only stream to /app; the inspect token may only inspect; the server's token opens both"))
        let app = ("/app", "rewind.app.v1"), inspect = ("/inspect", "rewind.inspect.v1")

        // Allowed: each token where its scope opens, the server's token everywhere.
        #expect(try upgrade(app.0, subprotocol: app.1, port: port, token: "app-token").status == 101)
        #expect(try upgrade(inspect.0, subprotocol: inspect.1, port: port, token: "inspect-token").status == 101)
        #expect(try upgrade(app.0, subprotocol: app.1, port: port, token: "full-token").status == 101)
        #expect(try upgrade(inspect.0, subprotocol: inspect.1, port: port, token: "full-token").status == 101)
        #expect(try get("/", port: port, token: "inspect-token").status == 200)
        #expect(try get("/export/latest", port: port, token: "inspect-token").status == 404)  // no session yet: the route is open
        #expect(try get("/", port: port, token: "full-token").status == 200)

        // Refused: each in one sentence saying what the token may do.
        let appOnInspect = try upgrade(inspect.0, subprotocol: inspect.1, port: port, token: "app-token")
        #expect(appOnInspect.status == 403)
        #expect(appOnInspect.said.contains("this is the app token, which may only stream sessions to /app"), "\(appOnInspect.said)")
        let inspectOnApp = try upgrade(app.0, subprotocol: app.1, port: port, token: "inspect-token")
        #expect(inspectOnApp.status == 403)
        #expect(inspectOnApp.said.contains("this is the inspect token, which may only read and send commands"), "\(inspectOnApp.said)")
        for target in ["/export/latest", "/"] {
            let refused = try get(target, port: port, token: "app-token")
            #expect(refused.status == 403, "\(target)")
            #expect(refused.body == "this is the app token, which may only stream sessions to /app; the inspector, /inspect and /export need the inspect token or the server's token\n")
        }
        // No valid token at all is refused as before.
        #expect(try upgrade(app.0, subprotocol: app.1, port: port, token: "wrong").status == 403)
        #expect(try get("/", port: port, token: "wrong").status == 401)

        // A real recorder with the app token streams; rewind tail with it is refused, with the inspect token it reads.
        let run = try CLIRunner.run(["3"], program: EnvironmentRecordingTests.child, environment: [
            "REWIND_SERVER": "ws://127.0.0.1:\(port)/app", "REWIND_TOKEN": "app-token",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let uuid = run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let tailRefused = try CLIRunner.run(["tail", uuid, "--server", "ws://127.0.0.1:\(port)", "--token", "app-token"])
        #expect(tailRefused.status == 1)
        #expect(tailRefused.stderr.contains("an app token may only stream"), "\(tailRefused.stderr)")
        let exported = try get("/export/\(uuid)?format=jsonl", port: port, token: "inspect-token")
        #expect(exported.status == 200)
        #expect(exported.body.contains(#"{"action":{"add":{"_0":3}},"state":{"total":6,"added":[1,2,3]}"#), "\(exported.body.prefix(300))")
    }

    @Test("scoped tokens that leave a side unopened, or repeat each other, are one sentence at start; --lan keeps a token only for what they leave open")
    func tokenCombinations() throws {
        let directory = try TemporaryDirectory()
        let db = directory.path("rewind.db")
        let cases: [([String], String)] = [
            (["--app-token", "a"], "--app-token without --token or --inspect-token leaves no token to inspect with"),
            (["--inspect-token", "i"], "--inspect-token without --token or --app-token leaves no token for apps to stream with"),
            (["--app-token", "same", "--inspect-token", "same"], "--app-token and --inspect-token are the same"),
            (["--token", "t", "--app-token", "t", "--inspect-token", "i"], "--app-token is the same as --token"),
        ]
        for (arguments, sentence) in cases {
            let run = try CLIRunner.run(["serve", "--port", "0", "--db", db] + arguments)
            #expect(run.status != 0)
            #expect(run.stderr.contains(sentence), "\(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1)
        }
        // Both scoped tokens through the environment, on every interface: no kept token is made.
        let lan = try ServeProcess(["--lan", "--port", "0", "--db", db],
                                   environment: ProcessInfo.processInfo.environment.merging(
                                       ["REWIND_APP_TOKEN": "env-app", "REWIND_INSPECT_TOKEN": "env-inspect"]) { $1 })
        defer { lan.kill(SIGKILL) }
        #expect(lan.waitForOutput("rewind serve: log "), "\(lan.text)")
        #expect(lan.text.contains("apps stream with the token env-app, the inspector takes env-inspect"), "\(lan.text)")
        #expect(!FileManager.default.fileExists(atPath: directory.path("rewind.token")))
    }
}
