// swift-tools-version:6.0
import PackageDescription

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
        .library(name: "Rewind", targets: ["Rewind"]),
        .library(name: "RewindDemo", targets: ["RewindDemo"]),
        .executable(name: "rewind", targets: ["rewind"]),
        .executable(name: "rewind-bench", targets: ["RewindBench"]),
        // Used only by the fault tests: appends events until it is killed.
        .executable(name: "rewind-fault-child", targets: ["RewindFaultChild"]),
        // `make fuzz` builds it with libFuzzer; `make test` replays its corpus (Tests/fuzz).
        .executable(name: "rewind-fuzz", targets: ["RewindFuzz"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        .target(name: "RewindJSON"),
        .target(name: "RewindWire", dependencies: ["RewindJSON"]),
        .target(name: "RewindLog", dependencies: ["RewindJSON", "CSQLite"]),
        .target(name: "RewindReplay", dependencies: ["RewindLog", "RewindJSON"]),
        // SQLite from the SDK on Apple platforms, libsqlite3-dev on Linux: a module map that links
        // "sqlite3", with no pkg-config (which iOS builds do not have).
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(
            name: "CLibWebSockets",
            pkgConfig: "libwebsockets",
            providers: [.apt(["libwebsockets-dev"])]
        ),
        // The one libwebsockets wrapper (server and client); no other module imports CLibWebSockets.
        .target(name: "RewindWebSocket", dependencies: ["CLibWebSockets"]),
        // rewind serve: ingest, fan-out, queries, commands, static files.
        .target(name: "RewindServer", dependencies: ["RewindWebSocket", "RewindWire", "RewindLog", "RewindReplay", "RewindJSON"]),
        .executableTarget(
            name: "rewind",
            dependencies: [
                "RewindJSON",
                "RewindLog",
                "RewindReplay",
                "RewindServer",
                "RewindDemo",
                "RewindWire",
                "RewindWebSocket",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // What apps import: store, effects, recorder, sinks, replay, adapters.
        .target(name: "Rewind", dependencies: ["RewindJSON", "RewindLog", "RewindWire", "RewindWebSocket"]),
        // Sample apps after the seed articles; `rewind demo` runs them.
        .target(name: "RewindDemo", dependencies: ["Rewind"]),
        .executableTarget(
            name: "RewindBench",
            dependencies: ["RewindJSON", "RewindLog", "RewindReplay", "Rewind", "RewindServer", "RewindWebSocket", "RewindWire"]
        ),
        .executableTarget(name: "RewindFaultChild", dependencies: ["RewindJSON", "RewindLog"]),
        .target(name: "CFuzzSupport"),
        .executableTarget(name: "RewindFuzz", dependencies: ["RewindJSON", "RewindServer", "CFuzzSupport"]),
        .testTarget(name: "RewindJSONTests", dependencies: ["RewindJSON"]),
        .testTarget(name: "RewindWireTests", dependencies: ["RewindWire"]),
        .testTarget(name: "RewindWebSocketTests", dependencies: ["RewindWebSocket"]),
        .testTarget(name: "RewindServerTests", dependencies: ["RewindServer", "RewindWebSocket", "RewindWire", "RewindLog", "RewindReplay", "RewindJSON"]),
        .testTarget(name: "RewindLogTests", dependencies: ["RewindLog"]),
        // Depending on the fault child makes `swift build --build-tests` build it beside the tests.
        .testTarget(name: "RewindReplayTests", dependencies: ["RewindReplay", "RewindLog", "RewindJSON", "RewindFaultChild"]),
        .testTarget(name: "RewindTests", dependencies: ["Rewind", "RewindLog", "RewindJSON", "RewindWire", "RewindWebSocket", "RewindServer", "RewindReplay", "rewind"]),
        .testTarget(name: "RewindDemoTests", dependencies: ["RewindDemo", "Rewind", "RewindLog"]),
        .testTarget(name: "SystemLibraryTests", dependencies: ["CSQLite", "CLibWebSockets"]),
        // Runs the built `rewind` binary; depending on it makes `swift build --build-tests` build it.
        // RewindLog lets the tests prepare logs (old sessions) and check what commands stored.
        .testTarget(name: "RewindCLITests", dependencies: ["rewind", "Rewind", "RewindLog", "RewindJSON", "RewindReplay", "RewindWebSocket", "RewindWire"]),
    ],
    swiftLanguageModes: [.v6]
)
