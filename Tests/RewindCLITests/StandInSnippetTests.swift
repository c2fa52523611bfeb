import Foundation
import RewindJSON
import Testing
import RewindTestSupport

/// Docs/Integrating.md's TCA and ReSwift wiring, compiled against stand-ins with TCA's and
/// ReSwift's public shapes (Tests/StandIns: neither library can be built here) into two shop
/// apps, `TCAShop` and `ReSwiftShop`, and run: each streams to `rewind serve` and takes a jump,
/// a dispatch, a resume, a branch and a replay, as a new user's app would with the docs alone.
@Suite("The docs' TCA and ReSwift wiring, compiled against stand-ins and run", .ownThreads)
struct StandInSnippetTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A stand-in app: its program, its snippet's name in the markers, and the actions that give
    /// the same six events in both (TCA's checkout sends `placed` as an effect; ReSwift has none).
    struct App: CustomTestStringConvertible, Sendable {
        var program: String
        /// The folder of its sources under Tests/StandIns (the settings' builds link to them).
        var folder: String
        var marker: String
        var actions: [String]
        /// Its StoreLink has a step (ReSwift); TCA's wiring has none, so it refuses replays and
        /// branches (TCA 1.25 deprecates running a reducer away from the store).
        var steps: Bool
        var testDescription: String { program }
    }

    static let shop = [#"{"add":{"_0":100}}"#, #"{"add":{"_0":212}}"#, #"{"add":{"_0":12}}"#,
                       #"{"remove":{"_0":1}}"#, #"{"checkout":{}}"#]
    /// Each app in the three settings it is built in (Package.swift): as it is, with default
    /// MainActor isolation, and with that and Approachable Concurrency.
    static let settings = ["", "MainActor", "Approachable"]
    static let apps = settings.flatMap { setting in [
        App(program: "TCAShop" + setting, folder: "TCAShop", marker: "TCA", actions: shop, steps: false),
        App(program: "ReSwiftShop" + setting, folder: "ReSwiftShop", marker: "ReSwift", actions: shop + [#"{"placed":{"_0":"order-112"}}"#], steps: true),
    ] }

    @Test("README.md holds the counter app exactly as it is compiled")
    func readmeHoldsTheCounter() throws {
        let readme = try String(contentsOf: Self.repository.appendingPathComponent("README.md"), encoding: .utf8)
        let source = try String(contentsOf: Self.repository.appendingPathComponent("Tests/StandIns/ReadmeCounter/Counter.swift"), encoding: .utf8)
        let begin = try #require(source.range(of: "// README.md counter begin\n"))
        let end = try #require(source.range(of: "// README.md counter end\n"))
        let snippet = source[begin.upperBound..<end.lowerBound]
        #expect(snippet.contains("store.record(to: .server(server)"))
        #expect(readme.contains("```swift\n" + snippet + "```"), "README.md does not hold the counter verbatim")
    }

    @Test("README.md's counter streams to rewind serve, finishes and is stored whole, in each setting", arguments: settings)
    func readmeCounterRuns(setting: String) throws {
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let db = folder.path("served.db")
        let serve = try ServeProcess(["--port", "0", "--db", db])
        defer { serve.signal(SIGKILL); _ = serve.waitForExit() }
        let port = try #require(serve.port())
        let app = try RunningCLI(["4"], environment: ["REWIND_SERVER": "ws://127.0.0.1:\(port)/app",
                                                      "REWIND_OUTBOX": folder.path("outbox"), "REWIND_DB": folder.path("unused.db")],
                                 program: CLIRunner.locate("ReadmeCounter" + setting))
        defer { app.stop() }
        #expect(app.waitForExit(timeout: 60) == 0, "\(app.stdout) \(app.stderr)")
        // Nothing said, but that a first connection took over 2 s (the whole suite runs on two
        // cores, and `rewind serve` has just started): the app says so, and goes on trying.
        let slowStart = "rewind: cannot connect to ws://127.0.0.1:\(port)/app: timed out (no answer within 2 s; still trying); is the Mac awake, on this network, and not blocking port \(port) in its firewall?"
        #expect(app.stderr.split(separator: "\n").allSatisfy { $0 == slowStart }, "\(app.stderr)")
        #expect(app.stdout.contains(#"finished {"delivered":true,"recorded":6,"count":5}"#), "\(app.stdout)")
        let session = try #require(app.stdout.split(separator: "\n").first { $0.hasPrefix("session ") }.map { String($0.dropFirst(8)) })
        let state = try CLIRunner.run(["state", "\(session)@last", "--path", "/count", "--db", db])
        #expect(state.stdout == "5\n", "\(state.stdout) \(state.stderr)")
    }

    @Test("Docs/Integrating.md holds each snippet exactly as it is compiled", arguments: apps)
    func docsHoldTheSnippets(app: App) throws {
        let docs = try String(contentsOf: Self.repository.appendingPathComponent("Docs/Integrating.md"), encoding: .utf8)
        let file = Self.repository.appendingPathComponent("Tests/StandIns/\(app.folder)/Recorded.swift")
        let source = try String(contentsOf: file, encoding: .utf8)
        let begin = try #require(source.range(of: "// Integrating.md \(app.marker) begin\n"))
        let end = try #require(source.range(of: "// Integrating.md \(app.marker) end\n"))
        let snippet = source[begin.upperBound..<end.lowerBound]
        #expect(snippet.contains("StoreLink"))
        #expect(docs.contains("```swift\n" + snippet + "```"), "Docs/Integrating.md does not hold \(file.path) verbatim")
    }

    @Test("an app that has sent nothing yet takes the inspector's dispatch (ReSwift makes its middleware on the first dispatch)", arguments: apps)
    func commandsBeforeTheFirstAction(app: App) throws {
        let running = try LinkedApp(program: CLIRunner.locate(app.program), actions: [], through: 0)
        defer { running.stop() }
        let inspector = try DemoInspector(port: running.port)
        defer { inspector.close() }
        let dispatched = try LinkedApp.command(inspector, "d0", "dispatch", session: running.session, ["action": ["add": ["_0": 5]]])
        #expect(dispatched["ok"] == true, "\(dispatched)")
        #expect(running.waitForPrinted(LinkedApp.state(cart: [5], total: 5), after: 0), "\(running.app.stdout)")
        try LinkedApp.waitForSeq(1, of: running.session, in: running.db)
    }

    @Test("jump, dispatch, resume, branch and replay --into against the app the snippet wires (TCA's refuses the last two)", arguments: apps)
    func commands(app: App) throws {
        let running = try LinkedApp(program: CLIRunner.locate(app.program), actions: app.actions)
        defer { running.stop() }
        let inspector = try DemoInspector(port: running.port)
        defer { inspector.close() }
        #expect(running.waitForPrinted(LinkedApp.state(cart: [], total: 0, lastOrder: "order-112"), after: 0), "\(running.app.stdout)")

        // From the inspector: jump, dispatch (which resumes first), jump and resume.
        var printed = running.app.lineCount
        let jumped = try LinkedApp.command(inspector, "j1", "jump", session: running.session, ["seq": 2])
        #expect(jumped["ok"] == true, "\(jumped)")
        #expect(running.waitForPrinted(LinkedApp.state(cart: [100, 212], total: 312), after: printed), "\(running.app.stdout)")
        printed = running.app.lineCount
        let dispatched = try LinkedApp.command(inspector, "d1", "dispatch", session: running.session, ["action": ["add": ["_0": 7]]])
        #expect(dispatched["ok"] == true, "\(dispatched)")
        #expect(running.waitForPrinted(LinkedApp.state(cart: [7], total: 7, lastOrder: "order-112"), after: printed))
        try LinkedApp.waitForSeq(7, of: running.session, in: running.db)
        _ = try LinkedApp.command(inspector, "j2", "jump", session: running.session, ["seq": 1])
        printed = running.app.lineCount
        let resumed = try LinkedApp.command(inspector, "r1", "resume", session: running.session)
        #expect(resumed["ok"] == true, "\(resumed)")
        #expect(running.waitForPrinted(LinkedApp.state(cart: [7], total: 7, lastOrder: "order-112"), after: printed))

        // The recorded state reads as the app's own names (TCA's @ObservableState stores
        // `_cart`; the stand-in's state is written as the macro expands it).
        let recordedCart = try CLIRunner.run(["state", "\(running.session)@2", "--path", "/cart", "--db", running.db])
        #expect((try? JSONValue(parsing: recordedCart.stdout)) == [100, 212], "\(recordedCart.stdout) \(recordedCart.stderr)")

        // From the terminal: a branch through the app's reducer, and a replay into the app.
        let server = "ws://127.0.0.1:\(running.port)"
        guard app.steps else {
            for arguments in [["branch", running.session, "--skip", "2", "--server", server],
                              ["replay", running.session, "--from", "1", "--to", "3", "--into", running.session, "--server", server, "--db", running.db]] {
                let refused = try CLIRunner.run(arguments)
                #expect(refused.status != 0)
                #expect(refused.stderr.contains("StoreLink was made without a step"), "\(arguments[0]): \(refused.stderr)")
            }
            #expect(running.app.stdout.hasSuffix(LinkedApp.state(cart: [7], total: 7, lastOrder: "order-112") + "\n"), "\(running.app.stdout)")
            return
        }
        let branch = try CLIRunner.run(["branch", running.session, "--skip", "2", "--server", server])
        #expect(branch.status == 0, "\(branch.stderr)")
        let made = try #require(branch.stdout.split(separator: " ").dropFirst(3).first?.trimmingCharacters(in: [":"]), "\(branch.stdout)")
        let cart = try JSONValue(parsing: try CLIRunner.run(["state", "\(made)@3", "--path", "/cart", "--db", running.db]).stdout)
        #expect(cart == [100, 12])
        printed = running.app.lineCount
        let replay = try CLIRunner.run(["replay", running.session, "--from", "1", "--to", "3", "--into", running.session,
                                        "--server", server, "--db", running.db])
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(running.waitForPrinted(LinkedApp.state(cart: [100, 212, 12], total: 324), after: printed))
    }
}
