import Foundation
import RewindJSON
import Testing
import RewindSupport
import RewindTestSupport

/// The three commands of Docs/Integrating.md, "A recorded bug becomes a test", end to end on a
/// small package of its own with both kinds of app: `Checkout`, a cart on Rewind's `Store`, and
/// `Shop`, a cart on a store of its own that links RewindRecorder alone (through a `StoreLink`),
/// each with an executable that records it and a test target. Both ship with a bug in `remove`:
/// record, `rewind test --expect` (`--reducer` for the one, `--step` for the other), `swift test`
/// fails naming the seq, the send site and the expected, replayed and recorded values; the fix
/// makes it pass without recording or generating again. A test without `--expect` locks in the
/// recording instead: it passes with the bug and fails once it is fixed. Then each app crashes
/// in its reducer (an index out of range), and the crash becomes an exit test that fails until
/// the reducer is fixed. The package is built once; every `swift test` run reuses that build.
@Suite("A recorded bug becomes a failing Swift test, end to end", .ownThreads)
struct RecordedBugEndToEndTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Writes the package into `root`.
    static func makePackage(at root: URL) throws {
        let identity = repository.lastPathComponent.lowercased()
        let files: [String: String] = [
            "Package.swift": """
                // swift-tools-version: 6.0
                import PackageDescription

                let package = Package(
                    name: "Checkout",
                    platforms: [.macOS(.v14), .iOS(.v17)],
                    dependencies: [.package(path: "\(repository.path)")],
                    targets: [
                        .target(name: "Checkout", dependencies: [.product(name: "Rewind", package: "\(identity)")]),
                        .executableTarget(name: "record-checkout", dependencies: ["Checkout", .product(name: "Rewind", package: "\(identity)")]),
                        .testTarget(name: "CheckoutTests", dependencies: ["Checkout", .product(name: "Rewind", package: "\(identity)")]),
                        .target(name: "Shop", dependencies: [.product(name: "RewindRecorder", package: "\(identity)")]),
                        .executableTarget(name: "record-shop", dependencies: ["Shop", .product(name: "RewindRecorder", package: "\(identity)")]),
                        .testTarget(name: "ShopTests", dependencies: ["Shop", .product(name: "RewindRecorder", package: "\(identity)")]),
                    ]
                )
                """,
            "Sources/Checkout/Cart.swift": """
                import Rewind

                public struct CartState: Codable, Sendable, Equatable {
                    public var items: [Int] = []
                    public var total = 0
                    public init() {}
                }

                public enum CartAction: Codable, Sendable, Equatable {
                    case add(Int)
                    case remove(Int)
                    case checkout
                    case pay(Int)
                }

                /// What the recording app sends; `crashingSession` pays with an item that is not there.
                public let checkoutSession: [CartAction] = [.add(5), .add(7), .add(3), .remove(1), .add(2), .checkout]
                public let crashingSession: [CartAction] = [.add(5), .add(7), .pay(5)]

                public let cartReducer: Reducer<CartState, CartAction> = { state, action in
                    switch action {
                    case .add(let price):
                        state.items.append(price)
                        state.total += price
                    case .remove(let index):
                        if state.items.indices.contains(index) {
                            state.total -= state.items.remove(at: index)
                        }
                    case .checkout:
                        state.items = []
                    case .pay(let index):
                        state.total = state.items[index]
                    }
                    return .none
                }
                """,
            "Sources/record-checkout/main.swift": """
                import Checkout
                import Rewind

                let store = Store(initialState: CartState(), reducer: cartReducer)
                store.record(to: .file(CommandLine.arguments[1]), app: "Checkout")
                for action in CommandLine.arguments.count > 2 ? crashingSession : checkoutSession {
                    store.send(action)
                }
                await store.finishRecording()
                """,
            "Sources/Shop/Shop.swift": """
                import RewindRecorder

                // A shop on a store of its own, as an app on ReSwift or TCA has one: its `Store`,
                // `Reducer` and `Effect` are the app's, and it links RewindRecorder alone.
                public struct ShopState: Codable, Sendable, Equatable {
                    public var cart: [Int] = []
                    public var total = 0
                    public init() {}
                }

                public enum ShopAction: Codable, Sendable, Equatable {
                    case add(Int)
                    case remove(Int)
                    case rewind
                    case pay(Int)
                }

                public enum Effect<Action> {
                    case none
                }

                public typealias Reducer<State, Action> = @Sendable (inout State, Action) -> Effect<Action>

                public let shopReducer: Reducer<ShopState, ShopAction> = { state, action in
                    switch action {
                    case .add(let price):
                        state.cart.append(price)
                        state.total += price
                    case .remove(let index):
                        if state.cart.indices.contains(index) {
                            state.total -= state.cart.remove(at: index)
                        }
                    case .rewind:
                        break
                    case .pay(let index):
                        state.total = state.cart[index]
                    }
                    return .none
                }

                /// The reducer without effects: the StoreLink's step, and what `rewind test --step` replays.
                public func shopStep(_ state: inout ShopState, _ action: ShopAction) {
                    _ = shopReducer(&state, action)
                }

                @MainActor
                public final class Store<State, Action> {
                    public private(set) var state: State
                    private let reducer: Reducer<State, Action>

                    public init(initialState: State, reducer: @escaping Reducer<State, Action>) {
                        state = initialState
                        self.reducer = reducer
                    }

                    public func send(_ action: Action) {
                        _ = reducer(&state, action)
                    }
                }

                /// The app's store, recording into `path` through a StoreLink.
                @MainActor
                public func makeShop(recordingTo path: String) -> (Store<ShopState, ShopAction>, StoreLink<ShopState, ShopAction>) {
                    let recorder = Recorder<ShopState, ShopAction>(initialState: ShopState(), to: .file(path),
                                                                   metadata: RecordingMetadata(app: "Shop"))
                    let link = StoreLink(recorder: recorder, step: shopStep)
                    let store = Store(initialState: ShopState()) { state, action in
                        link.reduce(&state, action) { shopReducer(&$0, action) } ?? .none
                    }
                    link.connect(wake: .rewind) { store.send($0) }
                    return (store, link)
                }
                """,
            "Sources/record-shop/main.swift": """
                import Shop

                let (store, link) = makeShop(recordingTo: CommandLine.arguments[1])
                let crashing = CommandLine.arguments.count > 2
                for action in crashing ? [ShopAction.add(5), .add(7), .pay(5)] : [.add(5), .add(7), .add(3), .remove(1), .add(2)] {
                    store.send(action)
                }
                await link.recorder.finish()
                """,
            "Tests/ShopTests/ShopTests.swift": """
                import Shop
                import Testing

                @Test func addingRaisesTheShopTotal() {
                    var state = ShopState()
                    shopStep(&state, .add(4))
                    #expect(state.total == 4)
                }
                """,
            "Tests/CheckoutTests/CartTests.swift": """
                import Checkout
                import Testing

                @Test func addingRaisesTheTotal() {
                    var state = CartState()
                    _ = cartReducer(&state, .add(4))
                    #expect(state.total == 4)
                }
                """,
        ]
        for (path, text) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data((text + "\n").utf8).write(to: url)
        }
    }

    /// Runs `program arguments…` in `directory`; returns its exit status and everything it printed.
    static func run(_ program: String, _ arguments: [String], in directory: URL) throws -> (status: Int32, output: String) {
        let process = try Subprocess("/usr/bin/env", [program] + arguments, directory: directory.path,
                                     output: .pipe, error: .standardOutput)
        let collected = Collected()
        PipeReader.start(process.standardOutput!, onEnd: { collected.finish() }) { data in collected.append(data) }
        let status = process.waitUntilExit()
        return (status, collected.wait())
    }

    /// Puts the bug in (or takes it out of) both apps' `remove`: it takes one too many off the total.
    static func setBug(_ present: Bool, in package: URL) throws {
        for file in ["Sources/Checkout/Cart.swift", "Sources/Shop/Shop.swift"] {
            let url = package.appendingPathComponent(file)
            var source = try String(contentsOf: url, encoding: .utf8)
            for list in ["items", "cart"] {
                let fixed = "state.total -= state.\(list).remove(at: index)\n"
                let buggy = "state.total -= state.\(list).remove(at: index) + 1\n"
                source = present ? source.replacingOccurrences(of: fixed, with: buggy) : source.replacingOccurrences(of: buggy, with: fixed)
            }
            try Data(source.utf8).write(to: url)
        }
    }

    /// Puts the crash in (or takes it out of) both apps' `pay`: an index out of range traps.
    static func setCrash(_ present: Bool, in package: URL) throws {
        for (file, list) in [("Sources/Checkout/Cart.swift", "items"), ("Sources/Shop/Shop.swift", "cart")] {
            let url = package.appendingPathComponent(file)
            var source = try String(contentsOf: url, encoding: .utf8)
            let crashing = "state.total = state.\(list)[index]\n"
            let fixed = "if state.\(list).indices.contains(index) { state.total = state.\(list)[index] }\n"
            source = present ? source.replacingOccurrences(of: fixed, with: crashing) : source.replacingOccurrences(of: crashing, with: fixed)
            try Data(source.utf8).write(to: url)
        }
    }

    @Test("a recorded bug fails its test until it is fixed, for an app on Rewind's store and one on its own; without --expect the test locks in the recording; a crash in the reducer becomes an exit test that fails until the reducer no longer crashes")
    func threeCommands() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let package = directory.url.appendingPathComponent("Checkout")
        try Self.makePackage(at: package)
        // The apps ship with a bug: removing an item takes one too many off the total.
        try Self.setBug(true, in: package)
        // Kept apart from the package, so the build is found again by every `swift test` run.
        let scratch = directory.url.appendingPathComponent("build").path
        let build = try Self.run("swift", ["build", "--build-tests", "--scratch-path", scratch], in: package)
        try #require(build.status == 0, "the sample package did not build:\n\(build.output.suffix(3_000))")
        let checkoutLog = directory.url.appendingPathComponent("checkout.db").path
        let shopLog = directory.url.appendingPathComponent("shop.db").path

        // 1. The apps record their sessions, with the bug (a tester's device, a simulator, CI).
        for (program, log) in [("record-checkout", checkoutLog), ("record-shop", shopLog)] {
            let record = try Self.run(scratch + "/debug/" + program, [log], in: package)
            try #require(record.status == 0, "\(program): \(record.output)")
        }
        // 2. The sessions become tests, saying what the total should have been after seq 4,
        // `remove(1)`: 15 - 7 = 8 (the recording holds 7). A Rewind Reducer for the one, the step
        // function of the app on its own store for the other; and a test without --expect, which
        // locks in the recording.
        let checkout = try CLIRunner.run(["test", "latest", "--reducer", "cartReducer", "--module", "Checkout", "--expect", "4:/total=8",
                                          "-o", package.appendingPathComponent("Tests/CheckoutTests").path, "--db", checkoutLog])
        try #require(checkout.status == 0, "\(checkout.stderr)")
        #expect(checkout.stdout.contains("run it: swift test --filter checkoutSession1"))
        let shop = try CLIRunner.run(["test", "latest", "--step", "shopStep", "--module", "Shop", "--expect", "4:/total=8",
                                      "-o", package.appendingPathComponent("Tests/ShopTests").path, "--db", shopLog])
        try #require(shop.status == 0, "\(shop.stderr)")
        #expect(shop.stdout.contains("run it: swift test --filter shopSession1"))
        let locked = try CLIRunner.run(["test", "latest", "--reducer", "cartReducer", "--module", "Checkout", "--name", "checkoutLocked",
                                        "-o", package.appendingPathComponent("Tests/CheckoutTests").path, "--db", checkoutLog])
        try #require(locked.status == 0, "\(locked.stderr)")
        let filter = "checkoutSession1|shopSession1|checkoutLocked"

        // 3. The bug's tests fail, naming the seq, the action, its send site and the three values;
        // the lock-in passes, bug and all.
        let failing = try Self.run("swift", ["test", "--scratch-path", scratch, "--filter", filter], in: package)
        #expect(failing.status != 0)
        #expect(failing.output.contains(#"the state at seq 4 after {"remove":{"_0":1}} (sent at record_checkout/main.swift:7 "#),
                "\(failing.output.suffix(3_000))")
        #expect(failing.output.contains("/total  expected: 8  replayed: 7  recorded: 7"), "\(failing.output.suffix(3_000))")
        // The shop's store has no send sites.
        #expect(failing.output.contains(#"the state at seq 4 after {"remove":{"_0":1}} is not what it should be:"#), "\(failing.output.suffix(3_000))")
        #expect(failing.output.contains("Test checkoutSession1() recorded an issue"), "\(failing.output.suffix(3_000))")
        #expect(failing.output.contains("Test shopSession1() recorded an issue"), "\(failing.output.suffix(3_000))")
        #expect(!failing.output.contains("Test checkoutLocked() recorded an issue"), "\(failing.output.suffix(3_000))")

        // 4. The fix: the bug's tests pass, with nothing recorded or generated again; the lock-in
        // now fails at the seq the fix changed.
        try Self.setBug(false, in: package)
        let fixed = try Self.run("swift", ["test", "--scratch-path", scratch, "--filter", filter], in: package)
        #expect(!fixed.output.contains("Test checkoutSession1() recorded an issue"), "\(fixed.output.suffix(3_000))")
        #expect(!fixed.output.contains("Test shopSession1() recorded an issue"), "\(fixed.output.suffix(3_000))")
        #expect(fixed.output.contains(#"state differs at seq 4 after {"remove":{"_0":1}} (sent at record_checkout/main.swift:7 "#),
                "\(fixed.output.suffix(3_000))")
        #expect(fixed.output.contains("/total  recorded: 7  replayed: 8"))
        let bugTests = try Self.run("swift", ["test", "--skip-build", "--scratch-path", scratch, "--filter", "checkoutSession1|shopSession1"], in: package)
        #expect(bugTests.status == 0, "\(bugTests.output.suffix(3_000))")

        // 5. A crash (issue 40): each app pays with an item that is not there and dies of it
        // (Swift's backtracer off: it takes seconds). Its next run ends the crashed session with
        // @@rewind/crashed, which names the action; `rewind test` writes an exit test that sends
        // it again, which fails until the reducer no longer crashes, and then passes.
        for (program, log) in [("record-checkout", checkoutLog), ("record-shop", shopLog)] {
            let crashed = try Self.run("SWIFT_BACKTRACE=enable=no", [scratch + "/debug/" + program, log, "crash"], in: package)
            #expect(crashed.status != 0, "\(program): \(crashed.output)")
            #expect(crashed.output.contains("Index out of range"), "\(program): \(crashed.output)")
            let next = try Self.run(scratch + "/debug/" + program, [log], in: package)
            try #require(next.status == 0, "\(program): \(next.output)")
        }
        let listed = try CLIRunner.run(["sessions", "--crashed", "--json", "--db", checkoutLog])
        let crashedSession = try JSONValue(parsing: listed.stdout.split(separator: "\n").first.map(String.init) ?? "")
        #expect(crashedSession["id"] == 2, "\(listed.stdout)")
        let reducing = crashedSession["crash"]?["reducing"]
        #expect(reducing?["type"] == "pay", "\(listed.stdout)")
        #expect(reducing?["action"] == ["pay": ["_0": 5]], "\(listed.stdout)")
        #expect(reducing?["site"]?["file"] == "record_checkout/main.swift" && reducing?["site"]?["line"] == 7, "\(listed.stdout)")
        #expect(crashedSession["crash"]?["lost"] == 0, "\(listed.stdout)")
        let checkoutCrash = try CLIRunner.run(["test", "2", "--reducer", "cartReducer", "--module", "Checkout",
                                               "-o", package.appendingPathComponent("Tests/CheckoutTests").path, "--db", checkoutLog])
        try #require(checkoutCrash.status == 0, "\(checkoutCrash.stderr)")
        let shopCrash = try CLIRunner.run(["test", "2", "--step", "shopStep", "--module", "Shop",
                                           "-o", package.appendingPathComponent("Tests/ShopTests").path, "--db", shopLog])
        try #require(shopCrash.status == 0, "\(shopCrash.stderr)")
        let written = try String(contentsOf: package.appendingPathComponent("Tests/CheckoutTests/checkoutSession2.swift"), encoding: .utf8)
        #expect(written.contains("// The app crashed: "), "\(written)")
        #expect(written.contains("#expect(processExitsWith: .success)"), "\(written)")
        let crashFilter = "checkoutSession2|shopSession2"
        let stillCrashing = try Self.run("SWIFT_BACKTRACE=enable=no", ["swift", "test", "--scratch-path", scratch, "--filter", crashFilter], in: package)
        #expect(stillCrashing.status != 0, "\(stillCrashing.output.suffix(3_000))")
        #expect(stillCrashing.output.contains("Test checkoutSession2() recorded an issue"), "\(stillCrashing.output.suffix(3_000))")
        #expect(stillCrashing.output.contains("Test shopSession2() recorded an issue"), "\(stillCrashing.output.suffix(3_000))")
        try Self.setCrash(false, in: package)
        let noLongerCrashing = try Self.run("SWIFT_BACKTRACE=enable=no", ["swift", "test", "--scratch-path", scratch, "--filter", crashFilter], in: package)
        #expect(noLongerCrashing.status == 0, "\(noLongerCrashing.output.suffix(3_000))")
        #expect(noLongerCrashing.output.contains("Test checkoutSession2() passed"), "\(noLongerCrashing.output.suffix(3_000))")
        #expect(noLongerCrashing.output.contains("Test shopSession2() passed"), "\(noLongerCrashing.output.suffix(3_000))")
    }
}

/// Output collected from a pipe until it closes.
final class Collected: Sendable {
    private let collected = Condition((data: Data(), ended: false))

    func append(_ chunk: Data) {
        collected.withLock { $0.data.append(chunk) }
    }

    func finish() {
        collected.update { $0.ended = true }
    }

    /// Everything, once the pipe closed.
    func wait() -> String {
        _ = collected.wait(for: { $0.ended })
        return String(decoding: collected.value.data, as: UTF8.self)
    }
}
