import Foundation
import Testing
import RewindTestSupport

/// The three commands of Docs/Integrating.md, "A recorded bug becomes a test", end to end on a
/// small package of its own (a cart reducer, an executable that records it, a test target):
/// record, `rewind test`, `swift test`. The test passes against the reducer that recorded the
/// session, then fails at the right seq, naming the send site and the changed path, once the
/// reducer changes. The package is built once; both `swift test` runs reuse that build.
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
                }

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
                    }
                    return .none
                }
                """,
            "Sources/record-checkout/main.swift": """
                import Checkout
                import Rewind

                let store = Store(initialState: CartState(), reducer: cartReducer)
                store.record(to: .file(CommandLine.arguments[1]), app: "Checkout")
                for action in [CartAction.add(5), .add(7), .add(3), .remove(1), .add(2), .checkout] {
                    store.send(action)
                }
                await store.finishRecording()
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

    @Test("record, rewind test, swift test: passes, then fails at the seq the changed reducer breaks")
    func threeCommands() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let package = directory.url.appendingPathComponent("Checkout")
        try Self.makePackage(at: package)
        // Kept apart from the package, so the build is found again by both `swift test` runs.
        let scratch = directory.url.appendingPathComponent("build").path
        let build = try Self.run("swift", ["build", "--build-tests", "--scratch-path", scratch], in: package)
        try #require(build.status == 0, "the sample package did not build:\n\(build.output.suffix(3_000))")
        let log = directory.url.appendingPathComponent("checkout.db").path

        // 1. The app records the session (a tester's device, a simulator, CI).
        let record = try Self.run(scratch + "/debug/record-checkout", [log], in: package)
        try #require(record.status == 0, "\(record.output)")
        // 2. The session becomes a test in the test target's folder.
        let made = try CLIRunner.run(["test", "latest", "--reducer", "cartReducer", "--module", "Checkout",
                                      "-o", package.appendingPathComponent("Tests/CheckoutTests").path, "--db", log])
        try #require(made.status == 0, "\(made.stderr)")
        #expect(made.stdout.contains("run it: swift test --filter checkoutSession1"))
        // 3. It passes against the reducer that recorded it.
        let passing = try Self.run("swift", ["test", "--scratch-path", scratch, "--filter", "checkoutSession1"], in: package)
        #expect(passing.status == 0, "\(passing.output.suffix(3_000))")
        #expect(passing.output.contains("checkoutSession1"))

        // A change to the reducer: removing an item now takes one too many off the total.
        let cart = package.appendingPathComponent("Sources/Checkout/Cart.swift")
        let source = try String(contentsOf: cart, encoding: .utf8)
        try Data(source.replacingOccurrences(of: "state.items.remove(at: index)", with: "state.items.remove(at: index) + 1").utf8).write(to: cart)
        let failing = try Self.run("swift", ["test", "--scratch-path", scratch, "--filter", "checkoutSession1"], in: package)
        #expect(failing.status != 0)
        // Seq 4 is `remove(1)`: 15 - 7 = 8 recorded, 7 replayed; main.swift line 7 sent it.
        #expect(failing.output.contains(#"state differs at seq 4 after {"remove":{"_0":1}} (sent at record_checkout/main.swift:7 "#),
                "\(failing.output.suffix(3_000))")
        #expect(failing.output.contains("/total  recorded: 8  replayed: 7"))
    }
}

/// Output collected from a pipe until it closes.
final class Collected: @unchecked Sendable {
    private let condition = NSCondition()
    private var data = Data()
    private var ended = false

    func append(_ chunk: Data) {
        condition.lock()
        data.append(chunk)
        condition.unlock()
    }

    func finish() {
        condition.lock()
        ended = true
        condition.broadcast()
        condition.unlock()
    }

    func wait() -> String {
        condition.lock()
        defer { condition.unlock() }
        while !ended { condition.wait() }
        return String(decoding: data, as: UTF8.self)
    }
}
