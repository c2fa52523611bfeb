// swift-tools-version:6.0
import PackageDescription

/// `make apple-check` sets REWIND_APPLE_SHAPES to compile the Apple-only code paths on Linux:
/// `Rewind` and `RewindRecorder` then build as on iOS (no libwebsockets, the URLSession transport
/// and the SwiftUI binding compiled) against stand-ins with the SDK's declarations
/// (Tests/AppleStandIns; Docs/Platforms.md). Never set on Apple platforms or in a normal build.
let appleShapes = Context.environment["REWIND_APPLE_SHAPES"] != nil
let appleShapesSettings: [SwiftSetting] = appleShapes ? [.define("REWIND_APPLE_SHAPES")] : []

/// What Xcode 26 sets in a new app: `.defaultIsolation(MainActor.self)` (spelled as the compiler's
/// flag: the manifest's tools version, 6.0, predates the setting), and that with Approachable
/// Concurrency, whose upcoming features not already on in Swift 6 mode are these two.
let mainActorApp: [SwiftSetting] = [.unsafeFlags(["-default-isolation", "MainActor"])]
let approachableApp: [SwiftSetting] = mainActorApp + [.enableUpcomingFeature("InferIsolatedConformances"),
                                                      .enableUpcomingFeature("NonisolatedNonsendingByDefault")]

let package = Package(
    name: "Rewind",
    // The floor Observation needs; Linux builds everything but the Apple-only code paths.
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .library(name: "RewindJSON", targets: ["RewindJSON"]),
        .library(name: "RewindWire", targets: ["RewindWire"]),
        .library(name: "RewindWebSocket", targets: ["RewindWebSocket"]),
        .library(name: "RewindLog", targets: ["RewindLog"]),
        .library(name: "RewindReplay", targets: ["RewindReplay"]),
        .library(name: "RewindServer", targets: ["RewindServer"]),
        // For apps on TCA, ReSwift or their own store: the recorder, sinks, recordings, verifier.
        .library(name: "RewindRecorder", targets: ["RewindRecorder"]),
        // Rewind's own store and adapters; re-exports RewindRecorder.
        .library(name: "Rewind", targets: ["Rewind"]),
        // The module is RewindCLI: a module `rewind` beside `Rewind` would collide on a Mac's
        // case-insensitive disk.
        .executable(name: "rewind", targets: ["RewindCLI"]),
        .executable(name: "rewind-bench", targets: ["RewindBench"]),
        // `make fuzz` builds it with libFuzzer; `make test` replays its corpus (Tests/fuzz).
        .executable(name: "rewind-fuzz", targets: ["RewindFuzz"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // The package's one lock, condition, monotonic clock, seeded generator and ring queue
        // (package access only; apps never see it).
        .target(name: "RewindSupport"),
        .target(name: "RewindJSON"),
        .target(name: "RewindWire", dependencies: ["RewindJSON"]),
        .target(name: "RewindLog", dependencies: ["RewindSupport", "RewindJSON", "CSQLite"]),
        .target(name: "RewindReplay", dependencies: ["RewindSupport", "RewindLog", "RewindJSON"]),
        // SQLite from the SDK on Apple platforms, libsqlite3-dev on Linux: a module map that links
        // "sqlite3", with no pkg-config (which iOS builds do not have).
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        // Linux: apt's libwebsockets-dev; macOS (rewind serve): Homebrew's libwebsockets.
        .systemLibrary(
            name: "CLibWebSockets",
            pkgConfig: "libwebsockets",
            providers: [.apt(["libwebsockets-dev"]), .brew(["libwebsockets"])]
        ),
        // PostgreSQL's own client library, for the team store: Debian's libpq-dev, Homebrew's
        // libpq. Only RewindPostgres imports it, and only the CLI (rewind serve) and rewind-bench (its
        // server-postgres group) link that.
        .systemLibrary(
            name: "CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"]), .brew(["libpq"])]
        ),
        // The log's second store: the same LogReader over a libpq connection, a writer of its own.
        .target(name: "RewindPostgres", dependencies: ["RewindSupport", "RewindJSON", "RewindLog", "CLibPQ"]),
        // The one libwebsockets wrapper (server and client); no other module imports CLibWebSockets.
        .target(name: "RewindWebSocket", dependencies: ["RewindSupport", "CLibWebSockets"]),
        // rewind serve: ingest, fan-out, queries, commands, static files.
        // Its inspector page (web/) is built into it by RewindBuildInfo, so a copied binary serves it.
        .target(name: "RewindServer", dependencies: ["RewindSupport", "RewindWebSocket", "RewindWire", "RewindLog", "RewindReplay", "RewindJSON"],
                plugins: ["RewindBuildInfo"]),
        // Generates, at build time, RewindServer's EmbeddedWeb.swift (web/, byte for byte) and
        // RewindCLI's BuildCommit.swift (the checkout's commit, for `rewind --version`).
        .plugin(name: "RewindBuildInfo", capability: .buildTool()),
        .executableTarget(
            name: "RewindCLI",
            dependencies: [
                "RewindSupport",
                "RewindJSON",
                "RewindLog",
                "RewindReplay",
                "RewindServer",
                "RewindDemo",
                "RewindRecorder",
                "RewindWire",
                "RewindWebSocket",
                "RewindPostgres",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            plugins: ["RewindBuildInfo"]
        ),
        // What apps on any store import: recorder, sinks, recordings, verifier. It reaches the
        // server through URLSession on Apple platforms and libwebsockets on Linux, so
        // libwebsockets (not in the iOS SDK) is linked on Linux only.
        .target(
            name: "RewindRecorder",
            dependencies: appleShapes
                ? ["RewindSupport", "RewindJSON", "RewindLog", "RewindWire", "CRewindCrash", "FoundationNetworking", "Security"]
                : [
                    "RewindSupport", "RewindJSON", "RewindLog", "RewindWire", "CRewindCrash",
                    .target(name: "RewindWebSocket", condition: .when(platforms: [.linux])),
                ],
            swiftSettings: appleShapesSettings
        ),
        // The crash journal's signal handler (async-signal-safe, so in C) and its slot.
        .target(name: "CRewindCrash"),
        // What apps on Rewind's store import: store, effects, adapters, and RewindRecorder.
        .target(
            name: "Rewind",
            dependencies: ["RewindSupport", "RewindRecorder", "RewindJSON", "RewindLog", "RewindWire"] + (appleShapes ? ["SwiftUI"] : []),
            swiftSettings: appleShapesSettings
        ),
        // Sample apps after the seed articles; `rewind demo` runs them.
        .target(name: "RewindDemo", dependencies: ["RewindSupport", "Rewind"]),
        .executableTarget(
            name: "RewindBench",
            dependencies: ["RewindSupport", "RewindJSON", "RewindLog", "RewindReplay", "Rewind", "RewindServer", "RewindWebSocket", "RewindWire",
                           "RewindPostgres"]
        ),
        .executableTarget(name: "RewindFaultChild", dependencies: ["RewindSupport", "RewindJSON", "RewindLog"]),
        // Used only by the CLI tests: an app on RewindRecorder alone that records where its
        // environment says.
        .executableTarget(name: "RewindRecorderChild", dependencies: ["RewindRecorder"]),
        // Used only by the CLI tests: a shop app on a Store, Reducer and Effect of its own that
        // takes the inspector's commands through a StoreLink, with RewindRecorder alone.
        .executableTarget(name: "RewindStoreChild", dependencies: ["RewindRecorder", "ShopModel"]),
        // Used only by the CLI tests: the same shop on Rewind's own Store.
        .executableTarget(name: "RewindShopChild", dependencies: ["Rewind", "ShopModel"]),
        // The shop both children run (state, actions, what each action does), written once.
        .target(name: "ShopModel"),
        // Stand-ins for TCA's and ReSwift's public shapes (neither can be built here), and the two
        // apps that run Docs/Integrating.md's TCA and ReSwift wiring against them (the CLI tests
        // depend on the apps, so `swift build --build-tests` compiles the snippets).
        .target(name: "ComposableArchitecture", path: "Tests/StandIns/ComposableArchitecture"),
        .target(name: "ReSwift", path: "Tests/StandIns/ReSwift"),
        .executableTarget(name: "TCAShop", dependencies: ["ComposableArchitecture", "RewindRecorder"], path: "Tests/StandIns/TCAShop"),
        .executableTarget(name: "ReSwiftShop", dependencies: ["ReSwift", "RewindRecorder"], path: "Tests/StandIns/ReSwiftShop"),
        // README.md's counter app, and the three apps again in the settings of a project Xcode 26
        // makes (Tests/StandIns/Isolation: the same files, linked): default MainActor isolation,
        // and that with Approachable Concurrency.
        .executableTarget(name: "ReadmeCounter", dependencies: ["Rewind"], path: "Tests/StandIns/ReadmeCounter"),
        .executableTarget(name: "ReadmeCounterMainActor", dependencies: ["Rewind"], path: "Tests/StandIns/Isolation/ReadmeCounterMainActor",
                          swiftSettings: mainActorApp),
        .executableTarget(name: "ReadmeCounterApproachable", dependencies: ["Rewind"], path: "Tests/StandIns/Isolation/ReadmeCounterApproachable",
                          swiftSettings: approachableApp),
        .executableTarget(name: "TCAShopMainActor", dependencies: ["ComposableArchitecture", "RewindRecorder"], path: "Tests/StandIns/Isolation/TCAShopMainActor",
                          swiftSettings: mainActorApp),
        .executableTarget(name: "TCAShopApproachable", dependencies: ["ComposableArchitecture", "RewindRecorder"], path: "Tests/StandIns/Isolation/TCAShopApproachable",
                          swiftSettings: approachableApp),
        .executableTarget(name: "ReSwiftShopMainActor", dependencies: ["ReSwift", "RewindRecorder"], path: "Tests/StandIns/Isolation/ReSwiftShopMainActor",
                          swiftSettings: mainActorApp),
        .executableTarget(name: "ReSwiftShopApproachable", dependencies: ["ReSwift", "RewindRecorder"], path: "Tests/StandIns/Isolation/ReSwiftShopApproachable",
                          swiftSettings: approachableApp),
        .target(name: "CFuzzSupport"),
        .executableTarget(name: "RewindFuzz", dependencies: ["RewindJSON", "RewindWire", "RewindServer", "CFuzzSupport"]),
        // Test-only helpers shared by the test targets (the OwnThreads trait).
        .target(name: "RewindTestSupport", dependencies: ["RewindSupport"], path: "Tests/RewindTestSupport"),
        .testTarget(name: "RewindSupportTests", dependencies: ["RewindTestSupport", "RewindSupport"]),
        .testTarget(name: "RewindJSONTests", dependencies: ["RewindTestSupport", "RewindSupport", "RewindJSON"]),
        .testTarget(name: "RewindWireTests", dependencies: ["RewindTestSupport", "RewindSupport", "RewindWire"]),
        .testTarget(name: "RewindWebSocketTests", dependencies: ["RewindTestSupport", "RewindSupport", "RewindWebSocket"]),
        .testTarget(name: "RewindServerTests", dependencies: ["RewindTestSupport", "RewindSupport", "RewindServer", "RewindWebSocket", "RewindWire", "RewindLog", "RewindReplay", "RewindJSON"]),
        .testTarget(name: "RewindLogTests", dependencies: ["RewindTestSupport", "RewindSupport", "RewindLog"]),
        // Depending on the fault child makes `swift build --build-tests` build it beside the tests.
        .testTarget(name: "RewindReplayTests", dependencies: ["RewindTestSupport", "RewindSupport", "RewindReplay", "RewindLog", "RewindJSON", "RewindFaultChild"]),
        // An app on its own `Store` that imports RewindRecorder alone.
        .testTarget(name: "RewindRecorderTests", dependencies: ["RewindTestSupport", "RewindSupport", "RewindRecorder"]),
        // What the tests of an app recording on Rewind's store share: its model and reducer, a
        // protocol peer in the server's place, an inspector client, a session's states read back
        // (internal declarations: the tests import it @testable, as they import Rewind).
        .target(name: "RewindAppTestSupport", dependencies: ["RewindSupport", "Rewind", "RewindJSON", "RewindLog", "RewindWebSocket", "RewindWire", "RewindServer"],
                path: "Tests/RewindAppTestSupport"),
        // Rewind's store: effects, time travel, replay, branches, adapters, redaction, the README's
        // example and the regression recipe. checkout-bug.jsonl is a fixture read by path beside
        // its test (Docs/Integrating.md's recipe).
        .testTarget(
            name: "RewindTests",
            dependencies: ["RewindTestSupport", "RewindAppTestSupport", "RewindSupport", "Rewind", "RewindLog", "RewindJSON", "RewindServer", "RewindWire"],
            exclude: ["checkout-bug.jsonl"]
        ),
        // The recorder and its sinks: the log file, the server link and its transports, unacknowledged
        // events, the local log's bound, default destinations and the server's commands.
        .testTarget(name: "RewindSinkTests", dependencies: ["RewindTestSupport", "RewindAppTestSupport", "RewindSupport", "Rewind", "RewindRecorder", "RewindLog", "RewindReplay", "RewindJSON", "RewindWire", "RewindServer"]),
        // A store streaming to the real server, in process and as `rewind serve` (depending on
        // RewindCLI makes `swift build --build-tests` build the binary).
        .testTarget(name: "RewindEndToEndTests", dependencies: ["RewindTestSupport", "RewindAppTestSupport", "RewindSupport", "Rewind", "RewindRecorder", "RewindLog", "RewindJSON", "RewindWire", "RewindServer", "RewindReplay", "RewindCLI"]),
        .testTarget(name: "RewindDemoTests", dependencies: ["RewindTestSupport", "RewindSupport", "RewindDemo", "Rewind", "RewindLog"]),
        .testTarget(name: "SystemLibraryTests", dependencies: ["RewindTestSupport", "RewindSupport", "CSQLite", "CLibWebSockets"]),
        // The log's store tests, run against both stores (the SQLite file and a fresh PostgreSQL
        // database of the tests' cluster), and what only the team store has: leases, migrations,
        // its triggers, its connection errors. No CLibPQ: what reaches the server goes through
        // RewindPostgres or psql.
        .testTarget(name: "RewindPostgresTests", dependencies: ["RewindTestSupport", "RewindSupport", "RewindPostgres", "RewindLog", "RewindReplay", "RewindJSON"],
                    // A database written by an earlier release, restored with psql (read by path).
                    exclude: ["Fixtures"]),
        // Runs the built `rewind` binary; depending on it makes `swift build --build-tests` build it.
        // RewindLog lets the tests prepare logs (old sessions) and check what commands stored;
        // RewindPostgres, what they stored in a team database.
        .testTarget(name: "RewindCLITests", dependencies: ["RewindTestSupport", "RewindSupport", "RewindCLI", "RewindRecorderChild", "RewindStoreChild", "RewindShopChild", "TCAShop", "ReSwiftShop", "ReadmeCounter", "ReadmeCounterMainActor", "ReadmeCounterApproachable", "TCAShopMainActor", "TCAShopApproachable",
                                                               "ReSwiftShopMainActor", "ReSwiftShopApproachable", "Rewind", "RewindLog", "RewindJSON", "RewindReplay", "RewindWebSocket", "RewindWire", "RewindPostgres"]),
    ] + (appleShapes ? [
        // The stand-ins (SDK shapes, iOS 18 / macOS 15) and a check that runs the SwiftUI binding.
        .target(name: "SwiftUI", path: "Tests/AppleStandIns/SwiftUI"),
        .target(name: "Security", path: "Tests/AppleStandIns/Security"),
        .target(name: "FoundationNetworking", dependencies: ["Security"], path: "Tests/AppleStandIns/FoundationNetworking"),
        .executableTarget(name: "AppleShapesCheck", dependencies: ["Rewind", "SwiftUI", "RewindLog"],
                          path: "Tests/AppleStandIns/Check"),
    ] : []),
    swiftLanguageModes: [.v6]
)
