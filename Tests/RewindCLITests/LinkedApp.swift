import Foundation
import RewindJSON
import Testing
import RewindTestSupport

/// A server and a shop app on a store that is not Rewind's (`RewindStoreChild`, `TCAShop`,
/// `ReSwiftShop`) streaming to it through a `StoreLink`, with its first six actions recorded: the
/// app prints `state JSON` after each change of its store's state.
struct LinkedApp {
    let dir: TemporaryDirectory
    let serve: ServeProcess
    let port: Int
    let app: RunningCLI
    let session: String
    var db: String { dir.url.appendingPathComponent("served.db").path }

    /// Starts `rewind serve` and `program ACTION…`, and waits until the app's session has seq 6.
    /// Starts the server and the app, and waits until the server holds the app's seq `through`.
    init(program: URL, actions: [String], through: Int64 = 6) throws {
        dir = try TemporaryDirectory()
        let db = dir.url.appendingPathComponent("served.db").path
        serve = try ServeProcess(["--port", "0", "--db", db])
        port = try #require(serve.port(), "\(serve.text)")
        let environment = ["REWIND_SERVER": "ws://127.0.0.1:\(port)/app",
                           "REWIND_OUTBOX": dir.url.appendingPathComponent("outbox").path,
                           "REWIND_DB": dir.url.appendingPathComponent("unused.db").path]
        app = try RunningCLI(actions, environment: environment, program: program)
        // The app's session: the one it prints, or the only one the server has.
        var found: String?
        let deadline = Date(timeIntervalSinceNow: 60)
        while found == nil, Date() < deadline {
            if let line = app.stdout.split(separator: "\n").first(where: { $0.hasPrefix("session ") }) {
                found = String(line.dropFirst("session ".count))
            } else if let listed = try? jsonLines(try CLIRunner.run(["sessions", "--json", "--db", db]).stdout),
                      let first = listed.first?["uuid"]?.string {
                found = first
            } else {
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
        session = try #require(found, "the app recorded no session: \(app.stderr)")
        try Self.waitForSeq(through, of: session, in: db)
    }

    func stop() {
        app.stop()
        serve.signal(SIGTERM)
        _ = serve.waitForExit()
        dir.cleanup()
    }

    /// Waits until the server's log holds `seq` of `session`.
    static func waitForSeq(_ seq: Int64, of session: String, in db: String) throws {
        let deadline = Date(timeIntervalSinceNow: 60)
        while Date() < deadline {
            let listed = try jsonLines(try CLIRunner.run(["sessions", "--json", "--db", db]).stdout)
            if listed.contains(where: { $0["uuid"]?.string == session && ($0["lastSeq"]?.numberValue?.int64Value ?? -1) >= seq }) {
                return
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        Issue.record("session \(session) did not reach seq \(seq) in \(db)")
    }

    /// The events of `session` in the server's log, as `rewind log --json` prints them.
    func events(_ session: String) throws -> [JSONValue] {
        try jsonLines(try CLIRunner.run(["log", session, "--json", "--db", db]).stdout)
    }

    /// Waits until the app has printed `line` after the first `after` lines of its output.
    func waitForPrinted(_ line: String, after: Int) -> Bool {
        app.wait(timeout: 30) { out, _ in out.split(separator: "\n").dropFirst(after).contains { $0 == line } }
    }

    /// The shop's state as the apps print it (keys sorted).
    static func state(cart: [Int], total: Int, lastOrder: String? = nil) -> String {
        let order = lastOrder.map { #","lastOrder":"\#($0)""# } ?? ""
        return "state {\"cart\":[\(cart.map(String.init).joined(separator: ","))]\(order),\"total\":\(total)}"
    }

    /// Sends an inspector's command and waits for its answer.
    static func command(_ inspector: DemoInspector, _ id: String, _ kind: String, session: String,
                        _ arguments: JSONObject = [:]) throws -> JSONValue {
        var request: JSONObject = ["type": "command", "id": .string(id), "session": .string(session), "kind": .string(kind)]
        for (key, value) in arguments { request[key] = value }
        inspector.send(.object(request))
        return try #require(inspector.wait(timeout: 30) { $0["id"]?.string == id }, "no answer to \(kind)")
    }
}
