import Foundation
import RewindLog
import RewindWebSocket
import Testing
@testable import RewindCLI
import RewindSupport
import RewindTestSupport

/// `rewind serve --lan`: every interface, a token kept beside the log, and what to paste into a
/// scheme. A real server process; a real app process connects with what it printed.
@Suite("rewind serve --lan", .ownThreads)
struct ServeLANTests {
    /// The lines of `--lan` output that a device's scheme takes.
    struct Printed {
        var token: String
        var servers: [String]
        var inspectors: [String]

        init(_ text: String) throws {
            let marker = "every connection needs the token "
            let tokenLine = try #require(text.split(separator: "\n").first { $0.contains(marker) })
            let start = try #require(tokenLine.range(of: marker)).upperBound
            token = String(tokenLine[start...].prefix { $0 != " " })
            servers = text.split(separator: "\n").compactMap { line in
                line.range(of: "REWIND_SERVER=").map { String(line[$0.upperBound...].prefix { $0 != " " }) }
            }
            inspectors = text.split(separator: "\n").compactMap { line in
                guard line.hasPrefix("rewind serve:   ") else { return nil }
                return line.range(of: ": inspector at ").map { String(line[$0.upperBound...]) }
            }
        }
    }

    /// Why a bare WebSocket upgrade to `url` (with `token`, if any) failed, or `nil` if it opened.
    func upgradeFailure(_ url: String, token: String?) throws -> String? {
        final class Outcome: WebSocketClientDelegate, Sendable {
            /// `nil` until the upgrade is answered; then the failure, or `nil` inside when it opened.
            let result = Condition<String??>(nil)
            func didConnect(_ connection: WebSocketConnection) { set(nil) }
            func didFailToConnect(reason: String) { set(reason) }
            private func set(_ value: String?) {
                result.update { if $0 == nil { $0 = .some(value) } }
            }
        }
        var headers: HTTPHeaders = [:]
        if let token { headers.add("Authorization", "Bearer \(token)") }
        let client = try WebSocketClient(url: url, subprotocol: "rewind.app.v1", headers: headers)
        let outcome = Outcome()
        try client.connect(delegate: outcome)
        defer { client.close() }
        _ = outcome.result.wait(timeout: 20) { $0 != nil }
        return try #require(outcome.result.value, "no answer from \(url)")
    }

    @Test("the printed token and address let an app in, a missing token is refused, and the token is kept for the next run")
    func printedTokenLetsAnAppIn() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let db = directory.url.appendingPathComponent("logs/rewind.db").path
        let serve = try ServeProcess(["--lan", "--port", "0", "--db", db])
        let port = try #require(serve.port())
        #expect(serve.waitForOutput("rewind serve: log "))
        let printed = try Printed(serve.text)
        let tokenFile = directory.url.appendingPathComponent("logs/rewind.token").path
        #expect(serve.text.contains("(made and kept in \(tokenFile))"))
        #expect(try String(contentsOfFile: tokenFile, encoding: .utf8) == printed.token + "\n")
        let permissions = try FileManager.default.attributesOfItem(atPath: tokenFile)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
        #expect(printed.token.count == 32)

        // Every printed address, and loopback, takes the app with the token and refuses it without.
        let addresses = LANAccess.addresses()
        #expect(printed.servers == addresses.map { "ws://\($0.ip):\(port)/app" })
        #expect(printed.inspectors == addresses.map { "http://\($0.ip):\(port)/?token=\(printed.token)" })
        if addresses.isEmpty { #expect(serve.text.contains("no network address besides loopback")) }
        for server in printed.servers + ["ws://127.0.0.1:\(port)/app"] {
            let run = try CLIRunner.run(["4"], program: EnvironmentRecordingTests.child,
                                        environment: ["REWIND_SERVER": server, "REWIND_TOKEN": printed.token])
            #expect(run.status == 0, "\(server): \(run.stderr)")
            let uuid = run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(try LogReader(path: db).session(named: uuid).lastSeq == 4, "\(server)")
            let refused = try upgradeFailure(server, token: nil)
            #expect(refused?.contains("HTTP 403") == true, "\(server) without a token: \(refused ?? "opened")")
            #expect(try upgradeFailure(server, token: "wrong") != nil)
        }
        serve.signal(SIGINT)
        #expect(serve.waitForExit() == 0)

        // The next run keeps the token, so the scheme's REWIND_TOKEN stays valid.
        let again = try ServeProcess(["--lan", "--port", "0", "--db", db])
        #expect(again.waitForOutput("rewind serve: log "))
        #expect(try Printed(again.text).token == printed.token)
        #expect(again.text.contains("(kept in \(tokenFile))"))
        again.signal(SIGINT)
        #expect(again.waitForExit() == 0)
    }

    @Test("--token wins over the kept token; --lan with --host is refused in one sentence")
    func tokenAndHost() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let db = directory.url.appendingPathComponent("rewind.db").path
        let serve = try ServeProcess(["--lan", "--port", "0", "--db", db, "--token", "given-token"])
        #expect(serve.waitForOutput("rewind serve: log "))
        #expect(try Printed(serve.text).token == "given-token")
        #expect(!FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("rewind.token").path))
        serve.signal(SIGINT)
        #expect(serve.waitForExit() == 0)

        let both = try CLIRunner.run(["serve", "--lan", "--host", "0.0.0.0", "--db", db])
        #expect(both.status == 2)
        #expect(both.stderr.contains("give --lan or --host, not both: --lan listens on every interface"))
    }

    @Test("with no address besides loopback, --lan says so and serves loopback")
    func noAddressSaysSo() {
        let text = ServeCommand.lanLines(port: 7433, token: "abc", tokenNote: nil, addresses: [])
        #expect(text == """
            rewind serve: listening on every interface; every connection needs the token abc
            rewind serve: no network address besides loopback: a device cannot reach this machine; apps on it still connect to 127.0.0.1 (join a network and restart to serve devices)

            """)
        let two = ServeCommand.lanLines(port: 7433, token: "abc", tokenNote: "kept in /l/rewind.token",
                                        addresses: [.init(interface: "en0", ip: "192.168.1.20"), .init(interface: "en1", ip: "10.0.0.4")])
        #expect(two.contains("rewind serve:   en0: REWIND_SERVER=ws://192.168.1.20:7433/app REWIND_TOKEN=abc\n"))
        #expect(two.contains("rewind serve:   en1: inspector at http://10.0.0.4:7433/?token=abc\n"))
        #expect(two.hasPrefix("rewind serve: listening on every interface; every connection needs the token abc (kept in /l/rewind.token)\n"))
    }
}
